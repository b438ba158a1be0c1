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
    """One count of a finished, verified game as the rankings carry it out: the ledger
    (:mod:`daily.core.ledger`) decided every flag; the store maps them to its steps."""

    game_id: str
    player_id: str
    #: The kind of board it counts on: a daily's day (and the player's own boards) or a code.
    mode: BoardKind
    total: int
    finished_at: float  # unix seconds, for "the earlier finisher first" among equals
    day: date | None = None  # daily games: the date the game was started for
    code: str | None = None  # friend games: the normalized code, e.g. "K7P2QX9D"
    #: Whether the player is established: the world boards (best day, streak, this day's
    #: advent door) count them.
    world: bool = True
    #: A new player's daily: on its day's board, marked new (no rank number).
    new: bool = False
    #: The player becomes established with this count (kept on their record).
    establishes: bool = False
    #: Earlier advent doors to add now (a player just established brings them along).
    doors: tuple[date, ...] = ()


@dataclass(frozen=True, slots=True)
class Board:
    """One ranking: its public id (``daily/2026-12-01``, ``streak``...) and its Redis key."""

    id: str
    key: str
    kind: str
    #: A day's board: the set of its new players' entries (listed, unranked).
    new_key: str | None = None

    @classmethod
    def daily(cls, day: date) -> Board:
        """The board of the daily puzzle of *day*: everyone who finished it."""
        iso = day.isoformat()
        return cls(f"daily/{iso}", keys.board_daily(iso), "daily", keys.board_daily_new(iso))

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
    """A player's line on a board: competition rank among the ranked players (None for a new
    player's line on a day's board, marked *new*), true score, name at read time."""

    rank: int | None
    player_id: str
    name: str
    score: int
    current: int | None = None  # streak board only: the run still alive today
    new: bool = False
    days_left: int | None = None  # a new player's line: the days they must still play to rank


@dataclass(frozen=True, slots=True)
class Page:
    """A slice of a board: the entries from *offset*, the board's size (*total*: everyone on
    it; *ranked*: those with a rank), the asker's entry."""

    board: Board
    total: int
    offset: int
    entries: tuple[Entry, ...]
    me: Entry | None
    ranked: int = 0


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


