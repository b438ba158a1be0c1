"""Party mode: two to four named players on one device, over the API and on /party."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from daily.core import dice, party
from daily.core.rules import Move, Roll, Score, find_ruleset, replay
from daily.core.verify import verify
from daily.store import saved_games
from daily.web.context import current_redis
from tests.web.helpers import merged

pytestmark = pytest.mark.redis

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


@pytest.fixture
def client(make_app: Any) -> Any:
    return make_app(now=NOW).test_client()


def start(client: Any, **body: Any) -> Any:
    return client.post("/api/v1/games", json={"mode": "party", **body})


def play_to_end(client: Any, state: dict[str, Any], reroll: bool = True) -> list[dict[str, Any]]:
    """Plays every player's turns in order (one re-roll holding the first die); every state."""
    seen = [state]
    while not state["finished"]:
        if reroll and state["roll"] == 1:
            response = client.post(f"/api/v1/games/{state['id']}/roll", json={"hold": [0]})
        else:
            row = max(state["potential"], key=state["potential"].get)
            response = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row})
        assert response.status_code == 200, response.get_json()
        state = merged(state, response.get_json())
        seen.append(state)
    return seen


def test_a_party_game_runs_turn_by_turn_to_a_winner(client: Any, make_app: Any) -> None:
    response = start(client, ruleset="yatzy", players=["Ana", "Bo", "Cy"])
    assert response.status_code == 201
    state = response.get_json()
    assert state["mode"] == "party" and state["current"] == 0 and state["winners"] is None
    assert [p["name"] for p in state["players"]] == ["Ana", "Bo", "Cy"]
    assert all(p["total"] == 0 and "dice" not in p for p in state["players"])
    seen = play_to_end(client, state)
    # A turn each in order: the player to move changes only after a score, to the next one.
    movers = [s["current"] for s in seen[:-1]]
    rows = len(find_ruleset("yatzy").rows)
    assert movers == [turn % 3 for turn in range(3 * rows) for _ in range(2)]
    moves = client.get(f"/api/v1/games/{state['id']}").get_json()["moves"]
    for shown in seen[:-1]:  # the turn shown is the player to move's: rounds done plus one
        played = moves[: shown["move_count"]]
        assert shown["turn"] == sum(1 for m in played if "score" in m) // 3 + 1
    final = seen[-1]
    assert final["current"] is None and final["finished"]
    totals = [p["total"] for p in final["players"]]
    assert all(p["finished"] and None not in p["scorecard"].values() for p in final["players"])
    assert final["winners"] == [i for i, t in enumerate(totals) if t == max(totals)]
    # Each player's sheet replays alone from the seed mixed with their index.
    with make_app(now=NOW).app_context():
        record = saved_games.load(current_redis(), final["id"])
    assert record is not None and record.finished and record.total == max(totals)
    seed = dice.seed_from_ref(record.seed_ref, "test-secret-" + "x" * 32)
    for index, player in enumerate(final["players"]):
        own = [m for i, m in enumerate(record.moves) if _mover(record.moves, i, 3) == index]
        source = dice.stream(party.player_seed(seed, index), dice.CURRENT)
        sheet = replay(find_ruleset("yatzy"), source, own)
        assert sheet.scorecard() == player["scorecard"] and sheet.total == player["total"]
    assert (
        client.post(f"/api/v1/games/{final['id']}/score", json={"category": "chance"}).status_code
        == 409
    )
    # The record names the players, and `daily verify` replays it to the same sheets.
    published = client.get(f"/api/v1/games/{final['id']}/record").get_json()
    assert published["players"] == ["Ana", "Bo", "Cy"] and published["total"] == max(totals)
    verified = verify(json.dumps(published))
    assert isinstance(verified, party.Party)
    assert [sheet.total for sheet in verified.sheets] == totals


def _mover(moves: tuple[Move, ...], index: int, players: int) -> int:
    return sum(1 for m in moves[:index] if isinstance(m, Score)) % players


def test_players_have_their_own_dice() -> None:
    ruleset = find_ruleset("maxi")
    game = party.new_party(ruleset, ["Ana", "Bo"], bytes(32))
    assert game.sheets[0].dice != game.sheets[1].dice
    # Bo's dice do not depend on what Ana held.
    held = party.play(party.play(game, Roll((0, 1))), Score("chance"))
    other = party.play(party.play(game, Roll((2,))), Score("chance"))
    assert held.current == other.current == 1 and held.state.dice == other.state.dice


def test_equal_totals_are_a_tie() -> None:
    ruleset = find_ruleset("yacht")
    game = party.new_party(ruleset, ["Ana", "Bo"], bytes(32))
    assert game.winners == ()
    for row in [r.id for r in ruleset.rows for _ in range(2)]:  # Ana, then Bo, row by row
        game = party.play(game, Score(row))
    assert game.is_finished and game.current == 0
    totals = [sheet.total for sheet in game.sheets]
    expected = tuple(i for i, t in enumerate(totals) if t == max(totals))
    assert game.winners == expected
    tied = party.Party(game.names, (game.sheets[0], game.sheets[0]), 0)
    assert tied.winners == (0, 1)
    with pytest.raises(Exception, match="over"):
        party.play(game, Score("chance"))


def test_options_apply_to_every_sheet(client: Any) -> None:
    response = start(client, ruleset="yatzy", options={"forced": True}, players=["A", "B"])
    assert response.status_code == 201, response.get_json()
    state = response.get_json()
    assert state["options"]["forced"] is True
    assert list(state["potential"]) == ["ones"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"players": ["Ana"]}, "2 to 4 names"),
        ({"players": ["A", "B", "C", "D", "E"]}, "2 to 4 names"),
        ({"players": "Ana, Bo"}, "2 to 4 names"),
        ({"players": ["Ana", "ana"]}, "two players are named"),
        ({"players": ["Ana", ""]}, "1 to 24"),
        ({"players": ["Ana", 7]}, "must be a string"),
        ({}, "missing field: 'players'"),
        ({"players": ["Ana", "Bo"], "ruleset": "nope"}, "nope"),
        ({"players": ["Ana", "Bo"], "code": "K7P2-QX9D"}, "unknown field: 'code'"),
    ],
)
def test_bad_party_requests_are_refused_and_store_nothing(
    client: Any, make_app: Any, body: dict[str, Any], words: str
) -> None:
    response = start(client, **body)
    assert response.status_code == 400
    assert words in response.get_json()["error"]["message"]
    me = client.get("/api/v1/players/me").get_json()["player_id"]
    with make_app(now=NOW).app_context():
        assert saved_games.games_of(current_redis(), me) == []


def test_a_party_game_is_its_devices_only(client: Any, make_app: Any) -> None:
    state = start(client, players=["Ana", "Bo"]).get_json()
    other = make_app(now=NOW).test_client()
    assert other.get(f"/api/v1/games/{state['id']}").status_code == 404
    assert other.get(f"/party/{state['id']}").status_code == 404


def test_party_pages(client: Any) -> None:
    page = client.get("/party")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'data-page="party"' in text and 'id="party-setup"' in text
    state = start(client, ruleset="yacht", players=["Ana", "Bo"]).get_json()
    page = client.get(f"/party/{state['id']}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Ana" in text and "Bo" in text and 'data-player="1" title="Bo"' in text
    moved = client.get(f"/play/{state['id']}")  # a party game's page is /party/<id>
    assert moved.status_code == 302 and moved.location == f"/party/{state['id']}"
    solo = client.post("/api/v1/games", json={"mode": "solo"}).get_json()
    assert client.get(f"/party/{solo['id']}").status_code == 404
