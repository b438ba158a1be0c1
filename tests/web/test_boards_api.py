"""The leaderboard API and the ranking pages, over HTTP on a real Redis with a frozen clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import redis

from daily.core.modes import BoardKind
from daily.store import board_counts, friend_codes
from daily.store.boards import Result
from daily.web.context import current_config, current_redis

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DEC3 = NOON.date()


def new_player(client: Any, name: str) -> tuple[str, dict[str, str]]:
    body = client.post("/api/v1/players", json={"name": name}).get_json()
    return body["player_id"], {"Authorization": f"Bearer {body['token']}"}


def submit(app: Any, player: str, total: int, day: date, minute: int = 0, **extra: Any) -> None:
    at = datetime(day.year, day.month, day.day, 8, tzinfo=UTC) + timedelta(minutes=minute)
    if "code" not in extra:
        extra["day"] = day
    mode = BoardKind.FRIEND if "code" in extra else BoardKind.DAILY
    result = Result(f"g-{player}-{day}", player, mode, total, at.timestamp(), **extra)
    with app.app_context():
        board_counts.submit(current_redis(), result)


def new_code(app: Any, creator: str) -> str:
    """A real friend code made by *creator*, as the game API makes them."""
    with app.app_context():
        return friend_codes.create_code(
            current_redis(), current_config(), creator, "maxi", {}, None, "g-friend"
        )


def rows(body: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(e["rank"], e["name"], e["score"]) for e in body["entries"]]


@pytest.fixture
def app(make_app: Any) -> Any:
    return make_app(now=NOON)


@pytest.fixture
def at_once(make_app: Any) -> Any:
    """An app where a player's first daily ranks on the world boards at once: the tests of
    how a game is counted there; the rule for new players is tests/web/test_newcomers.py's."""
    return make_app(now=NOON, established_days=1)


@pytest.fixture
def four(app: Any) -> dict[str, tuple[str, dict[str, str]]]:
    """Ana, Bo, Cy and Di (finishing in that order) played December 1 to 3; Di missed the 2nd."""
    client = app.test_client()
    people = {name: new_player(client, name) for name in ("Ana", "Bo", "Cy", "Di")}
    scores = {"Ana": 310, "Bo": 280, "Cy": 280, "Di": 150}
    for minute, (name, (player_id, _)) in enumerate(people.items()):
        for day in (date(2026, 12, 1), date(2026, 12, 2), DEC3):
            if name == "Di" and day.day == 2:
                continue  # Di missed a day
            submit(app, player_id, scores[name] + day.day, day, minute)
    return people


def test_a_days_board_ranks_ties_together_and_shows_my_entry(app: Any, four: Any) -> None:
    _, ana = four["Ana"]
    body = app.test_client().get("/api/v1/leaderboards/daily/2026-12-03", headers=ana).get_json()
    assert body["board"] == "daily/2026-12-03" and body["total"] == 4
    assert rows(body) == [(1, "Ana", 313), (2, "Bo", 283), (2, "Cy", 283), (4, "Di", 153)]
    assert body["me"] == {"rank": 1, "player_id": four["Ana"][0], "name": "Ana", "score": 313}
    today = app.test_client().get("/api/v1/leaderboards/daily/today").get_json()
    assert today["board"] == "daily/2026-12-03" and today["me"] is None


def test_paging_and_around_me_at_both_ends(app: Any, four: Any) -> None:
    client = app.test_client()
    url = "/api/v1/leaderboards/daily/2026-12-03"
    second = client.get(f"{url}?limit=2&offset=2").get_json()
    assert rows(second) == [(2, "Cy", 283), (4, "Di", 153)]
    bottom = client.get(f"{url}?limit=2&around=me", headers=four["Di"][1]).get_json()
    assert rows(bottom) == [(2, "Cy", 283), (4, "Di", 153)] and bottom["offset"] == 2
    top = client.get(f"{url}?limit=2&around=me", headers=four["Ana"][1]).get_json()
    assert rows(top) == [(1, "Ana", 313), (2, "Bo", 283)] and top["offset"] == 0


