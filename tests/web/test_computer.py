"""Computer mode over the API on a real Redis: the computer's turns, sheet, winner and record."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from daily.core import dice
from daily.core.record import Record
from daily.core.rules import Roll, Score, apply, find_ruleset, new_game, parse_move, replay
from daily.core.verify import verify
from daily.service import tables
from daily.store import keys, saved_games
from daily.strategy import computer
from daily.strategy.bots import LEVELS, play_games
from daily.strategy.model import model_of
from daily.tables.files import holding
from daily.tables.loader import table_for
from daily.web.context import current_redis
from tests.built_tables import site
from tests.web.helpers import merged

pytestmark = [pytest.mark.redis, pytest.mark.usefixtures("small_tables")]

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)
SECRET = "test-secret-" + "x" * 32


@pytest.fixture
def app(make_app: Any) -> Any:
    return make_app(now=NOW)


def start(client: Any, **body: Any) -> Any:
    return client.post("/api/v1/games", json={"mode": "computer", **body})


def score_best(client: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Scores the row worth most now (no re-rolls): a quick, legal, sensible move."""
    row = max(state["potential"], key=state["potential"].get)
    response = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row})
    assert response.status_code == 200, response.get_json()
    return merged(state, response.get_json())


def stored(app: Any, game_id: str) -> Record:
    with app.app_context():
        record = saved_games.load(current_redis(), game_id)
    assert record is not None
    return record


def source_of(record: Record) -> Any:
    return record.source(SECRET)


def test_a_new_game_shows_the_computer_before_its_first_turn(app: Any) -> None:
    response = start(app.test_client(), ruleset="yatzy", level="hard")
    assert response.status_code == 201
    state = response.get_json()
    assert state["mode"] == "computer"
    them = state["computer"]
    assert (them["level"], them["engine"], them["turns"], them["total"]) == ("hard", "exact", 0, 0)
    assert them["last_turn"] == [] and set(them["scorecard"].values()) == {None}
    assert "dice" not in them  # only the player's dice are on the table
    assert state["winner"] is None


def test_the_computer_plays_each_turn_after_yours_on_the_same_first_roll(app: Any) -> None:
    client = app.test_client()
    state = start(client, ruleset="yatzy", level="expert").get_json()
    first_roll = state["dice"]
    state = score_best(client, state)
    them = state["computer"]
    assert them["turns"] == 1
    assert sum(v is not None for v in them["scorecard"].values()) == 1
    steps = them["last_turn"]
    assert steps[0]["dice"] == first_roll  # the same first roll as the player's
    assert "score" in steps[-1] and all("hold" in s for s in steps[:-1])
    assert them["scorecard"][steps[-1]["score"]] == steps[-1]["points"]
    # The stored moves replay on the game's own dice to the sheet shown.
    record = stored(app, state["id"])
    moves = record.computer_moves
    assert replay(record.rules, source_of(record), moves).scorecard() == them["scorecard"]


def test_the_expert_plays_the_optimal_game_on_your_dice(app: Any) -> None:
    client = app.test_client()
    state = start(client, ruleset="yatzy", level="expert").get_json()
    while not state["finished"]:
        state = score_best(client, state)
    record = stored(app, state["id"])
    table = table_for(
        model_of(find_ruleset("yatzy")), tables.site_of(app.extensions["daily.config"])
    )
    best = play_games(table, LEVELS["expert"], [source_of(record)], np.random.default_rng(0))[0]
    assert state["computer"]["total"] == best.state.total
    assert state["computer"]["scorecard"] == best.state.scorecard()
    assert list(record.computer_moves) == list(best.moves)


def test_a_finished_game_names_the_winner(app: Any) -> None:
    client = app.test_client()
    state = start(client, ruleset="yacht", level="easy").get_json()
    while not state["finished"]:
        state = score_best(client, state)
    them = state["computer"]
    assert them["finished"] and them["turns"] == len(them["scorecard"])
    expected = "tie" if state["total"] == them["total"] else "you"
    if them["total"] > state["total"]:
        expected = "computer"
    assert state["winner"] == expected
    record = client.get(f"/api/v1/games/{state['id']}/record").get_json()
    assert record["computer"]["level"] == "easy"
    assert verify(json.dumps(record)).total == state["total"]  # `daily verify` reads it
    rules = find_ruleset("yacht")
    moves = tuple(parse_move(entry) for entry in record["computer"]["moves"])
    assert replay(rules, source_of(stored(app, state["id"])), moves).total == them["total"]


def test_the_computers_moves_are_derived_again_the_same_when_lost(app: Any) -> None:
    client = app.test_client()
    state = start(client, ruleset="yatzy", level="medium").get_json()
    for _ in range(3):
        state = score_best(client, state)
    before = state["computer"]
    with app.app_context():  # a crash lost the computer's moves: they are derived again
        current_redis().hdel(keys.game(state["id"]), "c")  # the computer's moves
    again = client.get(f"/api/v1/games/{state['id']}").get_json()["computer"]
    assert again == before
    assert stored(app, state["id"]).computer_moves == ()  # a read writes no game state
    after = score_best(client, state)["computer"]  # the next move stores them again
    assert after["turns"] == before["turns"] + 1
    moves = stored(app, state["id"]).computer_moves
    assert sum(isinstance(move, Score) for move in moves) == after["turns"]


