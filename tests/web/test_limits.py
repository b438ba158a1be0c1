"""Rate limits: new players per address, moves per player, requests per address; 429s."""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from typing import Any

import pytest

from daily.core.config import ConfigError, load
from daily.store import keys
from daily.web import current_redis, limits

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
OFF = dict.fromkeys(limits.DEFAULTS, "off")


def limited(make_app: Any, **chosen: str) -> Any:
    return make_app(now=NOON, rate_limits={**OFF, **chosen})


def assert_429(response: Any, message: str) -> None:
    assert response.status_code == 429
    error = response.get_json()["error"]
    assert error["code"] == "too_many_requests" and message in error["message"]
    assert 1 <= int(response.headers["Retry-After"]) <= 3600


def test_player_creation_is_limited_per_address(make_app: Any) -> None:
    client = limited(make_app, players="3 per hour").test_client()
    for _ in range(3):
        assert client.post("/api/v1/players", json={"name": "Ana"}).status_code == 201
    assert_429(client.post("/api/v1/players", json={"name": "Ana"}), "new players")
    other = {"REMOTE_ADDR": "10.0.0.2"}
    response = client.post("/api/v1/players", json={"name": "Bo"}, environ_base=other)
    assert response.status_code == 201  # another address has its own count


def test_a_refused_creation_stores_no_player(make_app: Any) -> None:
    app = limited(make_app, players="1 per hour")
    client = app.test_client()
    client.post("/api/v1/players", json={"name": "Ana"})
    with app.app_context():
        before = len(list(current_redis().scan_iter(keys.player("*"))))
    assert client.post("/api/v1/players", json={"name": "Bo"}).status_code == 429
    with app.app_context():
        assert len(list(current_redis().scan_iter(keys.player("*")))) == before == 1


def test_moves_are_limited_per_player_not_per_address(make_app: Any) -> None:
    app = limited(make_app, moves="4 per minute")
    ana, bo = app.test_client(), app.test_client()
    game = ana.post("/api/v1/games", json={"mode": "daily"}).get_json()
    url = f"/api/v1/games/{game['id']}"
    for move, body in [("roll", {"hold": []}), ("roll", {"hold": [0]}),
                       ("score", {"category": "chance"}), ("roll", {"hold": []})]:  # fmt: skip
        assert ana.post(f"{url}/{move}", json=body).status_code == 200
    before = ana.get(url).get_json()
    refused = ana.post(f"{url}/score", json={"category": "ones"})
    assert_429(refused, "too many moves")
    assert ana.get(url).get_json() == before  # nothing applied
    theirs = bo.post("/api/v1/games", json={"mode": "daily"}).get_json()  # same address
    response = bo.post(f"/api/v1/games/{theirs['id']}/roll", json={"hold": []})
    assert response.status_code == 200


