"""Who is playing: a signed bearer token for API clients, the signed session cookie for browsers.

A player id is only ever trusted when it carries our signature; a tampered
token or cookie is a 401, never a silent new identity. Browsers get an
anonymous player on first need.
"""

from __future__ import annotations

from datetime import timedelta
from typing import NoReturn

from flask import Flask, current_app, g, request, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature, SignatureExpired, URLSafeSerializer, URLSafeTimedSerializer

from daily.core.errors import ErrorCode
from daily.core.record import Record
from daily.service import accounts, history
from daily.service.accounts import Player
from daily.web import creation, limits
from daily.web.context import current_config, current_redis
from daily.web.http_errors import HttpError

_TOKEN_SALT = "daily.player-token"
_SESSION_KEY = "player_id"
_SERIALIZER = "daily.token_serializer"
#: The session field that remembers the day a player was deleted on this browser.
DELETED_KEY = "deleted_on"
#: A browser guest is kept this long at first; each game it starts keeps it as long as
#: that game, and a finished game keeps it for good.
GUEST_GRACE = timedelta(days=1)
_VERIFIED = "daily.verified_tokens"
#: Verified tokens a process remembers at most (about 150 bytes each).
_VERIFIED_MOST = 10_000


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


def unauthorized(message: str) -> HttpError:
    """A 401 for a token or cookie that does not carry our signature."""
    return HttpError(401, ErrorCode.UNAUTHORIZED, message)


def _serializer() -> URLSafeSerializer:
    # itsdangerous wants the keys oldest to newest: it signs with the last, verifies with any.
    # One per app: every request with a token reads it, and building it is not free.
    made = current_app.extensions.get(_SERIALIZER)
    if made is None:
        keys = list(reversed(current_config().signing_keys))
        made = current_app.extensions[_SERIALIZER] = URLSafeSerializer(keys, salt=_TOKEN_SALT)
    return made


def token_for(player_id: str) -> str:
    """The bearer token of *player_id*: the id signed with the app's secret."""
    return str(_serializer().dumps(player_id))


def player_id_of(token: str) -> str:
    """The player id a bearer token carries, or a 401 if its signature is wrong."""
    # A player sends the same token with each of a game's moves: the ids of the tokens
    # verified lately are kept per app (whose keys signed them), so most moves skip the
    # signature's key derivation and HMAC. Whether the player was deleted is read apart.
    verified: dict[str, str] = current_app.extensions.setdefault(_VERIFIED, {})
    found = verified.get(token)
    if found is not None:
        return found
    try:
        player_id = _serializer().loads(token)
    except BadSignature:
        raise unauthorized("the bearer token is not valid") from None
    if not isinstance(player_id, str):
        raise unauthorized("the bearer token is not valid")
    if len(verified) >= _VERIFIED_MOST:
        verified.clear()  # a bounded memory: the next request of each player fills it again
    verified[token] = player_id
    return player_id


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
        session[_SESSION_KEY] = g.player_id
        session.permanent = True
    return g.player_id  # type: ignore[no-any-return]


def identity() -> str | None:
    """The player id the request's token or cookie carries, without asking Redis whether
    that player still exists (:func:`current_player_id` does): what a rate limit counts."""
    if "player_id" not in g:
        g.player_id = _from_header() or _from_session()
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
    if g.get("player_from_header") or _SESSION_KEY not in session:
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
    client, config = current_redis(), current_config()
    if player_id is None or "player_deleted" in g:
        return history.own_game(client, game_id, current_player_id(), config, counting, check)
    found = history.own_game_unless_deleted(client, game_id, player_id, config, counting, check)
    g.player_deleted = found is None
    if found is None:
        _refuse_deleted()
    return found


def _from_header() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("send Authorization: Bearer <token>")
    g.player_from_header = True
    return player_id_of(token.strip())


def _from_session() -> str | None:
    player_id = session.get(_SESSION_KEY)
    if isinstance(player_id, str):
        return player_id
    if _has_tampered_cookie():
        session.clear()  # the response deletes the bad cookie, so the next request starts clean
        raise unauthorized("the session cookie is not valid")
    return None


def _has_tampered_cookie() -> bool:
    # Flask quietly treats a bad cookie as an empty session; we want to say so.
    cookie = request.cookies.get(current_app.config["SESSION_COOKIE_NAME"])
    interface = current_app.session_interface
    if not cookie or not isinstance(interface, SecureCookieSessionInterface):
        return False
    serializer = interface.get_signing_serializer(current_app)
    if serializer is None:
        return False
    try:
        serializer.loads(
            cookie, max_age=int(current_app.permanent_session_lifetime.total_seconds())
        )
    except SignatureExpired:
        return False  # an old cookie, not a forged one
    except BadSignature:
        return True
    return False
