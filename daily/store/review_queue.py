"""The review queue as stored: games too lucky to be honest, held back from every public board.

Persistence only; the decisions (check a game, then count it or hold it; release, remove)
are the review flow's, :mod:`daily.service.reviews`. A checked game's hash has its luck score
(``luck``); a held one ``review=held`` and a place on ``daily:reviews:held`` until an
operator releases it (``review=released``: counted) or removes it (``review=removed``: kept,
never ranked). A counted game that waits for its table is listed on
``daily:reviews:unchecked``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import redis

from daily.core import ledger
from daily.store import board_counts, keys
from daily.store.guard import guarded

if TYPE_CHECKING:
    from daily.core.record import Record

#: The ``review`` field of a game's hash: held (waiting), released (counted), removed.
HELD, RELEASED, REMOVED = "held", "released", "removed"


def status_of(record: Record) -> str | None:
    """The game's review status (held, released, removed), or None if it was never held."""
    return record.extra.get("review")


def shown_status(record: Record) -> str | None:
    """What the game's player is told: ``held`` (under review), ``removed``, or None."""
    status = status_of(record)
    return status if status in (HELD, REMOVED) else None


@guarded
def shown_status_of(
    client: redis.Redis, game_id: str, archived: Record | None = None
) -> str | None:
    """:func:`shown_status` as stored now (the record in hand may predate its check); of a
    game no longer in Redis (archived), as *archived*, its record read back, says."""
    status, header, first_form = client.hmget(keys.game(game_id), ["review", "h", "mode"])
    if header is None and first_form is None and archived is not None:
        return shown_status(archived)  # a review is done before its game is archived
    return str(status) if status in (HELD, REMOVED) else None


@guarded
def save_verdict(
    client: redis.Redis, game_id: str, score: float, flagged: bool, now: float
) -> None:
    """Stores a game's luck *score*, and holds it when *flagged* (listed after the hash)."""
    # The score and the hold in one write: a game is never checked without its verdict.
    fields = {"luck": f"{score:.4f}"} | ({"review": HELD} if flagged else {})
    client.hset(keys.game(game_id), mapping=cast(Mapping[Any, Any], fields))
    if flagged:
        # Listed after the hash: a crash between leaves a held, unlisted game that the
        # next submit of it (it is still pending) lists; never a listed game not held.
        list_held(client, game_id, now)


@guarded
def list_held(client: redis.Redis, game_id: str, now: float) -> None:
    """Lists a held game on the review queue (a no-op when it is listed)."""
    client.zadd(keys.reviews_held(), {game_id: now}, nx=True)


@guarded
def queue_unchecked(client: redis.Redis, game_id: str, now: float) -> None:
    """Lists a counted game that waits for its table to be checked."""
    client.zadd(keys.reviews_unchecked(), {game_id: now}, nx=True)


@guarded
def held(client: redis.Redis, limit: int = 100) -> list[tuple[str, float]]:
    """The ids of the games under review with when each was held, oldest first."""
    listed = client.zrange(keys.reviews_held(), 0, limit - 1, withscores=True)
    return [(str(game_id), float(at)) for game_id, at in cast(list[tuple[str, float]], listed)]


@guarded
def set_status(client: redis.Redis, game_id: str, status: str) -> None:
    """Writes a game's review status (an operator's release or removal)."""
    client.hset(keys.game(game_id), "review", status)


@guarded
def unlist_held(client: redis.Redis, game_id: str) -> None:
    """Takes a game off the review queue."""
    client.zrem(keys.reviews_held(), game_id)


@guarded
def unchecked_ids(client: redis.Redis, limit: int) -> list[str]:
    """The oldest *limit* games waiting for their table."""
    return [str(game_id) for game_id in client.zrange(keys.reviews_unchecked(), 0, limit - 1)]


@guarded
def unchecked_among(client: redis.Redis, game_ids: Sequence[str]) -> set[str]:
    """Those of *game_ids* that wait on the unchecked list for their luck check."""
    if not game_ids:
        return set()
    pipe = client.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.zscore(keys.reviews_unchecked(), game_id)
    return {game_id for game_id, at in zip(game_ids, pipe.execute(), strict=True) if at is not None}


@guarded
def unlist_unchecked(client: redis.Redis, game_id: str) -> None:
    """Takes a game off the list of games waiting for their table."""
    client.zrem(keys.reviews_unchecked(), game_id)


@guarded
def withdraw(client: redis.Redis, plan: ledger.Plan) -> None:
    """Takes a counted game off every board its *plan* reached while it is under review: its
    own boards, the aggregate ones (best day, streak, advent) and, for a daily, its
    player's leagues' day boards and week tables."""
    for result in board_counts.results_of(plan):
        board_counts.withdraw(client, result)


@guarded
def requeue_unchecked(client: redis.Redis, game_ids: list[str], now: float) -> None:
    """Moves games that still wait for their table to the back of the list."""
    if game_ids:
        client.zadd(keys.reviews_unchecked(), dict.fromkeys(game_ids, now), xx=True)


@guarded
def release_sweep(client: redis.Redis) -> None:
    """Frees the sweep's lock once a sweep is done, so the next may start on time."""
    client.delete(keys.reviews_sweep())


@guarded
def claim_sweep(client: redis.Redis, interval_s: int) -> bool:
    """Whether this process may check waiting games now (one lock over every worker)."""
    if not client.zcard(keys.reviews_unchecked()):
        return False
    return bool(client.set(keys.reviews_sweep(), "1", nx=True, ex=interval_s))


@guarded
def unchecked(client: redis.Redis) -> int:
    """How many counted games wait for their table to be checked."""
    return int(client.zcard(keys.reviews_unchecked()))
