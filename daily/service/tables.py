"""The table policy: which strategy table a request uses, which engine a computer plays, and
when a missing table is fetched or built.

The one place that decides it; the servers call :func:`start_builds` as they start and
:func:`stop_builds` as they stop (through :mod:`daily.service.upkeep`, never the app factory).
Every function is handed the config, whose tables' settings (``DAILY_CACHE``,
``DAILY_TABLES``, ``DAILY_TABLES_URL``) were read once, at start, and become the
:class:`~daily.tables.files.Site` handed down to :mod:`daily.tables`. A table is opened once
per process (:func:`daily.tables.loader.table_for`, checked against its signed digest
first) and never built inside a request. A table missing here (or refused by its check) is
fetched when the tables' store holds it: from a folder at once (a copy, checked as it
comes), from an object store by a download in a thread of this process, so a host that finds
its tables there never starts a builder. Otherwise a table the service may build
(:func:`may_build`) is built by the background builder (:mod:`daily.tables.background`),
under the store's lease when there is a store, and the request is told how far along it is.
"""

from __future__ import annotations

import logging
import threading
import time

from daily.core.config import Config
from daily.core.errors import (
    DailyError,
    NoStrategyError,
    RulesError,
    TableBuildingError,
    TableMissingError,
    TableStoreError,
)
from daily.core.modes import Engine
from daily.core.record import Record
from daily.core.rules import Ruleset, parse_spec
from daily.strategy import computer
from daily.strategy.model import Model, model_of
from daily.strategy.solver import Progress, Table
from daily.strategy.specs import TableStatus
from daily.tables import background, builder, loader
from daily.tables.files import Site
from daily.tables.shelf import Shelf, open_shelf

log = logging.getLogger(__name__)
#: Seconds a store's "I do not hold that table" is believed before the store is asked again
#: (a missing table is looked up by every request that needs it until it is on its way).
ABSENT_SECONDS = 30.0
_absent: dict[tuple[str, str], float] = {}
_absent_lock = threading.Lock()


def site_of(config: Config) -> Site:
    """Where this host keeps its tables, and the key that signs their digests."""
    return Site.of(config)


def configured(config: Config) -> tuple[Ruleset, ...]:
    """The rulesets the service builds by itself (``DAILY_TABLES``: maxi first)."""
    return tuple(parse_spec(spec) for spec in config.table_specs)


def may_build(config: Config, rules: Ruleset) -> bool:
    """Whether the service builds *rules*' table when asked: its id is among the configured
    ones (any options of a configured ruleset qualify: ``maxi`` with another bonus too)."""
    return rules.id in {r.id for r in configured(config)}


def start_builds(config: Config) -> None:
    """Gets the configured tables still missing here: fetched from the store when it holds
    them, else built in the background, once for every process and host sharing the cache
    folder (or the store)."""
    for rules in configured(config):
        _get(config, model_of(rules))


def stop_builds(config: Config) -> None:
    """Stops this host's background builder, if one runs: ``daily serve`` and gunicorn's
    master call it as they stop (what it was building is left to the next builder)."""
    background.stop(config.cache_dir)


def exact_table(config: Config, rules: Ruleset) -> Table:
    """The exact table of *rules*, checked; starts fetching or building it in the background
    when it is missing (or was refused).

    Raises :class:`NoStrategyError` for a ruleset the model cannot play,
    :class:`TableBuildingError` while it is built, :class:`TableMissingError` otherwise.
    """
    try:
        model = model_of(rules)
    except RulesError as e:
        raise NoStrategyError(str(e)) from None
    site = site_of(config)
    try:
        return loader.table_for(model, site)
    except TableBuildingError:
        raise
    except TableMissingError:
        if not _get(config, model):  # in no store, and not a table the service builds
            raise
    # In the background: this request does not wait (a folder's table is copied already).
    found = loader.status(model, site)
    if found.state == "ready":
        return loader.table_for(model, site)
    raise TableBuildingError(rules, found)


def table_if_ready(config: Config, rules: Ruleset) -> Table | None:
    """The exact table of *rules*, or None while there is none to use here, whatever the
    reason (it is then fetched or built in the background: a ranked game's check always
    needs it, and waits for it)."""
    try:
        model = model_of(rules)
    except RulesError:  # no table can value it: nothing to fetch or build
        return None
    try:
        return loader.table_for(model, site_of(config))
    except (RulesError, OSError):  # missing, refused, being fetched or built; unreadable
        _get(config, model)
        return None


