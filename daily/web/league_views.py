"""Leagues over HTTP: the API under ``/api/v1/leagues`` and the pages under ``/leagues``.

Each view parses the request, calls one function of the league service
(:mod:`daily.service.leagues`) and renders what it returns; the service decides and refuses.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for
from flask_babel import format_date, gettext
from werkzeug.wrappers import Response as Redirect

from daily.service import leagues
from daily.service.leagues import MAX_LEAGUES
from daily.web import auth, bodies, costs, limits
from daily.web.bodies import parse_day, today
from daily.web.context import current_config, current_redis
from daily.web.costs import LEAGUE, Cpu
from daily.web.league_answers import (
    LeagueAnswer,
    LeaguesAnswer,
    StandingAnswer,
    invite_link,
    league_answer,
    standing_answer,
)
from daily.web.openapi import BOARD_DAY
from daily.web.routes import documented

bp = Blueprint("leagues", __name__)

#: Removing a member: off the league and its boards, and on its list of the removed.
REMOVAL = costs.cost(Cpu.WRITE, 300, LEAGUE)
API = "/api/v1"


# -- the models of the API --------------------------------------------------------------------


class NewLeague(bodies.Body):
    """POST /leagues and PATCH /leagues/{id}: the league's name (a player name's rules)."""

    name: Annotated[str, bodies.NAME]


#: The path parameters of the league routes, as the document describes them.
_LEAGUE = {
    "league_id": {
        "description": "the league's id, the end of its invite link (unknown: 404)",
        "schema": {"type": "string"},
    }
}
_MEMBER = {
    **_LEAGUE,
    "player_id": {
        "description": "`me` (or the asker's id) to leave; another member's id to remove them",
        "schema": {"type": "string"},
    },
}
_REMOVED = {
    **_LEAGUE,
    "player_id": {
        "description": "the id of a member the owner removed",
        "schema": {"type": "string"},
    },
}
_BOARD = {**_LEAGUE, "day": BOARD_DAY}


def _name() -> str:
    return bodies.parse(NewLeague, bodies.json_object()).name


def _invite() -> str | None:
    """The invite token a request carries: ``?invite=`` (a link), else a form's field."""
    return request.args.get("invite") or request.form.get("invite") or None


# -- the API ----------------------------------------------------------------------------------


@bp.get(
    f"{API}/leagues",
    cost=costs.READ,
    api=documented(LeaguesAnswer, errors=(401,), description="the leagues"),
)
def list_leagues() -> Response:
    """The leagues the asking player is in."""
    found = leagues.mine(current_redis(), auth.current_player_id())
    return jsonify(LeaguesAnswer(leagues=[league_answer(league) for league in found]).model_dump())


@bp.post(
    f"{API}/leagues",
    cost=costs.LEAGUE_WRITE,
    api=documented(
        LeagueAnswer,
        status=201,
        body=NewLeague,
        errors=(400, 401, 409, 413, 415),
        description="the league as the asker sees it",
    ),
)
def create_league() -> tuple[Response, int]:
    """Makes a league owned by the asking player, its first member."""
    name = _name()
    player_id = auth.require_player_id()
    with limits.spending("joins", player_id):
        league = leagues.create(current_redis(), current_config(), player_id, name)
    return jsonify(league_answer(league).model_dump()), 201


@bp.get(
    f"{API}/leagues/<league_id>",
    cost=costs.READ,
    api=documented(
        LeagueAnswer,
        errors=(401, 404),
        path=_LEAGUE,
        access="either",
        query=("invite",),
        description="the league as the asker sees it",
    ),
)
def get_league(league_id: str) -> Response:
    """A league: its name and owner for anyone with its current link, its members for its
    members."""
    league = leagues.get(current_redis(), auth.current_player_id(), league_id, _invite())
    return jsonify(league_answer(league).model_dump())


