"""Rate limits (Flask-Limiter, counters in the service's own Redis or cluster).

Five limits, each configurable (``DAILY_LIMIT_PLAYERS``, ``DAILY_LIMIT_MOVES``,
``DAILY_LIMIT_PAGES``, ``DAILY_LIMIT_DAILIES``, ``DAILY_LIMIT_DELETES``; ``off`` lifts
one): new players per client address (named or guests: a second account costs the same
either way), moves (rolls and scores) per player, every other request per address, daily
games started per address (a farm of accounts, one daily each, meets it), and player
deletions per address. Defaults are
generous: a person playing by hand never meets them. A limit met is a 429 with the
error JSON (or the error page) and ``Retry-After``. When Redis is down the limiter
lets requests through, and the views answer 503 themselves; the limiter then logs one
warning line a request (:class:`OneLineOutage`), not a traceback.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from flask import Flask, Response, current_app, g, has_request_context, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from limits import RateLimitItem, parse_many

from daily.core import metrics
from daily.core.config import LIMIT_VARS, Config, ConfigError, Network
from daily.core.errors import ErrorCode
from daily.service import backend, history
from daily.web import auth, current_redis
from daily.web.http_errors import HttpError

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: Limits when none is configured: a person never meets them, a script soon does.
DEFAULTS = {
    "players": "30 per hour",
    "moves": "120 per minute",
    "pages": "600 per minute",
    "dailies": "50 per day",
    "deletes": "10 per hour",
}
#: Endpoints of the limits applied to views (``pages`` counts every request; ``players``
#: and ``dailies`` are counted where a player or a daily game is made: see :func:`count`).
ENDPOINTS = {
    "moves": ("api.roll", "api.score"),  # counted by the move itself: move_counters
    "deletes": ("account.delete",),
}
MESSAGES = {
    "players": "too many new players from your address",
    "moves": "too many moves",
    "pages": "too many requests from your address",
    "dailies": "too many daily games started from your address",
    "deletes": "too many players deleted from your address",
}
#: Never limited: the load balancer's health checks, the metrics scrape and the static files.
EXEMPT = ("health.healthz", "metrics.metrics", "static", "assets.module")
OFF = "off"
_OUTAGE_SAID = "daily.limiter_outage_said"


@dataclass(frozen=True, slots=True)
class Limits:
    """The rate limit strings in force, by name; None where a limit is off."""

    players: str | None
    moves: str | None
    pages: str | None
    dailies: str | None
    deletes: str | None

    @classmethod
    def from_config(cls, config: Config) -> Limits:
        """The configured limits over the defaults; a malformed one stops the app."""
        chosen = {**DEFAULTS, **config.rate_limits}
        unknown = sorted(set(chosen) - set(DEFAULTS))
        if unknown:
            raise ConfigError(f"unknown rate limit: {unknown[0]!r} (known: {', '.join(DEFAULTS)})")
        for name, text in chosen.items():
            if text.strip().lower() != OFF:
                try:
                    parse_many(text)
                except ValueError:
                    raise ConfigError(
                        f"{LIMIT_VARS[name]} is not a rate limit like '30 per hour': {text!r}"
                    ) from None
        return cls(**{n: None if t.strip().lower() == OFF else t for n, t in chosen.items()})


def client_address() -> str:
    """The address the per-address limits count (see :func:`address_key`): the client's,
    as a trusted proxy forwarded it (:class:`TrustedProxies`)."""
    return address_key(request.remote_addr or "unknown")


def address_key(address: str) -> str:
    """What a limit counts for *address*: an IPv6 address's /64 (one subscriber's whole
    block: a client can take a fresh address in it at will), else the address itself.

    >>> address_key("2001:db8:1:2:aaaa::1"), address_key("2001:db8:1:2:bbbb::9")
    ('2001:db8:1:2::/64', '2001:db8:1:2::/64')
    >>> address_key("::ffff:198.51.100.7"), address_key("198.51.100.7"), address_key("x")
    ('198.51.100.7', '198.51.100.7', 'x')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


def move_counters() -> tuple[history.Counter, ...]:
    """The rate-limit counters a move (a roll or a score) counts on, in its own read of the
    game (:func:`daily.web.auth.own_game`), so the limits cost a move no round trip:

    - ``moves`` per player (per address for a request without a player);
    - the ``pages`` limit per address, on a count of moves of its own: every player's moves
      from the address, apart from its other requests (which Flask-Limiter counts).

    The identity alone is read; whether that player was deleted is read with the game. A
    bad token is a 401 that reads no game, counted on the address first (a round trip of
    its own), so a client cannot send them without limit.
    """
    windows: MoveWindows = current_app.extensions[_MOVE_WINDOWS]
    try:
        player_id = auth.identity()
    except HttpError:
        anonymous = history.move_counters(None, client_address(), *windows)
        check_moves(history.count(current_redis(), anonymous))
        raise
    return history.move_counters(player_id, client_address(), *windows)


