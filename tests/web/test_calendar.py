"""Past puzzles on a real Redis: a month's calendar with the player's score on each day played,
any other revealed day opening as practice (a missed advent door too), and a game held for
review shown as held to its own player on every page that shows it."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

import pytest

from daily.core.errors import NotFoundError
from daily.service import past_days
from daily.store import review_queue
from daily.web.context import current_redis
from tests.web.helpers import play_daily, start
from tests.web.test_archive import finish

pytestmark = pytest.mark.redis

NOV30 = datetime(2026, 11, 30, 12, tzinfo=UTC)
DEC5 = datetime(2026, 12, 5, 12, tzinfo=UTC)


def _cell(text: str, day: str) -> str:
    found = re.search(rf'<li id="day-{day}">(.*?)</li>', text, re.S)
    assert found, f"no cell for {day}"
    return found[1]


def _later(make_app: Any, client: Any, now: datetime) -> Any:
    """The same player (its cookie) on an app whose clock says *now*."""
    later = make_app(now=now).test_client()
    later.set_cookie("session", client.get_cookie("session").value)
    return later


def test_a_month_shows_each_day_played_and_opens_the_rest_as_practice(make_app: Any) -> None:
    first = make_app(now=NOV30).test_client()
    daily = play_daily(first)
    client = _later(make_app, first, DEC5)
    text = client.get("/archive/2026-11").get_data(as_text=True)
    played = _cell(text, "2026-11-30")
    assert f'href="/play/{daily["id"]}"' in played and f">{daily['total']}<" in played
    assert 'class="day played"' in played
    open_day = _cell(text, "2026-11-29")
    assert 'action="/archive/2026-11-29"' in open_day and "Play this day as practice" in open_day
    assert "You played 1 daily this month" in text
    # Tapped, it is practice on that day's dice; finished, the calendar shows its score.
    posted = client.post("/archive/2026-11-29")
    game_id = posted.headers["Location"].rsplit("/", 1)[1]
    state = client.get(f"/api/v1/games/{game_id}").get_json()
    assert state["practice"] and state["date"] == "2026-11-29"
    done = finish(client, state)
    cell = _cell(client.get("/archive/2026-11").get_data(as_text=True), "2026-11-29")
    assert 'class="day practice"' in cell and f">{done['total']}<" in cell
    # This month: today's cell, the days to come, and nothing after today's month.
    december = client.get("/archive").get_data(as_text=True)
    assert 'class="day today"' in _cell(december, "2026-12-05")
    assert 'class="day future"' in _cell(december, "2026-12-06")
    assert 'rel="next"' not in december and 'href="/archive/2026-11"' in december


@pytest.mark.parametrize("month", ["2025-12", "2027-01", "hello", "2026-13", "2026-1"])
def test_a_month_out_of_the_calendar_is_not_found(make_app: Any, month: str) -> None:
    client = make_app(now=DEC5).test_client()
    assert client.get(f"/archive/{month}").status_code == 404


def test_parse_month() -> None:
    today = date(2026, 12, 5)
    assert past_days.parse_month("2026-01", today) == date(2026, 1, 1)
    with pytest.raises(NotFoundError, match="no puzzles in 2027-01"):
        past_days.parse_month("2027-01", today)


def test_a_missed_advent_door_opens_as_practice(make_app: Any) -> None:
    client = make_app(now=DEC5).test_client()
    start(client, mode="daily")  # a player, with today's daily under way
    text = client.get("/advent").get_data(as_text=True)
    assert 'action="/archive/2026-12-03"' in text  # a missed door: practice on its dice
    posted = client.post("/archive/2026-12-03")
    game_id = posted.headers["Location"].rsplit("/", 1)[1]
    done = finish(client, client.get(f"/api/v1/games/{game_id}").get_json())
    text = client.get("/advent").get_data(as_text=True)
    assert 'action="/archive/2026-12-03"' not in text
    door = re.search(
        rf'<a class="door missed practice" href="/play/{game_id}">(.*?)</a>', text, re.S
    )
    assert door and f">{done['total']}<" in door[1] and "practice" in door[1]


def test_a_held_game_shows_as_held_to_its_own_player(make_app: Any) -> None:
    app = make_app(now=DEC5)
    client = app.test_client()
    daily = play_daily(client)
    with app.app_context():  # the luck check found it too lucky
        review_queue.save_verdict(current_redis(), daily["id"], 9.9, True, DEC5.timestamp())
    home = client.get("/").get_data(as_text=True)
    assert 'id="held"' in home and "Under review" in home
    assert "is under review, kept off the rankings for now" in home  # the figures say so too
    history = client.get("/me/history").get_data(as_text=True)
    assert '<span class="tag-held">under review</span>' in history
    assert 'class="held"' in history  # its bar in the chart
    calendar = client.get("/archive").get_data(as_text=True)
    assert 'class="day today"' in _cell(calendar, "2026-12-05")
    advent = client.get("/advent").get_data(as_text=True)
    assert "door played today held" in advent and "under review" in advent
    later = _later(make_app, client, datetime(2026, 12, 8, 12, tzinfo=UTC))
    cell = _cell(later.get("/archive").get_data(as_text=True), "2026-12-05")
    assert 'class="day played held"' in cell and "under review" in cell
