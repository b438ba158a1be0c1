"""Bad input to the game API: a clear error JSON every time, and the stored game unchanged."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from daily.core.errors import ConfigError
from daily.store import keys
from daily.web.context import current_redis
from tests.web.helpers import kept_keys

# On the embedded Redis only: a refusal is the same on every Redis (the app's every route
# runs on the cluster in tests/web/test_costs.py, its flows in test_api.py).
pytestmark = [pytest.mark.redis, pytest.mark.one_redis]

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)


@pytest.fixture
def app(make_app: Any) -> Any:
    return make_app(now=NOON)


class Game:
    """A started daily game, its player's headers and a snapshot of what Redis stores."""

    def __init__(self, app: Any, **body: Any) -> None:
        self.app = app
        self.client = app.test_client()
        token = self.client.post("/api/v1/players", json={"name": "Ana"}).get_json()["token"]
        self.headers = {"Authorization": f"Bearer {token}"}
        response = self.client.post("/api/v1/games", json=body or {"mode": "daily"},
                                    headers=self.headers)  # fmt: skip
        assert response.status_code == 201
        self.state = response.get_json()
        self.id = self.state["id"]

    def post(self, action: str, body: Any = None, **kwargs: Any) -> Any:
        headers = {**self.headers, **kwargs.pop("headers", {})}
        if body is not None:
            kwargs["data"] = json.dumps(body)
            kwargs.setdefault("content_type", "application/json")
        return self.client.post(f"/api/v1/games/{self.id}/{action}", headers=headers, **kwargs)

    def stored(self) -> Any:
        with self.app.app_context():
            client = current_redis()
            return client.hgetall(keys.game(self.id)), client.lrange(
                keys.game_moves(self.id), 0, -1
            )


def assert_error(response: Any, status: int, code: str | None = None) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"])
    assert "Traceback" not in body["error"]["message"]
    if code:
        assert body["error"]["code"] == code


JSON = "application/json"


@pytest.mark.parametrize(
    ("action", "kwargs", "status"),
    [
        ("roll", {"data": "{not json", "content_type": JSON}, 400),
        ("roll", {"data": "[1, 2]", "content_type": JSON}, 400),
        ("roll", {"data": '{"hold": NaN}', "content_type": JSON}, 400),
        ("roll", {"data": b"\xff\xfe", "content_type": JSON}, 400),
        ("roll", {"data": '{"hold": [0]}', "content_type": "text/plain"}, 415),
        ("roll", {"data": "[" * 5000 + "]" * 5000, "content_type": JSON}, 400),
        ("roll", {"data": '{"hold": ' + "[0," * 6000 + "0]}", "content_type": JSON}, 413),
    ],
    ids=["malformed", "not-object", "nan", "not-utf8", "not-json-type", "deep", "over-16k"],
)
def test_unreadable_bodies(app: Any, action: str, kwargs: dict[str, Any], status: int) -> None:
    game = Game(app)
    before = game.stored()
    assert_error(game.post(action, **kwargs), status)
    assert game.stored() == before


@pytest.mark.parametrize(
    ("action", "body", "status"),
    [
        ("roll", {}, 400),
        ("roll", {"hold": "0,1"}, 400),
        ("roll", {"hold": [0, "1"]}, 400),
        ("roll", {"hold": [True]}, 400),
        ("roll", {"hold": [0.0]}, 400),
        ("roll", {"hold": [0], "extra": 1}, 400),
        ("roll", {"hold": [6]}, 400),
        ("roll", {"hold": [-1]}, 400),
        ("roll", {"hold": [1, 1]}, 400),
        ("roll", {"hold": [0, 1, 2, 3, 4, 5]}, 409),
        ("roll", {"hold": [0], "move": "0"}, 400),
        ("roll", {"hold": [0], "move": 3}, 409),
        ("score", {"category": 3}, 400),
        ("score", {"category": "villas"}, 400),
        ("score", {"category": "villa", "hold": []}, 400),
        ("score", {"row": "villa"}, 400),
    ],
    ids=[
        "no-hold", "hold-string", "hold-mixed", "hold-bool", "hold-float", "unknown-field",
        "hold-range", "hold-negative", "hold-repeated", "hold-all", "move-type", "move-stale",
        "category-type", "unknown-row", "score-extra", "score-wrong-field",
    ],
)  # fmt: skip
def test_bad_moves(app: Any, action: str, body: dict[str, Any], status: int) -> None:
    game = Game(app)
    before = game.stored()
    assert_error(game.post(action, body), status)
    assert game.stored() == before


