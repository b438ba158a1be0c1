"""Rate-limit counters that ride on a read's own round trip.

A move reads its game in one pipeline (:func:`daily.store.games.load_for`); its rate limits
are counted in that same pipeline, so a move stays at two round trips with the limits on.
Each counter is a fixed window that starts at its first count: ``SET key 0 EX window NX``
then ``INCR`` (and ``TTL``, for ``Retry-After``), on Redis 6.2 as on 7.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from daily.store.guard import guarded


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


def queue(pipe: Any, counters: Sequence[Counter]) -> None:
    """Adds the commands that count one request on each of *counters* to *pipe*."""
    for counter in counters:
        pipe.set(counter.key, 0, ex=counter.seconds, nx=True)
        pipe.incr(counter.key)
        pipe.ttl(counter.key)


def read(
    client: redis.Redis, counters: Sequence[Counter], replies: Sequence[Any]
) -> tuple[Count, ...]:
    """The counts of *counters* from the replies :func:`queue`'s commands got, in order."""
    counts = []
    for n, counter in enumerate(counters):
        value, ttl = int(replies[3 * n + 1]), int(replies[3 * n + 2])
        if ttl < 0:
            # The window ran out between SET NX and INCR, so INCR made the key without an
            # expiry: give it one, or the count would never reset (a rare extra trip).
            client.expire(counter.key, counter.seconds)
            ttl = counter.seconds
        counts.append(Count(counter, value, ttl))
    return tuple(counts)


@guarded
def count(client: redis.Redis, counters: Sequence[Counter]) -> tuple[Count, ...]:
    """Counts one request on each of *counters*, in one round trip of its own."""
    if not counters:
        return ()
    pipe = client.pipeline(transaction=False)
    queue(pipe, counters)
    return read(client, counters, pipe.execute())
