"""Leagues in Redis: a league's record and members, and its daily and weekly boards.

A league's keys share its hash tag, so every script here runs on one cluster slot: the
members are the truth of who is in it, and a board step checks membership in the same
script that writes, so a league's boards only ever hold its members. The player's own set of
leagues (on the player's slot) is an index for counting a finished daily on each of them; it
is written after the league's side, and a stale entry in it counts nowhere.

The week table holds each member's sum of their best five days of the week (Monday to
Sunday), recomputed from the league's day boards whenever a day counts or is taken back (a
game held for review: :func:`uncount`); its tie-break keeps the finish time of the day that
last raised the sum. Scores pack like every board's (:func:`daily.store.boards.pack`).

Joining takes the league's current invite token (a field of its hash); removing a member
sets a new one in the same script, so the removed member's link joins no more, and lists
them among the removed, whom no link lets in until the owner readmits them
(:mod:`daily.store.league_removals`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta, tzinfo
from typing import Any, cast

import redis
from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError

from daily.core.modes import BoardKind
from daily.store import boards, keys
from daily.store.boards import Board, Result, pack
from daily.store.guard import guarded
from daily.store.members import member, player_of

#: A league's day and week boards are kept this long after their day or week ends.
KEEP_DAYS = 56
#: How many of a week's days count towards its table.
BEST_DAYS = 5

# The answers of the scripts below.
MISSING, FULL, ALREADY, ADDED, NOT_OWNER, NOT_MEMBER, LEFT, EMPTIED, STALE, REMOVED = (
    "missing", "full", "already", "added", "not_owner", "not_member", "left", "emptied", "stale",
    "removed")  # fmt: skip


@dataclass(frozen=True, slots=True)
class LeagueRecord:
    """A league as stored: its name, owner, creation time, members in order of joining, and
    the token its invite link carries now."""

    id: str
    name: str
    owner: str
    created: float
    members: tuple[str, ...]
    invite: str


def monday(day: date) -> date:
    """The Monday that starts *day*'s week.

    >>> monday(date(2026, 12, 6)), monday(date(2026, 12, 7))
    (datetime.date(2026, 11, 30), datetime.date(2026, 12, 7))
    """
    return day - timedelta(days=day.weekday())


def day_board(league_id: str, day: date) -> Board:
    """The daily board of *league_id* on *day*."""
    key = keys.league_day(league_id, day.isoformat())
    return Board(f"league/{league_id}/day/{day.isoformat()}", key, "league-day")


def week_board(league_id: str, day: date) -> Board:
    """The week table of *league_id* for the week holding *day*."""
    first = monday(day).isoformat()
    return Board(f"league/{league_id}/week/{first}", keys.league_week(league_id, first),
                 "league-week")  # fmt: skip


def board_keys(league_id: str, today: date) -> list[str]:
    """Every board key of *league_id* that may still exist on *today* (kept or upcoming)."""
    days = [today + timedelta(days=n) for n in range(-KEEP_DAYS - 7, 2)]
    mondays = sorted({monday(day) for day in days})
    return [keys.league_day(league_id, d.isoformat()) for d in days] + [
        keys.league_week(league_id, m.isoformat()) for m in mondays
    ]


# Membership: the player's side (a set with a limit), then the league's side.

# Adds a league to a player's set unless it would pass the limit. 0 full, 1 already, 2 added.
_CLAIM = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 2
"""

# Adds a member to an existing league unless it is full, the player was removed (KEYS[3]) or
# the invite token ARGV[4] is not its current one (a league from before the tokens takes its
# id, ARGV[5]); a member joining again needs none. -1 no league, -4 removed, -3 not the
# current invite, 0 full, 1 already, 2 added.
_JOIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 1 end
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then return -4 end
if (redis.call('HGET', KEYS[1], 'invite') or ARGV[5]) ~= ARGV[4] then return -3 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 2
"""

# Takes a member out of a league and off its boards (KEYS[4..]); ARGV[2], when set, is the
# owner the caller must be, and the removal sets the new invite token ARGV[3] and lists the
# member among the removed (KEYS[3], at ARGV[4]), so no link lets them in again. The owner
# leaving hands the league to the longest-standing member; the last member leaving deletes
# it. -1 no league, -2 not the owner, 0 not a member, 1 left, 2 left and the league is gone.
_LEAVE = """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if ARGV[2] ~= '' and owner ~= ARGV[2] then return -2 end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return 0 end
for i = 4, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'invite', ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if not first then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
  return 2
