"""What one /24 can leave in Redis a day at every limit (issue 38: storage per network).

The service on a throw-away redis-server with the shipped limits (the Flask test client,
each request from an address of 198.51.100.0/24, 16 of them in turn, as the issue's attacker
used). The attacker makes new players until the network's free allowance refuses, each plays
nothing but starts the day's puzzle, then their players start solo games round-robin until
the network's budget of games refuses. What stays a day later (keys without an expiry or
with more than a day left: ``MEMORY USAGE``, the rate limits' own counters aside) is
measured after each step, per player, per daily and per game; the day at every limit is
then those figures times what a /24 can make in a day (docs/operations.md, Storage per
network: the free and the paid players, a daily each, ``network_games``), beside the bound
the cost rows give and the 0.47 GB a day the issue measured before games counted per network.

Run: .venv/bin/python bench/bench_network.py
"""

from __future__ import annotations

import itertools
import logging
import os
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

import redis
from bench_storage import lasting
from limits import parse_many
from servers import redis_server

from daily import create_app
from daily.service import proofs
from daily.web import limits

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
SECRET = "bench-network-" + "n" * 32
ADDRESSES = [f"198.51.100.{n}" for n in range(1, 17)]
#: docs/operations.md's bound for a /24's day at every limit, the rows' ceilings.
BOUND = 22_393_000


def per_day(name: str) -> int:
    """How many of limit *name* a network makes in a day at its long-run rate."""
    (window,) = parse_many(limits.DEFAULTS[name])
    return int(window.amount * 86_400 // window.get_expiry())


def client_at(app: Any, address: str, token: str = "") -> Any:
    test = app.test_client()
    test.environ_base["REMOTE_ADDR"] = address
    if token:
        test.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return test


def main() -> None:
    os.environ["DAILY_TABLES"] = ""
    os.environ["DAILY_CACHE"] = tempfile.mkdtemp(prefix="bench-network-")
    logging.getLogger("daily.access").disabled = True
    print(f"load before: {os.getloadavg()[0]:.1f}")
    with redis_server() as url:
        store = redis.Redis.from_url(url, decode_responses=True)
        app = create_app({"env": "testing", "secret_key": SECRET, "redis_url": url,
                          "clock": lambda: NOON})  # fmt: skip
        started = time.monotonic()
        players: list[tuple[str, str]] = []
        for address in ADDRESSES:  # until the network's free allowance refuses
            while (made := client_at(app, address).post(
                    "/api/v1/players", json={"name": "Bot"})).status_code == 201:  # fmt: skip
                players.append((address, made.get_json()["token"]))
        after_players = lasting(store)
        for address, token in players:
            answer = client_at(app, address, token).post("/api/v1/games", json={"mode": "daily"})
            assert answer.status_code == 201, answer.get_json()
        after_dailies = lasting(store)
        games, refused = 0, None
        for address, token in itertools.cycle(players):
            answer = client_at(app, address, token).post(
                "/api/v1/games", json={"mode": "solo", "ruleset": "maxi"})  # fmt: skip
            if answer.status_code != 201:
                refused = answer.get_json()["error"]["message"]
                break
            games += 1
        after_games = lasting(store)
        took = time.monotonic() - started
        app.extensions["daily.redis"].close()
    player = after_players / len(players)
    daily = (after_dailies - after_players) / len(players)
    game = (after_games - after_dailies) / games
    print(f"from 16 addresses of one /24 in {took:.1f} s: {len(players)} players, as many "
          f"dailies, {games} solo games, then: {refused}")  # fmt: skip
    print(f"what stays a day later: {after_games:,} bytes; a player {player:.0f} bytes, "
          f"a daily under way {daily:.0f}, a solo game under way {game:.0f}")  # fmt: skip
    free = per_day("network_players")
    paid = next(n for n in itertools.count() if proofs.max_number(n) == proofs.MOST) + 1
    made = (free + paid) * (player + daily) + per_day("network_games") * game
    print(f"a /24 at every limit for a day ({free:,} free and {paid:,} paid players, a daily "
          f"each, {per_day('network_games'):,} other games): {made / 1e6:.1f} MB, "
          f"{made / BOUND:.2f} of the rows' bound ({BOUND / 1e6:.1f} MB); "
          f"30 days: {30 * made / 1e9:.2f} GB (before: 0.47 GB a day, 14 GB)")  # fmt: skip
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
