"""GET /games/<id>/hint on a real Redis: ranked actions in solo and computer games only."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from daily.core import dice
from daily.core.rules import find_ruleset, replay
from daily.service import tables
from daily.store import saved_games
from daily.strategy.hints import hint
from daily.strategy.model import model_of
from daily.tables.loader import table_for
from daily.web.context import current_redis
from daily.web.strategy_answers import action_answer
from tests.web.helpers import SECRET, start


def _json(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(mode="json", exclude_unset=True))


pytestmark = [pytest.mark.redis, pytest.mark.usefixtures("small_tables")]

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


@pytest.fixture
def client(make_app: Any) -> Any:
    return make_app(now=NOW).test_client()


def get_hint(client: Any, game_id: str) -> Any:
    return client.get(f"/api/v1/games/{game_id}/hint")


def test_a_hint_ranks_every_legal_action_like_the_strategy_engine(client: Any) -> None:
    state = start(client, mode="solo", ruleset="yatzy")
    response = get_hint(client, state["id"])
    assert response.status_code == 200
    body = response.get_json()
    assert (body["turn"], body["roll"], body["rolls_left"]) == (1, 1, 2)
    assert body["dice"] == state["dice"]
    actions = body["actions"]
    values = [a["value"] for a in actions]
    assert values == sorted(values, reverse=True)
    assert actions[0]["loss"] == 0
    assert all(a["loss"] == pytest.approx(values[0] - a["value"], abs=1e-3) for a in actions)
    # Every row may be scored on the first roll, and every distinct keep is listed once.
    assert {a["score"] for a in actions if "score" in a} == set(state["scorecard"])
    keeps = [tuple(a["keep"]) for a in actions if "keep" in a]
    assert len(keeps) == len(set(keeps))
    # The same ranking as the pure engine on the replayed game.
    with client.application.app_context():
        record = saved_games.load(current_redis(), state["id"])
    assert record is not None
    source = dice.stream(dice.seed_from_ref(record.seed_ref, SECRET))
    game = replay(find_ruleset("yatzy"), source, [])
    site = tables.site_of(client.application.extensions["daily.config"])
    expected = hint(table_for(model_of(find_ruleset("yatzy")), site), game)
    assert actions == [_json(action_answer(a, game.dice)) for a in expected]


def test_the_best_hold_plays_and_the_next_hint_follows_it(client: Any) -> None:
    state = start(client, mode="solo", ruleset="yatzy")
    best = next(a for a in get_hint(client, state["id"]).get_json()["actions"] if "hold" in a)
    response = client.post(f"/api/v1/games/{state['id']}/roll", json={"hold": best["hold"]})
    assert response.status_code == 200
    held = sorted(response.get_json()["dice"][p] for p in best["hold"])
    assert held == sorted(best["keep"])
    after = get_hint(client, state["id"]).get_json()
    assert (after["roll"], after["rolls_left"]) == (2, 1)


def test_a_computer_game_gets_hints(client: Any) -> None:
    state = start(client, mode="computer", ruleset="yacht", level="easy")
    response = get_hint(client, state["id"])
    assert response.status_code == 200
    assert response.get_json()["actions"][0]["loss"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"mode": "daily"},
        {"mode": "friend", "ruleset": "yatzy"},
        {"mode": "party", "ruleset": "yatzy", "players": ["Ana", "Bo"]},
    ],
    ids=["daily", "friend", "party"],
)
def test_ranked_and_party_games_get_no_hints(client: Any, body: dict[str, Any]) -> None:
    state = start(client, **body)
    response = get_hint(client, state["id"])
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == "hints_not_allowed"


def test_a_finished_game_gets_no_hint(client: Any) -> None:
    state = start(client, mode="solo", ruleset="yacht")
    while not state["finished"]:
        row = next(iter(state["potential"]))
        state = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row}).get_json()
    assert get_hint(client, state["id"]).status_code == 409


def test_another_players_game_is_not_found(client: Any, make_app: Any) -> None:
    state = start(client, mode="solo", ruleset="yatzy")
    stranger = make_app(now=NOW).test_client()
    assert get_hint(stranger, state["id"]).status_code == 404


@pytest.mark.parametrize(
    ("options", "command"),
    [({}, "`daily solve maxi`"), ({"bonus": "50@75"}, "`daily solve maxi --option bonus=50@75`")],
    ids=["default", "bonus"],
)
def test_maxi_not_built_by_the_service_names_the_command(
    client: Any, options: dict[str, Any], command: str
) -> None:
    state = start(client, mode="solo", ruleset="maxi", options=options)
    response = get_hint(client, state["id"])
    assert response.status_code == 503
    error = response.get_json()["error"]
    assert error["code"] == "strategy_table_missing"
    assert command in error["message"]


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ({"mode": "solo", "ruleset": "yatzy"}, True),
        ({"mode": "daily"}, False),
        ({"mode": "friend", "ruleset": "yatzy"}, False),
    ],
    ids=["solo", "daily", "friend"],
)
def test_the_best_move_button_only_where_hints_are_allowed(
    client: Any, body: dict[str, Any], shown: bool
) -> None:
    state = start(client, **body)
    html = client.get(f"/play/{state['id']}").get_data(as_text=True)
    assert ('id="hint"' in html) is shown
    assert ('id="hints"' in html) is shown


@pytest.mark.one_redis
@pytest.mark.slow
def test_a_missing_table_builds_once_in_the_background_then_hints(
    make_app: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DAILY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("DAILY_TABLES", "yatzy")
    # Two apps (two server processes' worth) on one Redis and one cache folder.
    one, two = (make_app(now=NOW).test_client() for _ in range(2))
    games = [start(client, mode="solo", ruleset="yatzy")["id"] for client in (one, two)]
    started = time.monotonic()
    answers = [get_hint(one, games[0]), get_hint(two, games[1])]
    # Neither request waited for the build: each answered at once, 503 with the progress.
    assert time.monotonic() - started < 5
    for response in answers:
        assert response.status_code == 503
        assert 2 <= int(response.headers["Retry-After"]) <= 60
        error = response.get_json()["error"]
        assert error["code"] == "strategy_table_building"
        assert 0 <= error["progress"]["percent"] < 100
        assert error["retry_after"] == int(response.headers["Retry-After"])
    health = one.get("/healthz").get_json()["tables"]
    assert health[0]["ruleset"] == "yatzy" and health[0]["state"] in ("missing", "building")
    while (response := get_hint(two, games[1])).status_code == 503:
        assert response.get_json()["error"]["code"] == "strategy_table_building"
        assert time.monotonic() - started < 300, "the background build never finished"
        time.sleep(0.2)
    assert response.status_code == 200
    assert get_hint(one, games[0]).status_code == 200
    assert one.get("/healthz").get_json()["tables"][0]["state"] == "ready"
    # Every builder that was started has ended: one built the table, any other found it.
    time.sleep(0.5)
    out = capfd.readouterr().out
    assert out.count("yatzy: built in ") == 1
    assert "yatzy: already built" in out or out.count("yatzy:") == 1
