"""Skill and luck on a real Redis: a game's analysis computed on the first ask, kept with the
game and in the archive, read back after without the solver; the Expert's game once a day."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from daily.service import archive
from daily.store import keys
from daily.strategy import analysis, bots
from daily.strategy.solver import Table
from daily.web.context import current_config, current_redis
from tests.web.helpers import LIMITS_OFF, start
from tests.web.test_analysis import maxi_end_game, move, play_hasty
from tests.web.test_party import play_to_end

pytestmark = [pytest.mark.redis, pytest.mark.usefixtures("small_tables")]

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)
__all__ = ["maxi_end_game"]  # a fixture of the analysis tests, used here too


def _no_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, an analysis that the solver would compute fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the analysis was computed again")

    monkeypatch.setattr(analysis, "analyse", refuse)


def _adds_up(skill: dict[str, Any], total: int) -> None:
    kept = skill["optimum"] - skill["lost"]
    assert skill["skill"] == round(100 * kept / skill["optimum"])
    assert skill["luck"] == round(total - skill["skill"] / 100 * skill["optimum"])


def test_an_analysis_is_computed_once_then_kept(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_app(now=NOW, rate_limits=LIMITS_OFF).test_client()  # a script's pace
    state = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    assert "skill" not in state  # not asked for yet: nothing computed at the finish
    first = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()
    _adds_up(first["skill"], state["total"])
    assert first["skill"]["lost"] == pytest.approx(first["lost"], abs=1e-3)
    assert first["skill"]["skill"] < 100 and first["skill"]["expert"] is None
    game = client.get(f"/api/v1/games/{state['id']}").get_json()
    assert game["skill"] == first["skill"]  # kept: the game's answer carries it
    _no_solver(monkeypatch)
    again = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()
    assert again == first
    page = client.get(f"/play/{state['id']}/analysis")
    assert page.status_code == 200


def test_a_computer_games_kept_analysis_has_both_sides(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_app(now=NOW).test_client()
    game = start(client, mode="computer", ruleset="yatzy", level="expert")
    state = play_hasty(client, game)
    first = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()
    assert first["computer"]["lost"] == pytest.approx(0, abs=1e-3)
    _no_solver(monkeypatch)
    assert client.get(f"/api/v1/games/{state['id']}/analysis").get_json() == first


def test_the_archive_keeps_a_games_analysis(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = str(tmp_path / "archive")
    client = make_app(now=NOW, archive_url=folder).test_client()
    state = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    first = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()
    later = make_app(now=NOW + timedelta(days=40), archive_url=folder, archive_days=1)
    with later.app_context():
        done = archive.archive_old(current_redis(), current_config())
        assert done is not None and done.games == 1, done
        assert not current_redis().exists(keys.game(state["id"]))
        current_redis().delete(keys.game_analysis(state["id"]))  # as once it has expired
    _no_solver(monkeypatch)
    reader = later.test_client()
    reader.set_cookie("session", client.get_cookie("session").value)
    assert reader.get(f"/api/v1/games/{state['id']}/analysis").get_json() == first
    assert reader.get(f"/api/v1/games/{state['id']}").get_json()["skill"] == first["skill"]


def test_the_experts_game_is_played_once_a_day(
    make_app: Any, maxi_end_game: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[int] = []
    play_games = bots.play_games

    def counted(*args: Any, **kwargs: Any) -> Any:
        played.append(1)
        return play_games(*args, **kwargs)

    monkeypatch.setattr(bots, "play_games", counted)
    skills = []
    for _ in range(2):  # two players of the same day
        client = make_app(now=NOW).test_client()
        state = play_hasty(client, start(client, mode="daily"))
        body = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()
        assert body["expert"] is None  # its game waits for the day's end; its score does not
        skills.append(body["skill"])
    assert len(played) == 1
    assert skills[0]["expert"] == skills[1]["expert"] is not None


def play_wasteful(client: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Keeps the best dice, then scores the worst row for them (the hint's last): its
    decisions give away more than the optimum expected whenever the dice were generous
    (about one yatzy game in four), and skill is clamped at 0 %."""
    while not state["finished"]:
        actions = client.get(f"/api/v1/games/{state['id']}/hint").get_json()["actions"]
        keeps = [a for a in actions if "hold" in a]
        rows = [a for a in actions if "score" in a]
        chosen = keeps[0] if keeps and keeps[0]["value"] > rows[0]["value"] else rows[-1]
        state = move(client, state["id"], chosen, state["move_count"])
    return dict(client.get(f"/api/v1/games/{state['id']}").get_json())


