"""The computer's page: ``/computer`` (pick a ruleset, its options and a level).

A computer game plays on the play page (the script draws the computer's sheet and turn);
its analysis is :mod:`daily.web.analysis_views`' page.
"""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_babel import lazy_gettext

from daily.core.rules import BASE_RULESETS
from daily.service import tables
from daily.strategy.bots import LEVELS
from daily.strategy.specs import solvable_options
from daily.web import costs, strategy_answers
from daily.web.context import current_config
from daily.web.pages import option_view

bp = Blueprint("computer", __name__)

#: The levels as the page names them, weakest first.
LEVEL_NAMES = {
    "easy": lazy_gettext("Easy"),
    "medium": lazy_gettext("Medium"),
    "hard": lazy_gettext("Hard"),
    "expert": lazy_gettext("Expert"),
}


@bp.get("/computer", cost=costs.cost(costs.Cpu.PAGE, 200, costs.TTL, limits=("builds",)))
def setup() -> str:
    """Picks a ruleset, its options and the computer's level."""
    # Only the options the solver plays (not banked rolls): the model says which.
    choices = [
        (ruleset, [option_view(o) for o in solvable_options(ruleset)])
        for ruleset in BASE_RULESETS.values()
    ]
    levels = [(level, LEVEL_NAMES[level]) for level in reversed(LEVELS)]
    # A table being built: the page says so and offers the heuristic computer; its script
    # reloads it when the table should be ready (unless the player has started choosing).
    found = {r.id: tables.awaited(current_config(), r) for r in BASE_RULESETS.values()}
    pending = {
        rid: strategy_answers.waiting(status) for rid, status in found.items() if status is not None
    }
    return render_template(
        "computer.html", choices=choices, levels=levels, default="medium", waits=pending
    )