def check_moves(counts: tuple[history.Count, ...]) -> None:
    """Refuses (429, with ``Retry-After``) a move past one of its limits; it changes nothing."""
    for count in counts:
        if count.is_over:
            g.daily_retry_after = max(1, count.seconds_left)
            metrics.rate_limited(count.counter.name)
            text = getattr(current_app.extensions["daily.limits"], count.counter.name)
            raise HttpError(429, ErrorCode.TOO_MANY_REQUESTS, _message(count.counter.name, text)())


#: A move's two limits, per player and per address: each a list of windows (a limit string
#: may name several, ``10/second;100/minute``), each (moves, window in seconds); empty: off.
MoveWindows = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
_MOVE_WINDOWS = "daily.move_windows"


def _windows(text: str | None) -> tuple[tuple[int, int], ...]:
    return tuple((item.amount, item.get_expiry()) for item in parse_many(text)) if text else ()


def check_new_player() -> None:
    """Refuses (429) a new player, named or guest, when the address has made its share."""
    _check("players")


def count_new_player() -> None:
    """Counts a new player against the client address's limit."""
    _hit("players")


def check_daily_limit() -> None:
    """Refuses (429) another daily game when the address has started its share today."""
    _check("dailies")


def count_daily() -> None:
    """Counts a daily game started against the client address's limit."""
    _hit("dailies")


def _item(name: str) -> RateLimitItem | None:
    chosen: Limits = current_app.extensions["daily.limits"]
    text = getattr(chosen, name)
    return parse_many(text)[0] if text else None


def _check(name: str) -> None:
    item = _item(name)
    if item is None:
        return
    limiter: Limiter = current_app.extensions["daily.limiter"]
    try:
        stats = limiter.limiter.get_window_stats(item, name, client_address())
    except Exception as e:  # Redis down: the view's own store call answers 503
        if _is_redis_error(e):
            return
        raise
    if stats.remaining <= 0:
        g.daily_retry_after = max(1, int(stats.reset_time - time.time()))
        text = getattr(current_app.extensions["daily.limits"], name)
        raise HttpError(429, ErrorCode.TOO_MANY_REQUESTS, _message(name, text)())


def _hit(name: str) -> None:
    item = _item(name)
    if item is None:
        return
    limiter: Limiter = current_app.extensions["daily.limiter"]
    try:
        limiter.limiter.hit(item, name, client_address())
    except Exception as e:  # Redis down: the count is lost, the game or player is not
        if not _is_redis_error(e):
            raise


class TrustedProxies:
    """WSGI middleware: the client's address and scheme as a trusted proxy forwarded them.

    Only a request whose peer is one of the named proxies (``DAILY_TRUSTED_PROXIES``) may
    set them, so a client that reaches the app directly cannot spoof its address.
    ``X-Forwarded-For`` is read from the right, past every trusted proxy: what a client
    wrote to its left is never taken.
    """

    def __init__(self, app: WSGIApplication, proxies: tuple[Network, ...]) -> None:
        self.app = app
        self.proxies = proxies

    def is_trusted(self, address: str) -> bool:
        """Whether *address* is one of the trusted proxies."""
        try:
            parsed = ipaddress.ip_address(address.strip())
        except ValueError:
            return False
        return any(parsed in network for network in self.proxies)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        """Rewrites ``REMOTE_ADDR`` and the URL scheme of a request a trusted proxy sent."""
        peer = str(environ.get("REMOTE_ADDR", ""))
        if self.is_trusted(peer):
            environ["REMOTE_ADDR"] = self.client_of(peer, environ.get("HTTP_X_FORWARDED_FOR", ""))
            proto = str(environ.get("HTTP_X_FORWARDED_PROTO", "")).split(",")[-1].strip()
            if proto.lower() in ("http", "https"):
                environ["wsgi.url_scheme"] = proto.lower()
        return self.app(environ, start_response)

    def client_of(self, peer: str, forwarded: str) -> str:
        """The first address from the right of *forwarded* that no trusted proxy has."""
        client = peer
        for hop in reversed([h.strip() for h in str(forwarded).split(",") if h.strip()]):
            try:
                ipaddress.ip_address(hop)
            except ValueError:
                break  # not an address: whoever wrote it is not to be believed
            client = hop
            if not self.is_trusted(hop):
                break
        return client


def _is_exempt() -> bool:
    return request.endpoint in EXEMPT or request.endpoint is None


def _per_address(limit: str) -> ApplicationLimit:
    return ApplicationLimit(
        limit,
        key_function=client_address,
        exempt_when=_is_exempt,
        error_message=_message("pages", limit),
        on_breach=_count_breach("pages"),
    )


