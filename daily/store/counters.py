"""Rate-limit counters: counted on a read's own round trip, or taken all or none.

Each counter is a fixed window that starts at its first count and expires with it. Two ways
to count, both atomic, so a burst of concurrent requests gets exactly a limit, never more:

- :func:`queue` counts one request on each counter inside a pipeline that does other work (a
  move reads its game in one: :func:`daily.store.saved_games.load_for`), and the caller
  refuses the request whose count went past a limit;
- :func:`take` checks every counter and counts on all of them in the same script, or on none
  when one is spent (a new player, a daily: a request refused by one budget spends no other);
  :func:`give_back` returns what a request took and did not use (a daily that was not new).

The counters of one hash tag (a player's windows; an address's with its networks') go in one
script, so a limit costs its request one command however many windows it has, on Redis 6.2
as on 7 and on a cluster alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import redis

from daily.store.connection import queue_script
from daily.store.guard import guarded

#: Counts one request on each key (KEYS, one hash tag) whose window is its ARGV's seconds:
#: INCR, and the window's expiry set by the count that opened it; answers count and seconds
#: left, a pair a key. Atomic, so no window can lose its expiry between two commands.
_COUNT = """
local out = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('INCR', key)
  local left = redis.call('TTL', key)
  if left < 0 then
    left = tonumber(ARGV[i])
    redis.call('EXPIRE', key, left)
  end
  out[2 * i - 1] = value
  out[2 * i] = left
end
return out
"""
#: Takes one on each key (KEYS, one hash tag) unless one is at its limit: ARGV holds each
#: key's limit and window seconds in turn. Answers 0 when taken, else the 1-based index of
#: the first spent key and the seconds left in its window; a refusal counts nothing.
_TAKE = """
for i, key in ipairs(KEYS) do
  local value = tonumber(redis.call('GET', key) or '0')
  if value >= tonumber(ARGV[2 * i - 1]) then
    local left = redis.call('TTL', key)
    if left < 0 then left = tonumber(ARGV[2 * i]) end
    return {i, left}
  end
end
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('EXPIRE', key, ARGV[2 * i]) end
end
return {0, 0}
"""
#: Gives one back on each key (KEYS) that still counts one or more.
_GIVE_BACK = """
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 1
"""
_TAG = re.compile(r"\{([^}]*)\}")


@dataclass(frozen=True, slots=True)
class Counter:
    """One rate limit's counter: the limit's name, its key, its window in seconds and how
    many counts a window allows."""

    name: str
    key: str
    seconds: int
    limit: int


@dataclass(frozen=True, slots=True)
class Count:
    """A counter after this request's count: the window's count so far and the seconds
    left in it."""

    counter: Counter
    value: int
    seconds_left: int

    @property
    def is_over(self) -> bool:
        """Whether this request went past the window's limit."""
        return self.value > self.counter.limit


def _tag(counter: Counter) -> str:
    found = _TAG.search(counter.key)
    return found.group(1) if found else counter.key


def _groups(counters: Sequence[Counter]) -> list[list[Counter]]:
    # Neighbours of one hash tag share a script (its keys must be in one slot on a cluster).
    return [list(group) for _, group in groupby(counters, key=_tag)]


def queue(pipe: Any, counters: Sequence[Counter]) -> list[list[Counter]]:
    """Adds the commands that count one request on each of *counters* to *pipe*: one
    script for each run of counters of one hash tag. Returns those runs, for :func:`read`."""
    groups = _groups(counters)
    for group in groups:
        queue_script(pipe, _COUNT, [c.key for c in group], [c.seconds for c in group])
    return groups


def read(groups: Sequence[Sequence[Counter]], replies: Sequence[Any]) -> tuple[Count, ...]:
    """The counts of the counters :func:`queue` grouped as *groups*, from the replies its
    commands got, in order."""
    counts = []
    for group, reply in zip(groups, replies, strict=True):
        for n, counter in enumerate(group):
            counts.append(Count(counter, int(reply[2 * n]), int(reply[2 * n + 1])))
    return tuple(counts)


@guarded
def count(client: redis.Redis, counters: Sequence[Counter]) -> tuple[Count, ...]:
    """Counts one request on each of *counters*, in one round trip of its own."""
    if not counters:
        return ()
    pipe = client.pipeline(transaction=False)
    groups = queue(pipe, counters)
    return read(groups, pipe.execute())


@guarded
def take(client: redis.Redis, counters: Sequence[Counter]) -> Count | None:
    """Counts one request on every one of *counters*, or on none: the first counter found
    spent comes back (its count at the limit, the seconds left in its window) and nothing is
    counted; None when the request was counted. Atomic for counters of one hash tag; across
    tags, a refusal by a later group gives back what the earlier ones took."""
    taken: list[list[Counter]] = []
    for group in _groups(counters):
        args = [x for c in group for x in (c.limit, c.seconds)]
        spent, left = client.eval(_TAKE, len(group), *[c.key for c in group], *args)
        if int(spent):
            give_back(client, [c for done in taken for c in done])
            counter = group[int(spent) - 1]
            return Count(counter, counter.limit, int(left))
        taken.append(group)
    return None


@guarded
def give_back(client: redis.Redis, counters: Sequence[Counter]) -> None:
    """Gives back one count on each of *counters* that :func:`take` counted and the request
    did not use (never below zero)."""
    for group in _groups(counters):
        client.eval(_GIVE_BACK, len(group), *[c.key for c in group])
