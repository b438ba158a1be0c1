"""Faults: Redis killed and restarted mid-game, Redis unreachable, gunicorn workers killed."""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime
from http.client import HTTPException
from pathlib import Path
from typing import Any

import pytest

from daily import create_app
from daily.core.config import load
from daily.store import saved_games
from daily.store.connection import connect

pytestmark = [pytest.mark.redis, pytest.mark.slow]

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
SECRET = "fault-secret-" + "f" * 32


def make(url: str, tmp_path: Path) -> Any:
    return create_app({
        "env": "testing", "secret_key": SECRET, "redis_url": url, "data_dir": tmp_path / "d",
        "clock": lambda: NOON, "rate_limits": {"pages": "off", "moves": "off"},
        "established_days": 1,  # a first daily ranks on the world board at once
    })  # fmt: skip


def next_move(state: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A legal move: a re-roll holding some dice while rolls are left, else a score."""
    if state["rolls_left"] and rng.random() < 0.6:
        hold = sorted(rng.sample(range(len(state["dice"])), rng.randint(0, 3)))
        return "roll", {"hold": hold}
    return "score", {"category": rng.choice(list(state["potential"]))}


def play(client: Any, game_id: str, state: dict[str, Any], count: int, rng: random.Random) -> Any:
    """Plays *count* random moves; the game as read after them."""
    for _ in range(count):
        action, body = next_move(state, rng)
        response = client.post(f"/api/v1/games/{game_id}/{action}", json=body)
        assert response.status_code == 200, response.get_json()
        state = response.get_json()
    return client.get(f"/api/v1/games/{game_id}").get_json()


def test_redis_killed_mid_game_loses_no_accepted_move(redis_process: Any, tmp_path: Path) -> None:
    app = make(redis_process.url, tmp_path)
    client = app.test_client()
    rng = random.Random(3)
    state = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    game_id = state["id"]
    state = play(client, game_id, state, 25, rng)
    redis_process.kill()  # SIGKILL: no save on shutdown, only the append-only file
    redis_process.start()
    resumed = client.get(f"/api/v1/games/{game_id}").get_json()
    assert resumed == state  # every accepted move is there, the same dice on the table
    while not state["finished"]:
        state = play(client, game_id, state, 1, rng)
    record = saved_games.load(connect(redis_process.url, tmp_path), game_id)
    assert record is not None and record.total == state["total"]
    assert record.state(load({}, secret_key=SECRET).secret_key).total == state["total"]
    board = client.get("/api/v1/leaderboards/daily/2026-12-03").get_json()
    assert [e["score"] for e in board["entries"]] == [state["total"]]


def test_redis_down_is_503_json_writes_nothing_and_recovers(
    redis_process: Any, tmp_path: Path
) -> None:
    app = make(redis_process.url, tmp_path)
    client = app.test_client()
    rng = random.Random(4)
    state = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    game_id = state["id"]
    state = play(client, game_id, state, 3, rng)
    store = connect(redis_process.url, tmp_path)
    before = {key: store.dump(key) for key in store.scan_iter()}
    redis_process.kill()
    action, body = next_move(state, rng)
    calls = [
        client.post(f"/api/v1/games/{game_id}/{action}", json=body),
        client.post("/api/v1/players", json={"name": "Bo"}),
        client.post("/api/v1/games", json={"mode": "solo"}),
        client.get(f"/api/v1/games/{game_id}"),
    ]
    for response in calls:
        assert response.status_code == 503 and response.content_type == "application/json"
        assert response.get_json()["error"]["code"] == "storage_unavailable"
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["status"] == "unavailable"
    page = client.get(f"/play/{game_id}")
    assert page.status_code == 503 and "text/html" in page.content_type
    redis_process.start()  # the same app, not restarted: it reconnects by itself
    assert client.get("/healthz").status_code == 200
    assert {key: store.dump(key) for key in store.scan_iter()} == before  # no partial write
    assert client.get(f"/api/v1/games/{game_id}").get_json() == state
    response = client.post(f"/api/v1/games/{game_id}/{action}", json=body)
    assert response.status_code == 200 and response.get_json()["move_count"] == 4


def test_a_worker_killed_mid_move_applies_it_once_or_not_at_all(gunicorn: Any) -> None:
    _, player = gunicorn.call("POST", "/api/v1/players", {"name": "Ana"})
    token = player["token"]
    _, state = gunicorn.call("POST", "/api/v1/games", {"mode": "daily"}, token)
    game = f"/api/v1/games/{state['id']}"
    rng = random.Random(5)
    cut = landed = 0
    for _ in range(12):
        seen = state["moves"]
        action, body = next_move(state, rng)
        body["move"] = len(seen)  # numbered: a repeat of an applied move is a 409
        outcome: list[Any] = []

        def send(action: str = action, body: dict[str, Any] = body, outcome: Any = outcome) -> None:
            try:
                outcome.append(gunicorn.call("POST", f"{game}/{action}", body, token))
            except (OSError, HTTPException, ValueError) as e:  # died mid-request or mid-answer
                outcome.append(e)

        thread = threading.Thread(target=send)
        thread.start()
        time.sleep(rng.uniform(0.0, 0.006))
        gunicorn.kill_workers()
        thread.join()
        cut += not isinstance(outcome[0], tuple)
        gunicorn.wait_ready()
        status, answer = gunicorn.call("POST", f"{game}/{action}", body, token)  # the retry
        assert status in (200, 409), answer
        _, state = gunicorn.call("GET", game, token=token)
        assert state["moves"][: len(seen)] == seen and len(state["moves"]) == len(seen) + 1
        if status == 409:  # the killed request had applied it: once, not twice
            assert isinstance(outcome[0], Exception) or outcome[0][0] == 200
            landed += isinstance(outcome[0], Exception)
    print(f"{cut} of 12 moves cut by the kill, {landed} of them applied before it")
    assert cut > 0, "no request was cut by the kills: the test proved nothing"
