"""Rank 1 costs more than accounts: a new player's dailies are listed on their day's board,
marked new and unranked, and rank on friend codes' boards and leagues at once; the ranks of
the world boards (day, best day, streak, advent) are for players who finished ranked dailies
on three different days, who then bring their earlier days along."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from daily.core.config import load
from daily.store import boards, keys
from daily.web.context import current_redis

from .helpers import merged, start

pytestmark = pytest.mark.redis

DAY1 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def play(app: Any, headers: dict[str, str], body: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plays a whole game through the API, scoring the first open row; its final state."""
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = headers["Authorization"]
    state = start(client, **(body or {"mode": "daily"}))
    while not state["finished"]:
        row = next(iter(state["potential"]))
        response = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row})
        assert response.status_code == 200, response.get_json()
        state = merged(state, response.get_json())
    return state


def on_day(make_app: Any, day: int, **settings: Any) -> Any:
    return make_app(now=DAY1 + timedelta(days=day - 1), established_days=3, **settings)


def new_player(app: Any, name: str) -> dict[str, str]:
    token = app.test_client().post("/api/v1/players", json={"name": name}).get_json()["token"]
    return {"Authorization": f"Bearer {token}"}


def board(app: Any, path: str, headers: dict[str, str]) -> dict[str, Any]:
    return dict(app.test_client().get(f"/api/v1/leaderboards/{path}", headers=headers).get_json())


def test_a_new_players_dailies_reach_the_world_boards_on_their_third_day(make_app: Any) -> None:
    first = on_day(make_app, 1)
    ana = new_player(first, "Ana")
    game = play(first, ana)
    day1 = board(first, "daily/2026-12-01", ana)
    # Listed on the day's board, marked new and unranked, with the days it still takes.
    line = {"rank": None, "player_id": day1["me"]["player_id"], "name": "Ana",
            "score": game["total"], "new": True, "days_left": 2}  # fmt: skip
    assert (day1["entries"], day1["me"], day1["total"], day1["ranked"]) == ([line], line, 1, 0)
    assert board(first, "best-day", ana)["entries"] == []
    assert board(first, "streak", ana)["entries"] == []
    assert board(first, "advent/2026", ana)["entries"] == []
    assert game["standing"] == {"rank": None, "ranked": 0, "place": 1, "field": 1, "tied": 0,
                                "percentile": None, "new": True, "days_left": 2}  # fmt: skip
    second = play(on_day(make_app, 2), ana)
    third = on_day(make_app, 3)
    last = play(third, ana)
    entries = board(third, "daily/2026-12-03", ana)["entries"]
    assert [(e["rank"], e["name"], e["score"]) for e in entries] == [(1, "Ana", last["total"])]
    assert last["standing"]["rank"] == 1 and not last["standing"]["new"]
    # Established, she brings her first two days along: streak, best day, the advent doors.
    totals = [game["total"], second["total"], last["total"]]
    assert board(third, "streak", ana)["me"]["score"] == 3
    assert board(third, "best-day", ana)["me"]["score"] == max(totals)
    assert board(third, "advent/2026", ana)["me"]["score"] == sum(totals)
    # Her first day stays a new player's line: its ranks were given that day.
    assert board(third, "daily/2026-12-01", ana)["me"]["new"] is True


def test_a_new_players_daily_ranks_on_its_share_code_at_once(make_app: Any) -> None:
    app = on_day(make_app, 1)
    ana, bo = new_player(app, "Ana"), new_player(app, "Bo")
    mine = play(app, ana)
    code = mine["share_code"]
    play(app, bo, {"mode": "friend", "code": code})
    entries = board(app, f"friend/{code}", ana)["entries"]
    assert sorted(e["name"] for e in entries) == ["Ana", "Bo"]


def test_many_fresh_accounts_buy_no_place_on_the_days_board(make_app: Any) -> None:
    # The attack of the bounded-cost issue: accounts made to play the day once each.
    app = on_day(make_app, 1)
    established = new_player(app, "Ana")
    with app.app_context():  # Ana had ranked dailies counted on the two days before
        days = keys.player_days(_player_id(app, established))
        for day in (date(2026, 11, 29), date(2026, 11, 30)):
            current_redis().setbit(days, boards.day_number(day), 1)
    fresh = [new_player(app, f"Bot{n}") for n in range(6)]
    for headers in fresh:
        play(app, headers)
    honest = play(app, established)
    found = board(app, "daily/2026-12-01", established)
    ranked = [(e["rank"], e["name"]) for e in found["entries"] if not e.get("new")]
    assert ranked == [(1, "Ana")] and honest["standing"]["rank"] == 1
    # The fresh accounts are listed (the field counts them), never ranked.
    assert (found["total"], found["ranked"]) == (7, 1)
    assert all(e["rank"] is None for e in found["entries"] if e["name"] != "Ana")


def _player_id(app: Any, headers: dict[str, str]) -> str:
    return str(app.test_client().get("/api/v1/players/me", headers=headers).get_json()["player_id"])


def test_one_day_establishes_a_player_when_the_setting_says_so(make_app: Any) -> None:
    app = make_app(now=DAY1, established_days=1)
    ana = new_player(app, "Ana")
    played = play(app, ana)
    assert board(app, "daily/2026-12-01", ana)["entries"][0]["score"] == played["total"]


def test_the_days_that_establish_come_from_the_environment() -> None:
    assert load({}).established_days == 3
    assert load({"DAILY_ESTABLISHED_DAYS": "5"}).established_days == 5
