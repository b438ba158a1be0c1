"""Seeds, commitments and the versioned dice streams (v1, and v2 keyed on the whole path).

Everything here is pure: the secret, the seed and the date come in as
arguments, so the same inputs always give the same dice. docs/dice.md
specifies the algorithm precisely enough for an independent verifier;
tests/dice/ pins its test vectors.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any, Literal, get_args

from daily.core.rules import Dice, DiceSource, Hold, Move, PathSource, Roll

#: The version tag of the v1 dice messages (every first roll, and v1's re-rolls).
STREAM_VERSION = "v1"
#: A dice stream's version, as a game record names it (its ``stream`` field; none means v1).
Version = Literal["v1", "v2"]
#: Every dice stream a game record may name.
VERSIONS: tuple[Version, ...] = get_args(Version)
#: The stream of every new game.
CURRENT: Version = "v2"
#: Day 1 of the daily puzzle.
EPOCH = date(2026, 1, 1)
#: Bytes at or above this are skipped: 252 = 6 * 42 keeps every face equally likely.
_LIMIT = 252
_FACES = bytes(b % 6 + 1 for b in range(_LIMIT)) + bytes(256 - _LIMIT)
_SKIPPED = bytes(range(_LIMIT, 256))
#: HMAC's key pads (RFC 2104) as translation tables: each byte XOR 0x36, XOR 0x5C.
_IPAD = bytes(b ^ 0x36 for b in range(256))
_OPAD = bytes(b ^ 0x5C for b in range(256))
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


@lru_cache(maxsize=4096)
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
    return _faces(_keyed(seed), turn, holds, count)


def version_of(text: str) -> Version:
    """*text* as a stream :data:`Version`, or raises ValueError (a record read back names one).

    >>> version_of("v2")
    'v2'
    """
    for version in VERSIONS:
        if version == text:
            return version
    raise ValueError(f"unknown dice stream: {text!r} (known: {', '.join(VERSIONS)})")


def stream(seed: bytes, version: str = "v1") -> DiceSource:
    """The dice source of *seed* in stream *version*, to plug into
    :func:`daily.core.rules.new_game`; raises ValueError for an unknown version.

    >>> from daily.core.rules import Roll, find_ruleset, new_game, apply
    >>> rules = find_ruleset("maxi")
    >>> v1, v2 = (new_game(rules, stream(bytes(32), v)) for v in VERSIONS)
    >>> v1.dice == v2.dice  # every first roll is the same in both
    True
    >>> apply(v1, Roll((0, 3))).dice, apply(v2, Roll((0, 3))).dice
    ((3, 5, 6, 4, 1, 2), (3, 2, 5, 4, 3, 2))
    """
    if version == "v2":
        return PathStream(seed)
    if version != "v1":
        raise ValueError(f"unknown dice stream: {version!r} (known: {', '.join(VERSIONS)})")
    mac = _keyed(seed)

    def source(turn: int, holds: tuple[Hold, ...], count: int) -> Dice:
        return _faces(mac, turn, holds, count)

    return source


def move_text(move: Move) -> bytes:
    """A move as it enters the v2 path: a hold as ``[0,3]``, a score as ``row;``.

    >>> from daily.core.rules import Score
    >>> move_text(Roll((3, 0))), move_text(Roll(())), move_text(Score("ones"))
    (b'[0,3]', b'[]', b'ones;')
    """
    if type(move) is Roll:
        return _hold_text(move.hold)
    return _row_text(move.row)  # type: ignore[union-attr]


# Keyed on the hold or the row, not the move: a tuple's hash is C, a dataclass's is not.
@lru_cache(maxsize=1024)
def _hold_text(hold: Hold) -> bytes:
    return holds_str((hold,)).encode()


@lru_cache(maxsize=1024)
def _row_text(row: str) -> bytes:
    return f"{row};".encode()


class PathStream(PathSource):
    """The v2 stream of a seed: first rolls as in v1, re-rolls keyed on the whole path.

    A re-roll's block *c* is HMAC(seed, ``"v2|" + path + "|" + c``), the path being the
    text of every move so far (:func:`move_text`), the re-roll's own hold last. The running
    key is the HMAC's inner hash fed with ``"v2|"`` and the path: a move costs one copy
    and a short update, a re-roll one HMAC finish, never a re-hash of the path.
    """

    __slots__ = ("_first", "_outer", "_start")

    def __init__(self, seed: bytes) -> None:
        inner, self._outer = _pads(seed)
        self._first = _mac(inner, self._outer)
        start = inner.copy()
        start.update(b"v2|")
        self._start = start

    def __call__(self, turn: int, holds: tuple[Hold, ...], count: int) -> Dice:
        """A first roll: the v1 dice of *turn* with no holds, the same for every path."""
        if holds:
            raise ValueError("a v2 re-roll is keyed on the path: deal it with reroll()")
        return _faces(self._first, turn, (), count)

    def start(self) -> Any:
        """The running key of a new game (the empty path)."""
        return self._start

    def step(self, path: Any, move: Move) -> Any:
        """The running key after *move*; *path* is copied, never changed."""
        extended = path.copy()
        if type(move) is Roll:
            extended.update(_hold_text(move.hold))
        else:
            extended.update(_row_text(move.row))  # type: ignore[union-attr]
        return extended

    def reroll(self, path: Any, count: int) -> Dice:
        """The *count* fresh dice of the re-roll that *path* ends with."""
        found = b""
        block = 0
        while len(found) < count:
            inner = path.copy()
            inner.update(b"|%d" % block)
            outer = self._outer.copy()
            outer.update(inner.digest())
            found += outer.digest().translate(_FACES, _SKIPPED)
            block += 1
        return tuple(found[:count])


def _faces(mac: Callable[[bytes], bytes], turn: int, holds: tuple[Hold, ...], count: int) -> Dice:
    prefix = f"{STREAM_VERSION}|{turn}|{holds_str(holds)}|"
    found = b""
    block = 0
    while len(found) < count:
        # translate() drops the skipped bytes and maps the others to faces, in C.
        found += mac(f"{prefix}{block}".encode()).translate(_FACES, _SKIPPED)
        block += 1
    return tuple(found[:count])


def _keyed(key: bytes) -> Callable[[bytes], bytes]:
    """HMAC-SHA256 under *key* with its padded key blocks hashed once.

    A replay computes some 60 HMACs under one seed; starting each from the
    hashed pads is several times faster than :func:`hmac.digest`.

    >>> _keyed(b"k")(b"m") == hmac.digest(b"k", b"m", "sha256")
    True
    """
    return _mac(*_pads(key))


def _mac(inner: hashlib._Hash, outer: hashlib._Hash) -> Callable[[bytes], bytes]:
    """HMAC from SHA-256 already fed with the padded key blocks (see :func:`_pads`)."""

    def mac(message: bytes) -> bytes:
        hashed = inner.copy()
        hashed.update(message)
        result = outer.copy()
        result.update(hashed.digest())
        return result.digest()

    return mac


def _pads(key: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """SHA-256 fed with HMAC's inner and outer padded key blocks (RFC 2104)."""
    block = (key if len(key) <= 64 else hashlib.sha256(key).digest()).ljust(64, b"\0")
    return hashlib.sha256(block.translate(_IPAD)), hashlib.sha256(block.translate(_OPAD))


