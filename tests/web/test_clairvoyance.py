"""The scouting attack through the API on a real Redis: held off the board, shown as under
review to its player, then released by the operator's ``daily review`` (counted once).

One scout account per hold pattern (31 for five dice) plays the friend code first, each
re-rolling its pattern at every turn's first roll and scoring at once: together they have
seen every first re-roll of every turn, since a turn's dice depend only on its holds. A
clean account then plays the line those re-rolls show, the second re-roll honestly.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from daily import cli
from daily.rules import Hold, Move, Roll, Score, find_ruleset, replay
from daily.store import games, keys
from daily.strategy import clairvoyant, luck
from daily.strategy.hints import hint
from daily.strategy.solver import Table, load_table
from tests.web.helpers import SECRET, play_daily

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
#: A fixed code, so the dice (and the scouting line's luck, 5.7) are the same on every run.
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


def send(client: Any, headers: dict[str, str], game: str, move: Move) -> dict[str, Any]:
    if isinstance(move, Roll):
        return post(client, headers, f"/games/{game}/roll", hold=list(move.hold))
    return post(client, headers, f"/games/{game}/score", category=move.row)


def scout(client: Any, number: int, hold: Hold, seen: dict[tuple[int, Hold], Dice]) -> None:
    """Plays the code re-rolling *hold* at every first roll; notes each re-roll's dice."""
    who = new_player(client, f"Scout {number}")
    state = post(client, who, "/games", mode="friend", code=CODE)
    while not state["finished"]:
        turn = state["turn"]
        state = send(client, who, state["id"], Roll(hold))
        seen[(turn, hold)] = tuple(state["dice"])
        state = send(client, who, state["id"], Score(next(iter(state["potential"]))))


def planned_line(client: Any, who: dict[str, str], table: Table, seen: dict[Any, Dice]) -> Any:
    """Plays the code on the scouts' knowledge; the final state."""
    state = post(client, who, "/games", mode="friend", code=CODE)
    dealt: dict[tuple[int, tuple[Hold, ...]], Dice] = {}
    moves: list[Move] = []
    while not state["finished"]:
        turn, holds = state["turn"], tuple(m.hold for m in _this_turn(moves))
        dealt[(turn, holds)] = tuple(state["dice"])
        game = replay(YATZY, lambda t, h, n: dealt[(t, h)], moves)
        if game.roll == 1:
            known = {h: seen[(turn, h)] for h in clairvoyant.patterns(YATZY.dice)}
            move = clairvoyant.scout_move(table, game, known)
        else:
            move = hint(table, game)[0].move(game.dice)
        state = send(client, who, state["id"], move)
        moves.append(move)
    return state


def _this_turn(moves: list[Move]) -> list[Roll]:
    start = max((i + 1 for i, m in enumerate(moves) if isinstance(m, Score)), default=0)
    return [m for m in moves[start:] if isinstance(m, Roll)]


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
    monkeypatch.setattr(games, "new_code", lambda: CODE)
    table = load_table(YATZY, small_tables)
    client = make_app(now=NOON, metrics_token="scrape-token").test_client()
    held_before = held_count(client)
    ana = new_player(client, "Ana")
    assert post(client, ana, "/games", mode="friend", ruleset="yatzy")["code"] == "K7P2-QX9D"

    seen: dict[tuple[int, Hold], Dice] = {}
    for number, hold in enumerate(clairvoyant.patterns(YATZY.dice)):
        scout(client, number, hold, seen)
    assert len(seen) == 31 * 15
    cy = new_player(client, "Cy")
    final = planned_line(client, cy, table, seen)

    assert final["total"] > table.optimum + 60
    assert final["review"] == "held" and final["rank"] is None
    assert held_count(client) == held_before + 1
    assert final["board"] == f"friend/{CODE}"
    board = client.get(f"/api/v1/leaderboards/friend/{CODE}?limit=100", headers=cy).get_json()
    names = [entry["name"] for entry in board["entries"]]
    assert "Cy" not in names and len(names) == 31 and board["me"] is None
    again = client.get(f"/api/v1/games/{final['id']}", headers=cy).get_json()
    assert again["review"] == "held"
    assert luck.threshold_for(YATZY) < 5.5  # the line's luck, 5.7, is past it

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
    assert len(board["entries"]) == 32


def test_a_held_daily_says_so_on_todays_page_and_in_its_state(make_app: Any) -> None:
    # Tests never build maxi, so the daily counts and waits for its table; the operator's
    # hold is then forged in the store as the review would write it.
    app = make_app(now=NOON)
    client = app.test_client()
    final = play_daily(client)
    assert final["review"] is None and final["rank"] == 1
    app.extensions["daily.redis"].hset(keys.game(final["id"]), "review", "held")
    state = client.get(f"/api/v1/games/{final['id']}").get_json()
    assert state["review"] == "held"
    page = client.get("/").get_data(as_text=True)
    assert "Under review: this game is kept off the rankings" in page
    german = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "In Prüfung" in german
