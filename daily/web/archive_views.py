"""The archive: a month's calendar of past puzzles, and any past day's daily played again as
practice once its dice are revealed.

The calendar shows the player's score on each day they played and opens any other revealed
day as practice; that form (and a past day's board's) posts here, the game service starts (or
finds) the player's practice game of that day, and the play page takes over.
"""

from __future__ import annotations

from babel.dates import get_day_names
from flask import Blueprint, redirect, render_template, url_for
from flask_babel import format_date, get_locale
from werkzeug.wrappers import Response

from daily.service import history, new_games, past_days
from daily.web import auth, costs, limits
from daily.web.bodies import parse_day
from daily.web.context import current_config, current_redis

bp = Blueprint("archive", __name__)


@bp.post(
    "/archive/<day>",
    cost=costs.cost(
        costs.Cpu.WRITE,
        2_600,
        costs.TTL,
        costs.PLAYER,
        limits=("games", "network_games", "players", "network_players"),
    ),
)
def practice(day: str) -> Response:
    """Starts the practice game of *day* (or opens the one under way) and shows it."""
    player_id = auth.require_player_id()
    with limits.spending("games", player_id) as counted:
        record, created = new_games.start_practice(current_redis(), current_config(),
                                                   player_id, parse_day(day))  # fmt: skip
    if not created:  # the one under way: opened again, no new game
        limits.give_back(counted)
    return redirect(url_for("pages.play", game_id=record.id), 303)


@bp.get("/archive", cost=costs.PAGE)
def index() -> str:
    """This month's calendar of past puzzles."""
    return month_page("latest")


@bp.get("/archive/<month>", endpoint="month", cost=costs.PAGE)
def month_page(month: str) -> str:
    """A month of past puzzles: the player's score on each day played, practice on the rest."""
    first = past_days.parse_month(month, history.today(current_config()))
    found = past_days.month_of(current_redis(), current_config(), auth.current_player_id(), first)
    return render_template(
        "archive.html",
        month=found,
        title=format_date(first, "LLLL y"),
        weekdays=weekday_names(),
    )


def weekday_names() -> list[str]:
    """The short names of the days of the week in the page's language, Monday first."""
    names = get_day_names("abbreviated", context="stand-alone", locale=get_locale() or "en")
    return [str(names[n]) for n in range(7)]
