"""Results reach their boards: a share code's board opens with its creator; the minute sweep."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from daily.service import reviews
from daily.store import keys, saved_games
from daily.web.context import current_config, current_redis

pytestmark = pytest.mark.redis

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


def play_hasty(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    state = client.post("/api/v1/games", json=body).get_json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        state = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row}).get_json()
    return dict(client.get(f"/api/v1/games/{state['id']}").get_json())


def friend_board(client: Any, code: str) -> Any:
    return client.get(f"/api/v1/leaderboards/friend/{code}").get_json()


@pytest.mark.parametrize(
    "body", [{"mode": "solo", "ruleset": "yacht"}, {"mode": "daily"}], ids=["solo", "daily"]
)
def test_a_share_code_board_starts_with_its_creator(make_app: Any, body: dict[str, Any]) -> None:
    app = make_app(now=NOW)
    creator = app.test_client()
    mine = play_hasty(creator, body)
    code = mine["share_code"]
    board = friend_board(creator, code)
    assert board["total"] == 1
    me = creator.get("/api/v1/players/me").get_json()["player_id"]
    assert [(e["player_id"], e["score"]) for e in board["entries"]] == [(me, mine["total"])]
    # Counting the creator again (a retried finish) changes nothing.
    with app.app_context():
        record = saved_games.load(current_redis(), mine["id"])
        assert record is not None
        reviews.submit(current_redis(), current_config(), record)
    assert friend_board(creator, code)["total"] == 1
    friend = app.test_client()
    theirs = play_hasty(friend, {"mode": "friend", "code": code})
    board = friend_board(friend, code)
    assert board["total"] == 2
    assert sorted(e["score"] for e in board["entries"]) == sorted([mine["total"], theirs["total"]])


def lose_count(app: Any, game_id: str) -> None:
    """Undoes the counting of a finished friend game, as a crash before it would have left it."""
    with app.app_context():
        redis = current_redis()
        record = saved_games.load(redis, game_id)
        assert record is not None and record.code is not None
        redis.delete(keys.board_friend(record.code))
        redis.hdel(keys.game(game_id), "u")  # the compact record's "submitted" field
        redis.zadd(keys.pending_results(), {game_id: NOW.timestamp() - 120})


def test_requests_sweep_the_pending_results_once_a_minute(make_app: Any) -> None:
    app = make_app(now=NOW)
    client = app.test_client()
    state = play_hasty(client, {"mode": "friend", "ruleset": "yacht"})
    code = state["code"]
    lose_count(app, state["id"])
    assert friend_board(client, code)["total"] == 0  # this process swept already at start
    with app.app_context():
        assert not current_redis().exists(keys.pending_sweep())  # nothing was due: no write
    # A new process (a new worker) sweeps on its first request.
    fresh = make_app(now=NOW).test_client()
    assert fresh.get("/healthz").status_code == 200
    assert friend_board(fresh, code)["total"] == 1
    with app.app_context():
        assert current_redis().zcard(keys.pending_results()) == 0
        assert current_redis().ttl(keys.pending_sweep()) > 0
    # Within the minute no other process sweeps again: the lock key holds them off.
    lose_count(app, state["id"])
    other = make_app(now=NOW).test_client()
    other.get("/healthz")
    assert friend_board(other, code)["total"] == 0
    with app.app_context():
        current_redis().delete(keys.pending_sweep())  # the minute is over
    make_app(now=NOW).test_client().get("/healthz")
    assert friend_board(other, code)["total"] == 1


def test_a_sweep_while_redis_is_down_logs_one_line(
    make_app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(now=NOW, redis_url="redis://127.0.0.1:1/0")
    with caplog.at_level("WARNING", logger="daily.web.sweep"):
        response = app.test_client().get("/api/v1/leaderboards/daily/today")
    assert response.status_code == 503
    swept = [r for r in caplog.records if r.name == "daily.web.sweep"]
    assert len(swept) == 1
    assert swept[0].levelname == "WARNING" and swept[0].exc_info is None
