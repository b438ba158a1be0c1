"""Who is playing: a signed bearer token for API clients, the signed session cookie for browsers.

A player id is only ever trusted when it carries our signature; a tampered
token or cookie is a 401, never a silent new identity. Browsers get an
anonymous player on first need.
"""

from __future__ import annotations

from datetime import timedelta
from typing import NoReturn

from flask import Flask, g, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer

from daily.core.record import Record
from daily.service import accounts, history
from daily.service.accounts import Player
from daily.web import creation, limits
from daily.web.context import current_config, current_redis
from daily.web.http_errors import HttpError
from daily.web.tokens import SESSION_KEY, identity, unauthorized

#: The session field that remembers the day a player was deleted on this browser.
DELETED_KEY = "deleted_on"
#: A browser guest is kept this long at first; each game it starts keeps it as long as
#: that game, and a finished game keeps it for good.
GUEST_GRACE = timedelta(days=1)


class SessionCookies(SecureCookieSessionInterface):
    """Flask's signed session cookie, its serializer made once for the app's keys instead of
    once a request (every request opens the session, and making one is not free)."""

    def __init__(self) -> None:
        self._made: tuple[tuple[object, ...], URLSafeTimedSerializer] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        """The serializer Flask would make for *app*, made again only when its keys change."""
        keys = (app.secret_key, *(app.config["SECRET_KEY_FALLBACKS"] or ()))
        if self._made is not None and self._made[0] == keys:
            return self._made[1]
        made = super().get_signing_serializer(app)
        if made is not None:
            self._made = (keys, made)
        return made


def current_player_id(create: bool = False) -> str | None:
    """The id of the player making the request; a new guest if *create* and none is known.

    With *create*, a guest whose keys expired (it never finished a game) is replaced too.
    """
    identity()
    if "player_deleted" not in g:
        g.player_deleted = g.player_id is not None and accounts.is_deleted(
            current_redis(), g.player_id
        )
    if g.player_deleted:
        _refuse_deleted()
    if g.player_id is not None and create and _is_expired_guest(g.player_id):
        g.player_id = None
    if g.player_id is None and create:
        # A guest is a player like any other: one of the address's new players, free or paid
        # with a proof of work.
        with creation.creating():
            g.player_id = accounts.create(current_redis(), expires_in=GUEST_GRACE).id
        session[SESSION_KEY] = g.player_id
        session.permanent = True
    return g.player_id  # type: ignore[no-any-return]


def _refuse_deleted() -> NoReturn:
    # A deleted player's token, or a copy of their cookie, never plays again (no second
    # ranked game on a day or code they started); a browser starts over as a new guest,
    # without today's ranked games.
    if not g.get("player_from_header"):
        session.clear()
        session[DELETED_KEY] = history.today(current_config()).isoformat()
        session.permanent = True
    raise unauthorized("this player was deleted")


def _is_expired_guest(player_id: str) -> bool:
    # Only a cookie's guest can expire; a token's player is checked where it is read.
    if g.get("player_from_header") or SESSION_KEY not in session:
        return False
    return accounts.get(current_redis(), player_id) is None


def current_player(create: bool = False) -> Player | None:
    """The player making the request, with their name (one Redis read)."""
    player_id = current_player_id(create)
    if player_id is None:
        return None
    player = accounts.get(current_redis(), player_id)
    if player is None:
        raise unauthorized("this player no longer exists")
    return player


def require_player_id() -> str:
    """The id of the player making the request, creating a browser guest on first need."""
    player_id = current_player_id(create=True)
    assert player_id is not None  # create=True always gives one
    return player_id


def own_game(game_id: str, moving: bool = False) -> Record:
    """The asking player's game *game_id*; 404 if it is missing or another player's.

    For a move (*moving*), the game, the player's deletion mark and the move's rate limits
    are read and counted in one round trip (a move is two), the limits first (a 429).
    """
    try:
        player_id = identity()
    except HttpError:
        if moving:  # a bad token reads no game, but counts on its address
            limits.count_anonymous_move()
        raise
    counting = limits.move_counters(player_id) if moving else ()
    check = limits.check_moves if moving else None
    if player_id is None or "player_deleted" in g:
        player_id = current_player_id()  # a deletion known already is refused here
    client, config = current_redis(), current_config()
    found = history.own_game_unless_deleted(client, game_id, player_id, config, counting, check)
    g.player_deleted = found is None
    if found is None:
        _refuse_deleted()
    return found