# One consistent read of a page: the board's size, the page's rows, each row's competition
# rank among the ranked players (1 + how many of them have a strictly higher true score) and
# whether it is a new player's (KEYS[2], a day's new players: unranked), and the asker's
# position, packed score, rank and mark. With around=1 the page is centred on the asker.
_PAGE = """
local key, fresh, shift = KEYS[1], KEYS[2], tonumber(ARGV[5])
local offset, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local total = redis.call('ZCARD', key)
local unranked = 0
if fresh then unranked = redis.call('ZCARD', fresh) end
local function above(k, score)
  return redis.call('ZCOUNT', k, string.format('%d', (score + 1) * shift), '+inf')
end
local ranks = {}
local function rank(packed)
  local score = math.floor(tonumber(packed) / shift)
  if ranks[score] == nil then
    local n = above(key, score)
    if fresh then n = n - above(fresh, score) end
    ranks[score] = n + 1
  end
  return ranks[score]
end
local function is_new(name)
  if fresh and redis.call('ZSCORE', fresh, name) then return 1 end
  return 0
end
local mine = {}
if ARGV[3] ~= '' then
  local pos = redis.call('ZREVRANK', key, ARGV[3])
  if pos then
    local packed = redis.call('ZSCORE', key, ARGV[3])
    mine = {pos, packed, rank(packed), is_new(ARGV[3])}
    if ARGV[4] == '1' then
      offset = math.max(0, math.min(pos - math.floor(limit / 2), total - limit))
    end
  end
end
local rows = {}
if limit > 0 then
  rows = redis.call('ZREVRANGE', key, offset, offset + limit - 1, 'WITHSCORES')
end
local marks = {}
for i = 1, #rows, 2 do
  marks[#marks + 1] = rank(rows[i + 1])
  marks[#marks + 1] = is_new(rows[i])
end
return {total, offset, marks, rows, mine, total - unranked}
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
    board_keys = [board.key] if board.new_key is None else [board.key, board.new_key]
    total, start, marks, rows, mine, ranked = _script(client, _PAGE)(keys=board_keys, args=args)
    ids = [player_of(_text(m)) for m in rows[0::2]]
    scores = [unpack(float(s)) for s in rows[1::2]]
    marked = zip(marks[0::2], marks[1::2], strict=True)
    lines = [(None if new else int(rank), bool(new)) for rank, new in marked]
    own = None
    if mine and me:
        new = bool(int(mine[3]))
        own = (None if new else int(mine[2]), unpack(float(mine[1])), new)
    at = (int(total), int(start), int(ranked))
    found: list[Line] = list(zip(ids, scores, lines, strict=True))
    return _page(client, board, at, found, me, own, today)


#: A line of a page before names are read: the player, the score, the rank (None: a new
#: player's) and whether it is a new player's.
Line = tuple[str, int, tuple[int | None, bool]]


def _page(client: redis.Redis, board: Board, at: tuple[int, int, int], lines: list[Line],
          me: str | None, own: tuple[int | None, int, bool] | None,
          today: date | None = None) -> Page:  # fmt: skip
    """The :class:`Page` of the *lines* of *board*, *at* (its size, the first line's position,
    its ranked players), with *me*'s (rank, score, new) *own*: names read now."""
    total, start, ranked = at
    ids = [i for i, _, _ in lines]
    mine_id = [me] if own and me else []
    names = _names(client, ids + mine_id)
    streak = board.kind == "streak"
    currents = _currents(client, ids + mine_id, today) if streak and today else {}
    entries = tuple(
        Entry(rank, i, names[i], score, currents.get(i), new) for i, score, (rank, new) in lines
    )
    mine = None
    if own and me:
        mine = Entry(own[0], me, names[me], own[1], currents.get(me), own[2])
    return Page(board, total, start, entries, mine, ranked)


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
    lines: list[Line] = [(player_of(name), unpack(packed), (rank(packed), False))
                         for name, packed in rows[offset : offset + limit]]  # fmt: skip
    own = (rank(rows[mine][1]), unpack(rows[mine][1]), False) if mine is not None else None
    return _page(client, board, (len(rows), offset, len(rows)), lines, me, own)


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


# Where one player stands on a day's board: their true score, the board's size and ranked
# players, how many are above them (all, and ranked only), how many share their true score,
# and whether theirs is a new player's entry. Nothing when they are not on it.
_PLACE = """
local packed = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not packed then return false end
local shift = tonumber(ARGV[2])
local score = math.floor(tonumber(packed) / shift)
local high = string.format('%d', (score + 1) * shift)
local field, unranked = redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])
local higher = redis.call('ZCOUNT', KEYS[1], high, '+inf')
local higher_new = redis.call('ZCOUNT', KEYS[2], high, '+inf')
local tied = redis.call('ZCOUNT', KEYS[1], string.format('%d', score * shift), '(' .. high)
local new = 0
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then new = 1 end
return {score, field, field - unranked, higher, higher - higher_new, tied, new}
"""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a player stands on a day's board: their *score*; the *field* (everyone on it)
    and the *ranked* players; how many of each scored strictly more; how many share the
    score (the player too); whether the entry is a *new* player's."""

    score: int
    field: int
    ranked: int
    above: int
    ranked_above: int
    tied: int
    new: bool


@guarded
def place_of(client: redis.Redis, day: date, player_id: str) -> Place | None:
    """*player_id*'s place on *day*'s board, or None if they are not on it."""
    board = Board.daily(day)
    found = _script(client, _PLACE)(keys=[board.key, str(board.new_key)],
                                    args=[member(player_id), SHIFT])  # fmt: skip
    if not found:
        return None
    score, field, ranked, above, ranked_above, tied, new = (int(v) for v in found)
    return Place(score, field, ranked, above, ranked_above, tied, bool(new))


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