def test_best_day_streak_and_advent_boards(app: Any, four: Any) -> None:
    client = app.test_client()
    best = client.get("/api/v1/leaderboards/best-day").get_json()
    assert rows(best) == [(1, "Ana", 313), (2, "Bo", 283), (2, "Cy", 283), (4, "Di", 153)]
    streak = client.get("/api/v1/leaderboards/streak", headers=four["Di"][1]).get_json()
    assert rows(streak)[:3] == [(1, "Ana", 3), (1, "Bo", 3), (1, "Cy", 3)]
    assert streak["me"]["score"] == 1 and streak["me"]["current"] == 1
    advent = client.get("/api/v1/leaderboards/advent/2026").get_json()
    assert rows(advent)[0] == (1, "Ana", 311 + 312 + 313)
    assert rows(advent)[-1] == (4, "Di", 151 + 153)


def test_a_rename_shows_on_every_board(app: Any, four: Any) -> None:
    client = app.test_client()
    client.patch("/api/v1/players/me", json={"name": "Anna"}, headers=four["Ana"][1])
    for url in ("daily/2026-12-01", "best-day", "streak", "advent/2026"):
        assert client.get(f"/api/v1/leaderboards/{url}").get_json()["entries"][0]["name"] == "Anna"


def test_the_distribution_of_a_day(app: Any, four: Any) -> None:
    body = app.test_client().get("/api/v1/daily/2026-12-03/distribution?band=100").get_json()
    assert body["players"] == 4 and body["band"] == 100
    assert [b["players"] for b in body["bands"]] == [0, 1, 2, 1, 0, 0, 0]
    assert body["bands"][1] == {"from": 100, "to": 199, "players": 1}


def test_a_friend_codes_board(app: Any) -> None:
    client = app.test_client()
    ana, _ = new_player(client, "Ana")
    bo, headers = new_player(client, "Bo")
    code = new_code(app, ana)
    submit(app, ana, 400, DEC3, code=code)
    submit(app, bo, 420, DEC3, 5, code=code)
    typed = f"{code[:4]}-{code[4:]}".lower()
    body = client.get(f"/api/v1/leaderboards/friend/{typed}", headers=headers).get_json()
    assert body["board"] == f"friend/{code}"
    assert rows(body) == [(1, "Bo", 420), (2, "Ana", 400)] and body["me"]["rank"] == 1
    assert client.get("/api/v1/leaderboards/friend/ZZZZ-ZZZZ").status_code == 404


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/api/v1/leaderboards/daily/2026-13-01", 400),
        ("/api/v1/leaderboards/daily/yesterday", 400),
        ("/api/v1/leaderboards/daily/2025-12-01", 404),
        ("/api/v1/leaderboards/best-day?limit=0", 400),
        ("/api/v1/leaderboards/best-day?limit=101", 400),
        ("/api/v1/leaderboards/best-day?offset=-1", 400),
        ("/api/v1/leaderboards/best-day?limit=ten", 400),
        ("/api/v1/leaderboards/best-day?around=you", 400),
        ("/api/v1/leaderboards/best-day?around=me", 400),
        ("/api/v1/leaderboards/advent/1999", 404),
        ("/api/v1/leaderboards/friend/abc-123", 400),
        ("/api/v1/daily/2026-12-01/distribution?band=0", 400),
        ("/api/v1/daily/2026-02-30/distribution", 400),
    ],
)
def test_bad_requests_get_the_error_json(app: Any, url: str, status: int) -> None:
    response = app.test_client().get(url)
    assert response.status_code == status
    assert set(response.get_json()["error"]) >= {"code", "message"}


def test_a_tampered_token_is_refused(app: Any) -> None:
    headers = {"Authorization": "Bearer not-our-token"}
    response = app.test_client().get("/api/v1/leaderboards/best-day", headers=headers)
    assert response.status_code == 401


def play_to_the_end(client: Any, headers: dict[str, str]) -> dict[str, Any]:
    state = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers).get_json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        state = client.post(
            f"/api/v1/games/{state['id']}/score", json={"category": row}, headers=headers
        ).get_json()
    return state  # type: ignore[no-any-return]


def test_a_finished_daily_game_reaches_the_boards(at_once: Any) -> None:
    client = at_once.test_client()
    player_id, headers = new_player(client, "Ana")
    state = play_to_the_end(client, headers)
    body = client.get("/api/v1/leaderboards/daily/today", headers=headers).get_json()
    assert body["entries"] == [
        {"rank": 1, "player_id": player_id, "name": "Ana", "score": state["total"]}
    ]
    streak = client.get("/api/v1/leaderboards/streak", headers=headers).get_json()
    assert streak["me"]["score"] == 1 and streak["me"]["current"] == 1
    advent = client.get("/api/v1/leaderboards/advent/2026", headers=headers).get_json()
    assert advent["me"]["score"] == state["total"]