def choose_engine(config: Config, rules: Ruleset) -> Engine:
    """The engine of a new computer game: "exact" if its table is ready, else "heuristic".

    Chosen once per game: a table built later must not change the moves of a game under way.
    """
    model = model_of(rules)
    if loader.status(model, site_of(config)).state == "ready":
        return "exact"
    # The next game gets the exact one; a variant's table is built only where it is needed
    # (a ranked game's check, a hint or an analysis asked for), not for a computer game.
    if rules.spec == rules.id:
        _get(config, model)
    return "heuristic"


def computer_table(config: Config, record: Record) -> Table:
    """The table the computer of *record* plays on (its engine, fixed at the start)."""
    if record.engine == "heuristic":
        return computer.heuristic_table(record.rules)
    return exact_table(config, record.rules)


def status(config: Config, rules: Ruleset) -> TableStatus:
    """Where the table of *rules* stands (missing, building, ready, bad) in the cache
    folder; a table being fetched from the store counts as building, its percent that of
    the bytes."""
    return loader.status(model_of(rules), site_of(config))


def statuses(config: Config) -> list[TableStatus]:
    """Where each configured table stands, for ``/healthz`` and the metrics."""
    return loader.statuses([model_of(r) for r in configured(config)], site_of(config))


def awaited(config: Config, rules: Ruleset) -> TableStatus | None:
    """The status of *rules*' table if it is on its way (building, or missing and started now
    in the background); None when it is ready, or missing and neither fetched nor built."""
    model = model_of(rules)
    found = loader.status(model, site_of(config))
    if found.state == "ready":
        return None
    if found.state in ("missing", "bad") and not _get(config, model):
        return None
    return found


def would_build(config: Config, rules: Ruleset) -> bool:
    """Whether asking for *rules*' table now would start a build (it is missing, the service
    builds it, and no store holds it): what a request's table-build budget pays for. Never
    for rules no table can value (banked rolls): the ask itself answers ``no_strategy``."""
    try:
        model = model_of(rules)
    except RulesError:  # no table can value it: the ask itself answers no_strategy
        return False
    site = site_of(config)
    if not may_build(config, rules) or loader.status(model, site).state not in ("missing", "bad"):
        return False
    # Queued already (a build asked for a moment ago, its builder not yet at work): no new one.
    if rules in [queued.ruleset for queued in background.queued(site)]:
        return False
    shelf = _shelf(config)
    return shelf is None or not _in_store(shelf, model)


def solve(
    config: Config, rules: Ruleset, *, progress: Progress | None = None, workers: int = 1
) -> Table:
    """Makes *rules*' table ready here, and in the store if there is one (``daily solve``, the
    release step): waits for a build running on this host (*progress* follows it), then
    fetches the table from the store, or builds it and uploads it; a store that fails raises
    :class:`TableStoreError`. Returns the table, checked."""
    site, model = site_of(config), model_of(rules)
    while (found := loader.status(model, site)).state == "building":
        if progress is not None:
            progress(found.percent or 0.0, 100.0)
        time.sleep(0.5)
    builder.obtain(model, site, progress=progress, workers=workers)
    return loader.load_table(model, site)


def _get(config: Config, model: Model) -> bool:
    """Starts getting *model*'s table here if it is missing (or was refused): fetched when
    the store holds it, else built in the background if the service builds it; returns
    whether it is ready or on its way."""
    site = site_of(config)
    try:
        if loader.status(model, site).state not in ("missing", "bad"):
            return True
        shelf = _shelf(config)
        if shelf is not None and _in_store(shelf, model):
            builder.fetch_soon(model, site, shelf)
            # From a folder it is done: a copy that failed its check is built instead. A
            # download runs on: should it fail, the store holds it no more, and the next
            # ask builds it.
            if not shelf.local or loader.status(model, site).state != "bad":
                return True
        if not may_build(config, model.ruleset):
            return False
        background.start([model], site)
        return True
    except (OSError, DailyError) as e:  # a cache or store that fails: asked again, tried again
        log.warning("%s: cannot get its table now: %s", model.ruleset.spec, e)
        return False


def _shelf(config: Config) -> Shelf | None:
    """The tables' store, or None: none is set, or it cannot be opened (then logged, and the
    tables are built here)."""
    try:
        return open_shelf(site_of(config))
    except TableStoreError as e:
        log.warning("%s", e)
        return None


def _in_store(shelf: Shelf, model: Model) -> bool:
    """Whether the store holds *model*'s table; a store that fails counts as not holding it
    (the builder then tries it again, and builds here if it still fails)."""
    key = (shelf.url, model.key)
    with _absent_lock:
        if time.monotonic() - _absent.get(key, -ABSENT_SECONDS) < ABSENT_SECONDS:
            return False
    try:
        if shelf.has(model):
            return True
    except TableStoreError as e:
        log.warning("%s", e)
    with _absent_lock:
        _absent[key] = time.monotonic()
    return False
