"""The clairvoyance detector on honest games and cheaters: false positives and catch rates.

Run as ``DAILY_CACHE=... .venv/bin/python bench/bench_clairvoyance.py [--ruleset maxi]
[--games 40000] [--cheaters 2000] [--real 5] [--checks 30] [--seed 1]``.

1. Honest games: ``--games`` games of every policy (the bot levels with the bots' own noise
   model, uniformly random players and the honest styles of :data:`lockstep.STYLES`),
   played in lockstep on random dice (:mod:`daily.strategy.lockstep`); the false positives
   of :data:`daily.strategy.luck.THRESHOLD`, which Ville's inequality sets (no calibration).
   ``--save FILE.npz`` keeps every score.
2. Cheaters: ``--cheaters`` games each of a player who foresaw every turn, 10 turns or 5
   (picked at random), and of a scout who knew every first re-roll of every hold pattern
   (one account per pattern); the share of them that the threshold catches.
3. Real games: ``--real`` scouting games on the real dice stream, every move through the
   rules engine, checked the service's way (:func:`daily.strategy.luck.check`), and the time
   of that check over ``--checks`` Expert games and the scouting games.

The table must be built first (``daily solve maxi``); nothing is solved here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
from servers import table_of

from daily.core import dice
from daily.core.rules import find_ruleset
from daily.strategy import bots, clairvoyant, lockstep, luck
from daily.strategy.solver import Table

#: The false-positive rate the threshold aims at, and the rate it is calibrated for.
TARGET = 1e-4
CALIBRATION = TARGET / 2
BATCH = 1000


def honest(table: Table, games: int, seed: int) -> dict[str, np.ndarray]:
    """Every policy's game scores (``games`` each), printed as they come."""
    scores = {}
    for number, policy in enumerate(lockstep.POLICIES):
        started = time.perf_counter()
        rng = np.random.default_rng([seed, number])
        parts, totals, lucks = [], [], []
        for start in range(0, games, BATCH):
            played = lockstep.play(table, policy, min(BATCH, games - start), rng)
            parts.append(played.evalues)
            totals.append(played.totals)
            lucks.append(played.lucks[np.isfinite(played.lucks)])
        scores[policy] = np.concatenate(parts)
        every = np.concatenate(lucks)
        print(
            f"honest {policy:7} games {games:7,}  total {np.concatenate(totals).mean():6.1f}  "
            f"luck a roll {every.mean():+.4f} (sd {every.std():.3f}, {every.size / games:.1f} "
            f"rolls a game)  score {scores[policy].mean():+.3f} sd {scores[policy].std():.3f} "
            f"max {scores[policy].max():.2f}  {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    return scores


def cheaters(table: Table, games: int, seed: int) -> dict[str, np.ndarray]:
    """The scores of players who foresaw 20, 10 or 5 turns, and of scouts."""
    rows = table.model.rows
    rng = np.random.default_rng([seed, 99])
    scores = {}
    for name, turns, scouting in (
        (f"knew all {rows} turns", rows, False),
        ("knew 10 turns", 10, False),
        ("knew 5 turns", 5, False),
        ("scouting (first re-rolls)", rows, True),
    ):
        started = time.perf_counter()
        parts, totals = [], []
        for start in range(0, games, BATCH):
            size = min(BATCH, games - start)
            known = np.zeros((size, rows), bool)
            for game in range(size):
                known[game, rng.choice(rows, min(turns, rows), replace=False)] = True
            played = lockstep.play(table, "expert", size, rng, known=known, scouting=scouting)
            parts.append(played.evalues)
            totals.append(played.totals)
        scores[name] = np.concatenate(parts)
        total = np.concatenate(totals)
        print(
            f"cheater {name:26} games {games:6,}  total {total.mean():6.1f}  "
            f"score {scores[name].mean():.2f} (5th percentile "
            f"{np.percentile(scores[name], 5):.2f})  {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    return scores


def real_games(table: Table, scouts: int, checks: int) -> None:
    """Scouting and Expert games on the real dice stream, checked and timed as the service does."""
    ruleset = table.model.ruleset
    sources = [dice.stream(f"bench-clairvoyance-{i}".encode()) for i in range(max(scouts, checks))]
    expert = bots.play_games(
        table, bots.LEVELS["expert"], sources[:checks], np.random.default_rng(0)
    )
    luck.check(table, sources[0], expert[0].moves)  # warm the caches: the service is warm too
    times, found = [], []
    for source, played in zip(sources, expert, strict=False):
        started = time.perf_counter()
        verdict = luck.check(table, source, played.moves)
        times.append(time.perf_counter() - started)
        found.append(verdict.flagged)
    print(f"real Expert games {len(expert)}: {sum(found)} flagged", flush=True)
    for i in range(scouts):
        played = clairvoyant.play(table, sources[i], range(1, table.model.rows + 1), scouting=True)
        started = time.perf_counter()
        verdict = luck.check(table, sources[i], played.moves)
        times.append(time.perf_counter() - started)
        print(
            f"real scouting game {i} ({ruleset.id}, {2**ruleset.dice - 1} scouts): total "
            f"{played.state.total}, luck score {verdict.score:.2f} over {len(verdict.lucks)} "
            f"rolls: {'caught' if verdict.flagged else 'NOT caught'}",
            flush=True,
        )
    ms = sorted(1000 * t for t in times)
    print(
        f"check of one game (replay + luck), {len(ms)} games: "
        f"median {statistics.median(ms):.1f} ms, "
        f"p95 {ms[int(0.95 * (len(ms) - 1))]:.1f} ms, max {ms[-1]:.1f} ms (aim: at most 50 ms)"
    )


def report(name: str, threshold: float, calibration: np.ndarray, check: np.ndarray,
           caught: dict[str, np.ndarray]) -> None:  # fmt: skip
    """Prints the false positives and catch rates of one threshold."""
    print(
        f"{name} threshold {threshold:.2f}: false positives {np.sum(check >= threshold)} of "
        f"{check.size:,} games ({np.mean(check >= threshold):.1e}), "
        f"{np.sum(calibration >= threshold)} of {calibration.size:,} other games, "
        f"{np.mean(np.concatenate([check, calibration]) >= threshold):.1e} of all"
    )
    for cheat, scores in caught.items():
        print(f"  caught: {cheat:26} {np.mean(scores >= threshold):6.1%}")


def main() -> None:
    """Runs the calibration and prints every figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ruleset", default="maxi")
    parser.add_argument("--games", type=int, default=40_000, help="honest games per policy")
    parser.add_argument("--cheaters", type=int, default=2_000, help="games per cheater kind")
    parser.add_argument("--real", type=int, default=5, help="real-stream scouting games")
    parser.add_argument("--checks", type=int, default=30, help="Expert games to time the check")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--save", type=Path, default=None, help="an .npz file for the scores")
    args = parser.parse_args()
    ruleset = find_ruleset(args.ruleset)
    table = table_of(ruleset.id, args.cache, build=ruleset.dice <= 5)
    load = os.getloadavg()[0]
    print(f"{ruleset.id}: clip {luck.CLIP}, load average {load:.1f} on {os.cpu_count()} CPUs")
    scores = honest(table, args.games, args.seed)
    every = np.concatenate(list(scores.values()))
    parity = np.concatenate([np.arange(s.size) % 2 for s in scores.values()])
    calibration, check = every[parity == 0], every[parity == 1]
    # The threshold is not calibrated any more: Ville's inequality sets it (luck.THRESHOLD).
    caught = cheaters(table, args.cheaters, args.seed)
    if args.save:
        np.savez_compressed(args.save, **{f"honest {k}": v for k, v in scores.items()}, **caught)
    report("guaranteed", luck.THRESHOLD, calibration, check, caught)
    print(f"honest maximum {every.max():.2f} over {every.size:,} games")
    if args.real or args.checks:
        real_games(table, args.real, args.checks)


if __name__ == "__main__":
    main()
