"""The advent calendar under a frozen December clock, and the Christmas dice."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)


def _finish_daily_by_api(context: Any, base: str) -> int:
    """Plays a whole daily through the API (score the first open row each turn): the total."""
    response = context.request.post(f"{base}/api/v1/games", data={"mode": "daily"})
    assert response.status == 201, response.text()
    state = response.json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        url = f"{base}/api/v1/games/{state['id']}/score"
        response = context.request.post(url, data={"category": row})
        assert response.ok, response.text()
        state = response.json()
    return int(state["total"])


def test_advent_doors_and_christmas_dice(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    december_2 = serve(now=datetime(2026, 12, 2, 12, 0, tzinfo=UTC))
    december_5 = serve(now=datetime(2026, 12, 5, 10, 0, tzinfo=UTC))
    context = new_context()
    # Cookies ignore ports: both servers (one Redis) see the same player.
    door_2 = _finish_daily_by_api(context, december_2)
    page = context.new_page()
    page.goto(december_5 + "/advent")

    doors = page.locator(".doors li")
    assert doors.count() == 24
    texts = [" ".join(t.split()) for t in doors.all_inner_texts()]
    assert texts[0] == "1 missed Play as practice"  # a missed door opens as practice
    # Behind the played door: the day's top (alone on the board: the score itself), the
    # score and the Christmas die (a six for the top).
    assert texts[1] == f"Door 2: your {door_2}, the day's top {door_2} 2 {door_2} top {door_2}"
    assert page.locator(".door.played .door-die use").get_attribute("href") == "#x6"
    assert texts[2:4] == ["3 missed Play as practice", "4 missed Play as practice"]
    assert texts[4] == "Door 5, today: play 5 Play"  # the hidden label, then the door
    assert all(t.endswith("locked") for t in texts[5:])
    assert page.locator(".doors a").count() == 1  # only today's door opens
    assert page.locator("nav a:text-is('Advent')").count() == 1  # the header links the calendar
    shoot(page, "advent")
    phone = context.new_page()  # the same player, on a phone's width
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(december_5 + "/advent")
    shoot(phone, "advent-390")
    # Christmas Eve: the whole December in one picture, door 2 a full (top) bar.
    december_24 = serve(now=datetime(2026, 12, 24, 10, 0, tzinfo=UTC))
    phone.goto(december_24 + "/advent")
    assert phone.locator(".december .month rect.best").count() == 1
    assert f"1 of 24 doors played, {door_2} points in all" in phone.inner_text(".december")
    shoot(phone, "advent-december-390")
    # A missed door opens as practice; finished, it shows the practice score.
    page.locator(".doors li").nth(2).get_by_role("button").click()
    page.wait_for_url("**/play/*")
    practice = page.request.get(f"{december_5}/api/v1/games/{page.url.rsplit('/', 1)[1]}").json()
    assert practice["practice"] and practice["date"] == "2026-12-03"
    while not practice["finished"]:
        url = f"{december_5}/api/v1/games/{practice['id']}/score"
        row = next(iter(practice["potential"]))
        practice = page.request.post(url, data={"category": row}).json()
    page.goto(december_5 + "/advent")
    door_3 = " ".join(page.locator(".doors li").nth(2).inner_text().split())
    assert door_3 == f"3 {practice['total']} practice"
    shoot(page, "advent-practice")

    page.get_by_role("button", name="Play with Christmas dice").click()
    page.wait_for_selector("body.dice-x")
    # The door starts the game from the page's script, once it has run (before, the door is a
    # plain link to today's page): on a loaded machine the click can come first.
    page.wait_for_load_state("domcontentloaded")
    page.get_by_role("link", name="Door 5, today: play").click()
    page.wait_for_url("**/play/*")
    page.wait_for_selector("body[data-moves='0']")
    hrefs = page.locator(".die-btn use").evaluate_all("us => us.map(u => u.getAttribute('href'))")
    assert len(hrefs) == 6 and all(h.startswith("#x") for h in hrefs)
    shoot(page, "play-christmas")

    page.goto(december_5 + "/advent")
    door_5 = page.locator(".doors li").nth(4).inner_text()
    assert " ".join(door_5.split()) == "Door 5, today: play 5 Play"
    # The preference is saved: another page load keeps the Christmas dice.
    page.goto(december_5 + "/rules/maxi")
    assert page.locator("body.dice-x").count() == 1
