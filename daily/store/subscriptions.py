"""Streak reminders in Redis: each player's Web Push subscription, and the schedule of when
each is next due.

A subscription is a hash under its player (:func:`daily.store.keys.player_reminder`) that
expires unless the player's browser confirms it again, and goes with the player when they are
deleted. The schedule is one sorted set scored by the next due time, so a sender reads only
its due end (``ZRANGEBYSCORE``), never every player. Two steps make a reminder go out once
a day however many senders run:

1. :func:`claim_due` takes a batch of due players in one script and moves each a *lease*
   ahead, so a second sender does not take them meanwhile;
2. :func:`take` runs one script a player, on the player's slot: it claims the puzzle day on
   the subscription (``day``), and says whether the player already finished that day's daily
   (their notes, :mod:`daily.store.played_days`) or was deleted; only a ``send`` answer is a
   reminder to send. A sender that stops between the two leaves the player to the next one
   after the lease, whose claim of the day then finds it taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

import redis

from daily.store import keys
from daily.store.connection import queue_script
from daily.store.guard import guarded
from daily.store.played_days import field_of, offset_of

#: The fields a subscription keeps, besides the day last claimed.
FIELDS = ("endpoint", "p256dh", "auth", "at", "zone", "lang")


@dataclass(frozen=True, slots=True)
class Kept:
    """A player's reminder as stored: the browser's subscription, when it comes (``HH:MM`` in
    *zone*) and the language it speaks."""

    endpoint: str
    p256dh: str
    auth: str
    at: str
    zone: str
    lang: str


@dataclass(frozen=True, slots=True)
class Taken:
    """What :func:`take` found for one player: ``send`` (claimed, not played: *kept* and the
    streak *run* alive before the day), ``played`` (today's daily finished), ``done`` (the day
    claimed before, by this or another sender) or ``gone`` (no subscription, or the player
    was deleted)."""

    player_id: str
    outcome: Literal["send", "played", "done", "gone"]
    kept: Kept | None = None
    run: int = 0


@guarded
def save(client: redis.Redis, player_id: str, kept: Kept, due: float, ttl_s: int) -> None:
    """Keeps *player_id*'s reminder for *ttl_s* seconds more and schedules it at *due* (unix
    seconds); the day already claimed stays claimed."""
    pipe = client.pipeline(transaction=False)  # two slots: the player's, the schedule's
    pipe.hset(keys.player_reminder(player_id), mapping={f: getattr(kept, f) for f in FIELDS})
    pipe.expire(keys.player_reminder(player_id), ttl_s)
    pipe.zadd(keys.reminders_due(), {player_id: due})
    pipe.execute()


@guarded
def get(client: redis.Redis, player_id: str) -> Kept | None:
    """*player_id*'s reminder, or None if it is off (or expired)."""
    found = client.hmget(keys.player_reminder(player_id), list(FIELDS))
    if any(value is None for value in found):
        return None
    return Kept(*(str(value) for value in found))


@guarded
def remove(client: redis.Redis, player_id: str) -> bool:
    """Turns *player_id*'s reminder off; whether there was one."""
    pipe = client.pipeline(transaction=False)
    pipe.delete(keys.player_reminder(player_id))
    pipe.zrem(keys.reminders_due(), player_id)
    removed, _ = pipe.execute()
    return bool(removed)


@guarded
def finished_dailies(client: redis.Redis, player_id: str) -> int:
    """How many ranked dailies *player_id* finished, by their notes (the last 430 days)."""
    # The cells are bytes: read without decoding (redis-py leaves this method untyped).
    command: Any = client.execute_command
    halves = command("HVALS", keys.player_dailies(player_id), NEVER_DECODE=[])
    return sum(1 for half in halves for byte in bytes(half)[::3] if byte & 0x80)


# Takes the first ARGV[3] players due by ARGV[1] off the due end of the schedule (KEYS[1]) by
# moving each to ARGV[2], the end of the sender's lease; returns them with their due times.
_CLAIM = """
local found = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES',
                         'LIMIT', 0, ARGV[3])
for i = 1, #found, 2 do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], found[i]) end
return found
"""


