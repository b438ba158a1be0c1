"""The detector's guarantee on honest styles, and the best line an informed attacker keeps unheld.

Honest part: games of each honest style that is not a bot (:data:`lockstep.STYLES`), or of
any policy of :data:`lockstep.POLICIES`, played in lockstep on random dice, in chunks shared
among ``--workers`` processes (each chunk's generator is keyed on the seed, the policy and
its first game, so the figures do not depend on the number of processes); each game's
detector score (log10 of the bettors' highest wealth, :func:`daily.strategy.luck.evalues_of`)
is measured as the service measures it. Reports the false positives (score >= 4) of each
with a 95 % Clopper-Pearson upper bound.

Attacker part: on each of three days' dice (the v2 stream of a bench seed), a planned line
that knows every first re-roll of its own line before it plays it (one scout account per
hold pattern and turn, replaying the line: see docs/integrity.md) and the detector's formula.
At each turn's first roll it plays the hold whose known re-roll ends on the best position
while its projected score stays under a budget (else the Expert's move); the second re-roll,
unknown, like the Expert. Each budget's line is checked by the service's own
:func:`daily.strategy.luck.check`; the best unheld total is set beside the Expert's and the
best of 1,000 noisy bots (Hard, Medium and Easy levels in turn) on the same dice.

``--lottery``: beside each day's lines, the same number of accounts (scouts and lines) each
playing its one daily honestly as the Hard bot, and the best of them: what those accounts
buy without scouting, as tickets of a lottery that ranks the luckiest.

``--power N``: N lockstep games each of players who foresaw every re-roll or only the first
re-rolls, on every turn or some, who do not plan around the detector: the share caught.

Run: DAILY_CACHE=/work/cache .venv/bin/python bench/bench_detector.py --games 100000
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import date, timedelta

import numpy as np
from servers import table_of

from daily.core import dice
from daily.core.rules import DiceSource, GameState, Move, Roll, Score, apply, new_game
from daily.strategy import bots, clairvoyant, lockstep, luck
from daily.strategy.combos import Combos
from daily.strategy.hints import hint
from daily.strategy.model import Model, Turn, turn
from daily.strategy.solver import Table, state_of

#: Budgets (log10 of the bettor's wealth) the attacker plans to stay under.
BUDGETS = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5)


def upper_bound(flagged: int, games: int, confidence: float = 0.95) -> float:
    """The one-sided Clopper-Pearson upper bound of a rate seen *flagged* times in *games*.

    >>> round(upper_bound(0, 30_000) * 1e4, 3)
    0.999
    """
    if flagged >= games:
        return 1.0
    low, high = flagged / games, 1.0
    for _ in range(100):  # bisection: the rate at which seeing <= flagged has chance 5 %
        mid = (low + high) / 2
        tail = sum(
            math.comb(games, k) * mid**k * (1 - mid) ** (games - k) for k in range(flagged + 1)
        )
        low, high = (mid, high) if tail > 1 - confidence else (low, mid)
    return high


#: The table each worker process plays with (loaded once per process by :func:`_load`).
_TABLE: list[Table] = []


def _load() -> None:
    _TABLE[:] = [table_of("maxi")]


def _chunk(policy: str, start: int, size: int, seed: int) -> tuple[list[int], list[float], int]:
    """One chunk of honest games: totals, detector scores, and the rolls they took.

    Its generator is keyed on (seed, policy, first game), so the figures do not depend on
    how the chunks are shared among processes.
    """
    rng = np.random.default_rng([seed, lockstep.POLICIES.index(policy), start])
    played = lockstep.play(_TABLE[0], policy, size, rng)
    rolls = int(np.isfinite(played.lucks).sum())
    return played.totals.tolist(), played.evalues.tolist(), rolls


def honest(policies: list[str], games: int, batch: int, seed: int, workers: int,
           seconds: float) -> None:  # fmt: skip
    """Plays the honest games, chunk i of every policy before chunk i+1 of any, and prints the
    table of the rounds done: all *games*, or as many as ended within *seconds*."""
    starts = range(0, games, batch)
    chunks = [(p, start, min(batch, games - start)) for start in starts for p in policies]
    began = time.perf_counter()
    done: dict[str, list[tuple[list[int], list[float], int]]] = {p: [] for p in policies}
    pool = ProcessPoolExecutor(workers, initializer=_load)
    try:
        futures = [pool.submit(_chunk, *chunk, seed) for chunk in chunks]
        for n, start in enumerate(starts):
            if time.perf_counter() - began > seconds:
                break
            for policy, future in zip(policies, futures[n * len(policies) :], strict=False):
                done[policy].append(future.result())
            print(f"{start + len(done[policies[0]][-1][0]):,} games of each policy, "
                  f"{time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
    finally:
        pool.shutdown(cancel_futures=True)
    played = sum(len(chunk[0]) for chunk in done[policies[0]])
    if not played:
        print(f"honest games: no round of {len(policies)} chunks ended in {seconds:.0f} s")
        return
    cut = "" if played == games else f", stopped after {seconds:.0f} s of {games:,}"
    print(f"honest games, {played:,} of each policy (chunks of {batch}, seed {seed}, "
          f"{workers} worker processes{cut})")  # fmt: skip
    print("| policy | games | mean total | rolls a game | score mean | highest score | "
          "score >= 3 | flagged (>= 4) | 95 % upper bound |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for policy in policies:
        totals = np.concatenate([chunk[0] for chunk in done[policy]])
        score = np.concatenate([chunk[1] for chunk in done[policy]])
        rolls = sum(chunk[2] for chunk in done[policy])
        flagged = int((score >= luck.THRESHOLD).sum())
        print(f"| {policy} | {score.size:,} | {totals.mean():.1f} | {rolls / score.size:.1f} | "
              f"{score.mean():.3f} | {score.max():.2f} | {int((score >= 3).sum())} | "
              f"{flagged} | {upper_bound(flagged, score.size):.1e} |", flush=True)  # fmt: skip


def power(table: Table, games: int, seed: int) -> None:
    """The share of foreseeing lockstep games the detector catches (they do not plan around
    it): foresight of every re-roll or of the first re-rolls only, on every turn or some."""
    rows = table.model.rows
    rng = np.random.default_rng([seed, 98])
    print(f"\nforeseeing players, {games:,} lockstep games each (seed {seed}): caught, score")
    print("| knew | turns | mean total | caught (>= 4) | median score |")
    print("|---|---|---|---|---|")
    for turns, scouting in ((rows, False), (rows // 4, False), (rows, True), (rows // 2, True)):
        known = np.zeros((games, rows), bool)
        for game in range(games):
            known[game, rng.choice(rows, turns, replace=False)] = True
        played = lockstep.play(table, "expert", games, rng, known=known, scouting=scouting)
        score = played.evalues
        knew = "the first re-rolls" if scouting else "every re-roll"
        print(f"| {knew} | {turns} of {rows} | {played.totals.mean():.1f} | "
              f"{np.mean(score >= luck.THRESHOLD):.0%} | {np.median(score):.2f} |",
              flush=True)  # fmt: skip


class Attacker:
    """A planned line on one game's dice that knows every first re-roll before playing it."""

    def __init__(self, table: Table, source: DiceSource, budget: float) -> None:
        self.table, self.budget = table, budget
        self.state = new_game(table.model.ruleset, source)
        self.moves: list[Move] = []
        self.lucks: list[float] = []
        self.lows: list[float] = []
        self.steps: list[int] = []  # each roll's number in its turn
        #: The paths this line was scouted at: one wave of scouts (one account per hold
        #: pattern) replays each to its turn and shows that turn's first re-rolls.
        self.scouted: list[tuple[Move, ...]] = []

    def play(self) -> GameState:
        while not self.state.is_finished:
            self.turn()
        return self.state

    def turn(self) -> None:
        model, c = self.table.model, self.table.model.combos
        state = self.state
        self.scouted.append(tuple(self.moves))
        solved = turn(model, self.table.values, np.array([state_of(model, state)]), keep_all=True)
        first = c.roll_index(state.dice)
        # The first roll's luck does not depend on the line: it is on the record already.
        luck0, low0 = _luck(model, c, solved, [first, -1, -1], [-1, -1])
        self._add(luck0, low0, 0)
        options: list[tuple[float, Move, float, float]] = []
        now = float(luck.roll_values(c, solved.final, solved.keeps, 2)[first, 0])
        for hold in clairvoyant.patterns(len(state.dice)):
            after = apply(state, Roll(hold))  # what the scouts saw for this hold
            keep = c.index[tuple(sorted(state.dice[p] for p in hold))]
            rolled = c.roll_index(after.dice)
            x, low = _luck(model, c, solved, [first, rolled, -1], [keep, -1])
            value = float(luck.roll_values(c, solved.final, solved.keeps, 1)[rolled, 0])
            options.append((value, Roll(hold), x, low))
        options.sort(key=lambda o: -o[0])
        chosen: Move | None = None
        for value, move, x, low in options:
            if value <= now:
                break
            if luck.evalue_of([*self.lucks, x], [*self.lows, low], [*self.steps, 1]) < self.budget:
                chosen = move
                break
        if chosen is None:  # nothing safe beats the honest move: play the Expert's
            line = clairvoyant.expert_turn(self.table, state)
        else:
            line = [chosen, *clairvoyant.expert_turn(self.table, apply(state, chosen))]
        rolls, keeps, s = [first, -1, -1], [-1, -1], state
        for i, move in enumerate(line):
            if isinstance(move, Roll):
                keeps[i] = c.index[tuple(sorted(s.dice[p] for p in move.hold))]
            s = apply(s, move)
            if isinstance(move, Roll):
                rolls[i + 1] = c.roll_index(s.dice)
        lucks, lows = luck.luck_and_low(model, solved.final, solved.keeps,
                                        np.array([rolls]), np.array([keeps]))  # fmt: skip
        for i in (1, 2):
            self._add(float(lucks[0, i]), float(lows[0, i]), i)
        self.moves.extend(line)
        self.state = s

    def _add(self, x: float, low: float, step: int) -> None:
        if math.isfinite(x):
            self.lucks.append(x)
            self.lows.append(low)
            self.steps.append(step)


