"""Streak reminders, the player's side: turning them on from a browser's push subscription,
off again (from the settings, or from the notification), and what a page offers.

A reminder is offered once a player has finished their second daily (never on a first visit),
and only where the server sends them: its VAPID key and contact are set
(``DAILY_VAPID_PRIVATE_KEY``, ``DAILY_VAPID_SUBJECT``; :func:`off_reason` says what is
missing). What is kept: the subscription the browser made (where the push service takes the
messages, and the keys they are encrypted to), the time and time zone, the language. It
expires ``DAILY_REMINDER_DAYS`` after the browser last confirmed it, and goes with the player.
The sender is :mod:`daily.service.remind`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from babel.dates import format_timedelta
from babel.support import NullTranslations, Translations
from cryptography.hazmat.primitives import serialization
from itsdangerous import BadSignature, Signer
from py_vapid import Vapid02

from daily.core import push
from daily.core.config import Config
from daily.core.errors import BadInputError, NotFoundError
from daily.store import subscriptions
from daily.store.subscriptions import Kept

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The finished dailies after which the result screen offers a reminder.
OFFER_AFTER = 2
#: The translations of the notification's words (the pages' catalogues).
TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"
_OFF_SALT = "daily.reminder-off"


@dataclass(frozen=True, slots=True)
class Reminder:
    """A player's reminder as a page shows it: whether the server sends them (*available*),
    whether it is *on*, at what time and in which zone, and whether the result screen offers
    it (*offer*: available, off, and the player has finished :data:`OFFER_AFTER` dailies)."""

    available: bool
    on: bool = False
    at: str = push.DEFAULT_AT.strftime("%H:%M")
    zone: str | None = None
    offer: bool = False


def off_reason(config: Config) -> str | None:
    """Why this server sends no reminders (one line for the start-up log), or None."""
    if not config.vapid_private_key:
        return (
            "streak reminders are off: DAILY_VAPID_PRIVATE_KEY is not set (`daily keys` makes one)"
        )
    if not config.vapid_subject:
        return "streak reminders are off: DAILY_VAPID_SUBJECT (a mailto: contact) is not set"
    try:
        public_key_of(config.vapid_private_key)
    except ValueError:
        return "streak reminders are off: DAILY_VAPID_PRIVATE_KEY is not a key `daily keys` made"
    return None


def vapid_of(config: Config) -> Vapid02:
    """The VAPID key of the configuration (reminders on: see :func:`off_reason`)."""
    return _vapid(config.vapid_private_key or "")


@functools.cache
def _vapid(private: str) -> Vapid02:
    return Vapid02.from_raw(private.encode())


def public_key(config: Config) -> str | None:
    """The application server key a browser subscribes with (base64url), or None when off."""
    return None if off_reason(config) else public_key_of(config.vapid_private_key or "")


def new_keys() -> tuple[str, str]:
    """A new VAPID key pair as (private, public), base64url: what ``daily keys`` prints."""
    vapid = Vapid02()
    vapid.generate_keys()
    number = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    private = base64.urlsafe_b64encode(number).decode().rstrip("=")
    return private, public_key_of(private)


def public_key_of(private: str) -> str:
    """The public key of the VAPID *private* key, base64url."""
    point = _vapid(private).public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(point).decode().rstrip("=")


def status_of(client: redis.Redis, config: Config, player_id: str | None) -> Reminder:
    """*player_id*'s reminder (none: a page before the first game)."""
    available = off_reason(config) is None
    if not available or player_id is None:
        return Reminder(available)
    kept = subscriptions.get(client, player_id)
    if kept is not None:
        return Reminder(True, True, kept.at, kept.zone)
    return Reminder(True, offer=subscriptions.finished_dailies(client, player_id) >= OFFER_AFTER)


