"""The party page: set up two to four players on one device, then play their turns in order.

The page plays through the JSON API with the play page's script (``static/js/play.js``);
the server keeps every sheet and says whose turn it is.
"""

from __future__ import annotations

from flask import Blueprint, render_template

from daily.core.errors import NotFoundError
from daily.core.party import MAX_PLAYERS, MIN_PLAYERS
from daily.core.rules import BASE_RULESETS
from daily.service import analyses
from daily.service.accounts import MAX_NAME
from daily.web import auth, costs
from daily.web.context import current_config
from daily.web.pages import option_view, sheet_meta
from daily.web.sheets import mode_meta

bp = Blueprint("party", __name__)


@bp.get("/party", cost=costs.PAGE)
def setup() -> str:
    """Names two to four players and picks the ruleset and its options."""
    choices = [
        (ruleset, [option_view(o) for o in ruleset.option_specs])
        for ruleset in BASE_RULESETS.values()
    ]
    return render_template(
        "party.html",
        record=None,
        choices=choices,
        seats=range(MAX_PLAYERS),
        needed=MIN_PLAYERS,
        max_name=MAX_NAME,
    )


@bp.get("/party/<game_id>", cost=costs.cost(costs.Cpu.PAGE, 2_500, costs.GAME, costs.PLAYER))
def play(game_id: str) -> str:
    """A party game: every sheet side by side, the dice of the player to move."""
    record = auth.own_game(game_id)
    if not record.kind.is_party:
        raise NotFoundError(f"no such party game: {game_id!r}")
    names = record.party(current_config().secret_key).names
    boot: dict[str, object] = {
        "game": record.id,
        "sheet": sheet_meta(record.rules),
        "mode": mode_meta(record.kind),
        "names": names,
        # Each player's skill and luck are asked for at the finish where the table is there.
        "skillReady": analyses.is_ready(current_config(), record),
    }
    return render_template(
        "party.html", record=record, ruleset=record.rules, names=names, boot=boot
    )
