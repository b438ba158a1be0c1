"""The review queue: finished games too lucky to be honest, held back from every public board.

When a finished game is about to reach a public board (:func:`daily.store.games.submit`),
:func:`is_held` checks its luck once with the exact strategy table
(:mod:`daily.strategy.luck`) and stores the score in the game's hash (``luck``). A game past
its ruleset's threshold is marked ``review=held`` and listed on ``daily:reviews:held``; it
stays stored, its player sees it as under review, and no board counts it until an operator
releases it (:func:`release`: it is then counted, once) or removes it (:func:`remove`: kept,
never ranked). ``daily review`` is the operator's command.

A game whose table is not built yet (``maxi`` before ``daily solve maxi``) is counted as
usual and listed on ``daily:reviews:unchecked``; :func:`check_unchecked` (run by the sweep
of pending results and by ``daily review check``) checks those once the table exists, and
withdraws a flagged one from its own boards (its date's or code's board and the board of
its share code) while it is under review.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import redis

from daily import dice, metrics
from daily.config import Config
from daily.errors import DailyError, ReplayError, RulesError
from daily.store import boards, keys
from daily.store.guard import guarded
from daily.strategy import luck
from daily.strategy.model import model_of
from daily.strategy.solver import Table, default_cache_dir, table_for

if TYPE_CHECKING:
    from daily.store.games import Record

log = logging.getLogger(__name__)

#: The ``review`` field of a game's hash: held (waiting), released (counted), removed.
HELD, RELEASED, REMOVED = "held", "released", "removed"


class ReviewError(DailyError, ValueError):
    """An operator's review command that does not apply (an unknown or unheld game)."""


@dataclass(frozen=True, slots=True)
class Held:
    """A game in the review queue, as the operator's list shows it."""

    game_id: str
    player_id: str
    mode: str
    board: str | None  # the board it would stand on: daily/2026-12-01, friend/K7P2QX9D
    total: int | None
    luck: float | None
    held_at: float

    def line(self) -> str:
        """One line of ``daily review list``."""
        score = "-" if self.luck is None else f"{self.luck:.2f}"
        return (f"{self.game_id}  {self.mode:6}  {self.board or '-':22}  "
                f"total {self.total}  luck {score}  player {self.player_id}")  # fmt: skip


def status_of(record: Record) -> str | None:
    """The game's review status (held, released, removed), or None if it was never held."""
    return record.extra.get("review")


def shown_status(record: Record) -> str | None:
    """What the game's player is told: ``held`` (under review), ``removed``, or None."""
    status = status_of(record)
    return status if status in (HELD, REMOVED) else None


@guarded
def shown_status_of(client: redis.Redis, game_id: str) -> str | None:
    """:func:`shown_status` as stored now (the record in hand may predate its check)."""
    status = client.hget(keys.game(game_id), "review")
    return str(status) if status in (HELD, REMOVED) else None


