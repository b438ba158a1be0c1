"""A player's finished ranked dailies, three bytes a day: what their history, figures and
advent doors read, whatever the number of games they stored.

One hash a player (:func:`daily.store.keys.player_dailies`), a field a half month
(``2026-12a``: days 1 to 16, ``2026-12b``: 17 to 31) holding a 24-bit cell a day: short
values and a few dozen fields, so Redis keeps the hash as one small listpack (about 4.5
bytes a day played over a year, 120 for a player of one day). A daily is noted when its
finishing move is stored (:func:`daily.store.saved_games.append`), and again when the
archiver takes it out of Redis, which repairs a note a crash lost in between; noting a day
twice changes nothing. A cell keeps the total, whether the upper bonus was reached, and
where the archive files the game: the day its id names (as an offset from the puzzle's day)
and the file of that day. So an archived daily is found again from its player and day, and
its 16-character id need not stay in Redis for a history link. Each note drops the half
months older than :data:`KEEP_DAYS` and keeps the hash that long after the last one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import redis

from daily.core.modes import OnePer
from daily.core.record import Record
from daily.store import keys
from daily.store.connection import queue_script
from daily.store.game_fields import archive_shard, file_day
from daily.store.guard import guarded

#: The bytes of a day's cell: an unsigned 24-bit number, big-endian.
CELL_BYTES = 3
#: How long a half month is kept: the history's 400 days and a margin.
KEEP_DAYS = 430
#: The highest total a cell holds (a daily's is at most 649).
MAX_TOTAL = 1023

# The bits of a cell, from the highest: noted (1), bonus (1), total (10), where the game's
# file is (2: its id's day is the puzzle's day - 1, + 0, + 1; 3: unknown), unused (2), the
# file of that day (8).
_NOTED, _BONUS, _TOTAL_SHIFT, _WHERE_SHIFT = 1 << 23, 1 << 22, 12, 10
_UNKNOWN = 3


@dataclass(frozen=True, slots=True)
class PlayedDay:
    """One finished ranked daily as its player's notes keep it."""

    day: date
    total: int
    bonus: bool  # the upper section's bonus reached
    file_day: date | None = None  # the day of its archive files (its id's); None: unknown
    shard: int = 0  # its file of that day

    def cell(self) -> int:
        """The day's 24 bits.

        >>> hex(PlayedDay(date(2026, 12, 3), 287, True, date(2026, 12, 3), 113).cell())
        '0xd1f471'
        """
        where = _UNKNOWN
        if self.file_day is not None and abs((self.file_day - self.day).days) <= 1:
            where = (self.file_day - self.day).days + 1
        bonus = _BONUS if self.bonus else 0
        return _NOTED | bonus | self.total << _TOTAL_SHIFT | where << _WHERE_SHIFT | self.shard

    @classmethod
    def from_cell(cls, day: date, cell: int) -> PlayedDay | None:
        """The cell of *day* read back; None for a day not played.

        >>> PlayedDay.from_cell(date(2026, 12, 3), 0xD1F471)
        PlayedDay(day=datetime.date(2026, 12, 3), total=287, bonus=True, file_day=datetime.date(2026, 12, 3), shard=113)
        >>> PlayedDay.from_cell(date(2026, 12, 3), 0) is None
        True
        """  # noqa: E501
        if not cell & _NOTED:
            return None
        where = cell >> _WHERE_SHIFT & 3
        found = None if where == _UNKNOWN else day + timedelta(days=where - 1)
        total = cell >> _TOTAL_SHIFT & MAX_TOTAL
        return cls(day, total, bool(cell & _BONUS), found, cell & 0xFF)


def is_noted(record: Record) -> bool:
    """Whether *record* is a daily its player's notes keep: a finished ranked daily."""
    return (
        record.kind.one_per is OnePer.DAY
        and not record.practice
        and record.day is not None
        and record.finished
        and record.total is not None
    )


def of_record(record: Record, bonus: bool) -> PlayedDay | None:
    """What the player's notes keep of *record* (its upper *bonus* reached or not); None for a
    game it keeps nothing of, or a total no cell holds."""
    if not is_noted(record) or record.day is None or record.total is None:
        return None
    if not 0 <= record.total <= MAX_TOTAL:
        return None
    return PlayedDay(record.day, record.total, bonus, file_day(record), archive_shard(record.id))


