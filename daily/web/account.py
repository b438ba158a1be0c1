"""The player's own pages: settings, history, a sign-in link for another browser, deletion;
and the site's shell: the web app manifest, the service worker and the offline page.

A sign-in link carries the player id and a *generation* counted in the player's record,
signed and time-stamped with itsdangerous: making a new link bumps the generation, so every
older link stops working, and a link older than :data:`LINK_MAX_AGE` is refused.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import segno
from flask import (
    Blueprint,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext
from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer
from markupsafe import Markup
from werkzeug.wrappers import Response

from daily import __version__, dice
from daily.errors import DeletedTodayError, SignInLinkError
from daily.modes import MODES, find_mode
from daily.store import boards, games, keys, players
from daily.web import auth, current_config, current_redis, pages
from daily.web.errors import HttpError, bad_request
from daily.web.pages import STATIC, Comparison, compare

bp = Blueprint("account", __name__)

_LINK_SALT = "daily.signin-link"
#: How long a sign-in link works: long enough to open it on the other phone, short enough
#: that a forgotten link is not a key for ever.
LINK_MAX_AGE = timedelta(days=1)
THEMES = ("auto", "light", "dark")
_THEME_KEY = "theme"
#: The session field that remembers the day a player was deleted on this browser.
_DELETED_KEY = "deleted_on"
_GUEST = re.compile(r"Guest ([0-9a-f]{4})")
#: How many days of history the page reads (a year and more).
HISTORY_DAYS = 400


# -- shared context ----------------------------------------------------------------------------


@bp.app_context_processor
def _context() -> dict[str, Any]:
    return {"theme": theme()}


def theme() -> str:
    """The colour theme chosen on this browser: ``auto`` (the system's), ``light`` or ``dark``."""
    chosen = session.get(_THEME_KEY)
    return chosen if chosen in THEMES else "auto"


@bp.app_template_filter("player_name")
def player_name(name: str) -> str:
    """A player's name as shown: a guest's generic name in the reader's language."""
    found = _GUEST.fullmatch(name)
    return str(gettext("Guest %(n)s", n=found.group(1))) if found else name


# -- the player's page -------------------------------------------------------------------------


@bp.get("/me")
def me() -> str:
    """The player's page: name, language, dice, theme, and the ways to history, link, delete."""
    player = _current_player()
    is_guest = player is None or _GUEST.fullmatch(player.name) is not None
    return render_template("me.html", player=player, is_guest=is_guest)


@bp.post("/me/name")
def set_name() -> Response:
    """Saves the player's name (the form's answer without script; the script uses the API)."""
    player_id = auth.require_player_id()
    try:
        players.rename(current_redis(), player_id, request.form.get("name", ""))
    except players.InvalidNameError as e:
        raise bad_request(str(e)) from None
    return redirect(url_for("account.me"), 303)


@bp.post("/me/theme")
def set_theme() -> Response:
    """Keeps the colour theme picked on the player's page in the session."""
    chosen = request.form.get("theme", "")
    if chosen not in THEMES:
        raise bad_request(f"unknown theme: {chosen!r} (allowed: {', '.join(THEMES)})")
    session[_THEME_KEY] = chosen
    session.permanent = True
    return redirect(url_for("account.me"), 303)


def _current_player() -> players.Player | None:
    try:
        return auth.current_player()
    except HttpError:
        return None  # a player that no longer exists: the page offers a fresh start


# -- history -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Played:
    """One finished daily puzzle in a player's history."""

    day: date
    number: int
    total: int
    bonus: bool
    game_id: str


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of a player's history."""

    days: int
    streak: int
    best_streak: int
    best: int | None
    mean: float | None
    bonus_rate: float | None  # 0 to 1


def summarize(played: Sequence[Played], streak: int = 0, best_streak: int = 0) -> Summary:
    """The figures of *played* (finished dailies) with the streak read from the store.

    >>> day = date(2026, 12, 1)
    >>> s = summarize([Played(day, 1, 300, True, "a"), Played(day, 2, 250, False, "b")])
    >>> s.days, s.best, s.mean, s.bonus_rate
    (2, 300, 275.0, 0.5)
    >>> summarize([]).mean is None
    True
    """
    if not played:
        return Summary(0, streak, best_streak, None, None, None)
    totals = [p.total for p in played]
    return Summary(
        days=len(played),
        streak=streak,
        best_streak=best_streak,
        best=max(totals),
        mean=sum(totals) / len(totals),
        bonus_rate=sum(1 for p in played if p.bonus) / len(played),
    )


def history_of(player_id: str) -> list[Played]:
    """The finished daily puzzles of *player_id*, newest first."""
    client = current_redis()
    config = current_config()
    found = []
    for game_id in games.games_of(client, player_id, limit=HISTORY_DAYS * 2):
        record = games.load(client, game_id)
        if record is None or record.mode != "daily" or record.day is None:
            continue
        if not record.finished or record.total is None:
            continue
        state = record.state(config.secret_key)
        number = dice.Day(record.day, config.timezone).number
        found.append(Played(record.day, number, record.total, state.bonus > 0, record.id))
    return found


def chart_svg(played: Sequence[Played], width: int = 320, height: int = 120) -> Markup:
    """A bar chart of the last 30 daily totals (oldest left), as inline SVG.

    >>> svg = chart_svg([Played(date(2026, 12, 1), 1, 200, True, "a")])
    >>> svg.count("<rect"), 'role="img"' in svg
    (1, True)
    """
    recent = list(reversed(played[:30]))
    top = max([p.total for p in recent] + [1])
    step = width / max(len(recent), 14)  # a few days do not make fat bars
    bars = []
    for i, p in enumerate(recent):
        h = max(2.0, (height - 16) * p.total / top)
        x, y = i * step + 1, height - h
        label = gettext("#%(number)s: %(total)s", number=p.number, total=p.total)
        bars.append(
            f'<rect class="{"bonus" if p.bonus else "plain"}" x="{x:.1f}" y="{y:.1f}"'
            f' width="{max(step - 2, 1):.1f}" height="{h:.1f}" rx="2"><title>{Markup.escape(label)}'
            "</title></rect>"
        )
    name = Markup.escape(gettext("Your last %(n)s daily scores", n=len(recent)))
    return Markup(
        f'<svg class="history-chart" viewBox="0 0 {width} {height}" role="img"'
        f' aria-label="{name}">'
        f'<line x1="0" y1="{height - 0.5}" x2="{width}" y2="{height - 0.5}" class="axis"/>'
        f'<line x1="0" y1="16" x2="{width}" y2="16" class="axis top"/>'
        f'<text x="{width - 2}" y="12" class="label" text-anchor="end">{top}</text>'
        + "".join(bars)
        + "</svg>"
    )


@bp.get("/me/history")
def history() -> str:
    """Each daily played, the streak, best, mean and bonus rate, and a chart of the scores."""
    player_id = auth.current_player_id()
    played = history_of(player_id) if player_id else []
    today = dice.today(current_config().now(), current_config().timezone).date
    streak, best_streak = (
        boards.streak_of(current_redis(), player_id, today) if player_id else (0, 0)
    )
    summary = summarize(played, streak, best_streak)
    return render_template(
        "history.html", played=played, summary=summary, chart=chart_svg(played) if played else ""
    )


# -- sign-in links -----------------------------------------------------------------------------


class _ClockSigner(TimestampSigner):
    """A timestamp signer whose clock is the app's reference clock (the tests move it)."""

    def __init__(self, *args: Any, now: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._now = now

    def get_timestamp(self) -> int:
        """The app's reference time, in whole seconds."""
        return self._now


def _link_serializer() -> URLSafeTimedSerializer:
    keys_ = list(reversed(current_config().signing_keys))  # oldest to newest, as itsdangerous
    now = int(current_config().now().timestamp())
    return URLSafeTimedSerializer(
        keys_, salt=_LINK_SALT, signer=_ClockSigner, signer_kwargs={"now": now}
    )


def make_link(player_id: str) -> str:
    """A new sign-in token for *player_id*; every older one stops working."""
    generation = players.next_link_generation(current_redis(), player_id)
    return str(_link_serializer().dumps({"p": player_id, "g": generation}))


def player_of_link(token: str) -> str:
    """The player a sign-in token names, or a 403 if it is forged, revoked or expired."""
    try:
        data = _link_serializer().loads(token, max_age=int(LINK_MAX_AGE.total_seconds()))
    except SignatureExpired:
        raise SignInLinkError("this sign-in link has expired") from None
    except BadSignature:
        raise SignInLinkError("this sign-in link is not valid") from None
    if not isinstance(data, dict) or not isinstance(data.get("p"), str):
        raise SignInLinkError("this sign-in link is not valid")
    player_id = data["p"]
    if players.get(current_redis(), player_id) is None:
        raise SignInLinkError("this player no longer exists")
    if data.get("g") != players.link_generation(current_redis(), player_id):
        raise SignInLinkError("this sign-in link was replaced by a newer one")
    return str(player_id)


def qr_svg(url: str) -> Markup:
    """*url* as a QR code in inline SVG."""
    svg = segno.make(url, error="m").svg_inline(
        scale=4, dark="#000", light="#fff", omitsize=True, svgclass="qr", title=None
    )
    return Markup(svg)


@bp.post("/me/link")
def new_link() -> str:
    """Makes a new sign-in link (revoking the old one) and shows it with its QR code."""
    player_id = auth.require_player_id()
    players.keep(current_redis(), player_id)  # a player with a link is not a passing guest
    url = url_for("account.signin", token=make_link(player_id), _external=True)
    hours = int(LINK_MAX_AGE.total_seconds() // 3600)
    return render_template("signin_link.html", url=url, qr=qr_svg(url), hours=hours)


@bp.get("/signin/<token>")
def signin(token: str) -> str:
    """Asks before switching this browser to the player a sign-in link names."""
    player_id = player_of_link(token)
    target = players.get(current_redis(), player_id)
    current = auth.current_player_id()
    return render_template(
        "signin.html", token=token, target=target, same=current == player_id, has_own=bool(current)
    )


@bp.post("/signin/<token>")
def signin_confirm(token: str) -> Response:
    """Moves this browser to the player the link names: their streak and history come along."""
    player_id = player_of_link(token)
    session["player_id"] = player_id
    session.permanent = True
    session.pop(_DELETED_KEY, None)
    return redirect(url_for("account.history"), 303)


# -- deletion ----------------------------------------------------------------------------------


@bp.get("/me/delete")
def delete_form() -> str:
    """Asks before deleting the player."""
    return render_template("delete.html", player=_current_player())


@bp.post("/me/delete")
def delete() -> str:
    """Deletes the player: name, history, streak and links; their games stay, anonymous."""
    if request.form.get("confirm") != "yes":
        raise bad_request("tick the box to confirm the deletion")
    player_id = auth.current_player_id()
    if player_id is not None:
        players.delete(current_redis(), player_id, (keys.board_best_day(), keys.board_streak()))
    today = dice.today(current_config().now(), current_config().timezone).date
    theme_ = session.get(_THEME_KEY)
    session.clear()
    # The browser still played today: it may start a new guest, not today's ranked games again.
    session[_DELETED_KEY] = today.isoformat()
    if theme_ in THEMES:
        session[_THEME_KEY] = theme_
    session.permanent = True
    return render_template("deleted.html")


@bp.before_app_request
def _refuse_replay_after_delete() -> None:
    # A player deleted today must not replay today's dice for a better rank on this browser.
    if request.endpoint != "api.create_game" or _DELETED_KEY not in session:
        return
    today = dice.today(current_config().now(), current_config().timezone).date
    if session[_DELETED_KEY] != today.isoformat():
        return
    body = request.get_json(silent=True)
    mode = body.get("mode") if isinstance(body, dict) else None
    if isinstance(mode, str) and mode in MODES and find_mode(mode).is_ranked:
        raise DeletedTodayError(
            "a player was deleted on this browser today: ranked games start again tomorrow"
        )


# -- friends on a code's page ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sheet:
    """A finished game on a friend code, as the code's page lists it."""

    name: str
    record: games.Record
    is_creator: bool
    is_me: bool


@bp.app_template_global()
def friend_sheets(code: str, creator_game: games.Record | None, mine: games.Record | None = None,
                  limit: int = 12) -> list[Sheet]:  # fmt: skip
    """The finished games on *code*: the creator's first, the reader's own game (their daily
    on a daily's code), then the board's order."""
    client = current_redis()
    me_id = auth.current_player_id()
    found: list[Sheet] = []
    if creator_game is not None and creator_game.finished:
        found.append(_sheet(creator_game, True, me_id))
    if mine is not None and mine.finished and all(s.record.id != mine.id for s in found):
        found.append(_sheet(mine, False, me_id))
    ids = client.zrevrange(keys.board_friend(code), 0, limit)
    for member in ids:
        player_id = boards.player_of(str(member))
        record = games.index_lookup(client, keys.player_friend(player_id, code))
        if record is None or not record.finished:
            continue
        if any(s.record.id == record.id for s in found):
            continue
        found.append(_sheet(record, False, me_id))
    return found[:limit]


def _sheet(record: games.Record, is_creator: bool, me_id: str | None) -> Sheet:
    player = players.get(current_redis(), record.player_id)
    name = player_name(player.name) if player else str(gettext("a deleted player"))
    return Sheet(name, record, is_creator, record.player_id == me_id)


@bp.app_template_global()
def verdict(mine: int, theirs: int) -> str:
    """``win``, ``lose`` or ``tie``: *mine* against *theirs*."""
    return "win" if mine > theirs else "lose" if mine < theirs else "tie"


@bp.app_template_global()
def advent_calendar(day: dice.Day) -> list[pages.Door]:
    """The 24 doors for the day's page in December (none in other months)."""
    if day.date.month != 12:
        return []
    return pages.advent_doors(day.date, auth.current_player_id())


# -- the installable shell ---------------------------------------------------------------------


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest, in the player's language."""
    icon = functools.partial(url_for, "static")
    body = {
        "name": gettext("Daily Maxi Yatzy"),
        "short_name": gettext("Maxi Yatzy"),
        "description": gettext("The same dice for everybody, every day."),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f7f5f0",
        "theme_color": "#17324d",
        "icons": [
            {"src": icon(filename="icon.svg"), "sizes": "any", "type": "image/svg+xml"},
            {"src": icon(filename="icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": icon(filename="icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": icon(filename="icon-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }
    response = current_app.response_class(
        current_app.json.dumps(body), mimetype="application/manifest+json"
    )
    return response


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so that its scope is the whole site."""
    response = current_app.response_class(
        (STATIC / "sw.js").read_text().replace("__VERSION__", __version__),
        mimetype="text/javascript",
    )
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def offline() -> str:
    """The page the service worker shows when the network is gone."""
    return render_template("offline.html")


@bp.app_template_global()
def sheets_table(sheets: Sequence[Sheet]) -> Comparison:
    """The sheets of a code's page side by side, the reader's own titled "You"."""
    return compare([(str(gettext("You")) if s.is_me else s.name, s.record) for s in sheets])