@guarded
def claim_due(
    client: redis.Redis, now: float, lease_s: float, count: int
) -> list[tuple[str, float]]:
    """Up to *count* players whose reminder is due at *now*, with their due times, each moved
    *lease_s* seconds on so that no other sender takes it meanwhile."""
    script = client.register_script(_CLAIM)
    found = script(keys=[keys.reminders_due()], args=[now, now + lease_s, count])
    return [(str(found[i]), float(found[i + 1])) for i in range(0, len(found), 2)]


# One player's reminder (KEYS[1]) on puzzle day ARGV[1]: gone without a subscription or with a
# deleted player (KEYS[2]); done if the day was claimed; else the day is claimed, and it is
# played if the player's notes (KEYS[3]) mark the day (field ARGV[2], byte ARGV[3]); else the
# subscription and the streak run (KEYS[4]) if it is alive (its last day >= ARGV[4]). One
# line a field in one string: 100,000 replies parse in a fraction of the time of lists.
_TAKE = r"""
local s = redis.call('HMGET', KEYS[1], 'endpoint', 'p256dh', 'auth', 'at', 'zone', 'lang', 'day')
if not s[1] or not s[6] then return 'gone' end
if redis.call('HEXISTS', KEYS[2], 'deleted') == 1 then
  redis.call('DEL', KEYS[1])
  return 'gone'
end
local kept = table.concat({s[1], s[2], s[3], s[4], s[5], s[6]}, '\n')
if s[7] == ARGV[1] then return 'done\n' .. kept end
redis.call('HSET', KEYS[1], 'day', ARGV[1])
local cell = redis.call('HGET', KEYS[3], ARGV[2])
local at = tonumber(ARGV[3]) + 1
if cell and #cell >= at and string.byte(cell, at) >= 128 then return 'played\n' .. kept end
local streak = redis.call('HMGET', KEYS[4], 'last', 'run')
local run = 0
if streak[1] and tonumber(streak[1]) >= tonumber(ARGV[4]) then run = tonumber(streak[2] or '0') end
return 'send\n' .. kept .. '\n' .. run
"""


@guarded
def take(
    client: redis.Redis, player_ids: Sequence[str], day: date, alive_since: int
) -> list[Taken]:
    """Claims *day* (the puzzle day) on each player's reminder, one script a player in one
    pipeline (a round trip a cluster node); *alive_since*: the first day number a streak
    still alive on *day* ends on (the day before)."""
    sha = client.script_load(_TAKE)  # on every node: one round trip a batch
    args = [day.isoformat(), field_of(day), offset_of(day), alive_since]
    pipe = client.pipeline(transaction=False)
    for player_id in player_ids:
        own = [
            keys.player_reminder(player_id),
            keys.player(player_id),
            keys.player_dailies(player_id),
            keys.player_streak(player_id),
        ]
        queue_script(pipe, _TAKE, own, args, sha)
    return [_taken(p, found) for p, found in zip(player_ids, pipe.execute(), strict=True)]


def _taken(player_id: str, found: str) -> Taken:
    outcome, *fields = found.split("\n")  # no field holds a line break (the API checks them)
    if outcome == "gone":
        return Taken(player_id, "gone")
    run = int(fields[6]) if outcome == "send" else 0
    return Taken(player_id, outcome, Kept(*fields[:6]), run)  # type: ignore[arg-type]


@guarded
def reschedule(client: redis.Redis, due: Mapping[str, float]) -> None:
    """Schedules each player of *due* at their next due time (only those still scheduled)."""
    if due:
        client.zadd(keys.reminders_due(), dict(due), xx=True)


@guarded
def forget(client: redis.Redis, player_ids: Iterable[str]) -> None:
    """Takes *player_ids* off the schedule (their subscription is gone)."""
    ids = list(player_ids)
    if ids:
        client.zrem(keys.reminders_due(), *ids)


# Deletes the reminder KEYS[1] if it still posts to ARGV[1].
_DROP = """
if redis.call('HGET', KEYS[1], 'endpoint') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


@guarded
def drop(client: redis.Redis, player_id: str, endpoint: str) -> bool:
    """Removes *player_id*'s reminder if it still posts to *endpoint* (the push service said
    the subscription is gone); a newer subscription of the player stays."""
    script = client.register_script(_DROP)
    if not script(keys=[keys.player_reminder(player_id)], args=[endpoint]):
        return False
    client.zrem(keys.reminders_due(), player_id)
    return True
