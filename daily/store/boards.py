"""Rankings in Redis sorted sets: the boards, their entries and pages, and reading them.

A board's sorted-set score packs the true score and the finish time, so that among equal
scores the earlier finisher comes first: ``score * 2**TIME_BITS + (2**TIME_BITS - 1 - tick)``
(a tick is 10 ms since 2026). Everything stays an exact integer below 2**53. Counting a
result on its boards, and taking it back, is :mod:`daily.store.board_counts`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import cast

import redis

from daily.core.errors import BoardError
from daily.core.modes import BoardKind
from daily.store import keys, players
from daily.store.guard import guarded
from daily.store.members import member, player_of

#: Bits of the finish time in a packed score; the true score sits above them.
TIME_BITS = 39


SHIFT: int = 2**TIME_BITS


#: Highest true score a board can hold (advent sums reach 24 * 649 = 15576).
MAX_SCORE: int = 2**14 - 1


#: Finish times count in ticks of 10 ms from this instant; 2**39 ticks last 174 years.
TIME_EPOCH = datetime(2026, 1, 1, tzinfo=UTC).timestamp()


TICKS_PER_SECOND = 100


#: Bit n of a player's days-played bitmap is this date plus n days.
DAY_EPOCH = date(2026, 1, 1)


ADVENT_DOORS = 24


MAX_LIMIT = 100


@dataclass(frozen=True, slots=True)
class Result:
    """A finished, verified game as the rankings see it."""

    game_id: str
    player_id: str
    #: The kind of board it counts on (the service decides: daily.service.results.results_of);
    #: the store only maps a kind to its steps.
    mode: BoardKind
    total: int
    finished_at: float  # unix seconds, for "the earlier finisher first" among equals
    day: date | None = None  # daily games: the date the game was started for
    code: str | None = None  # friend games: the normalized code, e.g. "K7P2QX9D"
    #: Whether a daily reaches the world boards (day, best day, streak, advent): its player
    #: is established. A newcomer's daily keeps their own best days and streak only.
    world: bool = True


@dataclass(frozen=True, slots=True)
class Board:
    """One ranking: its public id (``daily/2026-12-01``, ``streak``...) and its Redis key."""

    id: str
    key: str
    kind: str

    @classmethod
    def daily(cls, day: date) -> Board:
        """The board of the daily puzzle of *day*."""
        return cls(f"daily/{day.isoformat()}", keys.board_daily(day.isoformat()), "daily")

    @classmethod
    def best_day(cls) -> Board:
        """Every player's best daily total."""
        return cls("best-day", keys.board_best_day(), "best-day")

    @classmethod
    def streak(cls) -> Board:
        """Every player's longest run of consecutive days played."""
        return cls("streak", keys.board_streak(), "streak")

    @classmethod
    def advent(cls, year: int) -> Board:
        """The advent calendar of *year*: the sum of doors 1 to 24."""
        return cls(f"advent/{year}", keys.board_advent(year), "advent")

    @classmethod
    def friend(cls, code: str) -> Board:
        """The games played on friend code *code* (normalized)."""
        return cls(f"friend/{code}", keys.board_friend(code), "friend")


@dataclass(frozen=True, slots=True)
class Entry:
    """A player's line on a board: competition rank, true score, name at read time."""

    rank: int
    player_id: str
    name: str
    score: int
    current: int | None = None  # streak board only: the run still alive today


@dataclass(frozen=True, slots=True)
class Page:
    """A slice of a board: the entries from *offset*, the board's size, the asker's entry."""

    board: Board
    total: int
    offset: int
    entries: tuple[Entry, ...]
    me: Entry | None


@dataclass(frozen=True, slots=True)
class Band:
    """How many players scored from *low* to *high* (both included) on one date."""

    low: int
    high: int
    players: int


