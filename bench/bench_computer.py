"""Benchmark of computer mode: the heuristic bot's strength, and the computer's turn time.

Run as ``.venv/bin/python bench/bench_computer.py [--games N] [--cache DIR]``. Prints:

- the heuristic (the computer of ``maxi`` while its table is not built) at each level, mean ±
  standard error over N games on the dice streams of ``bench_bots.py``, beside the exact
  Expert where the table is in the cache;
- the time of one computer turn as a request plays it
  (:func:`daily.strategy.computer.catch_up` for one more turn), median and p95 over every
  turn of 5 games, exact and heuristic;
- the time of analysing a whole Expert game (:func:`daily.strategy.analysis.analyse`, what
  ``GET /games/<id>/analysis`` computes on each request), median over 5 games.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

import numpy as np
from servers import table_of

from daily.core.dice import stream
from daily.core.errors import RulesError
from daily.core.rules import Move, find_ruleset
from daily.strategy import computer
from daily.strategy.analysis import analyse
from daily.strategy.bots import LEVELS, find_bot, play_games
from daily.strategy.solver import Table


def strength(table: Table, label: str, games: int) -> None:
    """Prints each level's mean ± standard error on *table* over *games* games."""
    ruleset = table.model.ruleset.id
    sources = [stream(f"bench-{ruleset}-{i}".encode()) for i in range(games)]
    for level, bot in LEVELS.items():
        began = time.process_time()
        totals = [g.state.total for g in play_games(table, bot, sources, np.random.default_rng(1))]
        error = statistics.stdev(totals) / math.sqrt(len(totals))
        cpu = time.process_time() - began
        print(f"{ruleset} {label} {level}: {statistics.mean(totals):.2f} ± {error:.2f} "
              f"({games} games, {cpu:.1f} s CPU)")  # fmt: skip


def turn_time(table: Table, label: str) -> None:
    """Prints the median and p95 time of one computer turn, as one request plays it."""
    times = []
    for game in range(5):
        source = stream(f"turns-{game}".encode())
        moves: tuple[Move, ...] = ()
        for turns in range(1, table.model.rows + 1):
            began = time.perf_counter()
            moves = computer.catch_up(table, LEVELS["medium"], source, f"g{game}", moves, turns)
            times.append(time.perf_counter() - began)
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"{table.model.ruleset.id} {label} computer turn: median "
          f"{1000 * statistics.median(times):.1f} ms, p95 {1000 * p95:.1f} ms")  # fmt: skip


def analysis_time(table: Table) -> None:
    """Prints the median time of analysing a whole Expert game on *table*."""
    sources = [stream(f"analysis-{i}".encode()) for i in range(5)]
    played = play_games(table, find_bot("expert"), sources, np.random.default_rng(2))
    times = []
    for game, source in zip(played, sources, strict=True):
        began = time.perf_counter()
        analyse(table, source, game.moves)
        times.append(time.perf_counter() - began)
    print(f"{table.model.ruleset.id} analysis of a whole game: median "
          f"{1000 * statistics.median(times):.1f} ms")  # fmt: skip


def main() -> None:
    """Runs the benchmark."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--cache", type=Path, help="default: $DAILY_CACHE")
    args = parser.parse_args()
    for ruleset_id in ("yatzy", "maxi"):
        rules = find_ruleset(ruleset_id)
        heuristic = computer.heuristic_table(rules)
        strength(heuristic, "heuristic", args.games)
        turn_time(heuristic, "heuristic")
        try:
            exact = table_of(ruleset_id, args.cache, build=ruleset_id != "maxi")
        except RulesError as e:
            print(f"{ruleset_id} exact: {e}")
            continue
        strength(exact, "exact", args.games)
        turn_time(exact, "exact")
        analysis_time(exact)


if __name__ == "__main__":
    main()
