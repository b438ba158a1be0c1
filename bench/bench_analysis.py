"""A game's analysis computed once and kept: the first ask against every later one, and what
keeping it costs in Redis.

Players play the day's daily (Maxi) with a bot of each level, on the embedded Redis, through
the app in-process; for each game ``GET /api/v1/games/<id>/analysis`` is timed on its first
ask (the solver values every decision, and the day's first ask also plays the Expert's game)
and then again (read back: the kept text, the moves replayed for the dice). Redis bytes are
``MEMORY USAGE`` of the game's hash before and after, and of the kept decisions' key.

Needs the Maxi table in ``$DAILY_CACHE`` (``daily solve maxi``).

Run: DAILY_CACHE=... .venv/bin/python bench/bench_analysis.py [--games 12] [--asks 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from daily import create_app
from daily.core.record import Record
from daily.core.rules import find_ruleset
from daily.service import tables
from daily.store import keys, saved_games
from daily.strategy import bots
from daily.web import limits
from daily.web.context import current_config, current_redis

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)
LEVELS = ("expert", "hard", "medium", "easy")


def played_daily(app: Any, level: str, seed: int) -> tuple[str, Any]:
    """A new player's daily, played to its end by the bot of *level*: its id."""
    client = app.test_client()
    state = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    with app.app_context():
        record = saved_games.load(current_redis(), state["id"])
        assert isinstance(record, Record)
        source = record.source(current_config().secret_key)
        table = tables.exact_table(find_ruleset("maxi"))
        game = bots.play_games(table, bots.LEVELS[level], [source], np.random.default_rng(seed))[0]
    for index, move in enumerate(game.moves):
        body: dict[str, Any] = {"move": index}
        if hasattr(move, "row"):
            kind, body["category"] = "score", move.row
        else:
            kind, body["hold"] = "roll", list(move.hold)
        answer = client.post(f"/api/v1/games/{state['id']}/{kind}", json=body)
        assert answer.status_code == 200, answer.get_json()
    return str(state["id"]), client


def timed(client: Any, path: str) -> float:
    began = time.perf_counter()
    answer = client.get(path)
    assert answer.status_code == 200, answer.get_json()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--asks", type=int, default=20, help="later asks per game")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    off = dict.fromkeys(limits.DEFAULTS, "off")  # the bench asks as often as it likes
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"env": "testing", "data_dir": Path(folder), "clock": lambda: NOW,
                          "rate_limits": off})  # fmt: skip
        first, later, hashes, kept = [], [], [], []
        for n in range(args.games):
            game_id, client = played_daily(app, LEVELS[n % len(LEVELS)], n)
            path = f"/api/v1/games/{game_id}/analysis"
            with app.app_context():
                before = current_redis().memory_usage(keys.game(game_id)) or 0
            first.append(timed(client, path))
            later += [timed(client, path) for _ in range(args.asks)]
            with app.app_context():
                after = current_redis().memory_usage(keys.game(game_id)) or 0
                hashes.append(after - before)
                kept.append(current_redis().memory_usage(keys.game_analysis(game_id)) or 0)
        app.extensions["daily.redis"].shutdown(nosave=True)
    print(f"{args.games} Maxi dailies, bots of every level, embedded Redis, in-process:")
    print(f"  first ask (the day's first plays the Expert too): {first[0]:.0f} ms; the others "
          f"median {statistics.median(first[1:] or first):.0f} ms")  # fmt: skip
    later.sort()
    print(f"  every later ask: median {statistics.median(later):.2f} ms, "
          f"p95 {later[int(len(later) * 0.95) - 1]:.2f} ms ({len(later)} asks)")  # fmt: skip
    print(
        f"  kept: the game's hash grew {statistics.median(hashes):.0f} B (median), the "
        f"decisions' key {statistics.median(kept):.0f} B (median, {max(kept)} at most)"
    )


if __name__ == "__main__":
    main()