def pack(score: int, finished_at: float) -> int:
    """The sorted-set score of *score* reached at *finished_at*: higher is better.

    >>> pack(300, TIME_EPOCH) > pack(300, TIME_EPOCH + 1) > pack(299, TIME_EPOCH)
    True
    >>> unpack(pack(300, TIME_EPOCH + 5))
    300
    """
    tick = round((finished_at - TIME_EPOCH) * TICKS_PER_SECOND)
    return score * SHIFT + (SHIFT - 1 - min(max(tick, 0), SHIFT - 1))


def unpack(packed: float) -> int:
    """The true score inside a packed sorted-set score."""
    return int(packed) // SHIFT


def day_number(day: date) -> int:
    """Days from :data:`DAY_EPOCH` to *day*: the bit of *day* in a days-played bitmap.

    >>> day_number(date(2026, 1, 1)), day_number(date(2028, 3, 1))
    (0, 790)
    """
    if day < DAY_EPOCH:
        raise BoardError(f"no rankings before {DAY_EPOCH.isoformat()}: {day.isoformat()}")
    return (day - DAY_EPOCH).days


def advent_door(day: date) -> int | None:
    """The advent door (1 to 24) that *day* opens, or None outside December 1 to 24.

    >>> advent_door(date(2026, 12, 24)), advent_door(date(2026, 12, 25))
    (24, None)
    """
    return day.day if day.month == 12 and day.day <= ADVENT_DOORS else None


def expires_at(day: date, retention_days: int, zone: tzinfo) -> int:
    """When *day*'s board goes: the end of *day* plus *retention_days*, in *zone*."""
    end = datetime.combine(day + timedelta(days=retention_days + 1), time(), zone)
    return int(end.timestamp())


def _script(client: redis.Redis, source: str) -> redis.commands.core.Script:
    """*source* as a script on *client*, run by EVALSHA (the server caches it by hash)."""
    return client.register_script(source)


# One consistent read of a page: the board's size, the page's rows, the competition rank
# of its first row (1 + how many have a strictly higher true score), and the asker's
# position, packed score and rank. With around=1 the page is centred on the asker.
_PAGE = """
local key, shift = KEYS[1], tonumber(ARGV[5])
local offset, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local total = redis.call('ZCARD', key)
local function rank(packed)
  local score = math.floor(tonumber(packed) / shift)
  return redis.call('ZCOUNT', key, string.format('%d', (score + 1) * shift), '+inf') + 1
end
local mine = {}
if ARGV[3] ~= '' then
  local pos = redis.call('ZREVRANK', key, ARGV[3])
  if pos then
    local packed = redis.call('ZSCORE', key, ARGV[3])
    mine = {pos, packed, rank(packed)}
    if ARGV[4] == '1' then
      offset = math.max(0, math.min(pos - math.floor(limit / 2), total - limit))
    end
  end
end
local rows = {}
if limit > 0 then
  rows = redis.call('ZREVRANGE', key, offset, offset + limit - 1, 'WITHSCORES')
end
local first = 0
if #rows > 0 then first = rank(rows[2]) end
return {total, offset, first, rows, mine}
"""


# Players per band of true scores: [low, low + band) for low = 0, band, ... up to top.
_BANDS = """
local key, band, top, shift = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local counts = {}
for low = 0, top, band do
  local from, to = string.format('%d', low * shift), string.format('(%d', (low + band) * shift)
  counts[#counts + 1] = redis.call('ZCOUNT', key, from, to)
end
return counts
"""


#: The highest total of the daily puzzle (maxi, docs/rules.md).
DAILY_TOP = 649


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


@guarded
def page(
    client: redis.Redis,
    board: Board,
    *,
    offset: int = 0,
    limit: int = 50,
    me: str | None = None,
    around: bool = False,
    today: date | None = None,
) -> Page:
    """*limit* entries of *board* from *offset* (or around *me*), its size and *me*'s entry."""
    if not 0 <= limit <= MAX_LIMIT or offset < 0:
        raise BoardError(f"limit must be 0..{MAX_LIMIT} and offset >= 0: {limit}, {offset}")
    args: list[str | int] = [offset, limit, member(me) if me else "", int(around), SHIFT]
    total, start, first, rows, mine = _script(client, _PAGE)(keys=[board.key], args=args)
    ids = [player_of(_text(m)) for m in rows[0::2]]
    scores = [unpack(float(s)) for s in rows[1::2]]
    own = (int(mine[2]), unpack(float(mine[1]))) if mine and me else None
    return _page(client, board, (int(total), int(start), int(first)), ids, scores, me, own, today)


