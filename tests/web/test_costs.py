"""The cost table (daily/web/costs.py) against the routes: every route has a row, and one
address calling a route up to its limits adds at most the row's bytes to Redis, all of it
expiring or kept by an owner the row names."""

from __future__ import annotations

import functools
import ipaddress
import itertools
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Blueprint

from daily.core.errors import ConfigError
from daily.service.reminders import new_keys
from daily.store import keys
from daily.web import costs, routes
from daily.web.context import current_redis
from daily.web.limits import DEFAULTS
from tests.push_service import Browser

from .helpers import play_daily, start

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DAY = NOON.date().isoformat()
#: The limits the walk runs under: small, so that each route meets its own within a few calls.
LIMITS = dict.fromkeys(DEFAULTS, "3 per hour") | {"pages": "12 per minute",
                                                   "moves": "10 per minute"}  # fmt: skip
#: What the rate-limit counters of a request may add besides its row (a few small windows).
COUNTERS_SLACK = 1_500
#: Requests to a route that no limit bounds, to see that none refuses them.
EXEMPT_CALLS = 20
_NETWORKS = itertools.count(1)
#: The walk's apps send streak reminders (a VAPID key), so their routes store what they would.
REMINDERS = {"vapid_private_key": new_keys()[0], "vapid_subject": "mailto:ops@example.org"}


def _subscription() -> dict[str, Any]:
    """A browser's subscription on Chrome's push service (nothing is sent in the walk)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    endpoint = "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b" + "x" * 140
    browser = Browser(endpoint, ec.generate_private_key(ec.SECP256R1()), bytes(range(16)))
    return {"subscription": browser.to_json(), "at": "19:00", "zone": "Europe/Copenhagen"}


class World:
    """What the routes are called on, made through the API with the limits off: a named
    player with a finished daily (its share code), a solo game under way, a finished yacht
    game, a league it owns."""

    def __init__(self, setup: Any) -> None:
        self.setup = setup
        answer = setup.post("/api/v1/players", json={"name": "Ana"}).get_json()
        self.player_id, self.token = answer["player_id"], answer["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}
        setup.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {self.token}"

    @functools.cached_property
    def daily(self) -> dict[str, Any]:
        """The player's finished daily of the day."""
        return play_daily(self.setup)

    @functools.cached_property
    def solo(self) -> dict[str, Any]:
        """A solo yatzy game under way."""
        return start(self.setup, mode="solo", ruleset="yatzy")

    @functools.cached_property
    def yacht(self) -> dict[str, Any]:
        """A finished solo yacht game (a small table: analysed at once)."""
        state = start(self.setup, mode="solo", ruleset="yacht")
        while not state["finished"]:
            row = next(iter(state["potential"]))
            url = f"/api/v1/games/{state['id']}/score"
            state = self.setup.post(url, json={"category": row}).get_json()
        return state

    @functools.cached_property
    def party(self) -> dict[str, Any]:
        """A party game under way."""
        return start(self.setup, mode="party", ruleset="yatzy", players=["Ana", "Bo"])

    @functools.cached_property
    def league(self) -> dict[str, Any]:
        """A league the player owns."""
        answer = self.setup.post("/api/v1/leagues", json={"name": "Friday"})
        assert answer.status_code == 201, answer.get_json()
        return dict(answer.get_json())

    @property
    def code(self) -> str:
        """The share code of the player's daily."""
        return str(self.daily["share_code"])


