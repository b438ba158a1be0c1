"""A strategy table's build as ``/metrics`` shows it: its percent and the seconds left.

(``/healthz`` shows the same figures: tests/ops/test_builders.py reads both mid-build.)
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.tables import background, builder
from tests.built_tables import site

pytestmark = [pytest.mark.redis, pytest.mark.one_redis]

TOKEN = "metrics-token-" + "p" * 24


def progress(client: Any, ruleset: str) -> tuple[float, float]:
    """The scraped percent and seconds left of *ruleset*'s table."""
    text = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).get_data(
        as_text=True
    )
    found = {
        s.name: s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.labels.get("ruleset") == ruleset
    }
    return (
        found["daily_strategy_table_build_percent"],
        found["daily_strategy_table_build_eta_seconds"],
    )


@pytest.mark.slow  # builds a table while it scrapes: 7 s
def test_the_build_progress_is_scraped(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    # The app starts no build of its own: this test builds the table, in this process.
    monkeypatch.setattr(background, "start", lambda models, site: False)
    client = make_app(metrics_token=TOKEN, table_specs=("yatzy",), cache_dir=cache).test_client()
    percent, eta = progress(client, "yatzy")
    assert percent == 0 and math.isnan(eta)
    seen: list[tuple[float, float]] = []
    last = [0.0]

    def scraped(done: float, total: float) -> None:  # as a scraper sees it, mid-build
        under_way = any(0 < percent < 100 and eta > 0 for percent, eta in seen)
        # Until one scrape saw it under way: each one holds the build up while it is read.
        if not under_way and time.monotonic() - last[0] > 0.2:
            last[0] = time.monotonic()
            seen.append(progress(client, "yatzy"))

    assert builder.build(
        model_of(find_ruleset("yatzy")), site(cache), progress=scraped
    )  # a few seconds
    # The builder writes its progress once a second: some scrape saw it under way.
    assert any(0 < percent < 100 and eta > 0 for percent, eta in seen), seen
    percent, eta = progress(client, "yatzy")
    assert percent == 100 and math.isnan(eta)
