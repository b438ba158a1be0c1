"""Counting a finished game on today's dice, best day, streak, advent and friend boards.

The store carries out what the ledger planned (:func:`carry_out` takes a
:class:`daily.core.ledger.Plan`); it decides nothing. A plan reaches the boards as one
:class:`Result` a board kind (:func:`results_of`), each through :func:`submit`, one
idempotent step per board;
every step is atomic on its own (one command, a transaction or a Lua script, always on one
hash slot) and a step that already ran changes nothing when it runs again. So a retried or
concurrent completion counts once, and a crash between steps is repaired by submitting the
same result again: the steps that ran are no-ops, the others catch up. :func:`withdraw`
takes each step back, for a game held for review after it was counted, and takes a daily off
its player's leagues too (counted there by :func:`daily.store.league_boards.count`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, tzinfo

import redis

from daily.core import ledger
from daily.core.errors import BoardError
from daily.core.modes import BoardKind
from daily.store import keys, league_boards, player_counts
from daily.store.boards import (
    MAX_SCORE,
    SHIFT,
    Board,
    Result,
    advent_door,
    day_number,
    expires_at,
    pack,
)
from daily.store.guard import guarded
from daily.store.members import member

#: A board step: (client, result, retention days, zone) -> None.
Step = Callable[[redis.Redis, Result, int, tzinfo], None]


# Adds a door's score to the advent sum unless that door is already counted for the
# player (the doors hash is the board's "counted" marker, in the board's own slot).
# The tie-break keeps the latest counted door's finish time, the time the sum was reached.
_ADVENT = """
local mask = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local bit = 2 ^ (tonumber(ARGV[2]) - 1)
if math.floor(mask / bit) % 2 == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', mask + bit))
local shift = tonumber(ARGV[5])
local old = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1')
local sum, tie = tonumber(ARGV[3]), tonumber(ARGV[4])
if old >= 0 then
  local before = math.floor(old / shift)
  sum = sum + before
  tie = math.min(tie, old - before * shift)
end
redis.call('ZADD', KEYS[1], string.format('%d', sum * shift + tie), ARGV[1])
return 1
"""


# Marks a day played in the player's bitmap (idempotent) and recomputes the streak from
# the bitmap, so late or repeated days give the same answer in any order. Returns the
# best run. Bits are numbered from the most significant bit of the first byte, as SETBIT.
_STREAK = """
local day = tonumber(ARGV[1])
redis.call('SETBIT', KEYS[1], day, 1)
local bits = redis.call('GET', KEYS[1])
local function played(i)
  if i < 0 then return false end
  local byte = string.byte(bits, math.floor(i / 8) + 1)
  return byte ~= nil and math.floor(byte / 2 ^ (7 - i % 8)) % 2 == 1
end
local low, high = day, day
while played(low - 1) do low = low - 1 end
while played(high + 1) do high = high + 1 end
local state = redis.call('HMGET', KEYS[2], 'last', 'run', 'best')
local last, run = tonumber(state[1] or '-1'), tonumber(state[2] or '0')
local best = math.max(tonumber(state[3] or '0'), high - low + 1)
if high >= last then last, run = high, high - low + 1 end
redis.call('HSET', KEYS[2], 'last', last, 'run', run, 'best', best)
return best
"""


def check(result: Result) -> None:
    """Raises :class:`BoardError` unless *result* is a rankable daily or friend game."""
    if not 0 <= result.total <= MAX_SCORE:
        raise BoardError(f"total out of range 0..{MAX_SCORE}: {result.total}")
    if result.mode == BoardKind.DAILY and result.day is None:
        raise BoardError(f"daily game {result.game_id!r} has no day")
    if result.mode == BoardKind.FRIEND and not result.code:
        raise BoardError(f"friend game {result.game_id!r} has no code")
    if result.day is not None:
        day_number(result.day)


@guarded
def submit(
    client: redis.Redis, result: Result, *, retention_days: int = 400, zone: tzinfo = UTC
) -> None:
    """Counts *result* on every board it belongs to, atomically and exactly once per board."""
    check(result)
    for step in steps(result):
        step(client, result, retention_days, zone)


def steps(result: Result) -> list[Step]:
    """The board steps that *result* takes, in order; each one may be re-run safely."""
    if result.mode == BoardKind.FRIEND:
        return [count_friend]
    if result.mode != BoardKind.DAILY or result.day is None:
        return []
    found: list[Step] = [count_daily, count_best_day, count_streak]
    if result.establishes:
        found.append(count_established)
    if result.world and (advent_door(result.day) is not None or result.doors):
        found.append(count_advent)
    return found


def results_of(plan: ledger.Plan) -> list[Result]:
    """The results that carry *plan* out: its day's (with its flags) and one a code."""
    game = plan.game
    found = []
    if plan.day is not None:
        found.append(
            Result(
                game.game_id,
                game.player_id,
                BoardKind.DAILY,
                game.total,
                game.finished_at,
                day=plan.day,
                world=plan.world,
                new=plan.new,
                establishes=plan.establishes,
                doors=plan.doors,
            )
        )
    for code in plan.codes:
        found.append(
            Result(
                game.game_id,
                game.player_id,
                BoardKind.FRIEND,
                game.total,
                game.finished_at,
                code=code,
            )
        )
    return found


