"""The rankings over HTTP: the leaderboard API under ``/api/v1`` and the ranking pages.

Every board answers the same query: ``limit`` (1 to 100, default 50), ``offset``, or
``around=me`` to centre the page on the asking player; ``me`` is their own entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for
from flask_babel import format_date, gettext
from werkzeug.wrappers import Response as Redirect

from daily.core import dice
from daily.core.codes import code_str, parse_code
from daily.service import rankings
from daily.service.rankings import Board, Entry, Page
from daily.web import answers, auth, board_answers, costs
from daily.web.bodies import parse_day, today
from daily.web.context import current_config, current_redis
from daily.web.http_errors import bad_request
from daily.web.openapi import BOARD_DAY
from daily.web.routes import documented

bp = Blueprint("boards", __name__)

API = "/api/v1"
DEFAULT_LIMIT = 50
#: The query of every board.
PAGE = ("limit", "offset", "around")
#: What the document says of every board's answer.
BOARD = {"query": PAGE, "access": "either", "description": "the page of the board"}


@dataclass(frozen=True, slots=True)
class Query:
    """What a board request asks for: a slice, or the slice around the asker."""

    offset: int
    limit: int
    around: bool


# -- parsing ----------------------------------------------------------------------------------


def parse_year(year: int) -> int:
    """An advent year that can have a board, or a 404."""
    return rankings.check_year(year)


def parse_friend(text: str) -> str:
    """A friend code that exists, normalized; a 400 if malformed, a 404 if unknown."""
    code = parse_code(text)  # a CodeError answers 400 (see daily.web.http_errors)
    return rankings.check_code(current_redis(), current_config(), code)


def _int(name: str, default: int, low: int, high: int) -> int:
    text = request.args.get(name)
    if text is None:
        return default
    # ASCII only: str.isdigit() also passes '²' (int() fails: a 500) and '５' (int() reads 5).
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise bad_request(f"{name} must be a whole number from {low} to {high}, got {text!r}")
    return int(text)


def parse_query() -> Query:
    """The ``limit``, ``offset`` and ``around`` of the request, or a 400."""
    around = request.args.get("around")
    if around not in (None, "me"):
        raise bad_request(f"around must be 'me', got {around!r}")
    limit = _int("limit", DEFAULT_LIMIT, 1, rankings.MAX_LIMIT)
    return Query(_int("offset", 0, 0, rankings.MAX_OFFSET), limit, around == "me")


def read(board: Board) -> Page:
    """The page of *board* this request asks for, with the asking player's entry."""
    query = parse_query()
    me = auth.current_player_id()
    if query.around and me is None:
        raise bad_request("around=me needs a player: send Authorization: Bearer <token>")
    return rankings.page(
        current_redis(), current_config(), board, query.offset, query.limit, me, query.around
    )


# -- the JSON API -----------------------------------------------------------------------------


def _json(board: Board) -> Response:
    answer = page_answer(read(board))
    response = jsonify(answers.dump(answer))
    # A page that polls a board (a challenge's creator waiting for friends) sends the ETag
    # back: an unchanged board answers 304 with no body.
    response.headers["Cache-Control"] = "no-cache"
    response.add_etag()
    response.make_conditional(request)  # turns it into a 304 in place when unchanged
    return response


def page_answer(page: Page) -> board_answers.BoardPage:
    """A page of a board as the API answers it."""
    me = None if page.me is None else entry_answer(page.me)
    entries = [entry_answer(entry) for entry in page.entries]
    return board_answers.BoardPage(
        board=page.board.id,
        total=page.total,
        ranked=page.ranked,
        offset=page.offset,
        entries=entries,
        me=me,
    )


def entry_answer(entry: Entry) -> board_answers.Entry:
    """A player's line on a board; ``current`` only on the streak board, ``new`` and
    ``days_left`` only on a new player's line."""
    extras: dict[str, object] = {}  # the fields only some lines have, passed only then
    if entry.current is not None:
        extras["current"] = entry.current
    if entry.new:
        extras["new"], extras["days_left"] = True, entry.days_left
    return answers.built(
        board_answers.Entry,
        rank=entry.rank,
        player_id=entry.player_id,
        name=entry.name,
        score=entry.score,
        **extras,
    )


@bp.get(
    f"{API}/leaderboards/daily/<day>",
    cost=costs.READ,
    api=documented(
        board_answers.BoardPage,
        errors=(400, 401, 404),
        path={"day": BOARD_DAY},
        query=PAGE,
        access="either",
        description="the page of the board",
    ),
)
def daily_board(day: str) -> Response:
    """The board of one day's puzzle (``today`` works too)."""
    return _json(Board.daily(parse_day(day)))


@bp.get(
    f"{API}/leaderboards/best-day",
    cost=costs.READ,
    api=documented(
        board_answers.BoardPage,
        errors=(400, 401),
        query=PAGE,
        access="either",
        description="the page of the board",
    ),
)
def best_day_board() -> Response:
    """Every player's best daily total."""
    return _json(Board.best_day())


@bp.get(
    f"{API}/leaderboards/streak",
    cost=costs.READ,
    api=documented(
        board_answers.BoardPage,
        errors=(400, 401),
        query=PAGE,
        access="either",
        description="the page of the board",
    ),
)
def streak_board() -> Response:
    """The longest runs of consecutive days played; ``current`` is the run alive today."""
    return _json(Board.streak())