def turn_on(
    client: redis.Redis,
    config: Config,
    player_id: str,
    subscription: push.Subscription,
    at: str,
    zone: str,
    lang: str,
) -> Reminder:
    """Keeps *subscription* as *player_id*'s reminder at *at* (``HH:MM``) in *zone*, spoken in
    *lang*; again from the same browser, it renews its lifetime."""
    if off_reason(config):
        raise NotFoundError("this server sends no reminders")
    when, where = push.parse_at(at), push.parse_zone(zone)
    kept = Kept(
        subscription.endpoint,
        subscription.p256dh,
        subscription.auth,
        when.strftime("%H:%M"),
        str(where),
        lang,
    )
    due = push.next_due(config.now(), when, where)
    ttl = int(config.reminder_lifetime.total_seconds())
    subscriptions.save(client, player_id, kept, due.timestamp(), ttl)
    return Reminder(True, True, kept.at, kept.zone)


def turn_off(client: redis.Redis, config: Config, player_id: str) -> Reminder:
    """Turns *player_id*'s reminder off (again: nothing changes)."""
    subscriptions.remove(client, player_id)
    return status_of(client, config, player_id)


def off_token(config: Config, player_id: str, endpoint: str) -> str:
    """The token a notification carries to turn its reminder off with one tap (signed: it
    names the player and the subscription, and turns off nothing else)."""
    return _off_signer(tuple(config.signing_keys)).sign(f"{player_id}.{_digest(endpoint)}").decode()


def _digest(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def turn_off_by_token(client: redis.Redis, config: Config, token: str) -> None:
    """Turns off the reminder a notification's *token* names, if it is still the one on."""
    try:
        player_id, digest = (
            _off_signer(tuple(config.signing_keys)).unsign(token).decode().split(".")
        )
    except (BadSignature, ValueError):
        raise BadInputError("this link to turn reminders off is not valid") from None
    kept = subscriptions.get(client, player_id)
    if kept is not None and _digest(kept.endpoint) == digest:
        subscriptions.remove(client, player_id)


class _KeptKeySigner(Signer):
    """A signer that derives its key from the secret once, not at every signature."""

    @functools.cache  # noqa: B019 (one signer a set of keys, kept as long as the process)
    def derive_key(self, secret_key: str | bytes | None = None) -> bytes:
        """The key the signatures use, derived from *secret_key* (the newest: None)."""
        return super().derive_key(secret_key)


@functools.cache
def _off_signer(signing_keys: tuple[str, ...]) -> Signer:
    # One signature a reminder (100,000 a minute at the worst): a bare HMAC, no JSON to pack.
    return _KeptKeySigner(list(reversed(signing_keys)), salt=_OFF_SALT)


def forget_player(client: redis.Redis, player_id: str) -> None:
    """Takes a deleted player's reminder off (their keys go with them; this is the schedule)."""
    subscriptions.remove(client, player_id)


# -- the notification's words ---------------------------------------------------------------


@functools.cache
def catalogue(lang: str) -> NullTranslations:
    """The translations of *lang* (English: the messages as written)."""
    return Translations.load(TRANSLATIONS, [lang])


@functools.lru_cache(maxsize=4096)
def words(lang: str, run: int, left: timedelta) -> tuple[str, str, str]:
    """The notification's title, text and "turn off" label in *lang*: the day of the streak at
    stake (*run*: the days played up to yesterday) and the time *left* until the day closes.

    >>> words("en", 11, timedelta(hours=5))[1]
    "Day 12 of your streak: today's puzzle closes in 5 hours."
    >>> words("en", 0, timedelta(minutes=40))[1]
    "Today's puzzle closes in 40 minutes: play it to start a streak."
    """
    found = catalogue(lang)
    span = format_timedelta(left, granularity="minute", threshold=0.9, locale=lang)
    if run:
        text = found.gettext("Day %(day)s of your streak: today's puzzle closes in %(left)s.")
        text %= {"day": run + 1, "left": span}
    else:
        text = found.gettext("Today's puzzle closes in %(left)s: play it to start a streak.")
        text %= {"left": span}
    return found.gettext("Daily Maxi Yatzy"), text, found.gettext("Turn off reminders")