def _shown(html: str, element: str) -> str:
    found = re.search(rf'id="{element}">([^<]*)<', html)
    assert found, element
    return found.group(1)


def test_the_figures_shown_add_up_to_the_total(make_app: Any) -> None:
    """skill / 100 x optimum + luck = total on the figures the API and the page show, where
    the decisions gave away more than the optimum expected (skill clamped at 0 %: the luck is
    the whole total) and where not; one rounding (the server's), one minus sign."""
    client = make_app(now=NOW, rate_limits=LIMITS_OFF).test_client()  # a script's pace
    seen = set()
    for _ in range(40):  # about one game in four clamps: all 40 miss one time in 100,000
        state = play_wasteful(client, start(client, mode="solo", ruleset="yatzy"))
        skill = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()["skill"]
        total = state["total"]
        assert isinstance(skill["skill"], int) and isinstance(skill["luck"], int)
        shown = skill["skill"] / 100 * skill["optimum"] + skill["luck"]
        assert shown == pytest.approx(total, abs=0.5)
        clamped = skill["lost"] > skill["optimum"]
        if clamped:  # the decisions gave away more than the optimum expected
            assert skill["skill"] == 0 and skill["luck"] == total
        page = client.get(f"/play/{state['id']}/analysis").get_data(as_text=True)
        assert _shown(page, "skill") == f"{skill['skill']}%"
        luck = skill["luck"]
        assert _shown(page, "luck") == (f"+{luck}" if luck > 0 else str(luck).replace("-", "−"))
        seen.add(clamped)
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_a_friend_codes_games_carry_the_experts_score(make_app: Any) -> None:
    """The Expert on a friend code whose ruleset has a table: its own game on the code's
    dice, the same score for everyone who plays the code, from the first analysis on."""
    creator = make_app(now=NOW).test_client()
    made = play_hasty(creator, start(creator, mode="friend", ruleset="yatzy"))
    friend = make_app(now=NOW).test_client()
    joined = play_hasty(friend, start(friend, mode="friend", code=made["code"]))
    experts = []
    for client, state in ((creator, made), (friend, joined)):
        skill = client.get(f"/api/v1/games/{state['id']}/analysis").get_json()["skill"]
        assert client.get(f"/api/v1/games/{state['id']}").get_json()["skill"] == skill
        experts.append(skill["expert"])
    assert experts[0] == experts[1] and isinstance(experts[0], int)
    assert experts[0] > max(made["total"], joined["total"])  # best play against a hasty one


def test_every_party_player_has_their_own_skill_and_luck(make_app: Any) -> None:
    """A party's analysis: each player's own decisions on their own dice (a seat's moves of
    the one log), every player's skill and luck beside it; the page shows each player's."""
    client = make_app(now=NOW, rate_limits=LIMITS_OFF).test_client()
    names = ["Ana", "Bo", "Cy"]
    body = {"mode": "party", "ruleset": "yatzy", "players": names}
    final = play_to_end(client, client.post("/api/v1/games", json=body).get_json())[-1]
    asked = [
        client.get(f"/api/v1/games/{final['id']}/analysis?player={seat}").get_json()
        for seat in range(3)
    ]
    assert client.get(f"/api/v1/games/{final['id']}/analysis").get_json() == asked[0]
    for seat, found in enumerate(asked):
        assert found["player"] == seat and found["mode"] == "party"
        assert [p["name"] for p in found["players"]] == names
        mine = found["players"][seat]
        assert mine["skill"] == found["skill"]
        assert found["total"] == mine["total"] == final["players"][seat]["total"]
        assert len(found["decisions"]) == 15 * 2  # a re-roll and a score each turn
        skill = found["skill"]
        shown = skill["skill"] / 100 * skill["optimum"] + skill["luck"]
        assert shown == pytest.approx(mine["total"], abs=0.5)
    assert asked[1]["players"] == asked[0]["players"]
    assert len({json.dumps(a["decisions"]) for a in asked}) == 3  # each their own dice
    for bad in ("3", "-1", "x"):
        response = client.get(f"/api/v1/games/{final['id']}/analysis?player={bad}")
        assert response.status_code == 400, bad
    page = client.get(f"/play/{final['id']}/analysis?player=1").get_data(as_text=True)
    assert "<h2>Bo</h2>" in page and f'id="luck">{_signed(asked[1]["skill"]["luck"])}<' in page
    solo = play_hasty(client, start(client, mode="solo", ruleset="yatzy"))
    assert client.get(f"/api/v1/games/{solo['id']}/analysis?player=0").status_code == 400


def _signed(luck: int) -> str:
    return f"+{luck}" if luck > 0 else str(luck).replace("-", "−")