def _luck(model: Model, c: Combos, solved: Turn, rolls: list[int], keeps: list[int]
          ) -> tuple[float, float]:  # fmt: skip
    """The luck of the last roll of *rolls* (one turn of one game) and its keep's lowest."""
    lucks, lows = luck.luck_and_low(model, solved.final, solved.keeps,
                                    np.array([rolls]), np.array([keeps]))  # fmt: skip
    i = max(i for i, r in enumerate(rolls) if r >= 0)
    return float(lucks[0, i]), float(lows[0, i])


def attack(
    table: Table, days: int, bots_each: int, budgets: tuple[float, ...], lottery: bool = False
) -> None:
    print(f"\nattacker: every first re-roll of its own line known, v2 dice of {days} days")
    print("| day | Expert | best of noisy bots | planned line: best unheld (budget, score) "
          "| lines held | accounts (scouts and lines) |"
          + (" the same accounts played honestly (Hard): best |" if lottery else ""))  # fmt: skip
    print("|---|---|---|---|---|---|" + ("---|" if lottery else ""))
    start = date(2026, 12, 1)
    rng = np.random.default_rng(7)
    lottery_rng = np.random.default_rng(11)  # apart, so the bots' games stay as without it
    for n in range(days):
        day = start + timedelta(days=n)
        seed = dice.daily_seed("bench-detector", day)
        source = dice.stream(seed, "v2")
        expert = bots.play_games(table, bots.LEVELS["expert"], [source], rng)[0].state.total
        best_bot = 0
        for level in ("hard", "medium", "easy"):
            count = bots_each // 3 + (1 if level == "hard" else 0) * (bots_each % 3)
            played = bots.play_games(table, bots.LEVELS[level], [source] * count, rng)
            best_bot = max(best_bot, *(p.state.total for p in played))
        best, held, waves = (0, 0.0, 0.0), 0, set()
        for budget in budgets:
            attacker = Attacker(table, source, budget)
            final = attacker.play()
            verdict = luck.check(table, source, attacker.moves)
            waves.update(attacker.scouted)
            if verdict.flagged:
                held += 1
            elif final.total > best[0]:
                best = (final.total, budget, verdict.score)
        # Lines share their scouts up to the turn where their plans part; past it each
        # line's re-rolls are its own path's, and so are its waves of scouts. Each line is
        # one more account's daily.
        scouts = len(waves) * len(clairvoyant.patterns(table.model.ruleset.dice))
        accounts = scouts + len(budgets)
        honest_best = ""
        if lottery:
            # The sybil baseline: the same accounts, each playing its one daily honestly
            # (the Hard bot, near the Expert with noise), and the luckiest one ranked.
            played = bots.play_games(table, bots.LEVELS["hard"], [source] * accounts, lottery_rng)
            honest_best = f" {max(p.state.total for p in played)} |"
        print(f"| {day} | {expert} | {best_bot} | {best[0]} ({best[1]}, {best[2]:.2f}) | "
              f"{held} of {len(budgets)} | {accounts:,} |{honest_best}", flush=True)  # fmt: skip


