"""GET /games/<id>/analysis on a real Redis: each decision valued, the total lost, the Expert."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from daily.core import dice
from daily.core.rules import find_ruleset
from daily.strategy.bots import LEVELS, play_games
from daily.strategy.model import model_of
from daily.strategy.solver import Table, fill
from daily.tables import background
from daily.tables.files import holding, table_path
from tests.built_tables import seal
from tests.web.helpers import LIMITS_OFF, SECRET, start

pytestmark = [pytest.mark.redis, pytest.mark.usefixtures("small_tables")]

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


@pytest.fixture
def client(make_app: Any) -> Any:
    # Hints and moves at a script's pace: the limits off (tests/web/test_limits.py's subject).
    return make_app(now=NOW, rate_limits=LIMITS_OFF).test_client()


def move(client: Any, game_id: str, action: dict[str, Any], index: int) -> dict[str, Any]:
    # Numbered, as the pages do: the same keep twice running is two moves, not a duplicate.
    if "score" in action:
        body: dict[str, Any] = {"category": action["score"], "move": index}
        response = client.post(f"/api/v1/games/{game_id}/score", json=body)
    else:
        body = {"hold": action["hold"], "move": index}
        response = client.post(f"/api/v1/games/{game_id}/roll", json=body)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def play_hasty(client: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Never re-rolls and scores the first open row: a legal game that gives points away."""
    while not state["finished"]:
        state = move(
            client, state["id"], {"score": next(iter(state["potential"]))}, state["move_count"]
        )
    return dict(client.get(f"/api/v1/games/{state['id']}").get_json())


def analysis_of(client: Any, game_id: str) -> Any:
    return client.get(f"/api/v1/games/{game_id}/analysis")


def test_a_hasty_game_loses_points_at_its_decisions(client: Any) -> None:
    state = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    response = analysis_of(client, state["id"])
    assert response.status_code == 200
    body = response.get_json()
    decisions = body["decisions"]
    assert len(decisions) == len(state["moves"]) == 15
    assert body["total"] == state["total"]
    assert body["optimum"] == pytest.approx(248.44, abs=0.01)
    assert body["lost"] == pytest.approx(sum(d["loss"] for d in decisions), abs=1e-3)
    assert body["lost"] > 20  # scoring the first open row on every first roll is poor play
    for decision, played in zip(decisions, state["moves"], strict=True):
        assert decision["played"]["score"] == played["score"]
        assert decision["best"]["value"] >= decision["played"]["value"]
        assert decision["loss"] == pytest.approx(
            decision["best"]["value"] - decision["played"]["value"], abs=1e-3
        )


def test_following_the_hints_loses_nothing(client: Any) -> None:
    state = start(client, mode="solo", ruleset="yacht")
    while not state["finished"]:
        best = client.get(f"/api/v1/games/{state['id']}/hint").get_json()["actions"][0]
        state = move(client, state["id"], best, state["move_count"])
    body = analysis_of(client, state["id"]).get_json()
    assert body["lost"] == pytest.approx(0, abs=1e-3)
    assert {d["loss"] for d in body["decisions"]} == {0}
    assert any("keep" in d["played"] for d in body["decisions"])  # it re-rolled too


def test_a_computer_game_analyses_both_sides(client: Any) -> None:
    state = play_hasty(client, start(client, mode="computer", ruleset="yatzy", level="expert"))
    body = analysis_of(client, state["id"]).get_json()
    assert body["lost"] > 0
    theirs = body["computer"]
    assert theirs["total"] == state["computer"]["total"]
    assert theirs["lost"] == pytest.approx(0, abs=1e-3)  # the Expert plays the best moves


def test_an_unfinished_game_is_a_conflict(client: Any) -> None:
    state = start(client, mode="solo", ruleset="yatzy")
    response = analysis_of(client, state["id"])
    assert response.status_code == 409


