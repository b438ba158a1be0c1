"""Finished games not yet counted on their boards, and counting them.

A finishing move lists its game here before it is stored, and the game leaves the list
once its results are counted, so a crash between the two is repaired by the service's sweep
(:func:`daily.service.games.retry_pending`). Which boards a game counts on is the service's
decision (:mod:`daily.service.results`).
"""

from __future__ import annotations

from typing import cast

import redis

from daily.core import ledger
from daily.core.config import Config
from daily.store import board_counts, keys
from daily.store.game_fields import SUBMITTED
from daily.store.guard import guarded


@guarded
def mark_pending(client: redis.Redis, game_id: str, now: float) -> None:
    # Listed before the finishing move is stored, so no crash can lose the result.
    client.zadd(keys.pending_results(), {game_id: now})


@guarded
def submit(client: redis.Redis, config: Config, plan: ledger.Plan) -> None:
    """Carries out the ledger's *plan* of a finished game, keeps its tally with the game,
    then clears the game from the pending list.

    What counts where (nothing for a game held for review) is the ledger's decision
    (:mod:`daily.core.ledger`, asked by :func:`daily.service.results.count`). Every board
    step is a no-op when repeated.
    """
    board_counts.carry_out(
        client, plan, retention_days=config.board_retention_days, zone=config.timezone
    )
    # In this order, one after the other (two cluster slots): a crash between leaves a
    # counted game listed as pending, which the game service's retry_pending clears.
    tally = ledger.tally_str(ledger.tally_of(plan))
    client.hset(keys.game(plan.game.game_id), mapping={SUBMITTED: "1", ledger.TALLY: tally})
    client.zrem(keys.pending_results(), plan.game.game_id)


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
