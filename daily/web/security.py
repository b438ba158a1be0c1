"""Security headers, cross-site request refusal, and the guard on the dice key.

Pages load scripts and styles from this site only: the Content-Security-Policy
allows no inline script (JSON data blocks are not scripts) and no framing.

Cross-site request forgery is refused from what the browser says about where a
request comes from, as Go's ``http.CrossOriginProtection`` does: every modern browser
sends ``Sec-Fetch-Site`` (or at least ``Origin``) with a form post, and a page on
another site cannot forge either. A request with neither is not from a browser's
form, so it carries no ambient cookie worth forging; the session cookie is
``SameSite=Lax`` as a second wall. Bearer-token calls are not ambient and pass.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit

from flask import Flask, Response, g, request

from daily.core.errors import ConfigError, ErrorCode, StorageError
from daily.service import backend
from daily.web.context import config_of, current_config, redis_of
from daily.web.http_errors import HttpError, bad_request

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
#: Two years, the preload list's minimum; sent in production, which runs behind TLS.
HSTS = "max-age=63072000; includeSubDomains"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
#: Sec-Fetch-Site values of requests this site's own pages (or the user) started.
TRUSTED_SITES = frozenset({"same-origin", "none"})
_CHECKED = "daily.dice_key_checked"


def local_path(target: str | None) -> str | None:
    r"""Returns *target* if it is a path on this site, else None (no open redirects).

    >>> local_path("/advent?x=1"), local_path("//evil.example"), local_path("/\\evil.example")
    ('/advent?x=1', None, None)
    >>> local_path("https://evil.example/"), local_path(None)
    (None, None)
    """
    # Browsers read "//host" and "/\\host" as another site: only a plain path passes.
    if not target or not target.startswith("/") or target[1:2] in ("/", "\\"):
        return None
    parts = urlsplit(target)
    return None if parts.scheme or parts.netloc else target


def next_path(target: str | None) -> str | None:
    r"""The ``next`` field of a form: :func:`local_path` of it, or a 400 for characters
    no header may carry (CR, LF and every other control character).

    >>> next_path("/advent"), next_path("https://evil.example/")
    ('/advent', None)
    >>> next_path("/" + chr(10))
    Traceback (most recent call last):
    ...
    daily.web.http_errors.HttpError: next must be a path without control characters: '/\n'
    """
    if target is not None and any(ord(c) < 0x20 or ord(c) == 0x7F for c in target):
        raise bad_request(f"next must be a path without control characters: {target!r}")
    return local_path(target)


def cross_site() -> HttpError:
    """A 403 for a state-changing request another site's page sent."""
    return HttpError(403, ErrorCode.CROSS_SITE, "cross-site requests that change state are refused")


def is_cross_site() -> bool:
    """Whether the browser says this request comes from another site's page."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site not in TRUSTED_SITES
    origin = request.headers.get("Origin")
    if origin is None:
        return False  # not sent by a browser's form or script: nothing ambient to forge
    return origin == "null" or urlsplit(origin).netloc != request.host


def refuse_cross_site() -> None:
    """Refuses a cross-site state-changing request (CSRF) before any view runs."""
    if request.method in SAFE_METHODS or request.headers.get("Authorization"):
        return
    if is_cross_site():
        raise cross_site()


#: The Cache-Control of an answer about the player asking: no shared cache keeps it.
PRIVATE = "private, no-store"


def is_personal() -> bool:
    """Whether the answer is about the player asking: they were identified (a token or a
    cookie's player), or it is one of their own pages (``/me``, a sign-in link)."""
    if g.get("player_id") is not None or request.headers.get("Authorization"):
        return True
    return (request.endpoint or "").startswith("account.") and request.path.startswith(
        ("/me", "/signin")
    )


def add_headers(response: Response) -> Response:
    """Adds the security headers to every response, and keeps personal ones out of caches."""
    # One pass over the headers already set (a view's own CSP, say), then one add a header:
    # werkzeug's setdefault scans the whole list again for each, on every answer.
    present = {name.lower() for name in response.headers.keys()}
    for name, value in HEADERS.items():
        if name.lower() not in present:
            response.headers.add(name, value)
    if is_personal():
        response.headers["Cache-Control"] = PRIVATE
    if current_config().is_production:
        response.headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def dice_key_fingerprint(secret: str) -> str:
    """A public fingerprint of the dice key: HMAC-SHA256(key, ``"daily:dice-key"``) in hex.

    >>> dice_key_fingerprint("s")[:16]
    '31fa575e3ac2d88d'
    """
    return hmac.new(secret.encode(), b"daily:dice-key", hashlib.sha256).hexdigest()


def check_dice_key(app: Flask) -> None:
    """Refuses to serve when the dice key is not the one that dealt the stored games.

    The first production start records the key's fingerprint; dropping SECRET_KEY's
    last key later would silently change every dealt day's dice, so it stops the app.
    A Redis that is down defers the check to a later request.
    """
    config = config_of(app)
    if app.extensions.get(_CHECKED) or not config.is_production:
        return
    mine = dice_key_fingerprint(config.secret_key)
    try:
        recorded = backend.claim_dice_key(redis_of(app), mine)
    except StorageError:
        return
    if recorded != mine:
        raise ConfigError(
            "SECRET_KEY's last key is not the key that dealt the stored dice: keep the "
            "original key last in the list (see docs/operations.md, Rotating SECRET_KEY)"
        )
    app.extensions[_CHECKED] = True


def init_app(app: Flask) -> None:
    """Installs the CSRF refusal, the security headers and the dice key guard."""
    check_dice_key(app)
    app.before_request(refuse_cross_site)
    app.after_request(add_headers)

    @app.before_request
    def _recheck_dice_key() -> None:
        check_dice_key(app)