def test_levels_draw_from_the_game_id_and_turn(small_tables: Path) -> None:
    rules = find_ruleset("yatzy")
    table = table_for(model_of(rules), site(small_tables))
    source = dice.stream(bytes(32))
    one = computer.catch_up(table, LEVELS["easy"], source, "game-a", (), 15)
    assert one == computer.catch_up(table, LEVELS["easy"], source, "game-a", (), 15)
    # Played in steps, turn by turn, it is the same game as played in one go.
    steps: tuple[Any, ...] = ()
    for turns in range(1, 16):
        steps = computer.catch_up(table, LEVELS["easy"], source, "game-a", steps, turns)
    assert steps == one
    others = {computer.catch_up(table, LEVELS["easy"], source, f"g{i}", (), 15) for i in range(4)}
    assert len(others) > 1  # Easy draws: other game ids, other slips


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"ruleset": "yatzy", "level": "godlike"}, "level must be one of"),
        ({"ruleset": "yatzy", "level": 3}, "level must be one of"),
        ({"ruleset": "yatzy", "options": {"saved_rolls": True}}, "saved_rolls"),
        ({"ruleset": "chess"}, "chess"),
        ({"ruleset": "yatzy", "players": ["A", "B"]}, "unknown field"),
    ],
    ids=["level", "level-type", "saved-rolls", "ruleset", "field"],
)
def test_bad_starts_are_refused_and_store_nothing(app: Any, body: Any, message: str) -> None:
    client = app.test_client()
    response = start(client, **body)
    me = client.get("/api/v1/players/me").get_json()["player_id"]  # the guest it made
    assert response.status_code == 400
    assert message in response.get_json()["error"]["message"]
    with app.app_context():
        assert saved_games.games_of(current_redis(), me) == []


def test_maxi_without_its_table_plays_the_heuristic(app: Any) -> None:
    client = app.test_client()
    state = start(client, level="expert").get_json()
    assert state["ruleset"] == "maxi"
    assert state["computer"]["engine"] == "heuristic"
    state = score_best(client, state)
    assert state["computer"]["turns"] == 1
    hint = client.get(f"/api/v1/games/{state['id']}/hint")
    assert hint.status_code == 503  # hints are exact or nothing
    assert hint.get_json()["error"]["code"] == "strategy_table_missing"


def test_the_heuristic_plays_only_legal_moves_and_keeps_sensibly() -> None:
    rules = find_ruleset("maxi")
    table = computer.heuristic_table(rules)
    sources = [dice.stream(bytes([i]) * 32) for i in range(40)]
    played = play_games(table, LEVELS["expert"], sources, np.random.default_rng(0))
    for game, source in zip(played, sources, strict=True):
        state = new_game(rules, source)
        for move in game.moves:  # the rules engine accepts every move in turn
            assert isinstance(move, Roll | Score)
            state = apply(state, move)
        assert state == game.state and state.is_finished
    # Greedy scoring with no re-rolls averages well under 300 on maxi; the heuristic does not.
    assert np.mean([game.state.total for game in played]) > 330


def test_the_computer_page_offers_every_ruleset_and_level(app: Any) -> None:
    page = app.test_client().get("/computer")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for ruleset in ("maxi", "yatzy", "yacht", "yahtzee"):
        assert f'data-mode="computer" data-ruleset="{ruleset}"' in html
    for level in ("easy", "medium", "hard", "expert"):
        assert f'<option value="{level}"' in html
    assert 'name="saved_rolls"' not in html  # the computer cannot play banked rolls


def test_a_computer_games_play_page_has_both_sheets_and_hints(app: Any) -> None:
    client = app.test_client()
    state = start(client, ruleset="yatzy").get_json()
    html = client.get(f"/play/{state['id']}").get_data(as_text=True)
    # Two labelled columns, each with a cell per row and per sum (upper, bonus, extra, total).
    assert '<th scope="col" class="num" data-player="1" title="Computer">' in html
    assert html.count('data-cell="1"') == len(state["scorecard"]) + 4
    assert 'id="opponent"' in html and 'id="hint"' in html


@pytest.mark.parametrize(
    ("language", "title", "level"),
    [("de", "Gegen den Computer", "Experte"), ("ja", "コンピューターと対戦", "エキスパート")],
    ids=["de", "ja"],
)
def test_the_computer_page_speaks_the_players_language(
    app: Any, language: str, title: str, level: str
) -> None:
    client = app.test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    html = client.get("/computer").get_data(as_text=True)
    assert title in html and level in html
    assert "Play the computer" not in html and ">Expert<" not in html


def test_the_computer_page_says_when_the_exact_computer_is_being_built(
    app: Any, make_app: Any, tmp_path: Path
) -> None:
    assert "data-wait=" not in app.test_client().get("/computer").get_data(as_text=True)
    client = make_app(now=NOW, cache_dir=tmp_path).test_client()  # maxi being built there:
    with holding(model_of(find_ruleset("maxi")), tmp_path):
        html = client.get("/computer").get_data(as_text=True)
        # The script reloads the page in 5 s (no estimate yet) unless the player is choosing.
        assert html.count("data-wait=") == 1 and 'data-wait="maxi" data-refresh="5"' in html
        assert "The exact computer will be ready in about 1 minute." in html
        assert "play now against the heuristic computer" in html
        # Playing now: the heuristic, named as such in the game's state and on its page.
        state = start(client, level="expert").get_json()
        assert state["computer"]["engine"] == "heuristic"
        play = client.get(f"/play/{state['id']}").get_data(as_text=True)
        assert 'data-engine="heuristic"' in play
        assert "The heuristic computer plays this game" in play


def test_the_play_page_names_the_exact_computer(app: Any) -> None:
    client = app.test_client()
    state = start(client, ruleset="yatzy", level="expert").get_json()
    assert state["computer"]["engine"] == "exact"
    play = client.get(f"/play/{state['id']}").get_data(as_text=True)
    assert 'data-engine="exact"' in play and "The exact computer plays this game." in play