Call = tuple[str, str, dict[str, Any]]
#: How the walk calls each endpoint: (method, path, the test client's keyword arguments).
RECIPES: dict[str, Callable[[World], Call]] = {
    "health.healthz": lambda w: ("GET", "/healthz", {}),
    "metrics.metrics": lambda w: ("GET", "/metrics", {}),
    "static": lambda w: ("GET", "/static/site.css", {}),
    "assets.module": lambda w: ("GET", "/js/0.1.0/play.js", {}),
    "api.openapi_document": lambda w: ("GET", "/api/v1/openapi.json", {}),
    "api.create_player": lambda w: ("POST", "/api/v1/players", {"json": {"name": "Bo"}}),
    "api.get_me": lambda w: ("GET", "/api/v1/players/me", {}),
    "api.update_me": lambda w: ("PATCH", "/api/v1/players/me", {"json": {"name": "Ana"}}),
    "api.my_challenges": lambda w: ("GET", "/api/v1/players/me/challenges", {}),
    "api.today": lambda w: ("GET", "/api/v1/daily", {}),
    "api.daily": lambda w: ("GET", f"/api/v1/daily/{DAY}", {}),
    "api.create_game": lambda w: (
        "POST",
        "/api/v1/games",
        {"json": {"mode": "solo", "ruleset": "yatzy"}},
    ),
    "api.get_game": lambda w: ("GET", f"/api/v1/games/{w.daily['id']}", {}),
    "api.roll": lambda w: ("POST", f"/api/v1/games/{w.solo['id']}/roll", {"json": {"hold": []}}),
    "api.score": lambda w: (
        "POST",
        f"/api/v1/games/{w.solo['id']}/score",
        {"json": {"category": "chance"}},
    ),
    "api.record": lambda w: ("GET", f"/api/v1/games/{w.daily['id']}/record", {}),
    "api.hint": lambda w: ("GET", f"/api/v1/games/{w.solo['id']}/hint", {}),
    "api.analysis": lambda w: ("GET", f"/api/v1/games/{w.yacht['id']}/analysis", {}),
    "boards.distribution": lambda w: ("GET", f"/api/v1/daily/{DAY}/distribution", {}),
    "boards.advent_board": lambda w: ("GET", "/api/v1/leaderboards/advent/2026", {}),
    "boards.best_day_board": lambda w: ("GET", "/api/v1/leaderboards/best-day", {}),
    "boards.daily_board": lambda w: ("GET", f"/api/v1/leaderboards/daily/{DAY}", {}),
    "boards.friend_board": lambda w: ("GET", f"/api/v1/leaderboards/friend/{w.code}", {}),
    "boards.streak_board": lambda w: ("GET", "/api/v1/leaderboards/streak", {}),
    "boards.index": lambda w: ("GET", "/leaderboards", {}),
    "boards.advent_page": lambda w: ("GET", "/leaderboards/advent/2026", {}),
    "boards.best_day_page": lambda w: ("GET", "/leaderboards/best-day", {}),
    "boards.daily_page": lambda w: ("GET", f"/leaderboards/daily/{DAY}", {}),
    "boards.friend_form": lambda w: ("GET", "/leaderboards/friend", {}),
    "boards.friend_page": lambda w: ("GET", f"/leaderboards/friend/{w.code}", {}),
    "boards.streak_page": lambda w: ("GET", "/leaderboards/streak", {}),
    "leagues.list_leagues": lambda w: ("GET", "/api/v1/leagues", {}),
    "leagues.create_league": lambda w: ("POST", "/api/v1/leagues", {"json": {"name": "Cup"}}),
    "leagues.get_league": lambda w: ("GET", f"/api/v1/leagues/{w.league['id']}", {}),
    "leagues.rename_league": lambda w: (
        "PATCH",
        f"/api/v1/leagues/{w.league['id']}",
        {"json": {"name": "Sat"}},
    ),
    "leagues.day_board": lambda w: ("GET", f"/api/v1/leagues/{w.league['id']}/days/{DAY}", {}),
    "leagues.week_board": lambda w: ("GET", f"/api/v1/leagues/{w.league['id']}/weeks/{DAY}", {}),
    "leagues.join_league": lambda w: (
        "POST",
        f"/api/v1/leagues/{w.league['id']}/members",
        {"json": {}},
    ),
    "leagues.remove_member": lambda w: (
        "DELETE",
        f"/api/v1/leagues/{w.league['id']}/members/nobody",
        {},
    ),
    "leagues.renew_invite": lambda w: (
        "POST",
        f"/api/v1/leagues/{w.league['id']}/invite",
        {"json": {}},
    ),
    "leagues.renew_form": lambda w: ("POST", f"/leagues/{w.league['id']}/invite", {"data": {}}),
    "leagues.readmit_member": lambda w: (
        "DELETE",
        f"/api/v1/leagues/{w.league['id']}/removed/nobody",
        {},
    ),
    "leagues.readmit_form": lambda w: (
        "POST",
        f"/leagues/{w.league['id']}/readmit",
        {"data": {"player": "nobody"}},
    ),
    "leagues.index": lambda w: ("GET", "/leagues", {}),
    "leagues.create_form": lambda w: ("POST", "/leagues", {"data": {"name": "Cup"}}),
    "leagues.league_page": lambda w: ("GET", f"/leagues/{w.league['id']}", {}),
    "leagues.join_form": lambda w: ("POST", f"/leagues/{w.league['id']}/join", {"data": {}}),
    "leagues.leave_form": lambda w: ("POST", f"/leagues/{w.league['id']}/leave", {"data": {}}),
    "leagues.rename_form": lambda w: (
        "POST",
        f"/leagues/{w.league['id']}/name",
        {"data": {"name": "Sun"}},
    ),
    "leagues.remove_form": lambda w: (
        "POST",
        f"/leagues/{w.league['id']}/remove",
        {"data": {"player": "nobody"}},
    ),
    "pages.today": lambda w: ("GET", "/", {}),
    "pages.advent": lambda w: ("GET", "/advent", {}),
    "pages.play": lambda w: ("GET", f"/play/{w.daily['id']}", {}),
    "pages.set_dice_style": lambda w: ("POST", "/prefs/dice", {"data": {"style": "pips"}}),
    "pages.friend_lookup": lambda w: ("GET", f"/f?code={w.code}", {}),
    "pages.friend": lambda w: ("GET", f"/f/{w.code}", {}),
    "pages.rules_index": lambda w: ("GET", "/rules", {}),
    "pages.rules": lambda w: ("GET", "/rules/maxi", {}),
    "pages.solo": lambda w: ("GET", "/solo", {}),
    "set_language": lambda w: ("POST", "/prefs/language", {"data": {"language": "de"}}),
    "computer.setup": lambda w: ("GET", "/computer", {}),
    "party.setup": lambda w: ("GET", "/party", {}),
    "party.play": lambda w: ("GET", f"/party/{w.party['id']}", {}),
    "analyses.analysis": lambda w: ("GET", f"/play/{w.yacht['id']}/analysis", {}),
    "archive.index": lambda w: ("GET", "/archive", {}),
    "archive.month": lambda w: ("GET", "/archive/2026-11", {}),
    "archive.practice": lambda w: ("POST", "/archive/2026-12-01", {"data": {}}),
    "account.me": lambda w: ("GET", "/me", {}),
    "account.history": lambda w: ("GET", "/me/history", {}),
    "account.set_name": lambda w: ("POST", "/me/name", {"data": {"name": "Ana"}}),
    "account.set_theme": lambda w: ("POST", "/me/theme", {"data": {"theme": "dark"}}),
    "account.new_link": lambda w: ("POST", "/me/link", {"data": {}}),
    "account.delete_form": lambda w: ("GET", "/me/delete", {}),
    "account.delete": lambda w: ("POST", "/me/delete", {"data": {"confirm": "no"}}),
    "account.signin": lambda w: ("GET", "/signin/not-a-token", {}),
    "account.signin_confirm": lambda w: ("POST", "/signin/not-a-token", {"data": {}}),
    "account.offline": lambda w: ("GET", "/offline", {}),
    "account.manifest": lambda w: ("GET", "/manifest.webmanifest", {}),
    "account.service_worker": lambda w: ("GET", "/sw.js", {}),
    "reminders.get_reminder": lambda w: ("GET", "/api/v1/players/me/reminder", {}),
    "reminders.set_reminder": lambda w: (
        "PUT",
        "/api/v1/players/me/reminder",
        {"json": _subscription()},
    ),
    "reminders.delete_reminder": lambda w: ("DELETE", "/api/v1/players/me/reminder", {}),
    "reminders.turn_off": lambda w: ("POST", "/api/v1/reminders/off", {"json": {"token": "x"}}),
}