def test_roll_with_no_rolls_left(app: Any) -> None:
    game = Game(app)
    # Numbered: the same move again without its number this soon is taken for a duplicate.
    assert game.post("roll", {"hold": [], "move": 0}).status_code == 200
    assert game.post("roll", {"hold": [], "move": 1}).status_code == 200
    before = game.stored()
    assert_error(game.post("roll", {"hold": [], "move": 2}), 409, "illegal_move")
    assert game.stored() == before


def test_used_row(app: Any) -> None:
    game = Game(app)
    assert game.post("score", {"category": "chance"}).status_code == 200
    before = game.stored()
    assert_error(game.post("score", {"category": "chance"}), 409, "illegal_move")
    assert game.stored() == before


def test_forced_order(app: Any) -> None:
    game = Game(app, mode="solo", ruleset="maxi", options={"forced": True})
    before = game.stored()
    response = game.post("score", {"category": "chance"})
    assert_error(response, 409, "illegal_move")
    assert "forced order" in response.get_json()["error"]["message"]
    assert game.stored() == before
    assert game.post("score", {"category": "ones"}).status_code == 200


@pytest.mark.parametrize(
    "header",
    ["Bearer nope", "Bearer ", "Basic abc", "Bearer {token}x", "Bearer x{token}"],
    ids=["garbage", "empty", "basic", "suffix", "prefix"],
)
def test_tampered_token(app: Any, header: str) -> None:
    game = Game(app)
    token = game.headers["Authorization"].removeprefix("Bearer ")
    before = game.stored()
    bad = {"Authorization": header.format(token=token)}
    assert_error(game.post("roll", {"hold": []}, headers=bad), 401, "unauthorized")
    assert_error(game.client.get(f"/api/v1/games/{game.id}", headers=bad), 401)
    assert game.stored() == before


def test_token_signed_with_another_secret(app: Any, make_app: Any) -> None:
    game = Game(app)
    other = make_app(now=NOON, secret_key="another-secret-" + "y" * 32).test_client()
    token = other.post("/api/v1/players", json={"name": "Eve"}).get_json()["token"]
    before = game.stored()
    response = game.post("roll", {"hold": []}, headers={"Authorization": f"Bearer {token}"})
    assert_error(response, 401)
    assert game.stored() == before


def test_tampered_session_cookie(app: Any) -> None:
    client = app.test_client()
    state = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    cookie = client.get_cookie("session")
    assert cookie is not None
    game_key = keys.game(state["id"])
    with app.app_context():
        before = (
            current_redis().hgetall(game_key),
            current_redis().llen(keys.game_moves(state["id"])),
        )
    client.set_cookie("session", cookie.value[:-2] + ("AA" if cookie.value[-2:] != "AA" else "BB"))
    response = client.post(f"/api/v1/games/{state['id']}/roll", json={"hold": []})
    assert_error(response, 401, "unauthorized")
    assert client.get_cookie("session") is None  # cleared, so the browser can start over
    with app.app_context():
        after = (
            current_redis().hgetall(game_key),
            current_redis().llen(keys.game_moves(state["id"])),
        )
    assert after == before


