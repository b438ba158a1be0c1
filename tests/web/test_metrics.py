"""``/metrics``: hidden without a token, 401 without the right one, counts as played.

The metrics live in the process (no multiprocess directory here: gunicorn's mode is
tested in tests/ops/test_gunicorn.py), so each test compares two scrapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from daily.core import metrics
from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.tables import background, builder
from tests.built_tables import site
from tests.web.helpers import start

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
TOKEN = "metrics-token-" + "m" * 24
AUTH = {"Authorization": f"Bearer {TOKEN}"}
DOWN = "redis://127.0.0.1:1/0"  # nothing listens there

Samples = Mapping[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: Any) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape, by name and labels."""
    response = client.get("/metrics", headers=AUTH)
    assert response.status_code == 200, response.data
    assert response.content_type.startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.get_data(as_text=True))
        for sample in family.samples
    }


def grew(before: Samples, after: Samples, name: str, **labels: str) -> float:
    """How much the sample *name* with *labels* grew between two scrapes."""
    key = (name, frozenset(labels.items()))
    return after.get(key, 0.0) - before.get(key, 0.0)


def test_metrics_are_404_without_a_configured_token(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers=AUTH).status_code == 404


@pytest.mark.parametrize(
    "header",
    [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer "],
    ids=["none", "wrong", "basic", "longer", "empty"],
)
def test_metrics_are_401_without_the_token(make_app: Any, header: str | None) -> None:
    client = make_app(now=NOON, metrics_token=TOKEN).test_client()
    headers = {} if header is None else {"Authorization": header}
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert b"daily_" not in response.data


def test_a_played_game_is_counted(make_app: Any) -> None:
    client = make_app(now=NOON, metrics_token=TOKEN).test_client()
    before = scrape(client)
    state = start(client, mode="solo", ruleset="yatzy")
    url = f"/api/v1/games/{state['id']}"
    # With its index, a repeated hold is a second roll, not a duplicate of the first.
    assert client.post(f"{url}/roll", json={"hold": [], "move": 0}).status_code == 200
    assert client.post(f"{url}/roll", json={"hold": [], "move": 1}).status_code == 200
    refused = client.post(f"{url}/roll", json={"hold": [], "move": 2})  # a third re-roll
    assert refused.get_json()["error"]["code"] == "illegal_move"
    assert client.post(f"{url}/roll", json={"hold": [9]}).status_code == 400
    scores = 0
    while not state["finished"]:
        response = client.post(f"{url}/score", json={"category": next(iter(state["potential"]))})
        assert response.status_code == 200
        state, scores = response.get_json(), scores + 1
    assert client.post(f"{url}/score", json={"category": "chance"}).status_code == 409
    after = scrape(client)

    assert grew(before, after, "daily_games_started_total", mode="solo") == 1
    assert grew(before, after, "daily_games_finished_total", mode="solo") == 1
    assert grew(before, after, "daily_games_finished_total", mode="daily") == 0
    assert grew(before, after, "daily_moves_refused_total", code="illegal_move") == 1
    assert grew(before, after, "daily_moves_refused_total", code="invalid_move") == 1
    assert grew(before, after, "daily_moves_refused_total", code="conflict") == 1
    score_ok = {"endpoint": "api.score", "method": "POST"}
    assert scores == 15
    assert grew(before, after, "daily_http_requests_total", **score_ok, status="200") == 15
    assert grew(before, after, "daily_http_requests_total", **score_ok, status="409") == 1
    assert grew(before, after, "daily_http_requests_total", endpoint="api.roll",
                method="POST", status="409") == 1  # fmt: skip
    seconds = "daily_http_request_duration_seconds"
    assert grew(before, after, f"{seconds}_count", **score_ok, status="200") == 15
    assert grew(before, after, f"{seconds}_count", **score_ok, status="409") == 1
    assert grew(before, after, f"{seconds}_bucket", **score_ok, status="200", le="+Inf") == 15
    assert grew(before, after, "daily_http_requests_total", endpoint="api.create_game",
                method="POST", status="201") == 1  # fmt: skip


def test_requests_are_labelled_by_endpoint_not_path(make_app: Any) -> None:
    client = make_app(now=NOON, metrics_token=TOKEN).test_client()
    before = scrape(client)
    for game_id in ("a", "b", "c"):
        assert client.get(f"/api/v1/games/{game_id}").status_code == 404
    assert client.get("/no/such/page").status_code == 404
    after = scrape(client)
    not_found = {"method": "GET", "status": "404"}
    assert grew(before, after, "daily_http_requests_total", endpoint="api.get_game",
                **not_found) == 3  # fmt: skip
    assert grew(before, after, "daily_http_requests_total", endpoint="unmatched",
                **not_found) == 1  # fmt: skip
    assert not any("/api/v1/games" in str(labels) for _, labels in after)


def test_rate_limit_refusals_are_counted(make_app: Any) -> None:
    off = dict.fromkeys(("players", "moves", "pages"), "off")
    app = make_app(now=NOON, metrics_token=TOKEN, rate_limits={**off, "moves": "1 per minute"})
    client = app.test_client()
    before = scrape(client)
    url = f"/api/v1/games/{start(client, mode='daily')['id']}"
    assert client.post(f"{url}/roll", json={"hold": []}).status_code == 200
    assert client.post(f"{url}/roll", json={"hold": []}).status_code == 429
    assert client.get("/metrics", headers=AUTH).status_code == 200  # never limited
    after = scrape(client)
    assert grew(before, after, "daily_rate_limited_total", limit="moves") == 1
    assert grew(before, after, "daily_moves_refused_total", code="too_many_requests") == 1


def test_redis_errors_are_counted_where_they_are_met(make_app: Any) -> None:
    up = make_app(now=NOON, metrics_token=TOKEN).test_client()
    down = make_app(now=NOON, metrics_token=TOKEN, redis_url=DOWN).test_client()
    before = scrape(up)
    assert down.get("/healthz").status_code == 503
    assert down.get("/api/v1/games/abc").status_code == 503
    after = scrape(up)
    assert grew(before, after, "daily_redis_errors_total", source="health",
                kind="ConnectionError") == 1  # fmt: skip
    assert grew(before, after, "daily_redis_errors_total", source="store",
                kind="ConnectionError") >= 1  # fmt: skip


def table_states(samples: Samples, ruleset: str) -> dict[str, float]:
    """The state gauge of *ruleset*'s table, by state."""
    name = "daily_strategy_table_state"
    return {s: samples[(name, frozenset({("ruleset", ruleset), ("state", s)}))]
            for s in metrics.TABLE_STATES}  # fmt: skip


def test_a_table_build_and_its_state_are_scraped(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    # The app starts no build of its own: this test builds the table, in this process.
    monkeypatch.setattr(background, "start", lambda models, site: False)
    client = make_app(now=NOON, metrics_token=TOKEN, table_specs=("yacht",),
                      cache_dir=cache).test_client()  # fmt: skip
    before = scrape(client)
    assert table_states(before, "yacht") == {"missing": 1, "building": 0, "ready": 0, "bad": 0}
    assert builder.build(model_of(find_ruleset("yacht")), site(cache))
    after = scrape(client)
    assert table_states(after, "yacht") == {"missing": 0, "building": 0, "ready": 1, "bad": 0}
    seconds = "daily_strategy_table_build_seconds"
    assert grew(before, after, "daily_strategy_table_builds_started_total", ruleset="yacht") == 1
    assert grew(before, after, f"{seconds}_count", ruleset="yacht") == 1
    assert grew(before, after, f"{seconds}_sum", ruleset="yacht") > 0
    with pytest.raises(ValueError, match="unknown table state"):
        metrics.table_state("yacht", "done")