def _page(client: redis.Redis, board: Board, at: tuple[int, int, int], ids: list[str],
          scores: list[int], me: str | None, own: tuple[int, int] | None,
          today: date | None = None) -> Page:  # fmt: skip
    """The :class:`Page` of the rows *ids* and *scores* of *board*, *at* (its size, the first
    row's position and rank), with *me*'s (rank, score) *own*: names read now."""
    total, start, first = at
    ranks = _ranks(start, first, scores)
    mine_id = [me] if own and me else []
    names = _names(client, ids + mine_id)
    streak = board.kind == "streak"
    currents = _currents(client, ids + mine_id, today) if streak and today else {}
    entries = tuple(
        Entry(rank, i, names[i], score, currents.get(i))
        for rank, i, score in zip(ranks, ids, scores, strict=True)
    )
    mine = Entry(own[0], me, names[me], own[1], currents.get(me)) if own and me else None
    return Page(board, total, start, entries, mine)


@guarded
def standing(client: redis.Redis, board: Board) -> dict[str, int]:
    """Every member of *board* with its packed score: a friend code's board, as it leaves
    Redis for the archive with its code."""
    rows = cast(list[tuple[str, float]], client.zrange(board.key, 0, -1, withscores=True))
    return {name: int(packed) for name, packed in rows}


