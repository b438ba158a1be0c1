"""Web Push subscriptions as the service accepts them, and when a daily reminder falls due.

Pure: no I/O, no clock. A subscription's endpoint is where the server will post, so it is
checked against the push services the operator allows (``DAILY_PUSH_SERVICES``: the
browsers' own by default) and its size is bounded: a player cannot make the server post to an
address of their choice. Its keys are checked to be a P-256 point and a 16-byte secret, so a
reminder can always be encrypted to them (RFC 8291).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec

from daily.core.errors import BadInputError, ConfigError

#: The longest endpoint accepted (the browsers' are 150 to 500 characters).
MAX_ENDPOINT = 1024
#: The longest time zone name accepted (the IANA names are at most 32 characters).
MAX_ZONE = 64
#: When a reminder comes unless the player picks another time: 19:00 in their time zone.
DEFAULT_AT = time(19, 0)
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+=*")
#: What an endpoint may hold: printable ASCII, no space (a URL as the browsers make them).
_URL_TEXT = re.compile(r"[!-~]+")
_ORIGIN = re.compile(r"(https?)://(\*\.)?([a-z0-9.-]+)(?::(\d{1,5}))?/?")


@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription: where to post, and the keys a message is encrypted to."""

    endpoint: str
    p256dh: str  # the browser's P-256 public key, base64url (65 bytes, uncompressed)
    auth: str  # the browser's authentication secret, base64url (16 bytes)


def parse_origins(text: str | tuple[str, ...]) -> tuple[str, ...]:
    """Reads ``DAILY_PUSH_SERVICES``: origins separated by commas, a host may start ``*.``.

    >>> parse_origins("https://*.push.apple.com, http://127.0.0.1:8765/")
    ('https://*.push.apple.com', 'http://127.0.0.1:8765')
    >>> parse_origins("push.example")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.ConfigError: DAILY_PUSH_SERVICES names origins like https://push.example...
    """
    found = text if isinstance(text, tuple) else tuple(p.strip() for p in text.split(","))
    for origin in filter(None, found):
        if not _ORIGIN.fullmatch(origin):
            raise ConfigError(
                "DAILY_PUSH_SERVICES names origins like https://push.example "
                f"or https://*.push.example, got {origin!r}"
            )
    return tuple(origin.rstrip("/") for origin in found if origin)


def is_allowed(endpoint: str, services: Sequence[str]) -> bool:
    """Whether *endpoint* is a URL on one of the push *services* (origins, ``*.`` a subdomain):
    the same scheme, host and port, with no user, password or fragment.

    >>> services = ("https://fcm.googleapis.com", "https://*.push.apple.com")
    >>> is_allowed("https://fcm.googleapis.com/fcm/send/abc", services)
    True
    >>> is_allowed("https://web.push.apple.com/QG9k", services)
    True
    >>> is_allowed("https://fcm.googleapis.com.evil.example/x", services)
    False
    >>> is_allowed("https://fcm.googleapis.com@127.0.0.1/x", services)
    False
    >>> is_allowed("http://fcm.googleapis.com/x", services), is_allowed("https://push.apple.com/x", services)
    (False, False)
    """  # noqa: E501
    try:
        url = urlsplit(endpoint)
        port = url.port
    except ValueError:
        return False
    if url.username is not None or url.password is not None or url.fragment or not url.hostname:
        return False
    host = url.hostname
    for origin in services:
        found = _ORIGIN.fullmatch(origin)
        if found is None or found[1] != url.scheme:
            continue
        wanted_port = int(found[4]) if found[4] else None
        if port != wanted_port:
            continue
        if (
            (host.endswith("." + found[3]) and len(host) > len(found[3]) + 1)
            if found[2]
            else (host == found[3])
        ):
            return True
    return False


