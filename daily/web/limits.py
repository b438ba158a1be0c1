"""Rate limits: what each client may spend, counted atomically and refused with a 429.

Every limit is configurable (``DAILY_LIMIT_<NAME>``, ``off`` lifts one; docs/configuration.md)
and generous: a person playing by hand never meets one. A player's requests count on the
player, so a class or an office behind one address plays as freely as players at as many
addresses; an address's budgets count only what has no player yet:

- per player (a token or a session cookie): every request (``pages``, Flask-Limiter's fixed
  window), moves (rolls and scores), games started and friend codes made, and the expensive
  routes' own budgets (analyses, hints, table builds a request starts, league joins);
- per client address (an IPv4 address, an IPv6 address's /64): requests without a player
  (``pages``; one that makes a player counts on ``players`` alone: its free allowance, past
  it a proof of work, :mod:`daily.web.creation`), deletions, table builds and league joins;
- per network (IPv4 /24, IPv6 /56 and /48 by default: ``DAILY_NETWORKS``): new players,
  games started (what a network stores a day) and league joins: a block of addresses buys
  no more than a few. The day's puzzle is never refused to a player: the ``dailies`` budgets
  decide whether a new player's daily counts towards their becoming established, not
  whether it is played (:mod:`daily.service.establishment`).

A request's budgets are counted in one script (:mod:`daily.store.counters`): a burst gets
exactly a limit, and a budget that refuses spends no other. A limit met is a 429 with
``Retry-After``. Redis down: the limiter lets requests through, logging one line a request
(:class:`OneLineOutage`), and the views answer 503.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, cast

from flask import Flask, Response, current_app, g, has_request_context, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from limits import parse_many

from daily.core import dice, metrics
from daily.core.config import LIMIT_DEFAULTS, LIMIT_VARS, Config
from daily.core.errors import ConfigError, ErrorCode
from daily.core.rules import Ruleset
from daily.service import backend, quotas, tables
from daily.service.quotas import Count, Counter, Holders, Window
from daily.web.addresses import TrustedProxies, address_key, client_address, networks_of, requester
from daily.web.context import config_of, current_config, current_redis, redis_of
from daily.web.costs import Cpu
from daily.web.http_errors import HttpError
from daily.web.routes import current_route, routes_of

if TYPE_CHECKING:
    pass

#: Limits when none is configured (each its ``DAILY_LIMIT_*`` variable's default): a person
#: never meets them, a script soon does.
DEFAULTS = LIMIT_DEFAULTS
MESSAGES = {
    "players": "too many new players from your address",
    "moves": "too many moves",
    "pages": "too many requests from your address",
    "dailies": "too many daily games started from your address",
    "deletes": "too many players deleted from your address",
    "analyses": "too many analyses asked for",
    "hints": "too many hints asked for",
    "builds": "too many strategy tables asked for",
    "games": "too many games started",
    "codes": "too many friend codes made",
    "joins": "too many leagues joined",
    "network_players": "too many new players from your network",
    "network_dailies": "too many daily games started from your network",
    "network_joins": "too many leagues joined from your network",
    "network_games": "too many games started from your network",
    "reminders": "too many reminder changes",
}


@dataclass(frozen=True, slots=True)
class Budget:
    """Who a limit counts: the address (always, or only for a request without a player:
    *address* ``"anonymous"``), the player, and which limit counts the address's networks
    (None: no network budget); *per_day*: its window is the puzzle day."""

    address: bool | Literal["anonymous"] = True
    player: bool = False
    network: str | None = None
    per_day: bool = False


#: The limits taken by :func:`take`, and whom each counts. A player's own requests count on
#: the player alone; builds (minutes of both cores) count on the address too, league joins (a
#: league of fresh accounts) on the address and network, games started on the network.
BUDGETS = {
    "players": Budget(network="network_players"),
    "dailies": Budget(network="network_dailies", per_day=True),
    "analyses": Budget(address="anonymous", player=True),
    "hints": Budget(address="anonymous", player=True),
    "builds": Budget(player=True),
    "games": Budget(address="anonymous", player=True, network="network_games"),
    "codes": Budget(address="anonymous", player=True),
    "joins": Budget(player=True, network="network_joins"),
    "reminders": Budget(player=True),
}
OFF = "off"
_OUTAGE_SAID = "daily.limiter_outage_said"


@dataclass(frozen=True, slots=True)
class Limits:
    """The rate limit strings in force, by name; None where a limit is off."""

    texts: Mapping[str, str | None]

    def __getitem__(self, name: str) -> str | None:
        """The limit string of *name* (``30 per hour``); None where it is off."""
        return self.texts[name]

    @classmethod
    def from_config(cls, config: Config) -> Limits:
        """The configured limits over the defaults; a malformed one stops the app."""
        chosen = {**DEFAULTS, **config.rate_limits.as_dict()}
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
        return cls({n: None if t.strip().lower() == OFF else t for n, t in chosen.items()})


def _chosen() -> Limits:
    return cast(Limits, current_app.extensions["daily.limits"])


def holders(player_id: str | None = None) -> Holders:
    """Who the request is counted for: its address, its networks and *player_id*."""
    remote = request.remote_addr or "unknown"
    networks = networks_of(remote, current_config().networks)
    return Holders(address_key(remote), networks, player_id)


def _windows(text: str | None) -> tuple[tuple[int, int], ...]:
    return tuple((item.amount, item.get_expiry()) for item in parse_many(text)) if text else ()


def _day_window(amount: int, day: date) -> Window:
    # Counted on the puzzle's day, not 24 hours from the first start: a day's budget never
    # straddles two days, and its counter lives until the day closes (the Retry-After).
    config = current_config()
    left = dice.Day(day, config.timezone).closes_at - config.now()
    return Window(amount, max(60, int(left.total_seconds())), day.isoformat())


def _budget_windows(name: str, day: date | None) -> tuple[Window, ...]:
    windows = _windows(_chosen()[name])
    if day is not None:
        return tuple(_day_window(amount, day) for amount, _ in windows)
    return tuple(Window(amount, seconds) for amount, seconds in windows)


def counters_of(
    name: str, player_id: str | None = None, day: date | None = None
) -> tuple[Counter, ...]:
    """The counters a request takes for the limit *name* (see :data:`BUDGETS`): its
    address's and networks', and *player_id*'s where the limit counts players; *day*: the
    puzzle day whose window a daily counts on."""
    budget = BUDGETS[name]
    day = day if budget.per_day else None
    who = holders(player_id)
    own = _budget_windows(name, day)
    networked = _budget_windows(budget.network, day) if budget.network else ()
    by_address = budget.address is True or (budget.address == "anonymous" and not player_id)
    found = quotas.address_counters(name, who, own if by_address else (), ())
    if networked:
        found += quotas.address_counters(budget.network or name, who, (), networked)
    if budget.player and player_id is not None:
        found += quotas.player_counters(name, player_id, own)
    return found


def take(name: str, player_id: str | None = None, day: date | None = None) -> tuple[Counter, ...]:
    """Counts this request on the limit *name* (and its network's), or refuses it with a 429
    that counts nothing; returns what was counted, for :func:`give_back`."""
    counting = counters_of(name, player_id, day)
    spent = quotas.take(current_redis(), counting)
    if spent is not None:
        _refuse(spent.counter.name, spent.seconds_left)
    return counting


@contextmanager
def spending(
    name: str | None, player_id: str | None = None, day: date | None = None
) -> Iterator[tuple[Counter, ...]]:
    """Takes the limit *name* (:func:`take`; None: none) for what the block makes, and gives
    it back if the block fails: a request refused for any other reason spends nothing."""
    counting = take(name, player_id, day) if name else ()
    try:
        yield counting
    except BaseException:
        give_back(counting)
        raise


def give_back(counting: Sequence[Counter]) -> None:
    """Returns what :func:`take` counted for a request that did not use it (a daily that
    was not new: its player had it already)."""
    quotas.give_back(current_redis(), counting)


def _refuse(name: str, seconds_left: int) -> None:
    g.daily_retry_after = max(1, seconds_left)
    metrics.rate_limited(name)
    raise HttpError(429, ErrorCode.TOO_MANY_REQUESTS, _message(name, _chosen()[name] or "")())


def take_build(rules: Ruleset, player_id: str | None) -> None:
    """Takes one of the table builds *player_id* and the address may start, when asking for
    *rules*' table now would start one (a variant's table costs minutes of both cores)."""
    if tables.would_build(current_config(), rules):
        take("builds", player_id)


def move_counters(player_id: str | None) -> tuple[Counter, ...]:
    """The rate-limit counters a move of *player_id* counts on, in its own read of the game
    (:func:`daily.web.auth.own_game`), so the limits cost a move no round trip: ``moves`` per
    player; without a player, ``moves`` per address and ``pages`` on a count of the
    address's moves apart from its other requests. A player's moves never count there."""
    per_player, per_address = current_app.extensions[_MOVE_WINDOWS]
    return quotas.move_counters(player_id, client_address(), per_player, per_address)


def count_anonymous_move() -> None:
    """Counts a move that carries no valid player on its address, in a round trip of its own
    (a bad token is a 401 that reads no game: a client cannot send them without limit)."""
    check_moves(quotas.count(current_redis(), move_counters(None)))


def check_moves(counts: tuple[Count, ...]) -> None:
    """Refuses (429, with ``Retry-After``) a move past one of its limits; it changes nothing."""
    for count in counts:
        if count.is_over:
            _refuse(count.counter.name, count.seconds_left)


_MOVE_WINDOWS = "daily.move_windows"


def _is_exempt() -> bool:
    route = current_route()
    if route is None or route.is_exempt:
        return True
    # A request making a player counts on ``players`` (past it, a proof of work), not on its
    # address's requests: a class behind one address presses Play together.
    makes = route.cost.cpu is Cpu.WRITE and route.spends("players")
    return makes and requester() == client_address()


def _per_requester(limit: str) -> ApplicationLimit:
    return ApplicationLimit(
        limit,
        key_function=requester,
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
    config = config_of(app)
    if config.trusted_proxies:
        proxied = TrustedProxies(app.wsgi_app, config.trusted_proxies)
        app.wsgi_app = proxied  # type: ignore[method-assign]
    chosen = Limits.from_config(config)
    uri, options = backend.limiter_storage(config, redis_of(app))
    limiter = Limiter(
        client_address,
        app=app,
        # One budget per player (or address) over every endpoint (default limits would count
        # each endpoint apart).
        application_limits=[_per_requester(pages)] if (pages := chosen["pages"]) else [],
        storage_uri=uri,
        # flask-limiter types these narrower than ``limits`` takes them (a connection pool)
        storage_options=cast(dict[str, str | int], options),
        strategy="fixed-window",
        swallow_errors=True,  # Redis down: the views answer 503, not the limiter
        headers_enabled=False,  # Retry-After goes on a 429 alone (see add_retry_after)
    )
    # A move counts its own limits in its read of the game (move_counters): the limiter,
    # which would add a round trip for each, steps aside before any work of its own, as it
    # does for the routes no limit counts. Each route's row says which it is.
    declared = routes_of(app)
    aside = [e for e, r in declared.items() if r.is_exempt or r.spends("moves")]
    _skip_check(app, limiter, frozenset(aside))
    app.extensions[_MOVE_WINDOWS] = (_windows(chosen["moves"]), _windows(chosen["pages"]))
    deleting = [e for e, r in declared.items() if r.spends("deletes")]
    _limit(app, limiter, "deletes", chosen["deletes"], deleting)
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
    app: Flask, limiter: Limiter, name: str, limit: str | None, endpoints: Sequence[str]
) -> None:
    # Applied to the registered views, so the views' modules keep no limiter import.
    for endpoint in endpoints:
        if limit is not None:
            # Shared: a roll and a score count against one budget, not one each.
            rule = limiter.shared_limit(
                limit,
                scope=name,
                key_func=client_address,
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