@guarded
def carry_out(
    client: redis.Redis, plan: ledger.Plan, *, retention_days: int = 400, zone: tzinfo = UTC
) -> None:
    """Counts *plan* on every board it names, each step atomic and a no-op when repeated,
    and a ranked daily on its player's leagues."""
    for result in results_of(plan):
        submit(client, result, retention_days=retention_days, zone=zone)
        if result.mode == BoardKind.DAILY:
            # The leagues the player is in now, read here: one joined since the plan was
            # made counts too (its script checks membership: the members are the truth).
            league_boards.count(client, result, zone=zone)


def count_daily(client: redis.Redis, result: Result, retention_days: int, zone: tzinfo) -> None:
    """Puts the result on its date's board, a new player's marked new; the player's first
    counted game there stands."""
    assert result.day is not None
    board = Board.daily(result.day)
    assert board.new_key is not None
    entry = {member(result.player_id): pack(result.total, result.finished_at)}
    ends = expires_at(result.day, retention_days, zone)
    pipe = client.pipeline(transaction=True)
    pipe.zadd(board.key, entry, nx=True)
    pipe.expireat(board.key, ends)
    if result.new:
        pipe.zadd(board.new_key, entry, nx=True)
        pipe.expireat(board.new_key, ends)
    pipe.execute()


def count_best_day(client: redis.Redis, result: Result, retention_days: int, zone: tzinfo) -> None:
    """Keeps what the day gave on the player's best-days hash (so a withdrawn game can be
    taken back: :func:`uncount_best_day`); an established player's best of every day kept
    there goes on the best-day board (max is idempotent)."""
    assert result.day is not None
    packed = pack(result.total, result.finished_at)
    pipe = client.pipeline(transaction=True)  # one key
    pipe.hset(keys.player_best_days(result.player_id), result.day.isoformat(), packed)
    pipe.hvals(keys.player_best_days(result.player_id))
    kept = pipe.execute()[1]
    if result.world:
        best = max(int(float(v)) for v in kept)
        client.zadd(keys.board_best_day(), {member(result.player_id): best}, gt=True)


def count_established(
    client: redis.Redis, result: Result, retention_days: int, zone: tzinfo
) -> None:
    """Keeps on the player's record that they are established from the result's day."""
    assert result.day is not None
    player_counts.mark_established(client, result.player_id, result.day)


def count_streak(client: redis.Redis, result: Result, retention_days: int, zone: tzinfo) -> None:
    """Marks the day played, then raises the player's best run on the streak board."""
    assert result.day is not None
    player_keys = [keys.player_days(result.player_id), keys.player_streak(result.player_id)]
    best = int(client.register_script(_STREAK)(keys=player_keys, args=[day_number(result.day)]))
    if result.world:
        packed = pack(best, result.finished_at)
        client.zadd(keys.board_streak(), {member(result.player_id): packed}, gt=True)


def count_advent(client: redis.Redis, result: Result, retention_days: int, zone: tzinfo) -> None:
    """Adds the result to its door of the advent board, and the earlier doors it brings
    along (*doors*: what their days gave, as the player's best-days hash keeps it), once per
    player and door."""
    assert result.day is not None
    doors = {result.day: pack(result.total, result.finished_at)} if advent_door(result.day) else {}
    earlier = [d for d in result.doors if d not in doors]
    if earlier:
        kept = client.hmget(
            keys.player_best_days(result.player_id), [d.isoformat() for d in earlier]
        )
        doors |= {d: int(float(v)) for d, v in zip(earlier, kept, strict=True) if v is not None}
    for day, packed in sorted(doors.items()):
        door = advent_door(day)
        assert door is not None
        total = packed // SHIFT
        args = (member(result.player_id), door, total, packed - total * SHIFT, SHIFT)
        client.register_script(_ADVENT)(
            keys=[keys.board_advent(day.year), keys.advent_doors(day.year)], args=args
        )


def count_friend(client: redis.Redis, result: Result, retention_days: int, zone: tzinfo) -> None:
    """Puts the result on its friend code's board; the player's first counted game stands."""
    assert result.code is not None
    packed = pack(result.total, result.finished_at)
    client.zadd(keys.board_friend(result.code), {member(result.player_id): packed}, nx=True)


# Takes a door's score off the advent sum if that door is counted for the player; the sum
# keeps its finish-time tie-break. The player leaves the board with their last door.
_UNADVENT = """
local mask = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local bit = 2 ^ (tonumber(ARGV[2]) - 1)
if math.floor(mask / bit) % 2 == 0 then return 0 end
local shift = tonumber(ARGV[4])
local old = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
local before = math.floor(old / shift)
if mask == bit then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', mask - bit))
local sum = math.max(0, before - tonumber(ARGV[3]))
redis.call('ZADD', KEYS[1], string.format('%d', sum * shift + (old - before * shift)), ARGV[1])
return 1
"""