@dataclass(frozen=True, slots=True)
class Window:
    """The lifecycle of a seed that a ranked board uses: open, closed, then revealed.

    Ranked games start on the seed while it is open; one started before the close may be
    finished until :attr:`reveals_at`, and only then is the seed published.
    """

    opens_at: datetime
    closes_at: datetime

    @property
    def reveals_at(self) -> datetime:
        """When the seed is published and the unfinished ranked games on it stop."""
        return later(self.closes_at, REVEAL_GRACE)

    def is_open(self, now: datetime) -> bool:
        """Whether a ranked game may start at *now*."""
        return self.opens_at <= now < self.closes_at

    def is_revealed(self, now: datetime) -> bool:
        """Whether no ranked game can be played on the seed any more at *now*."""
        return now >= self.reveals_at


def later(at: datetime, by: timedelta) -> datetime:
    """*at* plus *by*, or the calendar's last moment (in *at*'s zone) when that is past it:
    the day arithmetic is total over every date a request can name.

    >>> from datetime import UTC
    >>> later(datetime(9999, 12, 31, 23, tzinfo=UTC), timedelta(hours=2)).isoformat()
    '9999-12-31T23:59:59.999999+00:00'
    """
    try:
        return at + by
    except OverflowError:
        return datetime.max.replace(tzinfo=at.tzinfo)