def test_every_route_has_a_cost_row_and_a_recipe(make_app: Any) -> None:
    app = make_app(now=NOON)
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert sorted(endpoints ^ set(routes.rows(app))) == [], "the registry and the URL map differ"
    assert sorted(endpoints - set(RECIPES)) == [], "routes the walk below cannot call"


def test_a_route_registered_without_a_cost_row_is_refused(make_app: Any) -> None:
    app = make_app(now=NOON)
    extra = Blueprint("extra", __name__)
    extra.add_url_rule("/extra", view_func=lambda: "x")  # Flask's own way: no row
    with pytest.raises(ConfigError, match=r"the route /extra \(extra.<lambda>\) has no cost row"):
        app.register_blueprint(extra)
    with pytest.raises(ConfigError, match="no cost row"):
        app.add_url_rule("/plain", "plain", lambda: "x")
    app.add_url_rule("/costed", "costed", lambda: "x", cost=costs.READ)
    assert routes.route_of("costed", app).cost is costs.READ
    with pytest.raises(KeyError, match="no route registered for the endpoint 'api.nothing'"):
        routes.route_of("api.nothing", app)


def test_a_routes_limits_come_from_its_row(make_app: Any) -> None:
    app = make_app(now=NOON)
    declared = routes.routes_of(app)
    assert [e for e, r in declared.items() if r.spends("moves")] == ["api.roll", "api.score"]
    assert [e for e, r in declared.items() if r.spends("deletes")] == ["account.delete"]
    exempt = sorted(e for e, r in declared.items() if r.is_exempt)
    assert exempt == ["assets.module", "health.healthz", "metrics.metrics", "static"]