@bp.get(
    f"{API}/leaderboards/advent/<int:year>",
    cost=costs.READ,
    api=documented(
        board_answers.BoardPage,
        errors=(400, 401, 404),
        query=PAGE,
        access="either",
        description="the page of the board",
    ),
)
def advent_board(year: int) -> Response:
    """The advent calendar of *year*: the sum of each player's door scores."""
    return _json(Board.advent(parse_year(year)))


@bp.get(
    f"{API}/leaderboards/friend/<code>",
    cost=costs.READ,
    api=documented(
        board_answers.BoardPage,
        errors=(400, 401, 404),
        query=PAGE,
        access="either",
        description="the page of the board",
    ),
)
def friend_board(code: str) -> Response:
    """The games played on one friend code."""
    return _json(Board.friend(parse_friend(code)))


@bp.get(
    f"{API}/daily/<day>/distribution",
    cost=costs.READ,
    api=documented(
        board_answers.Distribution,
        errors=(400, 404),
        path={"day": BOARD_DAY},
        query=("band",),
        access="public",
        description="the bands, lowest first",
    ),
)
def distribution(day: str) -> Response:
    """How many players reached each band of scores on *day* (``band`` points wide)."""
    when = parse_day(day)
    band = _int("band", 50, 1, rankings.DAILY_TOP + 1)
    bands = rankings.distribution(current_redis(), when, band)
    answer = board_answers.Distribution(
        date=when.isoformat(),
        band=band,
        players=sum(b.players for b in bands),
        bands=[
            board_answers.Band(**{"from": b.low, "to": b.high}, players=b.players) for b in bands
        ],
    )
    return jsonify(answers.dump(answer))


# -- the pages --------------------------------------------------------------------------------


def _render(board: Board, title: str, tab: str, **extra: Any) -> str:
    page = read(board)
    limit = parse_query().limit
    return render_template(
        "leaderboard.html",
        page=page,
        title=title,
        tab=tab,
        tabs=tabs(board),
        limit=limit,
        previous=max(page.offset - limit, 0) if page.offset > 0 else None,
        next=page.offset + limit if page.offset + limit < page.total else None,
        established_days=current_config().established_days,
        **extra,
    )


def tabs(board: Board) -> list[tuple[str, str, str]]:
    """The tabs of the ranking pages as (id, label, url): Advent only in December."""
    now = today()
    shown = [
        ("today", gettext("Today"), url_for("boards.daily_page", day=now.isoformat())),
        ("best-day", gettext("Best day"), url_for("boards.best_day_page")),
        ("streak", gettext("Streak"), url_for("boards.streak_page")),
    ]
    if now.month == 12 or board.kind == "advent":
        year = int(board.id.split("/")[1]) if board.kind == "advent" else now.year
        shown.append(("advent", gettext("Advent"), url_for("boards.advent_page", year=year)))
    if board.kind == "friend":
        shown.append(("friend", gettext("Friend code"), request.path))
    shown.append(("leagues", gettext("Leagues"), url_for("leagues.index")))
    return shown


@bp.get("/leaderboards", cost=costs.PAGE)
def index() -> str:
    """Today's board."""
    return daily_page(today().isoformat())


@bp.get("/leaderboards/daily/<day>", cost=costs.PAGE)
def daily_page(day: str) -> str:
    """One day's board, with links to the days before and after."""
    when = parse_day(day)
    tab = "today" if when == today() else "day"
    before = when - timedelta(days=1)
    return _render(
        Board.daily(when),
        gettext("Daily puzzle, %(day)s", day=format_date(when, "long")),
        tab,
        day_before=before.isoformat() if before >= rankings.DAY_EPOCH else None,
        day_after=(when + timedelta(days=1)).isoformat() if when < today() else None,
        practice=dice.Day(when, current_config().timezone).is_revealed(current_config().now()),
    )


@bp.get("/leaderboards/best-day", cost=costs.PAGE)
def best_day_page() -> str:
    """Every player's best daily total."""
    return _render(Board.best_day(), gettext("Best day"), "best-day")


@bp.get("/leaderboards/streak", cost=costs.PAGE)
def streak_page() -> str:
    """The longest runs of days played."""
    return _render(Board.streak(), gettext("Days in a row"), "streak")


@bp.get("/leaderboards/advent/<int:year>", cost=costs.PAGE)
def advent_page(year: int) -> str:
    """The advent calendar's board of *year*."""
    board = Board.advent(parse_year(year))
    return _render(board, gettext("Advent calendar %(year)s", year=year), "advent")


@bp.get("/leaderboards/friend", cost=costs.PAGE)
def friend_form() -> Redirect:
    """The friend-code form's target: sends the browser on to that code's board."""
    code = parse_friend(request.args.get("code", ""))
    return redirect(url_for("boards.friend_page", code=code_str(code)))


@bp.get("/leaderboards/friend/<code>", cost=costs.PAGE)
def friend_page(code: str) -> str:
    """The board of one friend code."""
    normal = parse_friend(code)
    title = gettext("Friend challenge %(code)s", code=code_str(normal))
    return _render(Board.friend(normal), title, "friend", code=code_str(normal))
