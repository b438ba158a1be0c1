"""The strategy engine as the API and the pages serve it: tables, analyses, the Expert's game.

Tables are opened once per process (:func:`~daily.strategy.solver.table_for`); a ruleset
whose table must be built ahead (``maxi``) answers 503 with the ``daily solve`` command.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import numpy as np

from daily import computer, dice
from daily.errors import RulesError
from daily.rules import Ruleset, find_ruleset
from daily.store.games import Record
from daily.strategy import analysis, bots
from daily.strategy.model import model_of
from daily.strategy.solver import Table, default_cache_dir, is_small, table_for, table_path
from daily.web import current_config
from daily.web.errors import HttpError, conflict

#: Modes whose games may ask for the best move (never the ranked ones, nor a party).
HINT_MODES = ("solo", "computer")


def strategy_table(rules: Ruleset) -> Table:
    """The exact table of *rules*; 503 naming ``daily solve`` when it is not built."""
    try:
        model_of(rules)
    except RulesError as e:
        raise HttpError(409, "no_strategy", str(e)) from None
    if not is_small(rules) and not table_path(rules, default_cache_dir()).exists():
        raise HttpError(
            503,
            "strategy_table_missing",
            f"the strategy table of {rules.id} is not built yet: run `{solve_command(rules)}`",
        )
    return table_for(rules, default_cache_dir())


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
    if record.mode == "party":
        raise HttpError(403, "no_analysis", "party games are not analysed")
    if not record.finished:
        raise conflict("the game is not finished yet")
    table = strategy_table(record.rules)
    source = dice.stream(dice.seed_from_ref(record.seed_ref, current_config().secret_key))
    body: dict[str, Any] = {"id": record.id, "mode": record.mode, "ruleset": record.ruleset}
    body.update(analysis.analyse(table, source, record.moves).to_dict())
    if record.mode == "computer":
        theirs = computer.parse_moves(json.loads(record.extra.get("computer", "[]")))
        body["computer"] = analysis.analyse(table, source, theirs).to_dict()
    if record.mode == "daily" and record.day is not None:
        body["expert"] = expert_json(record.day) if is_closed(record.day) else None
    return body


def expert_json(day: date) -> dict[str, Any]:
    """The Expert's own game on the daily dice of *day*."""
    rules = find_ruleset("maxi")
    table = strategy_table(rules)
    source = dice.stream(dice.daily_seed(current_config().secret_key, day))
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
