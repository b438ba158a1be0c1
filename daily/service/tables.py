"""The table policy: which strategy table a request uses, which engine a computer plays, and
when a missing table is fetched or built.

The one place that decides it; the app factory only calls :func:`start_builds`, and the
servers call :func:`stop_builds` as they stop. A table is opened once per process
(:func:`daily.strategy.solver.table_for`) and never built inside a request. A table missing
here is fetched when the tables' store (``$DAILY_TABLES_URL``) holds it: from a folder at
once (a link: mapped in place), from an object store by a download in a thread of this
process, so a host that finds its tables there never starts a builder. Otherwise a table the
service may build (:func:`daily.strategy.builder.may_build`) is built by the background
builder (:mod:`daily.strategy.background`), under the store's lease when there is a store,
and the request is told how far along it is.
"""

from __future__ import annotations

import logging
import threading
import time

from daily.core.errors import (
    NoStrategyError,
    RulesError,
    TableBuildingError,
    TableMissingError,
    TableStoreError,
)
from daily.core.modes import Engine
from daily.core.record import Record
from daily.core.rules import Ruleset
from daily.strategy import background, builder, computer
from daily.strategy.builder import TableStatus
from daily.strategy.model import model_of
from daily.strategy.shelf import Shelf, open_shelf
from daily.strategy.solver import Table, default_cache_dir, table_for, tables_url

log = logging.getLogger(__name__)
#: Seconds a store's "I do not hold that table" is believed before the store is asked again
#: (a missing table is looked up by every request that needs it until it is on its way).
ABSENT_SECONDS = 30.0
_absent: dict[tuple[str, str], float] = {}
_absent_lock = threading.Lock()


def start_builds() -> None:
    """Gets the configured tables still missing here (``$DAILY_TABLES``: maxi first): fetched
    from the store when it holds them, else built in the background, once for every process
    and host sharing the cache folder (or the store)."""
    for rules in builder.configured():
        _get(rules)


def stop_builds() -> None:
    """Stops this host's background builder, if one runs: ``daily serve`` and gunicorn's
    master call it as they stop (what it was building is left to the next builder)."""
    background.stop(default_cache_dir())


def exact_table(rules: Ruleset) -> Table:
    """The exact table of *rules*; starts fetching or building it in the background when it is
    missing.

    Raises :class:`NoStrategyError` for a ruleset the model cannot play,
    :class:`TableBuildingError` while it is built, :class:`TableMissingError` otherwise.
    """
    try:
        model_of(rules)
    except RulesError as e:
        raise NoStrategyError(str(e)) from None
    cache = default_cache_dir()
    try:
        return table_for(rules, cache)
    except TableBuildingError:
        raise
    except TableMissingError:
        if not _get(rules):  # in no store, and not a table the service builds
            raise
    # In the background: this request does not wait (a folder's table is linked already).
    found = builder.status(rules, cache)
    if found.state == "ready":
        return table_for(rules, cache)
    raise TableBuildingError(rules, found)


def table_if_ready(rules: Ruleset) -> Table | None:
    """The exact table of *rules*, or None while it is not here (it is then fetched or built
    in the background: a ranked game's check always needs it)."""
    try:
        return table_for(rules, default_cache_dir())
    except RulesError:  # not here yet: queued, or being fetched or built
        _get(rules)
        return None


def choose_engine(rules: Ruleset) -> Engine:
    """The engine of a new computer game: "exact" if its table is ready, else "heuristic".

    Chosen once per game: a table built later must not change the moves of a game under way.
    """
    if builder.status(rules, default_cache_dir()).state == "ready":
        return "exact"
    # The next game gets the exact one; a variant's table is built only where it is needed
    # (a ranked game's check, a hint or an analysis asked for), not for a computer game.
    if builder.spec_str(rules) == rules.id:
        _get(rules)
    return "heuristic"


def computer_table(record: Record) -> Table:
    """The table the computer of *record* plays on (its engine, fixed at the start)."""
    if record.engine == "heuristic":
        return computer.heuristic_table(record.rules)
    return exact_table(record.rules)


def status(rules: Ruleset) -> TableStatus:
    """Where the table of *rules* stands (missing, building, ready) in the cache folder; a
    table being fetched from the store counts as building, its percent that of the bytes."""
    return builder.status(rules, default_cache_dir())


def statuses() -> list[TableStatus]:
    """Where each configured table stands, for ``/healthz`` and the metrics."""
    return builder.statuses(builder.configured(), default_cache_dir())


def awaited(rules: Ruleset) -> TableStatus | None:
    """The status of *rules*' table if it is on its way (building, or missing and started now
    in the background); None when it is ready, or missing and neither fetched nor built."""
    found = status(rules)
    if found.state == "ready":
        return None
    if found.state == "missing" and not _get(rules):
        return None
    return found


def would_build(rules: Ruleset) -> bool:
    """Whether asking for *rules*' table now would start a build (it is missing, the service
    builds it, and no store holds it): what a request's table-build budget pays for."""
    if not builder.may_build(rules) or status(rules).state != "missing":
        return False
    # Queued already (a build asked for a moment ago, its builder not yet at work): no new one.
    if rules in background.queued(default_cache_dir()):
        return False
    shelf = _shelf()
    return shelf is None or not _in_store(shelf, rules)


def _get(rules: Ruleset) -> bool:
    """Starts getting *rules*' table here if it is missing: fetched when the store holds it,
    else built in the background if the service builds it; returns whether it is ready or
    on its way."""
    cache = default_cache_dir()
    if builder.status(rules, cache).state != "missing":
        return True
    shelf = _shelf()
    if shelf is not None and _in_store(shelf, rules):
        builder.fetch_soon(rules, cache, shelf)
        return True
    if not builder.may_build(rules):
        return False
    background.start([rules], cache, store=tables_url())
    return True


def _shelf() -> Shelf | None:
    """The tables' store, or None: none is set, or it cannot be opened (then logged, and the
    tables are built here)."""
    try:
        return open_shelf(tables_url(), default_cache_dir())
    except TableStoreError as e:
        log.warning("%s", e)
        return None


def _in_store(shelf: Shelf, rules: Ruleset) -> bool:
    """Whether the store holds *rules*' table; a store that fails counts as not holding it
    (the builder then tries it again, and builds here if it still fails)."""
    key = (shelf.url, model_of(rules).key)
    with _absent_lock:
        if time.monotonic() - _absent.get(key, -ABSENT_SECONDS) < ABSENT_SECONDS:
            return False
    try:
        if shelf.has(rules):
            return True
    except TableStoreError as e:
        log.warning("%s", e)
    with _absent_lock:
        _absent[key] = time.monotonic()
    return False
