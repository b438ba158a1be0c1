"""Benchmark of one hint: all legal actions of a game state, valued from the table.

Run as ``.venv/bin/python bench/bench_hint.py [--rulesets yatzy,maxi] [--cache DIR]``.
The positions are every decision of a few Expert games (first rolls, re-rolls and last
rolls alike); each hint is timed alone, from the memory-mapped table, after one warm-up.
Aims: under 20 ms for ``yatzy``, under 200 ms for ``maxi``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from servers import table_of

from daily.core.dice import stream
from daily.core.errors import RulesError
from daily.core.rules import GameState, apply, new_game
from daily.strategy.bots import find_bot, play_games
from daily.strategy.hints import hint
from daily.strategy.solver import Table


def positions(table: Table, games: int) -> list[GameState]:
    """Every state met in *games* Expert games."""
    ruleset = table.model.ruleset
    found = []
    sources = [stream(f"hint-{i}".encode()) for i in range(games)]
    played = play_games(table, find_bot("expert"), sources, np.random.default_rng(0))
    for source, game in zip(sources, played, strict=True):
        state = new_game(ruleset, source)
        for move in game.moves:
            found.append(state)
            state = apply(state, move)
    return found


def bench(ruleset_id: str, cache: Path | None, games: int) -> None:
    """Times a hint at every position of a few games and prints the figures."""
    try:
        table = table_of(ruleset_id, cache, build=ruleset_id != "maxi")
    except RulesError as e:
        print(f"{ruleset_id}: no table ({e})")
        return
    states = positions(table, games)
    hint(table, states[0])
    times = []
    for state in states:
        started = time.perf_counter()
        hint(table, state)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    print(
        f"{ruleset_id:6} hint: median {statistics.median(times):6.2f} ms, "
        f"p95 {times[int(0.95 * len(times))]:6.2f} ms, max {times[-1]:6.2f} ms "
        f"over {len(times)} positions"
    )


def main() -> None:
    """Runs the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", default="yatzy,maxi")
    parser.add_argument("--cache", type=Path, help="default: $DAILY_CACHE")
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    for ruleset_id in args.rulesets.split(","):
        bench(ruleset_id, args.cache, args.games)


if __name__ == "__main__":
    main()