def is_held(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether the finished game must stay off the public boards; checks it the first time.

    Released games count; held and removed ones never do. A game that cannot be checked
    yet (its table is not built) counts, and waits on the unchecked list.
    """
    status = status_of(record)
    if status == HELD:  # a crash may have come between marking it and listing it
        client.zadd(keys.reviews_held(), {record.id: config.now().timestamp()}, nx=True)
    if status is not None:
        return status != RELEASED
    # Games that reach no public board are never checked (solo games without a share code...).
    if not record.kind.reviewed or record.total is None or "luck" in record.extra:
        return False
    try:
        model_of(record.rules)
    except RulesError:  # saved_rolls: no table can value it, so it is never checked
        return False
    table = _table(record)
    if table is None:
        _queue_unchecked(client, record, config.now().timestamp())
        return False
    return _check(client, config, record, table)


def _table(record: Record) -> Table | None:
    """The exact table of the game's rules, or None while it is not built."""
    try:
        return table_for(record.rules, default_cache_dir())
    except RulesError:  # not built yet: maxi waits for `daily solve maxi`
        return None


def _check(client: redis.Redis, config: Config, record: Record, table: Table) -> bool:
    source = dice.stream(dice.seed_from_ref(record.seed_ref, config.secret_key))
    try:
        verdict = luck.check(table, source, record.moves)
    except ReplayError:  # a finished game replays; if not, the rankings' own checks decide
        log.exception("could not check the luck of game %s", record.id)
        return False
    # The score and the hold in one write: a game is never checked without its verdict.
    fields = {"luck": f"{verdict.score:.4f}"} | ({"review": HELD} if verdict.flagged else {})
    client.hset(keys.game(record.id), mapping=cast(Mapping[Any, Any], fields))
    if verdict.flagged:
        # Listed after the hash: a crash between leaves a held, unlisted game that the
        # next submit of it (it is still pending) lists; never a listed game not held.
        client.zadd(keys.reviews_held(), {record.id: config.now().timestamp()}, nx=True)
        log.warning("game %s held for review: luck %.2f", record.id, verdict.score)
        metrics.game_held_for_review(record.mode)
    return verdict.flagged


@guarded
def _queue_unchecked(client: redis.Redis, record: Record, now: float) -> None:
    client.zadd(keys.reviews_unchecked(), {record.id: now}, nx=True)


@guarded
def held(client: redis.Redis, limit: int = 100) -> list[Held]:
    """The games under review, oldest first."""
    from daily.store import games

    found = []
    listed = cast(
        list[tuple[str, float]],
        client.zrange(keys.reviews_held(), 0, limit - 1, withscores=True),
    )
    for game_id, held_at in listed:
        record = games.load(client, str(game_id))
        if record is None:
            continue
        board = games.board_of(record)
        score = record.extra.get("luck")
        found.append(
            Held(record.id, record.player_id, record.mode, board.id if board else None,
                 record.total, float(score) if score else None, float(held_at))
        )  # fmt: skip
    return found


@guarded
def release(client: redis.Redis, config: Config, game_id: str) -> None:
    """Releases a held game: it is counted on its boards (once, however often released)."""
    from daily.store import games

    record = _held_record(client, game_id)
    client.hset(keys.game(game_id), "review", RELEASED)
    record = games.load(client, game_id) or record
    games.submit(client, config, record)  # every board step is idempotent: counted once
    client.zrem(keys.reviews_held(), game_id)


@guarded
def remove(client: redis.Redis, game_id: str) -> None:
    """Removes a held game from the rankings for good; its record is kept."""
    _held_record(client, game_id)
    client.hset(keys.game(game_id), "review", REMOVED)
    client.zrem(keys.reviews_held(), game_id)


def _held_record(client: redis.Redis, game_id: str) -> Record:
    from daily.store import games

    record = games.load(client, game_id)
    if record is None:
        raise ReviewError(f"no such game: {game_id!r}")
    if status_of(record) != HELD:
        raise ReviewError(f"game {game_id!r} is not under review")
    return record


@guarded
def check_unchecked(client: redis.Redis, config: Config, limit: int = 1000) -> int:
    """Checks the counted games that waited for their table; returns how many it held."""
    from daily.store import games

    found = 0
    for game_id in client.zrange(keys.reviews_unchecked(), 0, limit - 1):
        record = games.load(client, str(game_id))
        if record is None or status_of(record) is not None or "luck" in record.extra:
            client.zrem(keys.reviews_unchecked(), str(game_id))
            continue
        table = _table(record)
        if table is None:
            continue  # still not built: it waits
        if _check(client, config, record, table):
            _withdraw(client, record)
            found += 1
        client.zrem(keys.reviews_unchecked(), str(game_id))
    return found


def _withdraw(client: redis.Redis, record: Record) -> None:
    """Takes a counted game off its own boards while it is under review."""
    from daily.store import games

    member = boards.member(record.player_id)
    for result in games.results_of(record):  # the same boards that submit counted it on
        if result.mode == "friend" and result.code is not None:
            client.zrem(boards.Board.friend(result.code).key, member)
        elif result.day is not None:
            client.zrem(boards.Board.daily(result.day).key, member)


#: How many waiting games one sweep checks (about 20 ms each for maxi): a request that
#: sweeps stays quick, and ``daily review check`` does the rest at once.
SWEEP_BATCH = 10
SWEEP_INTERVAL_S = 60


@guarded
def sweep_unchecked(client: redis.Redis, config: Config) -> int | None:
    """Checks a few unchecked games if no process did in the last minute; None if skipped."""
    if not client.zcard(keys.reviews_unchecked()):
        return None
    if not client.set(keys.reviews_sweep(), "1", nx=True, ex=SWEEP_INTERVAL_S):
        return None
    return check_unchecked(client, config, limit=SWEEP_BATCH)


@guarded
def unchecked(client: redis.Redis) -> int:
    """How many counted games wait for their table to be checked."""
    return int(client.zcard(keys.reviews_unchecked()))