# Unmarks a day in the player's bitmap and recomputes the streak from the whole bitmap:
# the best run, the last day played and the run that ends on it. Returns the best run.
_UNSTREAK = """
redis.call('SETBIT', KEYS[1], tonumber(ARGV[1]), 0)
local bits = redis.call('GET', KEYS[1]) or ''
local best, last, run, current = 0, -1, 0, 0
for i = 0, #bits * 8 - 1 do
  local byte = string.byte(bits, math.floor(i / 8) + 1)
  if math.floor(byte / 2 ^ (7 - i % 8)) % 2 == 1 then
    current = current + 1
    last, run = i, current
    best = math.max(best, current)
  else
    current = 0
  end
end
if best == 0 then
  redis.call('DEL', KEYS[2])
else
  redis.call('HSET', KEYS[2], 'last', last, 'run', run, 'best', best)
end
return best
"""


# Sets a player's entry to the true score ARGV[2], keeping its finish-time tie-break; a
# score of -1 takes the player off. Nothing happens when the player is not on the board.
_RESCORE = """
local old = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not old then return 0 end
if tonumber(ARGV[2]) < 0 then return redis.call('ZREM', KEYS[1], ARGV[1]) end
local shift = tonumber(ARGV[3])
local tie = tonumber(old) - math.floor(tonumber(old) / shift) * shift
redis.call('ZADD', KEYS[1], string.format('%d', tonumber(ARGV[2]) * shift + tie), ARGV[1])
return 1
"""


@guarded
def withdraw(client: redis.Redis, result: Result) -> None:
    """Takes *result* back off every board it was counted on: its date's or code's board,
    the aggregate ones (best day, streak, advent) and its player's leagues' day boards and
    week tables. Repeating it changes nothing."""
    check(result)
    for step in withdraw_steps(result):
        step(client, result)


#: A step taken back: (client, result) -> None.
Undo = Callable[[redis.Redis, Result], None]


def withdraw_steps(result: Result) -> list[Undo]:
    """The steps that take *result* back, one per step of :func:`steps`, then a daily's
    leagues (the date's board first: a member joining meanwhile reads it to count the day)."""
    if result.mode == BoardKind.FRIEND:
        return [uncount_friend]
    if result.mode != BoardKind.DAILY or result.day is None:
        return []
    found: list[Undo] = [uncount_daily, uncount_best_day, uncount_streak]
    if advent_door(result.day) is not None:
        found.append(uncount_advent)
    return [*found, uncount_leagues]


def uncount_daily(client: redis.Redis, result: Result) -> None:
    """Takes the player off the result's date board (and its new players)."""
    assert result.day is not None
    board = Board.daily(result.day)
    pipe = client.pipeline(transaction=True)
    pipe.zrem(board.key, member(result.player_id))
    pipe.zrem(str(board.new_key), member(result.player_id))
    pipe.execute()


def uncount_friend(client: redis.Redis, result: Result) -> None:
    """Takes the player off the result's friend code board."""
    assert result.code is not None
    client.zrem(keys.board_friend(result.code), member(result.player_id))


def uncount_best_day(client: redis.Redis, result: Result) -> None:
    """Drops the day from the player's best days; their best is the best day left.

    A best day counted before the best-days hash existed is taken off when it is this game's.
    """
    assert result.day is not None
    days = keys.player_best_days(result.player_id)
    client.hdel(days, result.day.isoformat())
    left = [float(v) for v in client.hvals(days)]
    board, name = keys.board_best_day(), member(result.player_id)
    if left:  # an established player's best is the best day left (XX: a new one has none)
        client.zadd(board, {name: int(max(left))}, xx=True)
    elif client.zscore(board, name) == pack(result.total, result.finished_at):
        client.zrem(board, name)


def uncount_streak(client: redis.Redis, result: Result) -> None:
    """Unmarks the day played, then sets the player's best run to what is left."""
    assert result.day is not None
    player_keys = [keys.player_days(result.player_id), keys.player_streak(result.player_id)]
    best = int(client.register_script(_UNSTREAK)(keys=player_keys, args=[day_number(result.day)]))
    args: list[str | int] = [member(result.player_id), best if best else -1, SHIFT]
    client.register_script(_RESCORE)(keys=[keys.board_streak()], args=args)


def uncount_advent(client: redis.Redis, result: Result) -> None:
    """Takes the result's door off the player's advent sum (once)."""
    assert result.day is not None
    door = advent_door(result.day)
    assert door is not None
    year = result.day.year
    args = (member(result.player_id), door, result.total, SHIFT)
    client.register_script(_UNADVENT)(
        keys=[keys.board_advent(year), keys.advent_doors(year)], args=args
    )


def uncount_leagues(client: redis.Redis, result: Result) -> None:
    """Takes the result off the day boards and week tables of the player's leagues."""
    assert result.day is not None
    league_boards.uncount(client, result.player_id, result.day)