def field_of(day: date) -> str:
    """The field of the half month that holds *day*.

    >>> field_of(date(2026, 12, 3)), field_of(date(2026, 12, 17))
    ('2026-12a', '2026-12b')
    """
    return f"{day.isoformat()[:7]}{'a' if day.day <= 16 else 'b'}"


def offset_of(day: date) -> int:
    """Where *day*'s cell starts in its field (bytes).

    >>> offset_of(date(2026, 12, 1)), offset_of(date(2026, 12, 16)), offset_of(date(2026, 12, 17))
    (0, 45, 0)
    """
    return CELL_BYTES * ((day.day - 1) % 16)


def expires_at(today: date) -> int:
    """When a player's notes expire if they note nothing after *today* (unix seconds).

    >>> datetime.fromtimestamp(expires_at(date(2026, 12, 3)), UTC).date()
    datetime.date(2028, 2, 6)
    """
    at = datetime(today.year, today.month, today.day, tzinfo=UTC) + timedelta(days=KEEP_DAYS)
    return int(at.timestamp())


# Sets the cell ARGV[3] (an integer) at byte ARGV[2] of field ARGV[1] of a player's notes
# (KEYS[1]), padding the field with zero cells; drops the fields before ARGV[5] (the half
# months past keeping: their names sort as their dates) and keeps the hash until ARGV[4].
_NOTE = """
local value = redis.call('HGET', KEYS[1], ARGV[1]) or ''
local at = tonumber(ARGV[2])
if #value < at then value = value .. string.rep(string.char(0), at - #value) end
local c = tonumber(ARGV[3])
local cell = string.char(math.floor(c / 65536) % 256, math.floor(c / 256) % 256, c % 256)
redis.call('HSET', KEYS[1], ARGV[1], string.sub(value, 1, at) .. cell .. string.sub(value, at + 4))
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field < ARGV[5] then redis.call('HDEL', KEYS[1], field) end
end
redis.call('EXPIREAT', KEYS[1], ARGV[4])
return 1
"""


def queue_note(pipe: Any, player_id: str, played: PlayedDay, today: date) -> None:
    """Adds to *pipe* the noting of *played* on *today*: its cell, the half months dropped
    that are past keeping, the hash kept :data:`KEEP_DAYS` from *today*."""
    args = [
        field_of(played.day),
        offset_of(played.day),
        played.cell(),
        expires_at(today),
        field_of(today - timedelta(days=KEEP_DAYS)),
    ]
    queue_script(pipe, _NOTE, [keys.player_dailies(player_id)], args)


@guarded
def note(client: redis.Redis, player_id: str, played: PlayedDay, today: date) -> None:
    """Notes *played* on its player's hash on *today* (again: nothing changes)."""
    pipe = client.pipeline(transaction=False)  # one key
    queue_note(pipe, player_id, played, today)
    pipe.execute()


def queue_read(pipe: Any, player_id: str, first: date, last: date) -> list[str]:
    """Adds to *pipe* the reading of *player_id*'s half months from *first*'s to *last*'s
    (one ``HMGET``, its replies left as bytes); returns the fields, which :func:`decode`
    takes with the reply."""
    fields, day = [], first
    while day <= last:
        fields.append(field_of(day))
        day = day.replace(day=17) if day.day <= 16 else (day + timedelta(days=16)).replace(day=1)
    found = keys.player_dailies(player_id)
    pipe.execute_command("HMGET", found, *fields, NEVER_DECODE=[])  # cells: bytes, not text
    return fields


def decode(fields: Sequence[str], stored: Sequence[bytes | None]) -> list[PlayedDay]:
    """The noted days of *fields* as :func:`queue_read` read them, in day order.

    >>> cell = PlayedDay(date(2026, 1, 2), 250, False).cell()
    >>> decode(["2026-01a"], [bytes(3) + cell.to_bytes(3, "big")])
    [PlayedDay(day=datetime.date(2026, 1, 2), total=250, bonus=False, file_day=None, shard=0)]
    """
    found = []
    for field, data in zip(fields, stored, strict=True):
        first = date.fromisoformat(f"{field[:7]}-{1 if field[7] == 'a' else 17:02d}")
        for n in range(len(data or b"") // CELL_BYTES):
            assert data is not None
            cell = int.from_bytes(data[n * CELL_BYTES : (n + 1) * CELL_BYTES], "big")
            played = PlayedDay.from_cell(first + timedelta(days=n), cell) if cell else None
            if played is not None:
                found.append(played)
    return found