def test_a_row_that_writes_names_its_owners() -> None:
    with pytest.raises(ValueError, match="how long what it writes lives"):
        costs.Cost(costs.Cpu.WRITE, writes=100)


ROOT = Path(__file__).resolve().parents[2]


def _measured() -> dict[str, Any]:
    """bench/bench_costs.py's figures: each route's CPU ms, bytes and statuses."""
    return dict(json.loads((ROOT / "bench" / "costs.json").read_text())["routes"])


def test_the_operations_page_prints_the_table(make_app: Any) -> None:
    page = (ROOT / "docs" / "operations.md").read_text()
    cpu = {endpoint: m["cpu_ms"] for endpoint, m in _measured().items()}
    assert costs.markdown(routes.rows(make_app(now=NOON)), cpu) in page, (
        "docs/operations.md's cost table differs from the routes' rows and their measured "
        "costs: print it with .venv/bin/python bench/bench_costs.py --write"
    )


def test_each_measured_cost_is_within_its_class(make_app: Any) -> None:
    # The figures are a benchmark's (taken once, kept with the date and the machine), not
    # timed here: a route that grew out of its class fails until it is moved or mended.
    rows, measured = routes.rows(make_app(now=NOON)), _measured()
    assert sorted(set(rows) ^ set(measured)) == [], "routes never measured: run the bench"
    over = {e: (m["cpu_ms"], str(rows[e].cpu)) for e, m in measured.items()
            if m["cpu_ms"] > costs.CEILING_MS[rows[e].cpu]}  # fmt: skip
    assert over == {}, "routes over their class's CPU ceiling (costs.CEILING_MS)"
    # Each was measured doing its work, not refused (a 429 or a 5xx measures nothing).
    assert all(max(m["statuses"]) < 429 for m in measured.values())


def _usage(client: redis.Redis) -> dict[str, tuple[int, int]]:
    """Every key's (bytes, seconds to live: -1 none) in the test's Redis."""
    names = sorted(str(k) for k in client.scan_iter(count=1000))
    found: dict[str, tuple[int, int]] = {}
    for name in names:
        size, ttl = client.memory_usage(name, samples=0), client.ttl(name)
        if size is not None:
            found[name] = (int(size), int(ttl))
    return found


def _address() -> str:
    # Each walk from an address of its own network: no route spends another's budgets.
    return str(ipaddress.ip_address("10.0.0.1") + 256 * next(_NETWORKS))


@pytest.mark.parametrize("endpoint", sorted(RECIPES))
def test_one_address_calling_a_route_up_to_its_limits(
    make_app: Any, endpoint: str, small_tables: Path, redis_server: str
) -> None:
    if redis_server.startswith("redis://"):  # the embedded server and the cluster cover it
        pytest.skip("walked on the embedded Redis (6) and on the cluster (7)")
    setup_app = make_app(now=NOON, **REMINDERS)
    cost = routes.route_of(endpoint, setup_app).cost
    world = World(setup_app.test_client())
    method, path, kwargs = RECIPES[endpoint](world)
    app = make_app(now=NOON, rate_limits=LIMITS, metrics_token="m", **REMINDERS)
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = _address()
    headers = {**world.headers, **({"Authorization": "Bearer m"} if "metrics" in path else {})}
    with app.app_context():
        redis_client = current_redis()
        before = _usage(redis_client)
        statuses = []
        for _ in range(EXEMPT_CALLS if not cost.limits else 40):
            response = client.open(path, method=method, headers=headers, **kwargs)
            statuses.append(response.status_code)
            response.close()
            if response.status_code == 429:
                break
        after = _usage(redis_client)
    served = [s for s in statuses if s != 429]
    assert all(s < 500 for s in statuses), statuses
    if cost.limits:
        assert statuses[-1] == 429, f"{endpoint} never met its limits: {statuses}"
    else:
        assert 429 not in statuses and len(statuses) == EXEMPT_CALLS
    grown = sum(size for name, (size, _) in after.items()) - sum(s for s, _ in before.values())
    assert grown <= cost.writes * len(served) + COUNTERS_SLACK, (endpoint, grown, len(served))
    written = [n for n, v in after.items() if before.get(n) != v]
    unowned = [n for n in written if after[n][1] < 0 and keys.owner_of(n) not in cost.owners]
    assert unowned == [], f"{endpoint} wrote keys that never expire and no owner it names keeps"
    unfinished = [n for n in written if re.fullmatch(r"daily:game:\{[^}]*\}", n)
                  and after[n][1] < 0 and not redis_client.hexists(n, "t")]  # fmt: skip
    assert unfinished == [], "an unfinished game kept without an expiry"