def first_rolls_line(table: Table, source: DiceSource) -> tuple[GameState, list[Move], float]:
    """A line that knows every turn's first roll (one scout game shows all 20) and nothing
    else: the Expert's re-rolls, and each row chosen for its points plus the value of the
    next turn's known first roll from the sheet it leaves. Also the points it expects to
    gain by that knowledge: at each such choice, its row's worth minus the Expert's row's,
    both valued with the known roll (the re-rolls' noise left out)."""
    model, c = table.model, table.model.combos
    state = new_game(model.ruleset, source)
    moves: list[Move] = []
    edge = 0.0
    while not state.is_finished:
        move = hint(table, state)[0].move(state.dice)
        if isinstance(move, Score) and state.turn < model.rows:
            expert_row = move.row
            rows = state.open_rows()
            after = [apply(state, Score(row)) for row in rows]
            batch = np.array([state_of(model, s) for s in after], dtype=np.int64)
            solved = turn(model, table.values, batch, keep_all=True)
            known = luck.roll_values(c, solved.final, solved.keeps, model.ruleset.rerolls)
            worth = [s.total + float(known[c.roll_index(s.dice), i]) for i, s in enumerate(after)]
            move = Score(rows[int(np.argmax(worth))])
            edge += max(worth) - worth[rows.index(expert_row)]
        state = apply(state, move)
        moves.append(move)
    return state, moves, edge


