"""Stats after several days: the home page after playing shows the player's figures and the
spread of their daily scores, today's bar marked (three days, a frozen clock per day)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from tests.browser.helpers import DECEMBER, DESKTOP, PHONE, play_game


def test_stats_after_three_days(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    phone = new_context(viewport=PHONE)
    totals = []
    for n in range(3):
        base = serve(now=DECEMBER + timedelta(days=n))  # cookies are per host, not port
        totals.append(play_game(phone, base, {"mode": "daily"}, last=n % 2 == 1)["total"])
    page = phone.new_page()
    page.goto(base + "/")
    panel = page.locator("#stats")
    assert panel.locator('[data-figure="games"]').inner_text() == "3"
    assert panel.locator('[data-figure="best"]').inner_text() == str(max(totals))
    assert panel.locator('[data-figure="streak"]').inner_text() == "3"
    assert panel.locator("rect.today").count() == 1
    panel.scroll_into_view_if_needed()
    shoot(page, "stats-390")
    desk = new_context(viewport=DESKTOP)
    desk.add_cookies(phone.cookies())
    other = desk.new_page()
    other.goto(base + "/me")
    assert other.locator('#stats [data-figure="games"]').inner_text() == "3"
    shoot(other, "stats-me-1280")
