"""Four new players over four days, as issue 37 tried them, on the settings as shipped (a
player's dailies rank from their third day): every figure a player reads agrees with the
others. Day 1's board lists all four; a new player reads where they stand among everyone; a
league made and joined after playing shows both scores; a lower score on day 3 is no "new
best day"; a player back after a gap reads 1 as the streak on the result, in the share text
and at home; an old game opened again celebrates nothing; the advent page reads no "None".

At 390x844 with touch and 1280x800. Screenshots: ``ledger-*.png`` under artifacts/screenshots/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.browser.helpers import set_name

pytestmark = [
    pytest.mark.parametrize("redis_server", ["embedded"], indirect=True),
    pytest.mark.slow,
]

DAYS = [datetime(2026, 12, day, 10, tzinfo=UTC) for day in (5, 6, 7, 25)]
SIZES: dict[str, dict[str, Any]] = {
    "390": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "1280": {"viewport": {"width": 1280, "height": 800}},
}
JSON = {"Content-Type": "application/json"}


def _post(context: Any, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = context.request.post(url, data=json.dumps(body or {}), headers=JSON)
    assert response.ok, response.text()
    found: dict[str, Any] = response.json()
    return found


def _play(context: Any, base: str, pick: Callable[..., Any] = max, leave: int = 0) -> Any:
    """Plays the day's daily by the API, each turn on its first roll (the row *pick* chooses
    by its points), until *leave* rows are open; the game's state."""
    state = _post(context, f"{base}/api/v1/games", {"mode": "daily"})
    while not state["finished"] and len(state["potential"]) > leave:
        row = pick(state["potential"], key=lambda r: state["potential"][r])
        state = _post(context, f"{base}/api/v1/games/{state['id']}/score",
                      {"category": row, "move": state["move_count"]})  # fmt: skip
    return context.request.get(f"{base}/api/v1/games/{state['id']}").json()


def _finish_in_page(page: Any, base: str, game: dict[str, Any]) -> None:
    """Opens *game* with one row left and scores it by a tap, as a player finishes."""
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("body[data-moves]")
    button = page.locator("button.pick").first
    zero = button.inner_text().strip() == "0"
    button.click()
    if zero:
        page.locator("#confirm-yes").click()
    page.wait_for_selector("#results:not([hidden])")
    page.locator("#facts li", has_text="Days in a row").wait_for()


def _figure(page: Any, name: str) -> str:
    return str(page.inner_text(f"#top-figures [data-figure='{name}']"))


@pytest.mark.parametrize("size", SIZES)
def test_four_new_players_over_four_days_read_figures_that_agree(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None],
    size: str,
) -> None:  # fmt: skip
    people = {name: new_context(**SIZES[size]) for name in ("Ada", "Bo", "Cy", "Di")}
    day1 = serve(now=DAYS[0])
    games = {}
    for name, context in people.items():
        games[name] = _play(context, day1, pick=max if name != "Di" else min)
        set_name(context, day1, name)
        if name == "Ada":  # she plays, then makes a league; Bo plays, then joins it
            league = _post(context, f"{day1}/api/v1/leagues", {"name": "Friday"})
        if name == "Bo":
            invite = league["invite"].split("?", 1)[1]
            _post(context, f"{day1}/api/v1/leagues/{league['id']}/members?{invite}")

    # Day 1's board lists all four, new players all, none numbered; the field counts them.
    page = people["Cy"].new_page()
    page.goto(f"{day1}/leaderboards/daily/2026-12-05")
    assert "4 players" in page.inner_text("caption")
    rows = page.locator("table.board tbody tr")
    assert rows.count() == 4
    assert page.locator("table.board tbody .tag-new").count() == 4
    assert "New players are listed without a rank" in page.inner_text("#new-players")
    assert "None" not in page.inner_text("main")
    shoot(page, f"ledger-day1-board-{size}", full_page=False)

    # Di, the lowest of four, reads where she stands among everyone, not "1 of 1".
    di = people["Di"].new_page()
    di.goto(f"{day1}/play/{games['Di']['id']}")
    verdict = di.locator("#final-rank", has_text="New player")
    verdict.wait_for()
    assert verdict.inner_text().startswith("New player: 4 of 4 today")
    assert "2 more days to play before your dailies rank" in verdict.inner_text()
    shoot(di, f"ledger-day1-newcomer-{size}", full_page=False)

    # The league made after playing shows both scores, on its day's board.
    ada = people["Ada"].new_page()
    ada.goto(f"{day1}/leagues/{league['id']}")
    board = ada.locator("#league-day, table.board").first.inner_text()
    for name in ("Ada", "Bo"):
        assert name in board and str(games[name]["total"]) in board, board
    shoot(ada, f"ledger-league-{size}", full_page=False)

    day2 = serve(now=DAYS[1])
    second = _play(people["Ada"], day2)
    _play(people["Cy"], day2)

    # Day 3: Ada scores less than before, finishing by a tap: no "new best day".
    day3 = serve(now=DAYS[2])
    low = _play(people["Ada"], day3, pick=min, leave=1)
    _finish_in_page(ada, day3, low)
    best = max(games["Ada"]["total"], second["total"])
    facts = ada.inner_text("#facts")
    assert f"Your best day: {best}" in facts and "Days in a row: 3" in facts, facts
    cheers = ada.inner_text("#celebrate") if ada.locator("#celebrate").is_visible() else ""
    assert "new best day" not in cheers.lower(), cheers
    shoot(ada, f"ledger-day3-lower-{size}", full_page=False)
    ada.goto(day3 + "/")  # home says the same best day and streak
    assert (_figure(ada, "best"), _figure(ada, "streak")) == (str(best), "3")

    # Day 4, 25 December: Bo is back after 19 days. The result, its share text and home: 1.
    day4 = serve(now=DAYS[3])
    back = _play(people["Bo"], day4, leave=1)
    bo = people["Bo"].new_page()
    _finish_in_page(bo, day4, back)
    assert "Days in a row: 1" in bo.inner_text("#facts")
    share = bo.locator("[data-share-text]").input_value()
    assert "Days in a row: 1" in share and "Days in a row: 3" not in share, share
    shoot(bo, f"ledger-back-after-a-gap-{size}", full_page=False)
    bo.goto(day4 + "/")
    assert _figure(bo, "streak") == "1"

    # Ada opens her game of 5 December again: no cheer, and its own streak then.
    ada.goto(f"{day4}/play/{games['Ada']['id']}")
    ada.wait_for_selector("#results:not([hidden])")
    ada.locator("#facts li", has_text="Days in a row").wait_for()
    assert ada.locator("#celebrate").is_hidden()
    assert "Days in a row: 1" in ada.inner_text("#facts")
    # The advent page reads no "None" (doors 5 to 7 played, the rest missed).
    ada.goto(f"{day4}/advent")
    text = ada.inner_text("main")
    assert "None" not in text and re.search(r"top \d+", text), text
    shoot(ada, f"ledger-advent-{size}")
