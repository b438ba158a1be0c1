"""Writes each row's par (what optimal play expects that row to score) for the share grid.

A Monte-Carlo estimate: the Expert bot (the exact solver's best move every time) plays N games
on fixed dice streams (``daily.core.dice.stream`` of ``par-<ruleset>-<i>``); a row's par is its mean
score over those games, the bonus's par its mean too. Deterministic for a given N and table.
Writes ``daily/static/js/par.js`` (a module the results script imports, so the play page's first
download stays small). Needs each ruleset's table in the cache (``DAILY_CACHE``):
    python tools/make_par.py --games 10000 --rulesets maxi,yatzy,yahtzee,yacht
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
from pathlib import Path

import numpy as np

from daily.core.config import load
from daily.core.dice import stream
from daily.core.rules import find_ruleset
from daily.strategy.bots import LEVELS, play_games
from daily.strategy.model import model_of
from daily.tables.files import Site
from daily.tables.loader import load_table

OUT = Path(__file__).resolve().parents[1] / "daily" / "static" / "js" / "par.js"
BATCH = 250


def _batch(job: tuple[str, str, int, int]) -> list[list[int]]:
    ruleset_id, cache, start, count = job
    # The tables `daily solve` built here, with this environment's settings and key.
    table = load_table(model_of(find_ruleset(ruleset_id)), Site.of(load(cache_dir=Path(cache))))
    sources = [stream(f"par-{ruleset_id}-{i}".encode()) for i in range(start, start + count)]
    rng = np.random.default_rng(start)  # Expert never draws: the generator is only a formality
    return [
        [s or 0 for s in g.state.scores] + [g.state.bonus]
        for g in play_games(table, LEVELS["expert"], sources, rng)
    ]


def par(ruleset_id: str, games: int, cache: Path, workers: int) -> dict[str, object]:
    """Each row's mean score (and the bonus's) over *games* Expert games, with its spread."""
    ruleset = find_ruleset(ruleset_id)
    jobs = [(ruleset_id, str(cache), s, min(BATCH, games - s)) for s in range(0, games, BATCH)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        scores = np.array([row for batch in pool.map(_batch, jobs) for row in batch], float)
    means = scores.mean(axis=0)
    errors = scores.std(axis=0, ddof=1) / math.sqrt(len(scores))
    ids = [row.id for row in ruleset.rows] + ["bonus"]
    for name, mean, error in zip(ids, means, errors, strict=True):
        print(f"{ruleset_id:6} {name:16} par {mean:6.2f} ± {error:4.2f}")
    print(f"{ruleset_id:6} total mean {scores.sum(axis=1).mean():.1f} over {len(scores)} games")
    return {
        "games": len(scores),
        "rows": {name: round(float(m), 1) for name, m in zip(ids[:-1], means[:-1], strict=True)},
        "bonus": round(float(means[-1]), 1),
    }


def main() -> None:
    """Runs the estimate from the command line and writes the module."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rulesets", default="maxi,yatzy,yahtzee,yacht")
    parser.add_argument("--cache", type=Path, default=load().cache_dir)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    data = {r: par(r, args.games, args.cache, args.workers) for r in args.rulesets.split(",")}
    OUT.write_text(
        "/* Each row's par: its mean score over Expert games (optimal play), by ruleset.\n"
        "   Written by tools/make_par.py; do not edit by hand. */\n"
        f"export const PAR = {json.dumps(data, indent=1)};\n"
    )


if __name__ == "__main__":
    main()
