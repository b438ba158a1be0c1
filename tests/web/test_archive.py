"""The archive: a past day's daily played again as practice, on that day's dice and on no
board, once its dice are revealed (a frozen clock)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.web.helpers import merged, start

pytestmark = pytest.mark.redis

NOV30 = datetime(2026, 11, 30, 12, tzinfo=UTC)
DEC2 = datetime(2026, 12, 2, 12, tzinfo=UTC)


def finish(client: Any, state: dict[str, Any]) -> dict[str, Any]:
    while not state["finished"]:
        row = next(iter(state["potential"]))
        answer = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row})
        state = merged(state, answer.get_json())
    return state


def test_a_past_day_played_as_practice_is_on_no_board(make_app: Any) -> None:
    ranked = start(make_app(now=NOV30).test_client(), mode="daily")
    app = make_app(now=DEC2)
    client = app.test_client()
    state = start(client, mode="daily", day="2026-11-30")
    assert state["practice"] and state["dice"] == ranked["dice"]  # that day's dice
    again = client.post("/api/v1/games", json={"mode": "daily", "day": "2026-11-30"})
    assert (again.status_code, again.get_json()["error"]["game_id"]) == (409, state["id"])
    done = finish(client, state)
    assert done["finished"] and done["practice"] and done.get("rank") is None
    for board in ("daily/2026-11-30", "best-day", "streak", "advent/2026"):
        body = client.get(f"/api/v1/leaderboards/{board}").get_json()
        assert body["total"] == 0, board
    history = client.get("/me/history").get_data(as_text=True)
    assert "No daily puzzle finished yet." in history
    page = client.get(f"/play/{state['id']}").get_data(as_text=True)
    assert 'id="practice"' in page and "/leaderboards/daily/2026-11-30" in page
    today = start(client, mode="daily")  # today's ranked daily is still there to play
    assert not today["practice"]


@pytest.mark.parametrize("day", ["2026-12-02", "2026-12-03"])
def test_a_day_not_revealed_yet_is_refused(make_app: Any, day: str) -> None:
    client = make_app(now=DEC2).test_client()
    refused = client.post("/api/v1/games", json={"mode": "daily", "day": day})
    error = refused.get_json()["error"]
    assert (refused.status_code, error["code"]) == (404, "not_open")
    assert error["practice_at"].startswith(f"{day[:8]}{int(day[8:]) + 1:02d}")


def test_the_board_of_a_past_day_offers_practice(make_app: Any) -> None:
    client = make_app(now=DEC2).test_client()
    assert "Play this day as practice" not in client.get("/leaderboards").get_data(as_text=True)
    page = client.get("/leaderboards/daily/2026-11-30").get_data(as_text=True)
    assert "Play this day as practice" in page
    posted = client.post("/archive/2026-11-30")
    assert posted.status_code == 303 and "/play/" in posted.headers["Location"]
    assert client.post("/archive/2026-11-30").headers["Location"] == posted.headers["Location"]
    assert client.post("/archive/2026-12-02").status_code == 404
