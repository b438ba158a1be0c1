"""Benchmark of the computer opponents: mean score ± standard error of each level.

Run as ``.venv/bin/python bench/bench_bots.py [--games N] [--rulesets yatzy,maxi]
[--cache DIR] [--workers N]``. Every level plays the same N dice streams (``daily.core.dice.stream``
of ``bench-<ruleset>-<i>``), in batches spread over worker processes; each batch's bot
randomness comes from its own seeded ``numpy.random.Generator``. A ruleset whose table is not
in the cache (``maxi`` before ``daily solve maxi``) is reported as missing, not solved here.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import time
from pathlib import Path

import numpy as np
from servers import table_of

from daily.core.dice import stream
from daily.core.errors import RulesError
from daily.strategy.bots import LEVELS, play_games

BATCH = 250


def _batch(job: tuple[str, str, str, int, int]) -> list[int]:
    ruleset_id, cache, level, start, count = job
    table = table_of(ruleset_id, Path(cache) if cache else None)
    sources = [stream(f"bench-{ruleset_id}-{i}".encode()) for i in range(start, start + count)]
    rng = np.random.default_rng([start, list(LEVELS).index(level)])
    return [g.state.total for g in play_games(table, LEVELS[level], sources, rng)]


def bench(ruleset_id: str, games: int, cache: Path | None, workers: int) -> None:
    """Plays *games* games per level and prints each level's mean ± standard error."""
    try:
        table_of(ruleset_id, cache, build=ruleset_id != "maxi")
    except RulesError as e:
        print(f"{ruleset_id}: no table ({e})")
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        for level in LEVELS:
            started = time.perf_counter()
            jobs = [
                (ruleset_id, str(cache or ""), level, start, min(BATCH, games - start))
                for start in range(0, games, BATCH)
            ]
            totals = np.array([t for batch in pool.map(_batch, jobs) for t in batch], float)
            error = totals.std(ddof=1) / math.sqrt(totals.size)
            print(
                f"{ruleset_id:6} {level:7} mean {totals.mean():7.2f} ± {error:4.2f}  "
                f"(games {totals.size}, sd {totals.std(ddof=1):5.1f}, "
                f"{time.perf_counter() - started:5.0f} s)",
                flush=True,
            )


def main() -> None:
    """Runs the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rulesets", default="yatzy,maxi")
    parser.add_argument("--cache", type=Path, help="default: $DAILY_CACHE")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    for ruleset_id in args.rulesets.split(","):
        bench(ruleset_id, args.games, args.cache, args.workers)


if __name__ == "__main__":
    main()