@bp.patch(
    f"{API}/leagues/<league_id>",
    cost=costs.LEAGUE_CHANGE,
    api=documented(
        LeagueAnswer,
        body=NewLeague,
        errors=(400, 401, 403, 404, 413, 415),
        path=_LEAGUE,
        description="the league as the asker sees it",
    ),
)
def rename_league(league_id: str) -> Response:
    """Renames a league (its owner only)."""
    name = _name()
    league = leagues.rename(
        current_redis(), current_config(), auth.require_player_id(), league_id, name
    )
    return jsonify(league_answer(league).model_dump())


@bp.post(
    f"{API}/leagues/<league_id>/members",
    cost=costs.LEAGUE_WRITE,
    api=documented(
        LeagueAnswer,
        errors=(401, 404, 409),
        path=_LEAGUE,
        query=("invite",),
        description="the league as the asker sees it",
    ),
)
def join_league(league_id: str) -> Response:
    """Joins a league with its current invite link (again: no change)."""
    player_id = auth.require_player_id()
    with limits.spending("joins", player_id):
        league = leagues.join(current_redis(), current_config(), player_id, league_id, _invite())
    return jsonify(league_answer(league).model_dump())


@bp.post(
    f"{API}/leagues/<league_id>/invite",
    cost=costs.LEAGUE_CHANGE,
    api=documented(
        LeagueAnswer,
        errors=(401, 403, 404),
        path=_LEAGUE,
        description="the league with its new invite link",
    ),
)
def renew_invite(league_id: str) -> Response:
    """Gives a league a new invite link, the old one joining no more (its owner only)."""
    league = leagues.renew(current_redis(), current_config(), auth.require_player_id(), league_id)
    return jsonify(league_answer(league).model_dump())


@bp.delete(
    f"{API}/leagues/<league_id>/members/<player_id>",
    cost=REMOVAL,
    api=documented(
        LeagueAnswer,
        errors=(400, 401, 403, 404),
        path=_MEMBER,
        description="the league without the removed member (204 when the asker left)",
    ),
)
def remove_member(league_id: str, player_id: str) -> Response | tuple[str, int]:
    """``me``: leaves the league; another member's id: removes them (the owner only)."""
    me = auth.require_player_id()
    if player_id in ("me", me):
        leagues.leave(current_redis(), current_config(), me, league_id)
        return "", 204
    league = leagues.remove(current_redis(), current_config(), me, league_id, player_id)
    return jsonify(league_answer(league).model_dump())


@bp.delete(
    f"{API}/leagues/<league_id>/removed/<player_id>",
    cost=costs.cost(Cpu.WRITE),  # takes a member off the removed: no bytes
    api=documented(
        LeagueAnswer,
        errors=(401, 403, 404),
        path=_REMOVED,
        description="the league, the member readmitted",
    ),
)
def readmit_member(league_id: str, player_id: str) -> Response:
    """Takes a removed member off the league's removed list: they may join again, with the
    current link (the owner only)."""
    league = leagues.readmit(
        current_redis(), current_config(), auth.require_player_id(), league_id, player_id
    )
    return jsonify(league_answer(league).model_dump())


@bp.get(
    f"{API}/leagues/<league_id>/days/<day>",
    cost=costs.READ,
    api=documented(
        StandingAnswer,
        errors=(400, 401, 404),
        path=_BOARD,
        access="either",
        description="the board, best first",
    ),
)
def day_board(league_id: str, day: str) -> Response:
    """The league's board of one day's daily (``today`` works; members only)."""
    found = leagues.day_standing(
        current_redis(), current_config(), auth.current_player_id(), league_id, parse_day(day)
    )
    return jsonify(standing_answer(found))


@bp.get(
    f"{API}/leagues/<league_id>/weeks/<day>",
    cost=costs.READ,
    api=documented(
        StandingAnswer,
        errors=(400, 401, 404),
        path=_BOARD,
        access="either",
        description="the table, best first",
    ),
)
def week_board(league_id: str, day: str) -> Response:
    """The league's table of the week holding *day* (``today`` works; members only)."""
    found = leagues.week_standing(
        current_redis(), current_config(), auth.current_player_id(), league_id, parse_day(day)
    )
    return jsonify(standing_answer(found))


# -- the pages --------------------------------------------------------------------------------


