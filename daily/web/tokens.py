"""Who a request says it is: the player id its signed bearer token or session cookie
carries, read without asking Redis (whether that player still exists is
:mod:`daily.web.auth`'s question). The rate limits count on it, and auth builds on it.

A tampered token or cookie is a 401, never a silent new identity.
"""

from __future__ import annotations

from flask import current_app, g, request, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature, SignatureExpired, URLSafeSerializer

from daily.core.errors import ErrorCode
from daily.web.context import current_config
from daily.web.http_errors import HttpError

_TOKEN_SALT = "daily.player-token"
#: The session cookie's field that holds a browser's player id.
SESSION_KEY = "player_id"
_SERIALIZER = "daily.token_serializer"
_VERIFIED = "daily.verified_tokens"
#: Verified tokens a process remembers at most (about 150 bytes each).
_VERIFIED_MOST = 10_000


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


def identity() -> str | None:
    """The player id the request's token or cookie carries, without asking Redis whether
    that player still exists (:func:`current_player_id` does): what a rate limit counts."""
    if "player_id" not in g:
        g.player_id = _from_header() or _from_session()
    return g.player_id  # type: ignore[no-any-return]


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
    player_id = session.get(SESSION_KEY)
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
