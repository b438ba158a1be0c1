"""A game's analysis page: each decision of a finished game against the best one.

The page of :mod:`daily.service.analyses` (who may see an analysis, the Expert's game); the API's
answer of the same analysis is ``GET /api/v1/games/<id>/analysis``.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, render_template
from flask_babel import gettext

from daily.core.errors import TableBuildingError
from daily.service import tables
from daily.web import analysis_answers, auth, costs, limits, strategy_answers
from daily.web.context import current_config
from daily.web.i18n import row_name
from daily.web.skill_views import skill_view

bp = Blueprint("analyses", __name__)


@dataclass(frozen=True, slots=True)
class Line:
    """One decision of the analysis as the page shows it."""

    turn: int
    roll: int
    dice: list[int]
    played: str
    best: str
    loss: float


@bp.get("/play/<game_id>/analysis", cost=costs.ANALYSIS)
def analysis(game_id: str) -> str | tuple[str, int, dict[str, str]]:
    """Each decision of a finished game against the best one, and the points given away.

    While the table is being built: a 503 page with the minutes left, refreshing itself.
    """
    record = auth.own_game(game_id)
    limits.take("analyses", record.player_id)
    limits.take_build(record.rules, record.player_id)
    try:
        body = strategy_answers.analysis_of(record)
    except TableBuildingError:  # not an error page: a wait that refreshes itself
        wait = strategy_answers.waiting(tables.status(current_config(), record.rules))
        html = render_template("analysis_wait.html", record=record, ruleset=record.rules, wait=wait)
        return html, 503, {"Retry-After": str(wait.refresh), "Refresh": str(wait.refresh)}
    lines = [_line(d) for d in body.decisions]
    return render_template(
        "analysis.html",
        record=record,
        mode=record.kind,
        ruleset=record.rules,
        body=body,
        skill=skill_view(body.skill),
        lines=lines,
    )


def _line(decision: analysis_answers.Decision) -> Line:
    return Line(decision.turn, decision.roll, decision.dice, action_str(decision.played),
                action_str(decision.best), decision.loss)  # fmt: skip


def action_str(action: analysis_answers.Action) -> str:
    """An action of a hint or an analysis in words: the row to score, or the dice to keep."""
    if action.score is not None:
        return str(gettext("Score %(row)s", row=row_name(action.score)))
    if not action.keep:
        return str(gettext("Re-roll every die"))
    return str(gettext("Keep %(dice)s", dice=" ".join(str(d) for d in action.keep)))
