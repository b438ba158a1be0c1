"""The strategy engine as the API and the pages serve it: tables, analyses, the Expert's game.

Tables are opened once per process (:func:`~daily.strategy.solver.table_for`) and never
built inside a request: a missing table starts its background build
(:mod:`daily.strategy.builder`), and until it is ready the request answers 503
``strategy_table_building`` with the progress and a ``Retry-After``.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import numpy as np

from daily import computer, dice
from daily import games as service
from daily.errors import ConflictError, ErrorCode, NotAllowedError
from daily.modes import OnePer
from daily.rules import Ruleset, find_ruleset
from daily.store.games import Record
from daily.strategy import analysis, bots, builder
from daily.strategy.builder import TableStatus
from daily.strategy.solver import (
    Table,
    default_cache_dir,
)
from daily.web import answers, current_config
from daily.web.errors import HttpError


def strategy_table(rules: Ruleset) -> Table:
    """The exact table of *rules* (see :func:`daily.games.exact_table`); the error table
    answers 503 naming ``daily solve`` when it is not built."""
    return service.exact_table(rules)


def table_status(rules: Ruleset) -> TableStatus:
    """Where the table of *rules* stands (missing, building, ready) in the cache folder."""
    return builder.status(rules, default_cache_dir())


def awaited(rules: Ruleset) -> TableStatus | None:
    """The status of *rules*' table if it is on its way (building, or missing and started now
    in the background); None when it is ready, or missing and not built by the service."""
    status = table_status(rules)
    if status.state == "ready":
        return None
    if status.state == "missing":
        if not builder.may_build(rules):
            return None
        builder.start([rules], default_cache_dir())
    return status


def retry_after(status: TableStatus) -> int:
    """The seconds a client should wait before asking again: the estimate, within 2 to 60.

    >>> retry_after(TableStatus("maxi", "building", 50.0, 30.0, 30.0))
    30
    >>> retry_after(TableStatus("maxi", "building", 0.0, 1.0, None))
    5
    """
    if status.eta is None:
        return 5
    return int(min(60, max(2, round(status.eta))))


def building_error(status: TableStatus) -> HttpError:
    """The 503 of a table being built, with its progress and when to ask again."""
    progress = {"percent": round(status.percent or 0.0, 1), "eta": None}
    if status.eta is not None:
        progress["eta"] = round(status.eta)
    return HttpError(
        503,
        ErrorCode.STRATEGY_TABLE_BUILDING,
        f"the strategy table of {status.ruleset} is being built: "
        f"{progress['percent']}% done, try again in {retry_after(status)} s",
        progress=progress,
        retry_after=retry_after(status),
    )


def missing_error(rules: Ruleset) -> HttpError:
    """The 503 of a table nobody builds: the command that would build it."""
    return HttpError(
        503,
        ErrorCode.STRATEGY_TABLE_MISSING,
        f"the strategy table of {rules.id} is not built yet: run `{solve_command(rules)}`",
    )


def solve_command(rules: Ruleset) -> str:
    """The ``daily solve`` command line that builds the table of *rules*."""
    base = find_ruleset(rules.id).options_dict()
    changed = [
        f" --option {name}={value if isinstance(value, str) else json.dumps(value)}"
        for name, value in rules.options_dict().items()
        if base.get(name) != value
    ]
    return f"daily solve {rules.id}" + "".join(changed)


def is_closed(day: date) -> bool:
    """Whether the daily puzzle of *day* has closed (its seed may be shown)."""
    config = current_config()
    return dice.Day(day, config.timezone).is_revealed(config.now())


def analysis_json(record: Record) -> dict[str, Any]:
    """The analysis of a finished game; a daily game's Expert once its day has closed."""
    if not record.kind.analysis:
        raise NotAllowedError(ErrorCode.NO_ANALYSIS, f"{record.mode} games are not analysed")
    if not record.finished:
        raise ConflictError("the game is not finished yet")
    table = strategy_table(record.rules)
    source = record.source(current_config().secret_key)
    body: dict[str, Any] = {"id": record.id, "mode": record.mode, "ruleset": record.ruleset}
    body.update(analysis.analyse(table, source, record.moves).to_dict())
    if record.kind.is_computer:
        theirs = computer.parse_moves(record.computer_moves)
        body["computer"] = analysis.analyse(table, source, theirs).to_dict()
    if record.kind.one_per is OnePer.DAY and record.day is not None:
        closed = is_closed(record.day)
        body["expert"] = expert_json(record.day, record.stream) if closed else None
    return answers.dump(answers.Analysis, body)


def expert_json(day: date, stream: str = dice.CURRENT) -> dict[str, Any]:
    """The Expert's own game on the daily dice of *day* (in dice stream *stream*)."""
    rules = find_ruleset("maxi")
    table = strategy_table(rules)
    source = dice.stream(dice.daily_seed(current_config().secret_key, day), stream)
    # The Expert never draws: its generator is only there for the bots' common signature.
    played = bots.play_games(table, bots.LEVELS["expert"], [source], np.random.default_rng(0))[0]
    return {
        "date": day.isoformat(),
        "ruleset": rules.id,
        "moves": [move.to_dict() for move in played.moves],
        "scorecard": played.state.scorecard(),
        "total": played.state.total,
        "optimum": round(table.optimum, 4),
    }
