"""Seeds, commitments and the versioned dice stream (v1).

Everything here is pure: the secret, the seed and the date come in as
arguments, so the same inputs always give the same dice. The README section
"The dice stream" specifies the algorithm precisely enough for an independent
verifier; tests/dice/ pins its test vectors.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from daily.rules import Dice, DiceSource, Hold

#: The version tag mixed into every dice message; a new algorithm gets a new tag.
STREAM_VERSION = "v1"
#: Day 1 of the daily puzzle.
EPOCH = date(2026, 1, 1)
#: Bytes at or above this are skipped: 252 = 6 * 42 keeps every face equally likely.
_LIMIT = 252
#: A daily game may still be finished this long after its day closed; the seed is
#: revealed only once this grace is over, so a late game never meets a known seed.
REVEAL_GRACE = timedelta(hours=1)


def daily_seed(secret: str, day: date) -> bytes:
    """The seed of *day*'s puzzle: HMAC-SHA256(secret, ``"daily:v1:YYYY-MM-DD"``).

    >>> daily_seed("s", date(2026, 12, 1)).hex()[:16]
    '264b7adbd8b63dc2'
    """
    return _hmac(secret.encode(), f"daily:v1:{day.isoformat()}")


def friend_seed(secret: str, code: str) -> bytes:
    """The seed of friend code *code* (normalized): HMAC-SHA256(secret, ``"friend:v1:CODE"``)."""
    return _hmac(secret.encode(), f"friend:v1:{code}")


def commitment(seed: bytes) -> str:
    """The public commitment to *seed*: its SHA-256 in hex.

    >>> commitment(bytes(32))[:16]
    '66687aadf862bd77'
    """
    return hashlib.sha256(seed).hexdigest()


def holds_str(holds: tuple[Hold, ...]) -> str:
    """Writes the holds of a turn as they enter the dice message.

    >>> holds_str(())
    ''
    >>> holds_str(((), (0, 3)))
    '[][0,3]'
    """
    return "".join("[" + ",".join(str(p) for p in sorted(hold)) + "]" for hold in holds)


def faces(seed: bytes, turn: int, holds: tuple[Hold, ...], count: int) -> Dice:
    """The *count* fresh dice for a roll of *turn* after *holds* (the v1 stream).

    >>> faces(bytes(32), 1, (), 6)
    (3, 2, 3, 4, 1, 1)
    """
    prefix = f"{STREAM_VERSION}|{turn}|{holds_str(holds)}|"
    dice: list[int] = []
    block = 0
    while len(dice) < count:
        for byte in _hmac(seed, f"{prefix}{block}"):
            if byte < _LIMIT:
                dice.append(byte % 6 + 1)
                if len(dice) == count:
                    break
        block += 1
    return tuple(dice)


def stream(seed: bytes) -> DiceSource:
    """The dice source of *seed*, to plug into :func:`daily.rules.new_game`."""

    def source(turn: int, holds: tuple[Hold, ...], count: int) -> Dice:
        return faces(seed, turn, holds, count)

    return source


@dataclass(frozen=True, slots=True)
class Day:
    """One daily puzzle's calendar facts in the reference time zone."""

    date: date
    zone: tzinfo

    @property
    def number(self) -> int:
        """The puzzle number: 1 on 2026-01-01."""
        return (self.date - EPOCH).days + 1

    @property
    def opens_at(self) -> datetime:
        """Midnight at the start of the day."""
        return datetime.combine(self.date, time(), self.zone)

    @property
    def closes_at(self) -> datetime:
        """Midnight at the end of the day (the next day's start)."""
        return datetime.combine(self.date + timedelta(days=1), time(), self.zone)

    @property
    def reveals_at(self) -> datetime:
        """When the seed is published and the day's unfinished games stop."""
        return self.closes_at + REVEAL_GRACE

    @property
    def advent_door(self) -> int | None:
        """The advent calendar door (1 to 24 in December), else None."""
        return self.date.day if self.date.month == 12 and self.date.day <= 24 else None

    def is_open(self, now: datetime) -> bool:
        """Whether the puzzle exists yet at *now* (its day has started)."""
        return now >= self.opens_at and self.date >= EPOCH

    def is_revealed(self, now: datetime) -> bool:
        """Whether the seed may be published at *now*."""
        return now >= self.reveals_at


def today(now: datetime, zone: tzinfo) -> Day:
    """The puzzle day that *now* falls on in *zone*."""
    return Day(now.astimezone(zone).date(), zone)


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.digest(key, message.encode(), "sha256")


def seed_from_ref(ref: str, secret: str) -> bytes:
    """The seed a game's stored seed reference names.

    A reference is ``daily:YYYY-MM-DD``, ``friend:CODE`` or ``hex:<64 hex digits>``
    (a random seed kept with the game).

    >>> seed_from_ref("hex:" + "00" * 32, "s") == bytes(32)
    True
    """
    kind, _, value = ref.partition(":")
    if kind == "daily":
        return daily_seed(secret, date.fromisoformat(value))
    if kind == "friend":
        return friend_seed(secret, value)
    if kind == "hex":
        return bytes.fromhex(value)
    raise ValueError(f"not a seed reference: {ref!r}")
