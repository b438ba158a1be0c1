"""Skill and luck on a real Redis: a game's analysis computed on the first ask, kept with the
game and in the archive, read back after without the solver; the Expert's game once a day."""

from __future__ import annotations

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
from tests.web.test_analysis import maxi_end_game, play_hasty

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
    assert skill["skill"] == pytest.approx(100 * kept / skill["optimum"], abs=0.05)
    assert skill["luck"] == pytest.approx(total - kept, abs=0.05)


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