def _message(name: str, limit: str) -> Callable[[], str]:
    return lambda: f"{MESSAGES[name]}: at most {limit}; try again later"


def _count_breach(name: str) -> Callable[[RequestLimit], None]:
    return lambda breached: metrics.rate_limited(name)


class OneLineOutage(logging.Filter):
    """Makes the limiter's swallowed Redis error one warning line instead of a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrites *record* in place when it carries a Redis error; drops a request's repeats."""
        error = record.exc_info[1] if record.exc_info else None
        if error is None or not _is_redis_error(error):
            return True  # any other error (a bug in a key function, say) keeps its traceback
        if has_request_context():  # each limit of a request is checked apart: say it once
            if g.get(_OUTAGE_SAID):
                return False
            g.setdefault(_OUTAGE_SAID, True)
        metrics.redis_error("limiter", error)
        record.msg = f"{record.getMessage()}: {type(error).__name__}: {error}"
        record.args = None
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _is_redis_error(error: BaseException) -> bool:
    # By module, not by class: only daily.store imports redis.
    return any(c.__module__.startswith("redis.") for c in type(error).__mro__)


def _quiet_outages(logger: logging.Logger) -> None:
    if not any(isinstance(f, OneLineOutage) for f in logger.filters):  # one per process
        logger.addFilter(OneLineOutage())


def init_app(app: Flask) -> Limiter:
    """Installs the limiter on *app*, after its blueprints are registered."""
    config: Config = app.extensions["daily.config"]
    if config.trusted_proxies:
        proxied = TrustedProxies(app.wsgi_app, config.trusted_proxies)
        app.wsgi_app = proxied  # type: ignore[method-assign]
    chosen = Limits.from_config(config)
    uri, options = backend.limiter_storage(config, app.extensions["daily.redis"])
    limiter = Limiter(
        client_address,
        app=app,
        # One budget per address over every endpoint (default limits would count each apart).
        application_limits=[_per_address(chosen.pages)] if chosen.pages else [],
        storage_uri=uri,
        # flask-limiter types these narrower than ``limits`` takes them (a connection pool)
        storage_options=cast(dict[str, str | int], options),
        strategy="fixed-window",
        swallow_errors=True,  # Redis down: the views answer 503, not the limiter
        headers_enabled=False,  # Retry-After goes on a 429 alone (see add_retry_after)
    )
    # A move counts its own limits in its read of the game (move_counters): the limiter,
    # which would add a round trip for each, steps aside before any work of its own.
    _skip_check(app, limiter, frozenset(ENDPOINTS["moves"] + EXEMPT))
    app.extensions[_MOVE_WINDOWS] = (_windows(chosen.moves), _windows(chosen.pages))
    _limit(app, limiter, "deletes", chosen.deletes, client_address)
    _quiet_outages(limiter.logger)
    app.after_request(add_retry_after)
    app.extensions["daily.limiter"] = limiter
    app.extensions["daily.limits"] = chosen
    return limiter


def _skip_check(app: Flask, limiter: Limiter, endpoints: frozenset[str]) -> None:
    # Flask-Limiter's request filters run only after it has resolved the view's limits (a
    # fifth of a millisecond a move, profiled): its hook is wrapped to return at once for
    # *endpoints*, which no other path of the limiter checks (only deletes are decorated).
    hooks = app.before_request_funcs[None]
    check = limiter._check_request_limit  # noqa: SLF001 (the hook Flask-Limiter installed)
    at = hooks.index(check)  # ValueError: Flask-Limiter installs its check some other way

    def check_unless_stepping_aside() -> None:
        if request.endpoint not in endpoints:
            check()

    hooks[at] = check_unless_stepping_aside


def _limit(
    app: Flask, limiter: Limiter, name: str, limit: str | None, key: Callable[[], str]
) -> None:
    # Applied to the registered views, so the game API's module keeps no limiter import.
    for endpoint in ENDPOINTS[name]:
        if limit is not None:
            # Shared: a roll and a score count against one budget, not one each.
            rule = limiter.shared_limit(
                limit,
                scope=name,
                key_func=key,
                error_message=_message(name, limit),
                on_breach=_count_breach(name),
            )
            view: Callable[..., Any] = app.view_functions[endpoint]
            app.view_functions[endpoint] = rule(view)


def add_retry_after(response: Response) -> Response:
    """Tells a client that met a limit how many seconds to wait."""
    if response.status_code != 429:
        return response
    if "daily_retry_after" in g:
        response.headers["Retry-After"] = str(g.daily_retry_after)
        return response
    limiter: Limiter = current_app.extensions["daily.limiter"]
    breached = limiter.current_limit
    if breached is not None:
        response.headers["Retry-After"] = str(max(1, int(breached.reset_at - time.time())))
    return response
