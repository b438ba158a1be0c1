"""The day's scores on a daily's result (issue 40.4), at 390x844 with touch and 1280x800: no
chart of the day below five players (the player's own daily scores instead, this one marked),
the day's chart from five, and an old game's result naming its day.

Screenshots: ``scores-*.png`` under artifacts/screenshots/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
SIZES: dict[str, dict[str, Any]] = {
    "390": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "1280": {"viewport": {"width": 1280, "height": 800}},
}


def _daily(context: Any, base: str, pick: Callable[..., Any] = max) -> dict[str, Any]:
    """The day's daily played through the API: every turn scored on its first roll, in the
    row *pick* chooses by its points."""

    def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
        response = context.request.post(url, data=json.dumps(body),
                                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert response.ok, response.text()
        found: dict[str, Any] = response.json()
        return found

    state = post(f"{base}/api/v1/games", {"mode": "daily"})
    while not state["finished"]:
        row = pick(state["potential"], key=lambda r: state["potential"][r])
        state = post(f"{base}/api/v1/games/{state['id']}/score",
                     {"category": row, "move": state["move_count"]})  # fmt: skip
    return state


def _bars(page: Any) -> list[str]:
    titles: list[str] = page.locator("#chart .bar").evaluate_all("bs => bs.map(b => b.title)")
    return titles


@pytest.mark.parametrize("size", SIZES)
def test_the_days_chart_waits_for_five_players_and_an_old_game_names_its_day(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None],
    size: str,
) -> None:  # fmt: skip
    context = new_context(**SIZES[size])
    yesterday = _daily(context, serve(now=NOW - timedelta(days=1)))
    base = serve(now=NOW)  # cookies are per host, not port: the same player
    today = _daily(context, base)
    page = context.new_page()
    page.goto(f"{base}/play/{today['id']}")
    # Alone today: the player's own daily scores, this one marked, not one solid block.
    page.wait_for_selector("#dist[data-drawn='own']")
    assert page.inner_text("#dist figcaption") == "Your daily scores, this one marked"
    assert page.inner_text("#chart-text") == "1 player"
    bars = _bars(page)
    assert any("your score" in title for title in bars)
    axis = page.locator("#chart-axis span").all_inner_texts()
    low, high = sorted([yesterday["total"], today["total"]])
    assert axis == [str(low), str(high)]
    shoot(page, f"scores-own-{size}", full_page=False)
    others = [_daily(new_context(), base, pick=min) for _ in range(4)]
    page.reload()
    page.wait_for_selector("#dist[data-drawn='day']")  # five players: the day's chart
    assert page.inner_text("#dist figcaption") == "Today's scores"
    assert page.inner_text("#chart-text").startswith("5 players.")
    totals = sorted(game["total"] for game in [today, *others])
    assert page.locator("#chart-axis span").all_inner_texts() == [str(totals[0]), str(totals[-1])]
    page.locator("#dist").scroll_into_view_if_needed()
    shoot(page, f"scores-day-{size}", full_page=False)
    # Opened the next day, the game's result names its day, not "Today's".
    later = serve(now=NOW + timedelta(days=1))
    page.goto(f"{later}/play/{today['id']}")
    page.wait_for_selector("#dist[data-drawn='day']")
    assert page.inner_text("#dist figcaption") == "Scores of December 3, 2026"
    assert page.inner_text("#day-board") == "That day's board"
    verdict = page.inner_text("#final-rank")
    assert "today" not in verdict.lower(), verdict
    if "better than" in verdict:
        assert "of that day's players" in verdict
    width = SIZES[size]["viewport"]["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shoot(page, f"scores-old-{size}", full_page=False)
