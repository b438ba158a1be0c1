"""The archive: any past day's daily, played again as practice once its dice are revealed.

The form on a past day's board posts here; the game service starts (or finds) the player's
practice game of that day, and the play page takes over.
"""

from __future__ import annotations

from flask import Blueprint, redirect, url_for
from werkzeug.wrappers import Response

from daily.service import new_games
from daily.web import auth, current_config, current_redis
from daily.web.board_views import parse_day

bp = Blueprint("archive", __name__)


@bp.post("/archive/<day>")
def practice(day: str) -> Response:
    """Starts the practice game of *day* (or opens the one under way) and shows it."""
    record, _ = new_games.start_practice(current_redis(), current_config(),
                                       auth.require_player_id(), parse_day(day))  # fmt: skip
    return redirect(url_for("pages.play", game_id=record.id), 303)
