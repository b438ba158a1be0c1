"""Finished games not yet counted on their boards, and counting them.

A finishing move lists its game here before it is stored, and the game leaves the list
once its results are counted, so a crash between the two is repaired by the service's sweep
(:func:`daily.service.games.retry_pending`). Which boards a game counts on is the service's
decision (:mod:`daily.service.results`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import redis

from daily.core.config import Config
from daily.core.record import (
    Record,
)
from daily.store import board_counts, boards, keys, league_boards
from daily.store.game_fields import SUBMITTED
from daily.store.guard import guarded


@guarded
def mark_pending(client: redis.Redis, game_id: str, now: float) -> None:
    # Listed before the finishing move is stored, so no crash can lose the result.
    client.zadd(keys.pending_results(), {game_id: now})


@guarded
def submit(
    client: redis.Redis, config: Config, record: Record, results: Sequence[boards.Result]
) -> None:
    """Counts a finished game on the boards of *results*, then clears it from the pending list.

    Which results count (none for a game held for review) is the review flow's decision
    (:func:`daily.service.reviews.submit`). Every board step is a no-op when repeated.
    """
    for result in results:
        board_counts.submit(
            client, result, retention_days=config.board_retention_days, zone=config.timezone
        )
        # A daily also counts on each of its player's leagues (docs/rankings.md, Leagues).
        league_boards.count(client, result, zone=config.timezone)
    # In this order, one after the other (two cluster slots): a crash between leaves a
    # counted game listed as pending, which the game service's retry_pending clears.
    client.hset(keys.game(record.id), SUBMITTED, "1")
    client.zrem(keys.pending_results(), record.id)


@guarded
def pending(client: redis.Redis, listed_before: float) -> list[tuple[str, float]]:
    """The games listed as pending before *listed_before* (unix seconds), with when."""
    found = client.zrangebyscore(keys.pending_results(), "-inf", listed_before, withscores=True)
    return [(str(game_id), float(at)) for game_id, at in cast(list[tuple[str, float]], found)]


@guarded
def unlist_pending(client: redis.Redis, game_id: str) -> None:
    """Takes *game_id* off the pending list (counted, or never finished)."""
    client.zrem(keys.pending_results(), game_id)


@guarded
def claim_sweep(client: redis.Redis, interval_s: float) -> bool:
    """Whether this process may sweep now: one short-lived lock key over every worker."""
    return bool(client.set(keys.pending_sweep(), "1", nx=True, ex=int(interval_s)))
