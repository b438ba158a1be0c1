"""Rate-limit counters that ride on a read's own round trip.

A move reads its game in one pipeline (:func:`daily.store.saved_games.load_for`); its rate limits
are counted in that same pipeline, so a move stays at two round trips with the limits on.
Each counter is a fixed window that starts at its first count. The counters of one hash tag
(a player's windows, an address's) are counted by one script, so a limit costs its request
one command however many windows it has, on Redis 6.2 as on 7 and on a cluster alike.
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
