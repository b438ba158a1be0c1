"""The player's own pages: settings, history, a sign-in link for another browser, deletion;
and the site's shell: the web app manifest, the service worker and the offline page.

A sign-in link carries the player id and a *generation* counted in the player's record,
signed and time-stamped with itsdangerous: making a new link bumps the generation, so every
older link stops working, and a link older than :data:`LINK_MAX_AGE` is refused.
"""

from __future__ import annotations

import functools
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

from daily.core.errors import SignInLinkError
from daily.core.version import VERSION
from daily.service import accounts, past_days, stats
from daily.service.history import history_of, today
from daily.web import assets, auth, bodies, charts, costs
from daily.web.context import current_config, current_redis
from daily.web.http_errors import HttpError, bad_request
from daily.web.i18n import GUEST, player_name
from daily.web.pages import STATIC

bp = Blueprint("account", __name__)

_LINK_SALT = "daily.signin-link"
#: How long a sign-in link works: long enough to open it on the other phone, short enough
#: that a forgotten link is not a key for ever.
LINK_MAX_AGE = timedelta(days=1)
THEMES = ("auto", "light", "dark")
_THEME_KEY = "theme"
#: The session field that remembers the day a player was deleted on this browser.
_DELETED_KEY = auth.DELETED_KEY


# -- shared context ----------------------------------------------------------------------------


@bp.app_context_processor
def _context() -> dict[str, object]:
    return {"theme": theme()}


def theme() -> str:
    """The colour theme chosen on this browser: ``auto`` (the system's), ``light`` or ``dark``."""
    chosen = session.get(_THEME_KEY)
    return chosen if chosen in THEMES else "auto"


bp.add_app_template_filter(player_name, "player_name")


# -- the player's page -------------------------------------------------------------------------


@bp.get("/me", cost=costs.PAGE)
def me() -> str:
    """The player's page: name, language, dice, theme, and the ways to history, link, delete."""
    player = _current_player()
    is_guest = player is None or GUEST.fullmatch(player.name) is not None
    config = current_config()
    figures = stats.stats_of(current_redis(), config, player.id if player else None, today(config))
    return render_template("me.html", player=player, is_guest=is_guest, stats=figures)


@bp.post("/me/name", cost=costs.cost(costs.Cpu.WRITE, 300, costs.PLAYER))
def set_name() -> Response:
    """Saves the player's name (the form's answer without script; the script uses the API)."""
    player_id = auth.require_player_id()
    accounts.rename(current_redis(), player_id, request.form.get("name", ""))
    return redirect(url_for("account.me"), 303)


@bp.post("/me/theme", cost=costs.PAGE)
def set_theme() -> Response:
    """Keeps the colour theme picked on the player's page in the session."""
    chosen = request.form.get("theme", "")
    if chosen not in THEMES:
        raise bad_request(f"unknown theme: {chosen!r} (allowed: {', '.join(THEMES)})")
    session[_THEME_KEY] = chosen
    session.permanent = True
    return redirect(url_for("account.me"), 303)


def _current_player() -> accounts.Player | None:
    try:
        return auth.current_player()
    except HttpError:
        return None  # a player that no longer exists: the page offers a fresh start


# -- history -----------------------------------------------------------------------------------


