"""The review flow: a finished game checked for clairvoyance, then counted or held for review.

When a finished game is about to reach a public board (:func:`submit`), :func:`is_held`
checks its luck once with the exact strategy table (:mod:`daily.strategy.luck`) and stores
the score. A game past its ruleset's threshold is held: it stays stored, its player sees it
as under review, and no board counts it until an operator releases it (:func:`release`: it
is then counted, once) or removes it (:func:`remove`: kept, never ranked). ``daily review``
is the operator's command; :mod:`daily.store.review_queue` only stores what is decided here.

A game whose table is not built yet (``maxi`` while its background build runs, or a
variant such as ``maxi:bonus=50@75``) is counted as usual and waits; its table is asked of
the build queue (:mod:`daily.tables.builder`: one build at a time per host).
:func:`check_unchecked` (run by the sweep, from requests, and by ``daily review check``)
checks those whose table exists, whatever waits ahead of them, and withdraws a flagged one
from every board it reached (its date's or code's board, the board of its share code, and
best day, streak and advent) while it is under review.

A game whose rules no table can value (``saved_rolls``) is never ranked: every code with
those options is practice (:func:`is_checkable`), so no unchecked game reaches a board.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from daily.core import ledger, metrics
from daily.core.config import Config
from daily.core.errors import ReplayError, ReviewError, RulesError
from daily.core.record import Record
from daily.core.rules import Ruleset
from daily.service import results, tables
from daily.store import review_queue, saved_games
from daily.store.review_queue import HELD, RELEASED, REMOVED
from daily.strategy import luck
from daily.strategy.model import model_of
from daily.strategy.solver import Table

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

log = logging.getLogger(__name__)


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
        return (
            f"{self.game_id}  {self.mode:6}  {self.board or '-':22}  "
            f"total {self.total}  luck {score}  player {self.player_id}"
        )


#: How long one sweep checks waiting games at most (a maxi check is a few milliseconds): it
#: runs in a background thread of a web process (:mod:`daily.web.sweep`), never in a request.
SWEEP_BUDGET_S = 20.0
#: How many waiting games one sweep looks at: those whose table is still missing go to the
#: back of the list, skipped by their ruleset, so they never stand in front of the ones that
#: can be checked.
SWEEP_SCAN = 5000
#: How often a sweep runs while games wait, over every process: a game whose table has come
#: is held, if it must be, within about this long plus its checks.
SWEEP_INTERVAL_S = 10
#: The waiting games read in one round trip.
_READ_BATCH = 200


def is_checkable(rules: Ruleset) -> bool:
    """Whether a strategy table can value games of *rules* (not with ``saved_rolls``).

    >>> from daily.core.rules import find_ruleset
    >>> is_checkable(find_ruleset("maxi", {"bonus": "50@75"}))
    True
    >>> is_checkable(find_ruleset("maxi", {"saved_rolls": True}))
    False
    """
    try:
        model_of(rules)
    except RulesError:
        return False
    return True


def submit(client: redis.Redis, config: Config, record: Record) -> ledger.Plan:
    """Counts a finished game on every board it reaches, unless its check holds it.

    This is the one place where a finished game reaches the boards; repeating it is a no-op.
    Gives the ledger's plan that counted it.
    """
    # A game no table can check reaches no board (its code is practice from the start).
    counts = is_checkable(record.rules)
    # Only a game that would reach a board is checked (a practice game never is).
    held = counts and results.reaches_a_board(record) and is_held(client, config, record)
    return results.count(client, config, record, counts and not held, held)


def is_held(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether the finished game must stay off the public boards; checks it the first time.

    Released games count; held and removed ones never do. A game that cannot be checked
    yet (its table is not built) counts, and waits on the unchecked list.
    """
    status = review_queue.status_of(record)
    if status == HELD:  # a crash may have come between marking it and listing it
        review_queue.list_held(client, record.id, config.now().timestamp())
    if status is not None:
        return status != RELEASED
    # Games that reach no public board are never checked (solo games without a share code...).
    if not record.kind.reviewed or record.total is None or "luck" in record.extra:
        return False
    if not is_checkable(record.rules):
        return False  # never counted either (see submit)
    table = tables.table_if_ready(config, record.rules)
    if table is None:
        review_queue.queue_unchecked(client, record.id, config.now().timestamp())
        return False
    return _check(client, config, record, table)


def _check(client: redis.Redis, config: Config, record: Record, table: Table) -> bool:
    source = record.source(config.secret_key)
    try:
        verdict = luck.check(table, source, record.moves)
    except ReplayError:  # a finished game replays; if not, the rankings' own checks decide
        log.exception("could not check the luck of game %s", record.id)
        return False
    now = config.now().timestamp()
    review_queue.save_verdict(client, record.id, verdict.score, verdict.flagged, now)
    if verdict.flagged:
        log.warning("game %s held for review: luck %.2f", record.id, verdict.score)
        metrics.game_held_for_review(record.mode)
    return verdict.flagged