def test_a_saved_rolls_game_answers_no_strategy(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Banked rolls are rules no table values: the documented 409, on the shipped limits and
    with Maxi among the tables the service builds (the build limit's check of the banked
    rules' table raised first: a 400 ``invalid_move``)."""
    monkeypatch.setattr(background, "start", lambda models, site: False)  # maxi: minutes
    client = make_app(now=NOW, table_specs=("maxi",)).test_client()
    banked = {"saved_rolls": True}
    state = play_hasty(client, start(client, mode="solo", ruleset="maxi", options=banked))
    response = analysis_of(client, state["id"])
    assert response.status_code == 409, response.get_json()
    assert response.get_json()["error"]["code"] == "no_strategy"
    assert client.get(f"/play/{state['id']}/analysis").status_code == 409


def test_maxi_without_its_table_names_the_command(client: Any) -> None:
    state = play_hasty(client, start(client, mode="solo", ruleset="maxi"))
    response = analysis_of(client, state["id"])
    assert response.status_code == 503
    assert "`daily solve maxi`" in response.get_json()["error"]["message"]


@pytest.fixture
def maxi_end_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Table:
    """A maxi table with only the states of one or two open rows solved, in its own cache.

    Building the whole table takes minutes; the daily analysis only needs a table in place
    (the values of the earlier states are zero, so the tests check the plumbing, not them).
    """
    model = model_of(find_ruleset("maxi"))
    path = table_path(model_of(model.ruleset), tmp_path)
    np.lib.format.open_memmap(path, mode="w+", dtype=model.dtype, shape=model.shape)
    fill(model, path, range(1, 3))
    seal(tmp_path, model.ruleset)
    monkeypatch.setenv("DAILY_CACHE", str(tmp_path))  # read by the apps the test makes
    return Table(model, np.load(path, mmap_mode="r").reshape(-1))


def test_a_daily_game_shows_the_expert_only_after_the_day(
    make_app: Any, maxi_end_game: Table
) -> None:
    today = make_app(now=NOW).test_client()
    state = play_hasty(today, start(today, mode="daily"))
    body = analysis_of(today, state["id"]).get_json()
    assert len(body["decisions"]) == 20
    assert body["expert"] is None  # the day is still open: the Expert's game would tell
    later = make_app(now=NOW + timedelta(days=2)).test_client()
    later.set_cookie("session", today.get_cookie("session").value)
    expert = analysis_of(later, state["id"]).get_json()["expert"]
    source = dice.stream(dice.daily_seed(SECRET, NOW.date()), dice.CURRENT)
    played = play_games(maxi_end_game, LEVELS["expert"], [source], np.random.default_rng(0))[0]
    assert expert["date"] == NOW.date().isoformat()
    assert expert["total"] == played.state.total
    assert expert["moves"] == [m.to_dict() for m in played.moves]


def test_the_analysis_page_lists_each_decision(client: Any, make_app: Any) -> None:
    state = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    play_page = client.get(f"/play/{state['id']}").get_data(as_text=True)
    assert f'href="/play/{state["id"]}/analysis"' in play_page
    page = client.get(f"/play/{state['id']}/analysis")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert html.count('<tr class="lost">') == sum(
        d["loss"] > 0 for d in analysis_of(client, state["id"]).get_json()["decisions"]
    )
    turn_1_roll_1 = (
        '<td class="num" data-label="Turn">1</td><td class="num" data-label="Roll">1</td>'
    )
    assert html.count(turn_1_roll_1) == 1
    stranger = make_app(now=NOW).test_client()
    assert stranger.get(f"/play/{state['id']}/analysis").status_code == 404


def test_the_analysis_page_of_an_unbuilt_table_says_so(client: Any) -> None:
    state = play_hasty(client, start(client, mode="solo", ruleset="maxi"))
    page = client.get(f"/play/{state['id']}/analysis")
    assert page.status_code == 503
    assert "daily solve maxi" in page.get_data(as_text=True)


@pytest.fixture
def building_yatzy(tmp_path: Path, make_app: Any) -> Any:
    """A client of an app whose fresh cache has the yatzy table being built (this test holds
    the build lock)."""
    with holding(model_of(find_ruleset("yatzy")), tmp_path):
        yield make_app(now=NOW, cache_dir=tmp_path).test_client()


def test_an_analysis_while_its_table_is_built_is_503_with_the_progress(
    building_yatzy: Any,
) -> None:
    client = building_yatzy
    state = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    response = analysis_of(client, state["id"])
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"  # no estimate yet: ask again soon
    error = response.get_json()["error"]
    assert error["code"] == "strategy_table_building"
    assert error["progress"] == {"percent": 0.0, "eta": None}


def test_the_analysis_page_while_its_table_is_built_waits_and_refreshes(
    building_yatzy: Any,
) -> None:
    client = building_yatzy
    state = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    page = client.get(f"/play/{state['id']}/analysis")
    assert page.status_code == 503
    assert page.headers["Refresh"] == page.headers["Retry-After"] == "5"
    html = page.get_data(as_text=True)
    assert "The analysis will be ready in about 1 minute." in html
    assert "0% done. This page refreshes itself." in html
    german = client.get(f"/play/{state['id']}/analysis", headers={"Accept-Language": "de"})
    assert "Die Analyse ist in etwa 1 Minute fertig." in german.get_data(as_text=True)
