"""The table policy: which strategy table a request uses, which engine a computer plays, and
when a missing table is built.

The one place that decides it; the app factory only calls :func:`start_builds`. A table is
opened once per process (:func:`daily.strategy.solver.table_for`) and never built inside a
request: a missing table that the service may build (:func:`daily.strategy.builder.may_build`)
starts building in the background, and the request is told how far along it is.
"""

from __future__ import annotations

from daily.core import computer
from daily.core.errors import NoStrategyError, RulesError
from daily.core.record import Record
from daily.core.rules import Ruleset
from daily.strategy import builder
from daily.strategy.builder import TableStatus
from daily.strategy.model import model_of
from daily.strategy.solver import (
    Table,
    TableBuildingError,
    TableMissingError,
    default_cache_dir,
    table_for,
)


def start_builds() -> None:
    """Starts building, in the background, the configured tables still missing
    (``$DAILY_TABLES``: maxi first), once for every process and host sharing the cache."""
    builder.start(builder.configured(), default_cache_dir())


def exact_table(rules: Ruleset) -> Table:
    """The exact table of *rules*; starts building it in the background when it is missing.

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
        if not builder.may_build(rules):
            raise
    builder.start([rules], cache)  # in the background: this request does not wait for it
    raise TableBuildingError(rules, builder.status(rules, cache))


def table_if_ready(rules: Ruleset) -> Table | None:
    """The exact table of *rules*, or None while it is not built (its build is then started
    in the background: a ranked game's check always needs it)."""
    try:
        return table_for(rules, default_cache_dir())
    except RulesError:  # not built yet: queued, or the background build has not finished
        if builder.may_build(rules):
            builder.start([rules], default_cache_dir())
        return None


def choose_engine(rules: Ruleset) -> str:
    """The engine of a new computer game: "exact" if its table is ready, else "heuristic".

    Chosen once per game: a table built later must not change the moves of a game under way.
    """
    if builder.status(rules, default_cache_dir()).state == "ready":
        return "exact"
    # The next game gets the exact one; a variant's table is built only where it is needed
    # (a ranked game's check, a hint or an analysis asked for), not for a computer game.
    if builder.may_build(rules) and builder.spec_str(rules) == rules.id:
        builder.start([rules], default_cache_dir())
    return "heuristic"


def computer_table(record: Record) -> Table:
    """The table the computer of *record* plays on (its engine, fixed at the start)."""
    if record.engine == "heuristic":
        return computer.heuristic_table(record.rules)
    return exact_table(record.rules)


def status(rules: Ruleset) -> TableStatus:
    """Where the table of *rules* stands (missing, building, ready) in the cache folder."""
    return builder.status(rules, default_cache_dir())


def statuses() -> list[TableStatus]:
    """Where each configured table stands, for ``/healthz`` and the metrics."""
    return builder.statuses(builder.configured(), default_cache_dir())


def awaited(rules: Ruleset) -> TableStatus | None:
    """The status of *rules*' table if it is on its way (building, or missing and started now
    in the background); None when it is ready, or missing and not built by the service."""
    found = status(rules)
    if found.state == "ready":
        return None
    if found.state == "missing":
        if not builder.may_build(rules):
            return None
        builder.start([rules], default_cache_dir())
    return found
