"""Storage per network (issue 38): the games a network starts in a day are bounded, not only
each player's and address's, so what one /24 stores a day is bounded; the bound that
docs/operations.md prints is recomputed from the shipped limits and cost rows."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from limits import parse_many

from daily.service import proofs
from daily.web import costs, limits
from daily.web.routes import rows

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def _from(app: Any, address: str) -> Any:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def solo(client: Any) -> int:
    return int(client.post("/api/v1/games", json={"mode": "solo", "ruleset": "yatzy"}).status_code)


def test_games_started_from_one_network_are_bounded_and_its_dailies_play_on(
    make_app: Any,
) -> None:
    # The attack: 16 addresses of one /24 started 1,920 unfinished games in 9 s.
    app = make_app(now=NOON, rate_limits={"network_games": "4 per day"})
    # Each a new player (a guest) at an address of its own, within every per-player budget.
    assert [solo(_from(app, f"198.51.100.{n}")) for n in range(1, 6)] == [201] * 4 + [429]
    refused = _from(app, "198.51.100.9").post(
        "/api/v1/games", json={"mode": "solo", "ruleset": "yatzy"})  # fmt: skip
    assert refused.status_code == 429
    assert "too many games started from your network" in refused.get_json()["error"]["message"]
    assert solo(_from(app, "198.51.101.1")) == 201  # another network
    # The day's puzzle is never refused, whatever the network started.
    assert _from(app, "198.51.100.10").post("/api/v1/games", json={"mode": "daily"}).status_code \
        == 201  # fmt: skip


def test_one_networks_day_of_storage_is_the_documented_bound(make_app: Any) -> None:
    def per_day(text: str) -> int:
        (window,) = parse_many(text)
        return int(window.amount * 86_400 // window.get_expiry())

    routes = rows(make_app())
    player, game = routes["api.create_player"].writes, routes["api.create_game"].writes
    assert {"network_games", "games"} <= set(routes["api.create_game"].limits)
    assert "network_games" in routes["archive.practice"].limits
    free = per_day(limits.DEFAULTS["network_players"])
    paid = next(n for n in range(100_000) if proofs.max_number(n) == proofs.MOST) + 1
    games = per_day(limits.DEFAULTS["network_games"])
    day = (free + paid) * player + (free + paid) * game + games * game
    section = OPERATIONS.read_text().split("## Storage per network")[1].split("\n## ")[0]
    printed = re.search(r"\*\*a day\*\* \| \| \| \*\*([\d,]+) ", section)
    assert printed is not None and int(printed.group(1).replace(",", "")) == day
    assert f"| 2,600 | {games * game:,} |" in section and costs.NEW_GAME.writes == game