def test_someone_elses_game_is_not_found(app: Any) -> None:
    game = Game(app)
    eve = Game(app)
    before = game.stored()
    response = game.client.post(
        f"/api/v1/games/{game.id}/roll", json={"hold": []}, headers=eve.headers
    )
    assert_error(response, 404, "not_found")
    assert_error(game.client.get(f"/api/v1/games/{game.id}", headers=eve.headers), 404)
    assert game.stored() == before


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"mode": "daily", "ruleset": "yatzy"}, 400),
        ({"mode": "solo", "ruleset": "chess"}, 400),
        ({"mode": "solo", "ruleset": 5}, 400),
        ({"mode": "solo", "options": {"forced": "yes"}}, 400),
        ({"mode": "solo", "options": []}, 400),
        ({"mode": "solo", "options": {"nope": 1}}, 400),
        ({"mode": "friend", "code": "K7P2-QX9"}, 400),
        ({"mode": "friend", "code": 12345678}, 400),
        ({"mode": "friend", "code": "K7P2-QX9D"}, 404),
        ({"mode": "friend", "code": "K7P2-QX9D", "target": "yes"}, 400),
        ({"mode": "friend", "code": "K7P2-QX9D", "ruleset": "maxi"}, 400),
        ({}, 400),
    ],
    ids=[
        "daily-ruleset", "unknown-ruleset", "ruleset-type", "option-value", "options-type",
        "unknown-option", "malformed-code", "code-type", "unknown-code", "target-type",
        "join-with-ruleset", "no-mode",
    ],
)  # fmt: skip
def test_bad_starts_store_nothing(app: Any, body: dict[str, Any], status: int) -> None:
    client = app.test_client()
    token = client.post("/api/v1/players", json={"name": "Ana"}).get_json()["token"]
    with app.app_context():
        before = kept_keys(current_redis())
    response = client.post("/api/v1/games", json=body, headers={"Authorization": f"Bearer {token}"})
    assert_error(response, status)
    with app.app_context():
        assert kept_keys(current_redis()) == before


@pytest.mark.parametrize(
    "body",
    [{}, {"name": ""}, {"name": "x" * 25}, {"name": 5}, {"name": "a\nb"}, {"name": "A", "x": 1}],
    ids=["missing", "empty", "long", "int", "newline", "unknown-field"],
)
def test_bad_names(app: Any, body: dict[str, Any]) -> None:
    client = app.test_client()
    assert_error(client.post("/api/v1/players", json=body), 400, "bad_request")
    with app.app_context():
        assert kept_keys(current_redis()) == set()


def test_redis_down_is_503(app: Any) -> None:
    game = Game(app)
    before = game.stored()
    healthy = app.extensions["daily.redis"]
    app.extensions["daily.redis"] = redis.Redis(
        port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0), decode_responses=True
    )
    try:
        assert_error(game.post("roll", {"hold": []}), 503, "storage_unavailable")
        assert_error(game.client.post("/api/v1/games", json={"mode": "daily"}), 503)
        assert_error(game.client.post("/api/v1/players", json={"name": "Bo"}), 503)
    finally:
        app.extensions["daily.redis"] = healthy
    assert game.stored() == before


def test_unknown_route_and_method(app: Any) -> None:
    client = app.test_client()
    assert_error(client.get("/api/v1/nothing"), 404)
    assert_error(client.delete("/api/v1/games/x"), 405)


def test_no_daily_game_before_the_first_puzzle(make_app: Any) -> None:
    client = make_app(now=datetime(2025, 12, 31, 12, tzinfo=UTC)).test_client()
    response = client.post("/api/v1/games", json={"mode": "daily"})
    assert_error(response, 404, "not_open")


@pytest.mark.parametrize("secret", ["", "short", "dev-secret-not-for-production"])
def test_production_refuses_to_start_without_a_real_secret(make_app: Any, secret: str) -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY"):
        make_app(env="production", secret_key=secret)


def test_production_refuses_a_frozen_clock(make_app: Any) -> None:
    with pytest.raises(ConfigError, match="DAILY_NOW"):
        make_app(env="production", secret_key="p" * 40, environ={"DAILY_NOW": "2026-12-01"})


def test_daily_now_freezes_the_clock_outside_production(make_app: Any) -> None:
    app = make_app(environ={"DAILY_NOW": "2026-12-24T23:30:00+01:00"})
    body = app.test_client().get("/api/v1/daily").get_json()
    assert (body["date"], body["advent_door"]) == ("2026-12-24", 24)