def _decoded(text: object, name: str, size: int) -> bytes:
    if not isinstance(text, str) or not 0 < len(text) <= 2 * size or not _BASE64URL.fullmatch(text):
        raise BadInputError(f"keys.{name} must be {size} bytes in base64url")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise BadInputError(f"keys.{name} is not base64url") from None
    if len(raw) != size:
        raise BadInputError(f"keys.{name} must be {size} bytes, got {len(raw)}")
    return raw


def parse_subscription(
    endpoint: object, p256dh: object, auth: object, services: Sequence[str]
) -> Subscription:
    """Checks a browser's subscription (its ``toJSON()``: endpoint and keys) before it is kept:
    an endpoint on an allowed push service, at most :data:`MAX_ENDPOINT` characters; a
    P-256 public key and a 16-byte secret."""
    if not isinstance(endpoint, str) or not endpoint:
        raise BadInputError("endpoint must be a URL")
    if len(endpoint) > MAX_ENDPOINT:
        raise BadInputError(f"endpoint must be at most {MAX_ENDPOINT} characters")
    if not _URL_TEXT.fullmatch(endpoint) or not is_allowed(endpoint, services):
        raise BadInputError("endpoint is not on a push service this server sends to")
    point = _decoded(p256dh, "p256dh", 65)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise BadInputError("keys.p256dh is not a P-256 public key") from None
    _decoded(auth, "auth", 16)
    return Subscription(endpoint, str(p256dh), str(auth))


def parse_at(text: object) -> time:
    """Reads the time a reminder comes at, ``HH:MM`` on a 24-hour clock.

    >>> parse_at("19:00"), parse_at("7:05")
    (datetime.time(19, 0), datetime.time(7, 5))
    >>> parse_at("25:00")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.BadInputError: at must be a time of day as HH:MM, got '25:00'
    """
    found = re.fullmatch(r"(\d{1,2}):(\d{2})", text) if isinstance(text, str) else None
    if found is None or int(found[1]) > 23 or int(found[2]) > 59:
        raise BadInputError(f"at must be a time of day as HH:MM, got {text!r}")
    return time(int(found[1]), int(found[2]))


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def parse_zone(name: object) -> zoneinfo.ZoneInfo:
    """Reads the player's time zone, an IANA name as the browser gives it.

    >>> parse_zone("Europe/Copenhagen")
    zoneinfo.ZoneInfo(key='Europe/Copenhagen')
    >>> parse_zone("../etc/passwd")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.BadInputError: zone must be a time zone name such as Europe/Copenhagen, ...
    """
    if not isinstance(name, str) or len(name) > MAX_ZONE or name not in _zones():
        raise BadInputError(
            f"zone must be a time zone name such as Europe/Copenhagen, got {name!r}"[:160]
        )
    return zoneinfo.ZoneInfo(name)


def next_due(after: datetime, at: time, zone: tzinfo) -> datetime:
    """The first moment strictly after *after* when the clock in *zone* reads *at*, in UTC;
    on a day whose clocks skip that time (spring forward), as much later as they skip.

    >>> from zoneinfo import ZoneInfo
    >>> cph = ZoneInfo("Europe/Copenhagen")
    >>> next_due(datetime(2026, 12, 3, 12, tzinfo=UTC), time(19), cph).isoformat()
    '2026-12-03T18:00:00+00:00'
    >>> next_due(datetime(2026, 12, 3, 18, tzinfo=UTC), time(19), cph).isoformat()
    '2026-12-04T18:00:00+00:00'
    >>> next_due(datetime(2026, 3, 28, 12, tzinfo=UTC), time(2, 30), cph).isoformat()
    '2026-03-29T01:30:00+00:00'
    """
    local = after.astimezone(zone)
    for days in range(3):
        day = local.date() + timedelta(days=days)
        moment = datetime.combine(day, at, tzinfo=zone).astimezone(UTC)
        if moment > after:
            return moment
    raise AssertionError("a time of day comes within three days")  # pragma: no cover