def test_the_limiter_does_no_work_of_its_own_for_a_move(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = limited(make_app, moves="100 per minute", pages="100 per minute")
    limiter = app.extensions["daily.limiter"]
    looked: list[str] = []

    def identify_request() -> None:  # the first thing the limiter's check does
        looked.append("looked")

    monkeypatch.setattr(limiter, "identify_request", identify_request)
    client = app.test_client()
    game = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    looked.clear()
    response = client.post(f"/api/v1/games/{game['id']}/roll", json={"hold": []})
    assert response.status_code == 200 and looked == []  # the move counted its own limits
    assert client.get(f"/api/v1/games/{game['id']}").status_code == 200
    assert looked  # any other request is the limiter's


def test_an_addresses_moves_have_a_budget_of_their_own(make_app: Any) -> None:
    # A move counts its limits in its own read of the game: the address's moves, every
    # player's, on a count of the pages limit's size apart from its other requests.
    app = limited(make_app, pages="5 per minute")
    ana, bo = app.test_client(), app.test_client()
    games = [c.post("/api/v1/games", json={"mode": "daily"}).get_json() for c in (ana, bo)]
    roll, score = ("roll", {"hold": []}), ("score", {"category": "chance"})
    for client, game, (move, body) in [(ana, games[0], roll), (bo, games[1], roll),
                                       (ana, games[0], roll), (bo, games[1], roll),
                                       (ana, games[0], score)]:  # fmt: skip
        assert client.post(f"/api/v1/games/{game['id']}/{move}", json=body).status_code == 200
    before = bo.get(f"/api/v1/games/{games[1]['id']}").get_json()  # a page: 3 of 5
    refused = bo.post(f"/api/v1/games/{games[1]['id']}/roll", json={"hold": []})
    assert_429(refused, "from your address")
    assert bo.get(f"/api/v1/games/{games[1]['id']}").get_json() == before  # nothing applied
    other = {"REMOTE_ADDR": "10.0.0.2"}
    carla = app.test_client()
    theirs = carla.post("/api/v1/games", json={"mode": "daily"}, environ_base=other).get_json()
    url = f"/api/v1/games/{theirs['id']}/roll"
    assert carla.post(url, json={"hold": []}, environ_base=other).status_code == 200
    with app.app_context():  # each count ends with its window
        assert 0 < current_redis().ttl(keys.address_moves("127.0.0.1", 60)) <= 60


def test_a_move_without_a_player_counts_on_its_address(make_app: Any) -> None:
    app = limited(make_app, moves="2 per minute")
    client = app.test_client()
    for _ in range(2):
        assert client.post("/api/v1/games/nosuchgame/roll", json={"hold": []}).status_code == 404
    assert_429(client.post("/api/v1/games/nosuchgame/roll", json={"hold": []}), "too many moves")
    with app.app_context():
        assert current_redis().get(keys.anonymous_moves("127.0.0.1", 60)) == "3"


def test_moves_with_a_bad_token_count_on_their_address(make_app: Any) -> None:
    # A 401 reads no game, but each one still counts: a client cannot send them unchecked.
    app = limited(make_app, moves="2 per minute")
    client = app.test_client()
    bad = {"Authorization": "Bearer forged"}
    for _ in range(2):
        response = client.post("/api/v1/games/g1/roll", json={"hold": []}, headers=bad)
        assert response.status_code == 401
    refused = client.post("/api/v1/games/g1/roll", json={"hold": []}, headers=bad)
    assert_429(refused, "too many moves")
    with app.app_context():
        assert current_redis().get(keys.anonymous_moves("127.0.0.1", 60)) == "3"


def test_a_move_limit_of_several_windows_counts_each(make_app: Any) -> None:
    app = limited(make_app, moves="3 per minute;100 per hour")
    client = app.test_client()
    game = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    url = f"/api/v1/games/{game['id']}"
    for move, body in [("roll", {"hold": []}), ("roll", {"hold": [0]}),
                       ("score", {"category": "chance"})]:  # fmt: skip
        assert client.post(f"{url}/{move}", json=body).status_code == 200
    assert_429(client.post(f"{url}/roll", json={"hold": []}), "too many moves")
    with app.app_context():
        player = client.get("/api/v1/players/me").get_json()["player_id"]
        counts = [current_redis().get(keys.player_moves(player, s)) for s in (60, 3600)]
        assert counts == ["4", "4"]
        assert 60 < current_redis().ttl(keys.player_moves(player, 3600)) <= 3600


def test_pages_are_limited_per_address_and_health_is_not(make_app: Any) -> None:
    client = limited(make_app, pages="3 per minute").test_client()
    for _ in range(3):
        assert client.get("/rules/maxi").status_code == 200
    page = client.get("/")
    assert page.status_code == 429 and "text/html" in page.content_type
    assert int(page.headers["Retry-After"]) >= 1
    assert_429(client.get("/api/v1/daily"), "from your address")
    for _ in range(5):
        assert client.get("/healthz").status_code == 200
    with client.get("/static/site.css") as static:
        assert static.status_code == 200


def test_limits_reset_after_their_window(make_app: Any) -> None:
    app = limited(make_app, pages="2 per minute")
    client = app.test_client()
    client.get("/rules/maxi")
    client.get("/rules/maxi")
    assert client.get("/rules/maxi").status_code == 429
    with app.app_context():
        redis = current_redis()
        counters = list(redis.scan_iter(keys.rate_limits() + "*"))
        assert counters
        for key in counters:  # the window ends: its counter expires
            assert 0 < redis.ttl(key) <= 60
            redis.delete(key)
    assert client.get("/rules/maxi").status_code == 200


def test_defaults_are_generous(make_app: Any) -> None:
    client = make_app(now=NOON, rate_limits={}).test_client()
    for _ in range(40):
        assert client.get("/rules/maxi").status_code == 200
    assert limits.Limits.from_config(client.application.extensions["daily.config"]) == (
        limits.Limits(
            "30 per hour", "120 per minute", "600 per minute", "50 per day", "10 per hour"
        )
    )


def test_limits_come_from_the_environment() -> None:
    environ = {"DAILY_LIMIT_MOVES": "7/second", "DAILY_LIMIT_PAGES": "off"}
    chosen = limits.Limits.from_config(load(environ))
    assert (chosen.moves, chosen.pages, chosen.players) == ("7/second", None, "30 per hour")


@pytest.mark.parametrize(
    ("chosen", "message"),
    [({"moves": "lots"}, "DAILY_LIMIT_MOVES"), ({"votes": "1 per day"}, "unknown rate limit")],
    ids=["malformed", "unknown"],
)
def test_a_bad_limit_stops_the_app(make_app: Any, chosen: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_app(now=NOON, rate_limits=chosen)


def test_redis_down_lets_the_views_answer_503(make_app: Any) -> None:
    app = make_app(now=NOON, redis_url="redis://127.0.0.1:1/0", rate_limits={})
    response = app.test_client().post("/api/v1/players", json={"name": "Ana"})
    assert response.status_code == 503
    assert response.get_json()["error"]["code"] == "storage_unavailable"


@pytest.mark.one_redis
def test_redis_down_logs_one_warning_line_a_request_and_no_traceback(
    make_app: Any, caplog: Any, capsys: Any
) -> None:
    app = make_app(now=NOON, redis_url="redis://127.0.0.1:1/0", rate_limits={})
    client = app.test_client()
    client.get("/api/v1/daily")  # the once-a-minute sweep of pending results says its own failure
    caplog.clear()
    capsys.readouterr()
    requests = [("POST", "/api/v1/players"), ("GET", "/api/v1/leaderboards/best-day")]
    for method, url in requests:  # a new player is checked against two limits: still one line
        response = client.open(
            url, method=method, json={"name": "Ana"} if method == "POST" else None
        )
        assert response.status_code == 503 and response.content_type == "application/json"
        assert response.get_json()["error"]["code"] == "storage_unavailable"
    said = [r for r in caplog.records if r.name == "flask-limiter"]
    assert len(said) == len(requests)
    assert all(r.levelno == logging.WARNING and "ConnectionError" in r.getMessage() for r in said)
    assert all(r.exc_info is None for r in caplog.records)
    out, err = capsys.readouterr()
    assert "Traceback" not in caplog.text + out + err


def test_errors_other_than_redis_keep_their_traceback() -> None:
    try:
        raise ValueError("a bug in a key function")
    except ValueError:
        record = logging.LogRecord("flask-limiter", logging.ERROR, "", 0, "x", None, sys.exc_info())
    assert limits.OneLineOutage().filter(record)
    assert record.exc_info is not None and record.levelno == logging.ERROR


def test_behind_a_trusted_proxy_the_forwarded_address_counts(make_app: Any) -> None:
    app = make_app(
        now=NOON, rate_limits={**OFF, "players": "1 per hour"}, trusted_proxies="127.0.0.1"
    )  # the test client's address
    client = app.test_client()

    def create(address: str) -> int:
        headers = {"X-Forwarded-For": address}
        return int(client.post("/api/v1/players", json={"name": "A"}, headers=headers).status_code)

    assert (create("198.51.100.1"), create("198.51.100.2")) == (201, 201)
    assert create("198.51.100.1") == 429
    untrusted = limited(make_app, players="1 per hour").test_client()
    headers = {"X-Forwarded-For": "198.51.100.3"}
    untrusted.post("/api/v1/players", json={"name": "A"}, headers=headers)
    spoofed = {"X-Forwarded-For": "198.51.100.4"}  # without a trusted proxy the header is ignored
    assert untrusted.post("/api/v1/players", json={"name": "A"}, headers=spoofed).status_code == 429