def code_window(made: datetime, lifetime: timedelta, day: Day | None = None) -> Window:
    """The window of a friend code made at *made*: *lifetime* long, and for a daily's
    code never past *day*'s close (the day's seed is revealed an hour later).

    >>> from datetime import UTC
    >>> at = datetime(2026, 12, 1, 20, tzinfo=UTC)
    >>> code_window(at, timedelta(days=7)).closes_at.isoformat()
    '2026-12-08T20:00:00+00:00'
    >>> code_window(at, timedelta(days=7), Day(date(2026, 12, 1), UTC)).closes_at.isoformat()
    '2026-12-02T00:00:00+00:00'
    """
    closes = later(made, lifetime)
    if day is not None:
        closes = min(closes, day.closes_at)
    return Window(made, closes)


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
        """Midnight at the end of the day (the next day's start); the calendar's last moment
        for its last day (9999-12-31), which has no next.

        >>> from datetime import UTC
        >>> Day(date(9999, 12, 31), UTC).closes_at.isoformat()
        '9999-12-31T23:59:59.999999+00:00'
        """
        if self.date == date.max:
            return datetime.max.replace(tzinfo=self.zone)
        return datetime.combine(self.date + timedelta(days=1), time(), self.zone)

    @property
    def reveals_at(self) -> datetime:
        """When the seed is published and the day's unfinished games stop."""
        return self.window.reveals_at

    @property
    def advent_door(self) -> int | None:
        """The advent calendar door (1 to 24 in December), else None."""
        return self.date.day if self.date.month == 12 and self.date.day <= 24 else None

    @property
    def is_christmas(self) -> bool:
        """Whether the day is Christmas Day, 25 December (the calendar's doors all open).

        >>> from datetime import UTC
        >>> [Day(date(2026, 12, d), UTC).is_christmas for d in (24, 25, 26)]
        [False, True, False]
        """
        return self.date.month == 12 and self.date.day == 25

    @property
    def window(self) -> Window:
        """The day's lifecycle: open all day, revealed an hour after it closes."""
        return Window(self.opens_at, self.closes_at)

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


@dataclass(frozen=True, slots=True)
class SeedRef:
    """A game's stored seed reference: ``daily:YYYY-MM-DD``, ``friend:CODE`` or
    ``hex:<64 hex digits>`` (a random seed kept with the game).

    >>> SeedRef.parse("daily:2026-12-01").day
    datetime.date(2026, 12, 1)
    >>> str(SeedRef.friend("K7P2QX9D"))
    'friend:K7P2QX9D'
    """

    kind: str  # "daily", "friend" or "hex" (see daily.core.modes.SeedKind)
    value: str

    @classmethod
    def daily(cls, day: date) -> SeedRef:
        """The reference of the daily seed of *day*."""
        return cls("daily", day.isoformat())

    @classmethod
    def friend(cls, code: str) -> SeedRef:
        """The reference of friend code *code*'s own seed (*code* normalized)."""
        return cls("friend", code)

    @classmethod
    def random(cls, seed: bytes) -> SeedRef:
        """A reference that keeps the random *seed* itself."""
        return cls("hex", seed.hex())

    @classmethod
    def parse(cls, text: str) -> SeedRef:
        """Reads a stored reference; raises ValueError for anything else."""
        kind, _, value = text.partition(":")
        if kind not in ("daily", "friend", "hex") or not value:
            raise ValueError(f"not a seed reference: {text!r}")
        return cls(kind, value)

    @property
    def day(self) -> date | None:
        """The date of a daily seed; None for the other kinds."""
        return date.fromisoformat(self.value) if self.kind == "daily" else None

    def seed(self, secret: str) -> bytes:
        """The seed this reference names."""
        if self.kind == "daily":
            return daily_seed(secret, date.fromisoformat(self.value))
        if self.kind == "friend":
            return friend_seed(secret, self.value)
        return bytes.fromhex(self.value)

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


def seed_from_ref(ref: str | SeedRef, secret: str) -> bytes:
    """The seed a game's stored seed reference names (see :class:`SeedRef`).

    >>> seed_from_ref("hex:" + "00" * 32, "s") == bytes(32)
    True
    """
    return (ref if isinstance(ref, SeedRef) else SeedRef.parse(ref)).seed(secret)
