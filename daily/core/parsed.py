"""The settings' parsed types: each a type with the parser that reads it from its variable's
text (``Days`` from ``"1.5"``, ``Proxies`` from ``"10.0.0.2, 10.1.0.0/16"``), so the settings
model (:mod:`daily.core.environment`) declares a setting once, by its type.

A parser also takes the value already parsed (a test hands in a ``timedelta`` or a tuple). A
bad value raises ``ValueError`` phrased to follow its variable's name, which the model puts
before it (``DAILY_CODE_DAYS must be a positive number of days, got '0'``), or
:class:`ConfigError`, whose message names the variable already.
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import PlainValidator

from daily.core.errors import ConfigError
from daily.core.push import parse_origins

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def days(value: object) -> timedelta:
    """A lifetime in days (a number, or a timedelta given by a test); positive.

    >>> days("1.5")
    datetime.timedelta(days=1, seconds=43200)
    >>> days("0")
    Traceback (most recent call last):
    ...
    ValueError: must be a positive number of days, got '0'
    """
    if isinstance(value, timedelta):
        count = value / timedelta(days=1)
    else:
        try:
            count = float(str(value))
        except ValueError:
            raise ValueError(f"must be a number of days, got {value!r}") from None
    if not 0 < count < 100_000:
        raise ValueError(f"must be a positive number of days, got {value!r}")
    return timedelta(days=count)


def whole_days(value: object) -> int:
    """A positive whole number of days (checked as :func:`days` checks a lifetime).

    >>> whole_days("30"), whole_days(7)
    (30, 7)
    >>> whole_days("1.5")
    Traceback (most recent call last):
    ...
    ValueError: must be a whole number of days, got '1.5'
    """
    found = days(value)
    if found % timedelta(days=1):
        raise ValueError(f"must be a whole number of days, got {value!r}")
    return found.days


def count(value: object) -> int:
    """A positive whole number (of processes, of threads).

    >>> count("8"), count(3)
    (8, 3)
    >>> count("two")
    Traceback (most recent call last):
    ...
    ValueError: must be a positive whole number, got 'two'
    """
    # isascii(): str.isdigit() also accepts "²", which int() refuses.
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise ValueError(f"must be a positive whole number, got {value!r}")
    return int(text)


def zone(name: object) -> tzinfo:
    """A time zone by its IANA name (or one already made).

    >>> zone("Europe/Oslo")
    zoneinfo.ZoneInfo(key='Europe/Oslo')
    >>> zone("Mars/Olympus")
    Traceback (most recent call last):
    ...
    ValueError: is not a time zone (an IANA name like Europe/Copenhagen), got 'Mars/Olympus'
    """
    if isinstance(name, tzinfo):
        return name
    try:
        return ZoneInfo(str(name))
    except (ValueError, KeyError):
        raise ValueError(
            f"is not a time zone (an IANA name like Europe/Copenhagen), got {name!r}"
        ) from None


def parse_timestamp(text: str) -> datetime:
    """Reads an ISO timestamp; a naive one is taken as UTC.

    >>> parse_timestamp("2026-12-01T09:30:00").isoformat()
    '2026-12-01T09:30:00+00:00'
    """
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"not an ISO timestamp: {text!r}") from None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def timestamp(value: object) -> datetime:
    """:func:`parse_timestamp`, or a datetime given by a test (naive: UTC).

    >>> timestamp("soon")
    Traceback (most recent call last):
    ...
    ValueError: is not an ISO timestamp (2026-12-24T09:00:00), got 'soon'
    """
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return parse_timestamp(str(value))
    except ConfigError:
        raise ValueError(f"is not an ISO timestamp (2026-12-24T09:00:00), got {value!r}") from None


def parse_secret_keys(text: str) -> tuple[str, ...]:
    """Splits SECRET_KEY into its keys, newest first: a rotation prepends ``new,``.

    >>> parse_secret_keys("new-key, old-key")
    ('new-key', 'old-key')
    """
    return tuple(key.strip() for key in text.split(",") if key.strip())


def parse_specs(text: object) -> tuple[str, ...]:
    """Splits ``DAILY_TABLES`` into its specs (read by :mod:`daily.strategy.specs`); a tuple
    or list given by a test is taken as it is.

    >>> parse_specs("maxi, yatzy:forced=true"), parse_specs(""), parse_specs(["yacht"])
    (('maxi', 'yatzy:forced=true'), (), ('yacht',))
    """
    if isinstance(text, list | tuple):
        return tuple(str(spec) for spec in text)
    return tuple(spec.strip() for spec in str(text).split(",") if spec.strip())


def parse_proxies(text: object) -> tuple[Network, ...]:
    """Reads ``DAILY_TRUSTED_PROXIES``: addresses or CIDR blocks, separated by commas.

    >>> parse_proxies("10.0.0.2, 192.168.0.0/16, ::1")
    (IPv4Network('10.0.0.2/32'), IPv4Network('192.168.0.0/16'), IPv6Network('::1/128'))
    >>> parse_proxies("1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.ConfigError: DAILY_TRUSTED_PROXIES names the proxies by address or CIDR ...
    """
    if isinstance(text, tuple):
        return text
    found = []
    for item in filter(None, (part.strip() for part in str(text).split(","))):
        try:
            if item.isdigit():  # the old count of proxies: it trusted any peer
                raise ValueError(item)
            found.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ConfigError(
                "DAILY_TRUSTED_PROXIES names the proxies by address or CIDR "
                f"(10.0.0.2, 10.0.0.0/8), got {item!r}"
            ) from None
    return tuple(found)


def parse_networks(text: object) -> tuple[tuple[int, int], ...]:
    """Reads ``DAILY_NETWORKS``: ``ipv4/24, ipv6/56, ipv6/48``, each an IP version and the
    prefix length of the networks whose clients share the network budgets.

    >>> parse_networks("ipv4/24, ipv6/48")
    ((4, 24), (6, 48))
    >>> parse_networks("/24")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.ConfigError: DAILY_NETWORKS names networks as ipv4/24 or ipv6/56, ...
    """
    if isinstance(text, tuple):
        return text
    found = []
    for item in filter(None, (part.strip().lower() for part in str(text).split(","))):
        version, _, length = item.partition("/")
        top = {"ipv4": 32, "ipv6": 128}.get(version)
        if top is None or not length.isdigit() or not 0 < int(length) <= top:
            raise ConfigError(
                f"DAILY_NETWORKS names networks as ipv4/24 or ipv6/56, got {item!r}"
            ) from None
        found.append((int(version[3]), int(length)))
    return tuple(found)


def secret_keys(value: object) -> tuple[str, ...]:
    """:func:`parse_secret_keys`, or the keys given as a tuple."""
    return tuple(value) if isinstance(value, tuple) else parse_secret_keys(str(value))


def origins(value: object) -> tuple[str, ...]:
    """:func:`daily.core.push.parse_origins` of the text, or the origins given as a tuple."""
    return parse_origins(value if isinstance(value, tuple) else str(value))


#: A lifetime in days: ``DAILY_CODE_DAYS=1.5``.
Days = Annotated[timedelta, PlainValidator(days)]
#: A whole number of days: ``DAILY_ARCHIVE_DAYS=30``.
WholeDays = Annotated[int, PlainValidator(whole_days)]
#: A positive whole number: ``DAILY_THREADS=32``.
Count = Annotated[int, PlainValidator(count)]
#: A time zone by its IANA name: ``DAILY_TZ=Europe/Copenhagen``.
Zone = Annotated[tzinfo, PlainValidator(zone)]
#: An ISO timestamp, UTC unless it says: ``DAILY_NOW=2026-12-24T09:00:00``.
Timestamp = Annotated[datetime, PlainValidator(timestamp)]
#: Keys separated by commas, newest first: ``SECRET_KEY=new,old``.
SecretKeys = Annotated[tuple[str, ...], PlainValidator(secret_keys)]
#: Table specs separated by commas: ``DAILY_TABLES=maxi,yatzy:forced=true``.
Specs = Annotated[tuple[str, ...], PlainValidator(parse_specs)]
#: Proxies by address or CIDR: ``DAILY_TRUSTED_PROXIES=10.0.0.2, 10.1.0.0/16``.
Proxies = Annotated[tuple[Network, ...], PlainValidator(parse_proxies)]
#: Networks by IP version and prefix length: ``DAILY_NETWORKS=ipv4/24, ipv6/56``.
Networks = Annotated[tuple[tuple[int, int], ...], PlainValidator(parse_networks)]
#: Origins separated by commas, ``*.`` for any subdomain: ``DAILY_PUSH_SERVICES``.
Origins = Annotated[tuple[str, ...], PlainValidator(origins)]
