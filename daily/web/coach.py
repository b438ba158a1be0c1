"""The computer's pages: ``/computer`` (pick a ruleset and a level) and a game's analysis.

A computer game plays on the play page (the script draws the computer's sheet and turn);
the analysis page lists each decision of a finished game against the best one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flask import Blueprint, render_template
from flask_babel import gettext, lazy_gettext

from daily.rules import BASE_RULESETS
from daily.strategy.bots import LEVELS
from daily.strategy.builder import TableStatus
from daily.strategy.solver import TableBuildingError
from daily.web import answers, auth, strategy
from daily.web.i18n import row_name
from daily.web.pages import option_view

bp = Blueprint("coach", __name__)

#: The levels as the page names them, weakest first.
LEVEL_NAMES = {
    "easy": lazy_gettext("Easy"),
    "medium": lazy_gettext("Medium"),
    "hard": lazy_gettext("Hard"),
    "expert": lazy_gettext("Expert"),
}
#: Options the computer cannot play (the solver does not handle banked rolls).
UNSOLVED_OPTIONS = ("saved_rolls",)


@bp.get("/computer")
def setup() -> str:
    """Picks a ruleset, its options and the computer's level."""
    choices = [
        (ruleset, [option_view(o) for o in ruleset.option_specs if o.name not in UNSOLVED_OPTIONS])
        for ruleset in BASE_RULESETS.values()
    ]
    levels = [(level, LEVEL_NAMES[level]) for level in reversed(LEVELS)]
    # A table being built: the page says so and offers the heuristic computer; its script
    # reloads it when the table should be ready (unless the player has started choosing).
    found = {r.id: strategy.awaited(r) for r in BASE_RULESETS.values()}
    pending = {rid: waiting(status) for rid, status in found.items() if status is not None}
    return render_template(
        "computer.html", choices=choices, levels=levels, default="medium", waits=pending
    )


@dataclass(frozen=True, slots=True)
class Wait:
    """A strategy table being built, as a page shows it: progress and minutes left."""

    percent: str  # e.g. "42%"
    minutes: int  # rounded up, at least 1
    refresh: int  # seconds until the page reloads itself


def waiting(status: TableStatus) -> Wait:
    """How long the table of *status* is still to take (a missing one has just started)."""
    eta = status.eta if status.eta is not None else 60.0
    return Wait(
        f"{status.percent or 0:.0f}%", max(1, math.ceil(eta / 60)), strategy.retry_after(status)
    )


@dataclass(frozen=True, slots=True)
class Line:
    """One decision of the analysis as the page shows it."""

    turn: int
    roll: int
    dice: list[int]
    played: str
    best: str
    loss: float


@bp.get("/play/<game_id>/analysis")
def analysis(game_id: str) -> str | tuple[str, int, dict[str, str]]:
    """Each decision of a finished game against the best one, and the points given away.

    While the table is being built: a 503 page with the minutes left, refreshing itself.
    """
    record = auth.own_game(game_id)
    try:
        body = strategy.analysis_of(record)
    except TableBuildingError:  # not an error page: a wait that refreshes itself
        wait = waiting(strategy.table_status(record.rules))
        html = render_template("analysis_wait.html", record=record, ruleset=record.rules, wait=wait)
        return html, 503, {"Retry-After": str(wait.refresh), "Refresh": str(wait.refresh)}
    lines = [_line(d) for d in body.decisions]
    return render_template(
        "analysis.html",
        record=record,
        mode=record.kind,
        ruleset=record.rules,
        body=body,
        lines=lines,
    )


def _line(decision: answers.Decision) -> Line:
    return Line(decision.turn, decision.roll, decision.dice, action_str(decision.played),
                action_str(decision.best), decision.loss)  # fmt: skip


def action_str(action: answers.Action) -> str:
    """An action of a hint or an analysis in words: the row to score, or the dice to keep."""
    if action.score is not None:
        return str(gettext("Score %(row)s", row=row_name(action.score)))
    if not action.keep:
        return str(gettext("Re-roll every die"))
    return str(gettext("Keep %(dice)s", dice=" ".join(str(d) for d in action.keep)))