def test_the_page_highlights_my_row_and_shows_the_tabs(app: Any, four: Any) -> None:
    client = app.test_client()
    html = client.get("/leaderboards", headers=four["Bo"][1]).get_data(as_text=True)
    assert '<tr class="me" aria-current="true">' in html
    me_row = html.split('class="me"')[1].split("</tr>")[0]
    assert "Bo" in me_row and "283" in me_row
    for label in ("Today", "Best day", "Streak", "Advent"):
        assert f">{label}</a>" in html
    assert html.count('aria-current="page"') >= 1


def test_the_pages_of_every_board(app: Any, four: Any) -> None:
    client = app.test_client()
    code = new_code(app, four["Ana"][0])
    submit(app, four["Ana"][0], 400, DEC3, code=code)
    for url, text in [
        ("/leaderboards/daily/2026-12-02", "312"),
        ("/leaderboards/best-day", "313"),
        ("/leaderboards/streak", "Ana"),
        ("/leaderboards/advent/2026", str(311 + 312 + 313)),
        (f"/leaderboards/friend/{code[:4]}-{code[4:]}", "400"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert text in response.get_data(as_text=True), url
    form = client.get(f"/leaderboards/friend?code={code.lower()}")
    assert form.status_code == 302
    assert form.headers["Location"].endswith(f"/friend/{code[:4]}-{code[4:]}")
    assert client.get("/leaderboards/friend?code=nope").status_code == 400


def test_my_row_below_the_page_is_shown_apart(app: Any, four: Any) -> None:
    html = (
        app.test_client().get("/leaderboards?limit=2", headers=four["Di"][1]).get_data(as_text=True)
    )
    assert "<tfoot>" in html and "Your place" in html
    assert "Lower ranks" in html and "Higher ranks" not in html


def test_today_is_the_date_in_the_configured_zone(make_app: Any) -> None:
    late = datetime(2026, 12, 3, 23, 30, tzinfo=UTC)  # already December 4 in Stockholm
    app = make_app(now=late, timezone="Europe/Stockholm")
    client = app.test_client()
    player_id, headers = new_player(client, "Ana")
    submit(app, player_id, 300, date(2026, 12, 3))
    body = client.get("/api/v1/leaderboards/daily/today", headers=headers).get_json()
    assert body["board"] == "daily/2026-12-04" and body["total"] == 0
    streak = client.get("/api/v1/leaderboards/streak", headers=headers).get_json()
    assert streak["me"]["current"] == 1  # played yesterday, Stockholm time: still alive


def test_a_store_outage_is_a_503(make_app: Any) -> None:
    app = make_app(now=NOON, redis_url="redis://127.0.0.1:1/0")  # nothing listens there
    for url in ("/api/v1/leaderboards/best-day", "/api/v1/daily/2026-12-01/distribution"):
        response = app.test_client().get(url)
        assert response.status_code == 503
        assert response.get_json()["error"]["code"] == "storage_unavailable"


def test_a_count_cut_off_half_way_heals_from_the_game_record(
    at_once: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = at_once.test_client()
    player_id, headers = new_player(client, "Ana")
    state = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers).get_json()
    rows_left = list(state["potential"])
    for row in rows_left[:-1]:
        url = f"/api/v1/games/{state['id']}/score"
        state = client.post(url, json={"category": row}, headers=headers).get_json()

    def cut(*args: object) -> None:
        raise redis.ConnectionError("the store went away between two boards")

    monkeypatch.setattr(board_counts, "count_streak", cut)
    last = {"category": next(iter(state["potential"]))}
    response = client.post(f"/api/v1/games/{state['id']}/score", json=last, headers=headers)
    assert response.status_code == 503
    board = "/api/v1/leaderboards/{}"
    assert client.get(board.format("daily/today")).get_json()["total"] == 1  # counted there
    assert client.get(board.format("streak")).get_json()["total"] == 0  # not there yet
    monkeypatch.undo()
    total = client.get(f"/api/v1/games/{state['id']}", headers=headers).get_json()["total"]
    client.get(f"/api/v1/games/{state['id']}", headers=headers)  # healing twice changes nothing
    for name, score in [
        ("daily/today", total),
        ("best-day", total),
        ("streak", 1),
        ("advent/2026", total),
    ]:
        body = client.get(board.format(name), headers=headers).get_json()
        assert body["total"] == 1 and body["me"]["score"] == score, name