end
if owner == ARGV[1] then redis.call('HSET', KEYS[1], 'owner', first) end
return 1
"""

# Sets a league's field ARGV[2] (its name, its invite token) to ARGV[3] if the caller owns
# it. -1 no league, -2 not the owner, 1 set.
_OWNER_SETS = """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if owner ~= ARGV[1] then return -2 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
"""

_CODES = {-4: REMOVED, -3: STALE, -2: NOT_OWNER, -1: MISSING, 0: FULL, 1: ALREADY, 2: ADDED}
_LEAVE_CODES = {-2: NOT_OWNER, -1: MISSING, 0: NOT_MEMBER, 1: LEFT, 2: EMPTIED}


@guarded
def claim(client: redis.Redis, player_id: str, league_id: str, max_leagues: int) -> str:
    """Adds *league_id* to the player's leagues: ``added``, ``already``, or ``full``."""
    found = client.register_script(_CLAIM)(
        keys=[keys.player_leagues(player_id)], args=[league_id, max_leagues]
    )
    return _CODES[int(found)]


@guarded
def unclaim(client: redis.Redis, player_id: str, league_id: str) -> None:
    """Takes *league_id* out of the player's leagues (they left, or joining failed)."""
    client.srem(keys.player_leagues(player_id), league_id)


@guarded
def create(
    client: redis.Redis, league_id: str, name: str, owner: str, now: float, invite: str
) -> None:
    """Stores a new league named *name* with *owner* as its first member (claimed before)
    and *invite* as the token of its invite link."""
    pipe = client.pipeline(transaction=True)
    pipe.hset(
        keys.league(league_id),
        mapping={"name": name, "owner": member(owner), "created": now, "invite": invite},
    )
    pipe.zadd(keys.league_members(league_id), {member(owner): now})
    pipe.execute()


@guarded
def join(
    client: redis.Redis,
    league_id: str,
    player_id: str,
    now: float,
    max_members: int,
    invite: str | None = None,
) -> str:
    """Adds a member who holds the league's current *invite* token (None: its id, the links
    of before the tokens): ``added``, ``already``, ``full``, ``stale`` (not the current
    token), ``removed`` (by the owner, not readmitted) or ``missing`` (no such league)."""
    found = client.register_script(_JOIN)(
        keys=[
            keys.league(league_id),
            keys.league_members(league_id),
            keys.league_removed(league_id),
        ],  # fmt: skip
        args=[member(player_id), now, max_members, invite or league_id, league_id],
    )
    return _CODES[int(found)]


@guarded
def leave(
    client: redis.Redis,
    league_id: str,
    player_id: str,
    today: date,
    owner: str | None = None,
    invite: str = "",
    now: float = 0.0,
) -> str:
    """Takes a member out and off the league's boards: ``left``, ``emptied`` (the league is
    gone), ``not_member``, ``missing``, or ``not_owner`` (*owner* given and not the owner).
    A removal by the *owner* sets the new *invite* token and lists the member among the
    removed (at *now*) in the same step."""
    league_keys = [keys.league(league_id), keys.league_members(league_id),
                   keys.league_removed(league_id)]  # fmt: skip
    found = client.register_script(_LEAVE)(
        keys=league_keys + board_keys(league_id, today),
        args=[member(player_id), member(owner) if owner else "", invite, now],
    )
    return _LEAVE_CODES[int(found)]


@guarded
def rename(client: redis.Redis, league_id: str, owner: str, name: str) -> str:
    """Renames a league: ``added`` (done), ``missing``, or ``not_owner``."""
    return _owner_sets(client, league_id, owner, "name", name)


@guarded
def renew(client: redis.Redis, league_id: str, owner: str, invite: str) -> str:
    """Makes *invite* the token of the league's invite link, the old link joining no more:
    ``added`` (done), ``missing``, or ``not_owner``."""
    return _owner_sets(client, league_id, owner, "invite", invite)


def _owner_sets(client: redis.Redis, league_id: str, owner: str, field: str, value: str) -> str:
    found = client.register_script(_OWNER_SETS)(
        keys=[keys.league(league_id)], args=[member(owner), field, value]
    )
    return _CODES[2 if int(found) == 1 else int(found)]


@guarded
def load(client: redis.Redis, league_id: str) -> LeagueRecord | None:
    """The league *league_id*, or None if there is none."""
    pipe = client.pipeline(transaction=True)
    pipe.hgetall(keys.league(league_id))
    pipe.zrange(keys.league_members(league_id), 0, -1)
    fields, members = cast(tuple[dict[str, str], list[str]], tuple(pipe.execute()))
    if not fields:
        return None
    return LeagueRecord(
        id=league_id,
        name=fields["name"],
        owner=player_of(fields["owner"]),
        created=float(fields["created"]),
        members=tuple(player_of(m) for m in members),
        invite=fields.get("invite", league_id),  # a league from before the tokens: its id
    )