@bp.get("/me/history", cost=costs.PAGE)
def history() -> str:
    """The streak, best, mean and bonus rate, and a page of the dailies played with a chart of
    their scores (``?before=YYYY-MM-DD``: the page of the days before that one)."""
    before = bodies.parse_day(request.args["before"]) if "before" in request.args else None
    found = history_of(current_redis(), current_config(), auth.current_player_id(), before)
    played = found.played
    # A game held for review shows as held to its own player: in the table and the chart.
    held = past_days.held_ids(current_redis(), [p.game_id for p in played])
    return render_template(
        "history.html",
        played=played,
        figures=found.figures,
        bonus_rate=found.bonus_rate,
        held=held,
        chart=charts.chart_svg(played, held=held) if played else "",
        older=found.older,
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
    generation = accounts.next_link_generation(current_redis(), player_id)
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
    if accounts.get(current_redis(), player_id) is None:
        raise SignInLinkError("this player no longer exists")
    if data.get("g") != accounts.link_generation(current_redis(), player_id):
        raise SignInLinkError("this sign-in link was replaced by a newer one")
    return str(player_id)


def qr_svg(url: str) -> Markup:
    """*url* as a QR code in inline SVG."""
    svg = segno.make(url, error="m").svg_inline(
        scale=4, dark="#000", light="#fff", omitsize=True, svgclass="qr", title=None
    )
    return Markup(svg)


@bp.post("/me/link", cost=costs.cost(costs.Cpu.WRITE, 100, costs.PLAYER))
def new_link() -> str:
    """Makes a new sign-in link (revoking the old one) and shows it with its QR code."""
    player_id = auth.require_player_id()
    accounts.keep(current_redis(), player_id)  # a player with a link is not a passing guest
    url = url_for("account.signin", token=make_link(player_id), _external=True)
    hours = int(LINK_MAX_AGE.total_seconds() // 3600)
    return render_template("signin_link.html", url=url, qr=qr_svg(url), hours=hours)


@bp.get("/signin/<token>", cost=costs.PAGE)
def signin(token: str) -> str:
    """Asks before switching this browser to the player a sign-in link names."""
    player_id = player_of_link(token)
    target = accounts.get(current_redis(), player_id)
    current = auth.current_player_id()
    return render_template(
        "signin.html", token=token, target=target, same=current == player_id, has_own=bool(current)
    )


@bp.post("/signin/<token>", cost=costs.PAGE)
def signin_confirm(token: str) -> Response:
    """Moves this browser to the player the link names: their streak and history come along."""
    player_id = player_of_link(token)
    session["player_id"] = player_id
    session.permanent = True
    session.pop(_DELETED_KEY, None)
    return redirect(url_for("account.history"), 303)


# -- deletion ----------------------------------------------------------------------------------


@bp.get("/me/delete", cost=costs.PAGE)
def delete_form() -> str:
    """Asks before deleting the player."""
    return render_template("delete.html", player=_current_player())


@bp.post(
    "/me/delete",
    cost=costs.cost(costs.Cpu.WRITE, 200, costs.TTL, costs.PLAYER, limits=("deletes",)),
)
def delete() -> str:
    """Deletes the player: name, history, streak and links; their games stay, anonymous."""
    if request.form.get("confirm") != "yes":
        raise bad_request("tick the box to confirm the deletion")
    player_id = auth.current_player_id()
    if player_id is not None:
        accounts.delete(current_redis(), current_config(), player_id)
    day = today(current_config())
    theme_ = session.get(_THEME_KEY)
    session.clear()
    # The browser still played today: it may start a new guest, not today's ranked games again.
    session[_DELETED_KEY] = day.isoformat()
    if theme_ in THEMES:
        session[_THEME_KEY] = theme_
    session.permanent = True
    return render_template("deleted.html")


def deleted_on() -> date | None:
    """The day a player was deleted on this browser, if one was (kept in the session)."""
    text = session.get(_DELETED_KEY)
    try:
        return date.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


# -- on a code's page ------------------------------------------------------------------------


@bp.app_template_global()
def verdict(mine: int, theirs: int) -> str:
    """``win``, ``lose`` or ``tie``: *mine* against *theirs*."""
    return "win" if mine > theirs else "lose" if mine < theirs else "tie"


# -- the installable shell ---------------------------------------------------------------------


@bp.get("/manifest.webmanifest", cost=costs.PAGE)
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


@bp.get("/sw.js", cost=costs.PAGE)
def service_worker() -> Response:
    """The service worker, served from the root so that its scope is the whole site."""
    response = current_app.response_class(
        (STATIC / "sw.js")
        .read_text()
        .replace("__VERSION__", VERSION)
        .replace(
            "'__MODULES__'", ", ".join(f"'{assets.module_url(n)}'" for n in assets.module_names())
        ),
        mimetype="text/javascript",
    )
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline", cost=costs.PAGE)
def offline() -> str:
    """The page the service worker shows when the network is gone."""
    return render_template("offline.html")
