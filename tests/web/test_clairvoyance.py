"""Foresight through the API on a real Redis: held off the board, shown as under review to
its player, then released by the operator's ``daily review`` (counted once).

Round two's scouting (one account per hold pattern, re-rolling it at every turn) showed every
first re-roll of the day on dice stream v1; on v2 a re-roll depends on the whole path, so what
a scout sees past turn 1 is its own game's, no one else's. A line played with the seed itself
(every re-roll foreseen) stands for what full scouting would show, and is held.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from daily import cli
from daily.core import dice
from daily.core.rules import Hold, Move, Roll, Score, find_ruleset
from daily.service import reviews
from daily.store import friend_codes
from daily.strategy import clairvoyant, luck
from daily.strategy.model import model_of
from daily.tables.loader import load_table
from tests.built_tables import site
from tests.web.helpers import SECRET, play_daily

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
#: A fixed code, so the dice (and the foreseeing line's luck) are the same on every run.
CODE = "K7P2QX9D"
YATZY = find_ruleset("yatzy")
Dice = tuple[int, ...]


def new_player(client: Any, name: str) -> dict[str, str]:
    response = client.post("/api/v1/players", json={"name": name})
    assert response.status_code == 201
    return {"Authorization": f"Bearer {response.get_json()['token']}"}


def post(client: Any, headers: dict[str, str], path: str, **body: Any) -> dict[str, Any]:
    response = client.post(f"/api/v1{path}", json=body, headers=headers)
    assert response.status_code in (200, 201), response.get_json()
    return dict(response.get_json())


def send(
    client: Any, headers: dict[str, str], game: str, step: Move, **index: int
) -> dict[str, Any]:
    if isinstance(step, Roll):
        return post(client, headers, f"/games/{game}/roll", hold=list(step.hold), **index)
    return post(client, headers, f"/games/{game}/score", category=step.row, **index)


def scout(client: Any, number: int, hold: Hold, first: str) -> list[Dice]:
    """Plays the code scoring *first* on turn 1, then re-rolling *hold* at every first roll;
    the dice of each re-roll."""
    who = new_player(client, f"Scout {number}")
    state = post(client, who, "/games", mode="friend", code=CODE)
    state = send(client, who, state["id"], Score(first))
    seen = []
    while not state["finished"]:
        state = send(client, who, state["id"], Roll(hold))
        seen.append(tuple(state["dice"]))
        state = send(client, who, state["id"], Score(next(iter(state["potential"]))))
    return seen


def held_count(client: Any) -> float:
    """The metrics endpoint's count of friend games held for review."""
    scrape = client.get("/metrics", headers={"Authorization": "Bearer scrape-token"})
    for family in text_string_to_metric_families(scrape.get_data(as_text=True)):
        for sample in family.samples:
            if sample.name == "daily_games_held_for_review_total" and sample.labels == {
                "mode": "friend"
            }:
                return sample.value
    return 0.0


def test_the_scouting_line_is_held_for_review_then_released_once(
    make_app: Any,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    small_tables: Path,
) -> None:
    monkeypatch.setattr(friend_codes, "dated_code", lambda made: CODE)
    table = load_table(model_of(YATZY), site(small_tables))
    client = make_app(now=NOON, metrics_token="scrape-token").test_client()
    held_before = held_count(client)
    ana = new_player(client, "Ana")
    assert post(client, ana, "/games", mode="friend", ruleset="yatzy")["code"] == "K7P2-QX9D"

    # Two scouts hold the same pattern every turn but scored different rows on turn 1: on v1
    # they saw the same re-rolls, on v2 each saw its own path's.
    hold = (0, 1)
    one, other = scout(client, 1, hold, "chance"), scout(client, 2, hold, "yatzy")
    assert sum(a != b for a, b in zip(one, other, strict=True)) >= 10  # of 14 re-rolls
    cy = new_player(client, "Cy")
    source = dice.stream(dice.friend_seed(SECRET, CODE), dice.CURRENT)
    line = clairvoyant.play(table, source, range(1, len(YATZY.rows) + 1)).moves
    final = post(client, cy, "/games", mode="friend", code=CODE)
    for move in line:  # indexed, as the play page sends its moves
        final = send(client, cy, final["id"], move, move=final["move_count"])

    assert final["total"] > table.optimum + 60
    assert final["review"] == "held" and final["rank"] is None
    assert held_count(client) == held_before + 1
    assert final["board"] == f"friend/{CODE}"
    board = client.get(f"/api/v1/leaderboards/friend/{CODE}?limit=100", headers=cy).get_json()
    names = [entry["name"] for entry in board["entries"]]
    assert "Cy" not in names and len(names) == 2 and board["me"] is None
    again = client.get(f"/api/v1/games/{final['id']}", headers=cy).get_json()
    assert again["review"] == "held"
    assert luck.check(table, source, line).score >= luck.THRESHOLD

    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("SECRET_KEY", SECRET)
    assert cli.main(["review", "list"]) == 0
    listed = capsys.readouterr().out
    assert final["id"] in listed and "1 held for review" in listed
    assert cli.main(["review", "release", final["id"]]) == 0
    assert cli.main(["review", "release", final["id"]]) == 2
    released = client.get(f"/api/v1/games/{final['id']}", headers=cy).get_json()
    assert released["review"] is None and released["rank"] == 1
    board = client.get(f"/api/v1/leaderboards/friend/{CODE}?limit=100", headers=cy).get_json()
    assert [entry["name"] for entry in board["entries"]].count("Cy") == 1
    assert len(board["entries"]) == 3


def test_a_held_daily_says_so_on_todays_page_and_in_its_state(make_app: Any) -> None:
    # Tests never build maxi, so the daily counts and waits for its table; an operator then
    # holds it by hand (`daily review hold`), as a player's report would have them do.
    app = make_app(now=NOON)
    client = app.test_client()
    final = play_daily(client)
    assert final["review"] is None and final["standing"]["place"] == 1
    with app.app_context():
        reviews.hold(app.extensions["daily.redis"], app.extensions["daily.config"], final["id"])
    state = client.get(f"/api/v1/games/{final['id']}").get_json()
    assert state["review"] == "held"
    page = client.get("/").get_data(as_text=True)
    assert "Under review: this game is kept off the rankings" in page
    german = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "In Prüfung" in german
    # Everywhere else its score appears it is marked, and no figure counts it.
    history = client.get("/me/history").get_data(as_text=True)
    assert f'{final["total"]} <span class="tag-held">under review</span>' in history
    me = client.get("/api/v1/players/me").get_json()
    assert me["figures"]["days"] == 0 and me["figures"]["best"] is None, me