def hold(client: redis.Redis, config: Config, game_id: str) -> None:
    """Holds a finished game for review by hand (a player's report, say): it leaves every
    board it reached, as a game the check flags does, until it is released or removed."""
    record = saved_games.load(client, game_id)
    if record is None or not record.finished:
        raise ReviewError(f"no finished game: {game_id!r}")
    if review_queue.status_of(record) in (HELD, REMOVED):
        raise ReviewError(f"game {game_id!r} is held or removed already")
    review_queue.set_status(client, game_id, HELD)
    review_queue.list_held(client, game_id, config.now().timestamp())
    if record.submitted:  # else its count, when it comes, sees the hold and counts nothing
        results.withdraw(client, config, record)


def release(client: redis.Redis, config: Config, game_id: str) -> None:
    """Releases a held game: it is counted on its boards (once, however often released)."""
    record = _held_record(client, game_id)
    review_queue.set_status(client, game_id, RELEASED)
    record = saved_games.load(client, game_id) or record
    submit(client, config, record)  # every board step is idempotent: counted once
    review_queue.unlist_held(client, game_id)


def remove(client: redis.Redis, game_id: str) -> None:
    """Removes a held game from the rankings for good; its record is kept."""
    _held_record(client, game_id)
    review_queue.set_status(client, game_id, REMOVED)
    review_queue.unlist_held(client, game_id)


def _held_record(client: redis.Redis, game_id: str) -> Record:
    record = saved_games.load(client, game_id)
    if record is None:
        raise ReviewError(f"no such game: {game_id!r}")
    if review_queue.status_of(record) != HELD:
        raise ReviewError(f"game {game_id!r} is not under review")
    return record


def check_unchecked(
    client: redis.Redis,
    config: Config,
    limit: int = 1000,
    budget_s: float | None = None,
) -> int:
    """Checks the counted games that waited for their table; returns how many it held.

    Looks at the *limit* games that waited longest, read a batch a round trip, and checks
    those whose table is ready, within *budget_s* seconds. A ruleset whose table is still
    missing is asked for once and its games skipped without a look: they go to the back of
    the list, so a sweep always reaches the games that can be checked.
    """
    found = 0
    deadline = None if budget_s is None else time.monotonic() + budget_s
    waiting: list[str] = []
    missing: set[Ruleset] = set()
    listed = review_queue.unchecked_ids(client, limit)
    for start in range(0, len(listed), _READ_BATCH):
        batch = listed[start : start + _READ_BATCH]
        for game_id, record in zip(batch, saved_games.load_many(client, batch), strict=True):
            if deadline is not None and time.monotonic() > deadline:
                review_queue.requeue_unchecked(client, waiting, config.now().timestamp())
                return found
            outcome = _check_waiting(client, config, game_id, record, missing)
            if outcome is None:
                waiting.append(game_id)  # still not built: it waits, behind the others
            found += outcome or 0
    review_queue.requeue_unchecked(client, waiting, config.now().timestamp())
    return found


def _check_waiting(
    client: redis.Redis, config: Config, game_id: str, record: Record | None, missing: set[Ruleset]
) -> int | None:
    """Checks one waiting game: 1 if it is held, 0 if it counts (or left the list), None if
    its table is still missing (*missing* remembers its ruleset for the rest of the sweep)."""
    if record is None or review_queue.status_of(record) is not None or "luck" in record.extra:
        review_queue.unlist_unchecked(client, game_id)
        return 0
    if record.rules in missing:
        return None
    table = tables.table_if_ready(config, record.rules)
    if table is None:
        missing.add(record.rules)
        return None
    held = _check(client, config, record, table)
    if held:  # the same boards that submit counted it on
        results.withdraw(client, config, record)
    review_queue.unlist_unchecked(client, game_id)
    return int(held)


def sweep_unchecked(client: redis.Redis, config: Config) -> int | None:
    """Checks a few unchecked games if no process did in the last minute; None if skipped."""
    # The lock outlives a sweep's budget: no two processes check the same games at once.
    if not review_queue.claim_sweep(client, int(SWEEP_BUDGET_S + SWEEP_INTERVAL_S)):
        return None
    try:
        return check_unchecked(client, config, limit=SWEEP_SCAN, budget_s=SWEEP_BUDGET_S)
    finally:
        review_queue.release_sweep(client)


def held(client: redis.Redis, limit: int = 100) -> list[Held]:
    """The games held for review, oldest first (``daily review list``)."""
    found = []
    for game_id, held_at in review_queue.held(client, limit):
        record = saved_games.load(client, game_id)
        if record is None:
            continue
        score = record.extra.get("luck")
        found.append(
            Held(
                record.id,
                record.player_id,
                record.mode,
                results.board_id(record),
                record.total,
                float(score) if score else None,
                held_at,
            )
        )
    return found


def unchecked(client: redis.Redis) -> int:
    """How many counted games still wait for their table to be checked."""
    return review_queue.unchecked(client)
