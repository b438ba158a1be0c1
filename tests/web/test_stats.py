"""A player's figures on /me and on the home page (before and after the day's game): games,
mean, best, streaks and the spread of their daily scores with today's marked (several days
played on a frozen clock; a practice game is not counted)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

pytestmark = pytest.mark.redis

DEC1 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def play(client: Any, headers: dict[str, str], **body: Any) -> int:
    state = client.post("/api/v1/games", json={"mode": "daily", **body}, headers=headers).get_json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        state = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row},
                            headers=headers).get_json()  # fmt: skip
    return int(state["total"])


def figures(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-figure="([\w-]+)">([^<]*)<', html))


def test_figures_after_several_days(make_app: Any) -> None:
    first = make_app(now=DEC1).test_client()
    body = first.post("/api/v1/players", json={"name": "Ana"}).get_json()
    headers = {"Authorization": f"Bearer {body['token']}"}
    totals = []
    for n in range(3):
        client = make_app(now=DEC1 + timedelta(days=n)).test_client()
        before = client.get("/", headers=headers).get_data(as_text=True)
        # A returning player's figures show before they play: none on the very first day.
        assert ('id="stats"' in before) is (n > 0) and ('id="top-figures"' in before) is (n > 0)
        if n > 0:
            streak = re.search(r'id="top-figures".*?data-figure="streak">(\d+)<', before, re.S)
            assert streak is not None and streak[1] == str(n)
        totals.append(play(client, headers))
    play(client, headers, day="2026-11-30")  # practice: not counted
    home = client.get("/", headers=headers).get_data(as_text=True)
    me = client.get("/me", headers=headers).get_data(as_text=True)
    for html in (home, me):
        found = figures(html)
        assert float(found.pop("mean")) == round(sum(totals) / 3, 1)
        assert found == {"games": "3", "best": str(max(totals)), "streak": "3", "best-streak": "3"}
        assert html.count('<rect class="today"') == 1
    marked = re.search(r'<rect class="today"[^>]*><title>(\d+)–(\d+): (\d+)</title>', home)
    assert marked is not None
    low, high, count = map(int, marked.groups())
    assert low <= totals[-1] <= high and count == sum(low <= t <= high for t in totals)
    assert f"today&#39;s {totals[-1]} is the marked bar" in home or f"today's {totals[-1]}" in home


def test_no_figures_for_a_new_visitor(make_app: Any) -> None:
    html = make_app(now=DEC1).test_client().get("/me").get_data(as_text=True)
    assert figures(html)["games"] == "0" and "spread-chart" not in html