def first_rolls(table: Table, days: int) -> None:
    print(
        f"\nknowing only the 20 first rolls (v2 dice, {days} days): the planner beside the Expert"
    )
    print("| day | Expert | first rolls known | gain played | gain expected | its score |")
    print("|---|---|---|---|---|---|")
    gains = []
    for n in range(days):
        day = date(2026, 12, 1) + timedelta(days=n)
        source = dice.stream(dice.daily_seed("bench-detector", day), "v2")
        expert = bots.play_games(table, bots.LEVELS["expert"], [source], np.random.default_rng(0))
        state, moves, edge = first_rolls_line(table, source)
        gain = state.total - expert[0].state.total
        gains.append(edge)
        score = luck.check(table, source, moves).score
        print(f"| {day} | {expert[0].state.total} | {state.total} | {gain:+d} | {edge:+.1f} | "
              f"{score:.2f} |", flush=True)  # fmt: skip
    print(f"expected gain {np.mean(gains):+.1f} points a game (sd {np.std(gains):.1f}) over "
          f"{days} days")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="honest games a policy")
    parser.add_argument("--batch", type=int, default=1000, help="games a chunk")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes for the honest games"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--bots", type=int, default=1000, help="noisy bots a day")
    parser.add_argument(
        "--budgets",
        default=",".join(str(b) for b in BUDGETS),
        help="the attacker's budgets (scores it plans to stay under), comma-separated",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=math.inf,
        help="stop the honest games after this long: the rounds done (equal games a policy)",
    )
    parser.add_argument(
        "--policies",
        default=",".join(lockstep.STYLES),
        help="honest policies, comma-separated (any of lockstep.POLICIES)",
    )
    parser.add_argument("--skip-honest", action="store_true")
    parser.add_argument("--skip-attack", action="store_true")
    parser.add_argument("--power", type=int, default=0, help="foreseeing games of each kind")
    parser.add_argument("--first-rolls", type=int, default=0, help="days of the first-roll planner")
    parser.add_argument(
        "--lottery",
        action="store_true",
        help="also play the attack's accounts honestly (Hard), each its one daily: the best",
    )
    args = parser.parse_args()
    table = table_of("maxi")
    began = time.perf_counter()
    if not args.skip_honest:
        honest(args.policies.split(","), args.games, args.batch, args.seed, args.workers,
               args.seconds)  # fmt: skip
    if not args.skip_attack:
        budgets = tuple(float(b) for b in args.budgets.split(","))
        attack(table, args.days, args.bots, budgets, args.lottery)
    if args.power:
        power(table, args.power, args.seed)
    if args.first_rolls:
        first_rolls(table, args.first_rolls)
    print(f"\n{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
