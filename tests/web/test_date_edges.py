"""No answer is a 5xx for any date a request can name (issue 39): every route that takes a day,
a month or a year, and a new game's day, at the edges of the calendar (year 1, 9999, leap
days, before day 1) answer 2xx, 3xx or 4xx. The red team's two 500s were
``POST /games {"mode": "daily", "day": "9999-12-31"}`` and ``POST /archive/9999-12-31``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.web.helpers import LIMITS_OFF

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DAYS = ["0001-01-01", "2025-12-31", "2026-01-01", "2026-12-04", "2028-02-29", "2027-02-29",
        "9999-12-30", "9999-12-31", "10000-01-01", "today"]  # fmt: skip
MONTHS = ["0001-01", "2025-12", "2026-01", "9999-12", "0000-00", "10000-01", "2026-13"]
YEARS = ["0", "1", "2025", "2026", "9999", "10000"]
#: Each date parameter's values; any other parameter names what the test made (its league).
EDGES = {"day": DAYS, "month": MONTHS, "year": YEARS}


@pytest.fixture(
    params=[
        "UTC",
        *(
            pytest.param(zone, marks=pytest.mark.slow)
            for zone in ("Pacific/Kiritimati", "Etc/GMT+12")
        ),
    ]
)
def client(make_app: Any, request: pytest.FixtureRequest) -> Any:
    """A player's browser on an app in a zone at UTC, far ahead of it or far behind."""
    # Hundreds of dates asked for at a script's pace: the limits off.
    browser = make_app(now=NOON, timezone=request.param, rate_limits=LIMITS_OFF).test_client()
    browser.get("/")  # a guest of its own
    return browser


def _urls(client: Any, league: str) -> list[tuple[str, str]]:
    """Every (method, URL) of the app's routes that take a date, with each edge value."""
    found = []
    for rule in client.application.url_map.iter_rules():
        dated = [name for name in rule.arguments if name in EDGES]
        if not dated:
            continue
        for value in EDGES[dated[0]]:
            path = rule.rule
            for name in rule.arguments:
                fill = value if name in EDGES else league
                path = path.replace(f"<{name}>", fill).replace(f"<int:{name}>", fill)
            found += [(method, path) for method in sorted(rule.methods or ()) if
                      method in ("GET", "POST")]  # fmt: skip
    return found


def test_no_date_answers_a_server_error(client: Any) -> None:
    made = client.post("/api/v1/leagues", json={"name": "Edges"})
    assert made.status_code == 201, made.get_json()
    urls = _urls(client, made.get_json()["id"])
    routes = {url.split("/")[1:3][-1] for _, url in urls}
    assert len(urls) > 80 and len(routes) >= 4, routes  # boards, leagues, puzzles, archive
    answers = {(method, url): client.open(url, method=method).status_code for method, url in urls}
    for day in DAYS:
        answers[("POST", f"/api/v1/games day={day}")] = client.post(
            "/api/v1/games", json={"mode": "daily", "day": day}
        ).status_code
    assert {k: v for k, v in answers.items() if v >= 500} == {}
    assert answers[("POST", "/api/v1/games day=9999-12-31")] == 404  # not revealed yet
    assert answers[("POST", "/api/v1/games day=0001-01-01")] == 404  # no puzzle before day 1
    assert answers[("POST", "/api/v1/games day=2027-02-29")] == 400  # no such day
    assert answers[("POST", "/archive/9999-12-31")] == 404