def page_of(client: redis.Redis, board: Board, standing: Mapping[str, int], *, offset: int = 0,
            limit: int = 50, me: str | None = None, around: bool = False) -> Page:  # fmt: skip
    """:func:`page` of a board kept out of Redis (an archived friend code's) from its
    :func:`standing`: the same rows in the same order, ranks and asker's entry."""
    if not 0 <= limit <= MAX_LIMIT or offset < 0:
        raise BoardError(f"limit must be 0..{MAX_LIMIT} and offset >= 0: {limit}, {offset}")
    rows = sorted(standing.items(), key=lambda row: (row[1], row[0]), reverse=True)  # ZREVRANGE

    def rank(packed: int) -> int:
        return 1 + sum(unpack(other) > unpack(packed) for _, other in rows)

    names = [name for name, _ in rows]
    mine = names.index(member(me)) if me and member(me) in names else None
    if mine is not None and around:
        offset = max(0, min(mine - limit // 2, len(rows) - limit))
    part = rows[offset : offset + limit]
    first = rank(part[0][1]) if part else 0
    own = (rank(rows[mine][1]), unpack(rows[mine][1])) if mine is not None else None
    ids, scores = [player_of(name) for name, _ in part], [unpack(packed) for _, packed in part]
    return _page(client, board, (len(rows), offset, first), ids, scores, me, own)


def _ranks(start: int, first: int, scores: Sequence[int]) -> list[int]:
    """Competition ranks of consecutive *scores* (best first) from position *start*.

    >>> _ranks(0, 1, [9, 7, 7, 5])
    [1, 2, 2, 4]
    >>> _ranks(10, 9, [7, 7, 6])
    [9, 9, 13]
    """
    ranks: list[int] = []
    for i, score in enumerate(scores):
        if not ranks:
            ranks.append(first)
        elif score == scores[i - 1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(start + i + 1)
    return ranks


def _names(client: redis.Redis, ids: Sequence[str]) -> dict[str, str]:
    """Names read now from the player records, so a rename shows on every board."""
    found = players.names_of(client, set(ids))
    return {i: found.get(i) or players.guest_name(i) for i in ids}


def _alive_since(today: date) -> int:
    """The first day number whose run is still alive on *today*: yesterday's."""
    return (today - DAY_EPOCH).days - 1


def _currents(client: redis.Redis, ids: Sequence[str], today: date) -> dict[str, int]:
    """Each player's run still alive on *today* (played today or yesterday), else 0."""
    pipe = client.pipeline(transaction=False)
    for player_id in ids:
        pipe.hmget(keys.player_streak(player_id), "last", "run")
    alive = _alive_since(today)
    return {
        i: int(run) if last is not None and int(last) >= alive else 0
        for i, (last, run) in zip(ids, pipe.execute(), strict=True)
    }


def rank_of(
    client: redis.Redis, board: Board, player_id: str, today: date | None = None
) -> Entry | None:
    """*player_id*'s entry on *board*, or None if they are not on it."""
    return page(client, board, limit=0, me=player_id, today=today).me


@guarded
def days_played(client: redis.Redis, player_id: str, day: date) -> int:
    """On how many days *player_id* had a ranked daily counted, *day* included whether or not
    it is counted yet: the days-played bitmap that the streak reads (a withdrawn game's day
    is taken off it)."""
    pipe = client.pipeline(transaction=False)
    pipe.bitcount(keys.player_days(player_id))
    pipe.getbit(keys.player_days(player_id), day_number(day))
    counted, today = pipe.execute()
    return int(counted) + (0 if today else 1)


@guarded
def rank_of_score(client: redis.Redis, board: Board, total: int) -> int:
    """The competition rank a total of *total* would have on *board*: one more than the
    players with a strictly higher true score."""
    higher = client.zcount(board.key, (total + 1) * SHIFT, "+inf")
    return int(higher) + 1


@guarded
def top_players(client: redis.Redis, board: Board, count: int) -> list[str]:
    """The ids of the first *count* players of *board*, best first."""
    return [player_of(str(m)) for m in client.zrevrange(board.key, 0, count - 1)]


@dataclass(frozen=True, slots=True)
class Head:
    """The head of a board: its size, its first entries (player, score) and one player's score."""

    size: int
    entries: tuple[tuple[str, int], ...]
    score_of: int | None


@guarded
def heads(client: redis.Redis, wanted: Sequence[tuple[Board, str]], count: int) -> list[Head]:
    """The first *count* entries of each board of *wanted*, its size and the score of the
    player named beside it: every board in one pipeline (one round trip a cluster node)."""
    pipe = client.pipeline(transaction=False)
    for board, player_id in wanted:
        pipe.zcard(board.key)
        pipe.zrevrange(board.key, 0, count - 1, withscores=True)
        pipe.zscore(board.key, member(player_id))
    found = pipe.execute()
    return [
        Head(
            size=int(size),
            entries=tuple((player_of(_text(m)), unpack(float(s))) for m, s in rows),
            score_of=None if score is None else unpack(float(score)),
        )
        for size, rows, score in zip(found[0::3], found[1::3], found[2::3], strict=True)
    ]


@guarded
def top_score(client: redis.Redis, board: Board) -> int | None:
    """The best score on *board*, or None while it is empty (or gone)."""
    best = client.zrevrange(board.key, 0, 0, withscores=True)
    return unpack(float(best[0][1])) if best else None


@guarded
def streak_of(client: redis.Redis, player_id: str, today: date) -> tuple[int, int]:
    """A player's current run (alive on *today*) and best run of days played."""
    last, run, best = client.hmget(keys.player_streak(player_id), "last", "run", "best")
    alive = last is not None and int(last) >= _alive_since(today)
    return (int(run) if alive and run else 0), int(best or 0)


@guarded
def distribution(client: redis.Redis, day: date, band: int = 50) -> tuple[Band, ...]:
    """How many players scored in each band of *band* points on *day*'s board."""
    if not 1 <= band <= DAILY_TOP + 1:
        raise BoardError(f"band must be 1..{DAILY_TOP + 1} points: {band}")
    key = Board.daily(day).key
    counts = _script(client, _BANDS)(keys=[key], args=[band, DAILY_TOP, SHIFT])
    lows = range(0, DAILY_TOP + 1, band)
    return tuple(
        Band(low, min(low + band - 1, DAILY_TOP), int(count))
        for low, count in zip(lows, counts, strict=True)
    )