@guarded
def leagues_of(client: redis.Redis, player_id: str) -> list[str]:
    """The ids of the leagues *player_id* is in (sorted: a stable order)."""
    return sorted(str(i) for i in client.smembers(keys.player_leagues(player_id)))


# A player's line in each of their leagues on one day.

# The league's name, its size, how many members are on its board of the day, and the
# player's competition rank there (1 + how many have a strictly higher true score; 0: not
# on it). Nothing when the league is gone or the player is not one of its members.
_DAY_LINE = """
local name = redis.call('HGET', KEYS[1], 'name')
if not name or not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return false end
local rank, own = 0, redis.call('ZSCORE', KEYS[3], ARGV[1])
if own then
  local above = (math.floor(tonumber(own) / tonumber(ARGV[2])) + 1) * tonumber(ARGV[2])
  rank = redis.call('ZCOUNT', KEYS[3], string.format('%d', above), '+inf') + 1
end
return {name, redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), rank}
"""


@dataclass(frozen=True, slots=True)
class DayLine:
    """A player's line in one of their leagues on one day: *rank* is 0 if they did not play."""

    league_id: str
    name: str
    members: int
    played: int
    rank: int


@guarded
def day_lines(
    client: redis.Redis, player_id: str, day: date, league_ids: Sequence[str] | None = None
) -> list[DayLine]:
    """*player_id*'s line on *day* in each of their leagues (those of *league_ids*, or read
    from the player's set first): one script a league, all in one pipeline. A league gone
    meanwhile, or one the player is no longer in, is left out."""
    ids = leagues_of(client, player_id) if league_ids is None else list(league_ids)
    rows = [
        [keys.league(i), keys.league_members(i), keys.league_day(i, day.isoformat())] for i in ids
    ]
    found = _each(client, _DAY_LINE, rows, [member(player_id), boards.SHIFT])
    return [
        DayLine(league_id, _text(r[0]), int(r[1]), int(r[2]), int(r[3]))
        for league_id, r in zip(ids, found, strict=True)
        if r
    ]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


# Counting a finished daily on the player's leagues.

# Puts a member's day on the league's day board (the first counted game stands), then sets
# their week entry to the sum of their best ARGV[6] days of the week (KEYS[4..], the week's
# day boards). A non-member changes nothing; repeating it changes nothing.
_COUNT = """
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local shift = tonumber(ARGV[5])
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('EXPIREAT', KEYS[2], ARGV[3])
local scores = {}
for i = 4, #KEYS do
  local s = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if s then scores[#scores + 1] = math.floor(tonumber(s) / shift) end
end
table.sort(scores, function(a, b) return a > b end)
local sum = 0
for i = 1, math.min(tonumber(ARGV[6]), #scores) do sum = sum + scores[i] end
local old = redis.call('ZSCORE', KEYS[3], ARGV[1])
if old and math.floor(tonumber(old) / shift) == sum then return 1 end
local tie = tonumber(ARGV[2]) % shift
redis.call('ZADD', KEYS[3], string.format('%d', sum * shift + tie), ARGV[1])
redis.call('EXPIREAT', KEYS[3], ARGV[4])
return 1
"""


@guarded
def count(
    client: redis.Redis,
    result: Result,
    league_ids: Sequence[str] | None = None,
    *,
    zone: tzinfo,
) -> int:
    """Counts a daily *result* on each of its player's leagues (the ones in *league_ids*,
    or read from the player's set first); returns on how many it counts. Idempotent."""
    if result.mode != BoardKind.DAILY or result.day is None:
        return 0
    ids = leagues_of(client, result.player_id) if league_ids is None else list(league_ids)
    packed = pack(result.total, result.finished_at)
    return _count(client, result.player_id, result.day, packed, ids, zone)


@guarded
def count_from_board(
    client: redis.Redis, league_id: str, player_id: str, day: date, *, zone: tzinfo
) -> bool:
    """Counts on *league_id* the daily of *day* that *player_id* has on that day's public
    board, for a member who joins after playing it; whether it counts there now.

    The public board is the truth of what counted: a game held for review is not on it.
    One held while this runs is taken back here or by its withdrawal: that takes it off
    the public board first and reads the player's leagues last (this league claimed before).
    """
    daily = boards.Board.daily(day).key
    packed = client.zscore(daily, member(player_id))
    if packed is None or not _count(client, player_id, day, int(packed), [league_id], zone):
        return False
    if client.zscore(daily, member(player_id)) is None:  # withdrawn meanwhile
        uncount(client, player_id, day, [league_id])
        return False
    return True


