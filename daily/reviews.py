"""The review flow: a finished game checked for clairvoyance, then counted or held for review.

When a finished game is about to reach a public board (:func:`submit`), :func:`is_held`
checks its luck once with the exact strategy table (:mod:`daily.strategy.luck`) and stores
the score. A game past its ruleset's threshold is held: it stays stored, its player sees it
as under review, and no board counts it until an operator releases it (:func:`release`: it
is then counted, once) or removes it (:func:`remove`: kept, never ranked). ``daily review``
is the operator's command; :mod:`daily.store.reviews` only stores what is decided here.

A game whose table is not built yet (``maxi`` while its background build runs) is counted as
usual and waits; :func:`check_unchecked` (run by the sweep of pending results and by
``daily review check``) checks those once the table exists, and withdraws a flagged one from
its own boards (its date's or code's board and the board of its share code) while it is
under review.
"""

from __future__ import annotations

import logging

import redis

from daily import metrics
from daily.config import Config
from daily.errors import ReplayError, RulesError
from daily.store import games as store
from daily.store import reviews
from daily.store.games import Record
from daily.store.reviews import HELD, RELEASED, REMOVED, ReviewError
from daily.strategy import luck
from daily.strategy.model import model_of
from daily.strategy.solver import Table, default_cache_dir, table_for

log = logging.getLogger(__name__)

#: How many waiting games one sweep checks (about 20 ms each for maxi): a request that
#: sweeps stays quick, and ``daily review check`` does the rest at once.
SWEEP_BATCH = 10
SWEEP_INTERVAL_S = 60


def submit(client: redis.Redis, config: Config, record: Record) -> None:
    """Counts a finished game on every board it reaches, unless its check holds it.

    This is the one place where a finished game reaches the boards; repeating it is a no-op.
    """
    results = store.results_of(record)
    # Only a game that would reach a board is checked (a practice game never is).
    held = bool(results) and is_held(client, config, record)
    store.submit(client, config, record, [] if held else results)


def is_held(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether the finished game must stay off the public boards; checks it the first time.

    Released games count; held and removed ones never do. A game that cannot be checked
    yet (its table is not built) counts, and waits on the unchecked list.
    """
    status = reviews.status_of(record)
    if status == HELD:  # a crash may have come between marking it and listing it
        reviews.list_held(client, record.id, config.now().timestamp())
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
        reviews.queue_unchecked(client, record.id, config.now().timestamp())
        return False
    return _check(client, config, record, table)


def _table(record: Record) -> Table | None:
    """The exact table of the game's rules, or None while it is not built."""
    try:
        return table_for(record.rules, default_cache_dir())
    except RulesError:  # not built yet: the background build has not finished
        return None


def _check(client: redis.Redis, config: Config, record: Record, table: Table) -> bool:
    source = record.source(config.secret_key)
    try:
        verdict = luck.check(table, source, record.moves)
    except ReplayError:  # a finished game replays; if not, the rankings' own checks decide
        log.exception("could not check the luck of game %s", record.id)
        return False
    now = config.now().timestamp()
    reviews.save_verdict(client, record.id, verdict.score, verdict.flagged, now)
    if verdict.flagged:
        log.warning("game %s held for review: luck %.2f", record.id, verdict.score)
        metrics.game_held_for_review(record.mode)
    return verdict.flagged


def release(client: redis.Redis, config: Config, game_id: str) -> None:
    """Releases a held game: it is counted on its boards (once, however often released)."""
    record = _held_record(client, game_id)
    reviews.set_status(client, game_id, RELEASED)
    record = store.load(client, game_id) or record
    submit(client, config, record)  # every board step is idempotent: counted once
    reviews.unlist_held(client, game_id)


def remove(client: redis.Redis, game_id: str) -> None:
    """Removes a held game from the rankings for good; its record is kept."""
    _held_record(client, game_id)
    reviews.set_status(client, game_id, REMOVED)
    reviews.unlist_held(client, game_id)


def _held_record(client: redis.Redis, game_id: str) -> Record:
    record = store.load(client, game_id)
    if record is None:
        raise ReviewError(f"no such game: {game_id!r}")
    if reviews.status_of(record) != HELD:
        raise ReviewError(f"game {game_id!r} is not under review")
    return record


def check_unchecked(client: redis.Redis, config: Config, limit: int = 1000) -> int:
    """Checks the counted games that waited for their table; returns how many it held."""
    found = 0
    for game_id in reviews.unchecked_ids(client, limit):
        record = store.load(client, game_id)
        if record is None or reviews.status_of(record) is not None or "luck" in record.extra:
            reviews.unlist_unchecked(client, game_id)
            continue
        table = _table(record)
        if table is None:
            continue  # still not built: it waits
        if _check(client, config, record, table):
            reviews.withdraw(client, record)
            found += 1
        reviews.unlist_unchecked(client, game_id)
    return found


def sweep_unchecked(client: redis.Redis, config: Config) -> int | None:
    """Checks a few unchecked games if no process did in the last minute; None if skipped."""
    if not reviews.claim_sweep(client, SWEEP_INTERVAL_S):
        return None
    return check_unchecked(client, config, limit=SWEEP_BATCH)