@bp.get("/leagues", cost=costs.PAGE)
def index() -> str:
    """The asking player's leagues, and the form that makes one."""
    found = leagues.mine(current_redis(), auth.current_player_id())
    return render_template("leagues.html", leagues=found, max_leagues=MAX_LEAGUES)


@bp.post("/leagues", cost=costs.LEAGUE_WRITE)
def create_form() -> Redirect:
    """Makes a league from the form, then shows it."""
    player_id = auth.require_player_id()
    with limits.spending("joins", player_id):
        league = leagues.create(
            current_redis(), current_config(), player_id, request.form.get("name", "")
        )
    return redirect(url_for("leagues.league_page", league_id=league.id), 303)


@bp.get("/leagues/<league_id>", cost=costs.PAGE)
def league_page(league_id: str) -> str | tuple[str, int]:
    """A league: for a member its day board (``?day=``), its week and its members; for
    anyone else with its current link, whose league it is and a button to join; for a link
    that no longer works, why."""
    player_id = auth.current_player_id()
    league = leagues.find(current_redis(), player_id, league_id, _invite())
    if league is None:
        return render_template("league.html", league=None), 404
    if not league.is_member:
        return render_template("league.html", league=league)
    when = parse_day(request.args.get("day", "today"))
    client, config = current_redis(), current_config()
    day = leagues.day_standing(client, config, player_id, league.id, when)
    week = leagues.week_standing(client, config, player_id, league.id, when)
    before = when - timedelta(days=1)
    return render_template(
        "league.html",
        league=league,
        day=day,
        week=week,
        day_title=format_date(when, "long"),
        week_title=gettext("Week of %(day)s", day=format_date(week.day, "long")),
        day_before=before.isoformat(),
        day_after=(when + timedelta(days=1)).isoformat() if when < today() else None,
        invite=invite_link(league),
        best_days=leagues.BEST_DAYS,
    )


@bp.post("/leagues/<league_id>/join", cost=costs.LEAGUE_WRITE)
def join_form(league_id: str) -> Redirect:
    """Joins the league from its invite page."""
    player_id = auth.require_player_id()
    with limits.spending("joins", player_id):
        leagues.join(current_redis(), current_config(), player_id, league_id, _invite())
    return _back(league_id)


@bp.post("/leagues/<league_id>/leave", cost=costs.LEAGUE_CHANGE)
def leave_form(league_id: str) -> Redirect:
    """Leaves the league, back to the list of leagues."""
    leagues.leave(current_redis(), current_config(), auth.require_player_id(), league_id)
    return redirect(url_for("leagues.index"), 303)


@bp.post("/leagues/<league_id>/name", cost=costs.LEAGUE_CHANGE)
def rename_form(league_id: str) -> Redirect:
    """Renames the league (its owner)."""
    leagues.rename(
        current_redis(),
        current_config(),
        auth.require_player_id(),
        league_id,
        request.form.get("name", ""),
    )
    return _back(league_id)


@bp.post("/leagues/<league_id>/remove", cost=REMOVAL)
def remove_form(league_id: str) -> Redirect:
    """Removes a member (its owner)."""
    leagues.remove(
        current_redis(),
        current_config(),
        auth.require_player_id(),
        league_id,
        request.form.get("player", ""),
    )
    return _back(league_id)


@bp.post("/leagues/<league_id>/readmit", cost=costs.cost(Cpu.WRITE))
def readmit_form(league_id: str) -> Redirect:
    """Readmits a removed member (its owner)."""
    leagues.readmit(
        current_redis(),
        current_config(),
        auth.require_player_id(),
        league_id,
        request.form.get("player", ""),
    )
    return _back(league_id)


@bp.post("/leagues/<league_id>/invite", cost=costs.LEAGUE_CHANGE)
def renew_form(league_id: str) -> Redirect:
    """Gives the league a new invite link (its owner)."""
    leagues.renew(current_redis(), current_config(), auth.require_player_id(), league_id)
    return _back(league_id)


def _back(league_id: str) -> Redirect:
    return redirect(url_for("leagues.league_page", league_id=league_id), 303)