def _count(
    client: redis.Redis,
    player_id: str,
    day: date,
    packed: int,
    league_ids: Sequence[str],
    zone: tzinfo,
) -> int:
    first = monday(day)
    week = [first + timedelta(days=n) for n in range(7)]
    rows = [
        [
            keys.league_members(league_id),
            keys.league_day(league_id, day.isoformat()),
            keys.league_week(league_id, first.isoformat()),
            *(keys.league_day(league_id, d.isoformat()) for d in week),
        ]
        for league_id in league_ids
    ]
    day_end = boards.expires_at(day, KEEP_DAYS, zone)
    week_end = boards.expires_at(week[-1], KEEP_DAYS, zone)
    args: list[str | int] = [member(player_id), packed, day_end, week_end, boards.SHIFT, BEST_DAYS]
    return sum(int(r) for r in _each(client, _COUNT, rows, args))


# Takes a member's day off the league's day board, then sets their week entry to what the
# week's other days (KEYS[3..]) give, replayed in the order they finished as counting them
# did: the sum of the best ARGV[3], its tie-break the finish time of the day that last
# raised it. The week entry goes with the last day. A day not on the board (taken off
# already, never counted here) changes nothing.
_UNCOUNT = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
local shift, best = tonumber(ARGV[2]), tonumber(ARGV[3])
local days = {}
for i = 3, #KEYS do
  local s = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if s then
    local score = math.floor(tonumber(s) / shift)
    days[#days + 1] = {score, tonumber(s) - score * shift}
  end
end
if #days == 0 then return redis.call('ZREM', KEYS[2], ARGV[1]) end
table.sort(days, function(a, b) return a[2] > b[2] end)
local scores, sum, tie = {}, -1, 0
for _, d in ipairs(days) do
  scores[#scores + 1] = d[1]
  table.sort(scores, function(a, b) return a > b end)
  local reached = 0
  for i = 1, math.min(best, #scores) do reached = reached + scores[i] end
  if reached > sum then sum, tie = reached, d[2] end
end
redis.call('ZADD', KEYS[2], string.format('%d', sum * shift + tie), ARGV[1])
return 1
"""


@guarded
def uncount(
    client: redis.Redis, player_id: str, day: date, league_ids: Sequence[str] | None = None
) -> int:
    """Takes *player_id*'s daily of *day* off each of their leagues (those of *league_ids*,
    or read from the player's set first) and their week tables; returns on how many it was
    counted. Idempotent."""
    ids = leagues_of(client, player_id) if league_ids is None else list(league_ids)
    first = monday(day)
    week = [(first + timedelta(days=n)).isoformat() for n in range(7)]
    rows = [
        [
            keys.league_day(league_id, day.isoformat()),
            keys.league_week(league_id, first.isoformat()),
            *(keys.league_day(league_id, d) for d in week),
        ]
        for league_id in ids
    ]
    args: list[str | int] = [member(player_id), boards.SHIFT, BEST_DAYS]
    return sum(int(r) for r in _each(client, _UNCOUNT, rows, args))


def _each(
    client: redis.Redis, source: str, rows: list[list[str]], args: Sequence[str | int]
) -> list[Any]:
    """Runs the script *source* once per key list in *rows*, all in one pipeline: one round
    trip on a server, one per node on a cluster; the replies in the order of *rows*.

    A server runs it by its hash, and a server that has not cached it yet gets it loaded and
    the pipeline runs again (every script run here is idempotent). A cluster's pipeline
    refuses EVALSHA, so there the script's text goes with each call.
    """
    if not rows:
        return []
    if isinstance(client, RedisCluster):
        pipe = client.pipeline(transaction=False)
        for row in rows:
            pipe.execute_command("EVAL", source, len(row), *row, *args)
        return list(pipe.execute())
    sha = hashlib.sha1(source.encode()).hexdigest()
    for attempt in range(2):
        pipe = client.pipeline(transaction=False)
        for row in rows:
            pipe.evalsha(sha, len(row), *row, *args)
        found = pipe.execute(raise_on_error=False)
        if attempt or not any(isinstance(r, NoScriptError) for r in found):
            break
        client.script_load(source)
    for r in found:
        if isinstance(r, Exception):
            raise r
    return list(found)
