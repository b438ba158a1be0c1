"""Benchmarks of the rules engine: scoring one maxi roll, and applying a whole maxi game.

Run as ``.venv/bin/python bench/bench_rules.py``. Targets (pure Python): scoring every row
of one six-dice roll under 5 µs; applying the 60 moves of a complete maxi game under 300 µs.
The dice and the moves are generated before timing, so only the engine is measured; the
figure judged is this process's CPU time, the wall-clock time is shown beside it.
"""

from __future__ import annotations

import random
import time
import timeit
from collections.abc import Callable

from daily.core.rules import GameState, Move, Roll, Score, apply, find_ruleset, new_game
from daily.core.rules.game import DiceSource, Hold

Timer = Callable[[], float]
SCORE_TARGET_US = 5.0
GAME_TARGET_US = 300.0


def scripted_game(seed: int) -> tuple[DiceSource, list[Move]]:
    """A maxi game of 60 moves (two re-rolls and a score each turn) and the dice it needs."""
    rng = random.Random(seed)
    ruleset = find_ruleset("maxi")
    rolls: dict[tuple[int, int], tuple[int, ...]] = {
        (turn, k): tuple(rng.randint(1, 6) for _ in range(ruleset.dice))
        for turn in range(1, len(ruleset.rows) + 1)
        for k in range(3)
    }

    def source(turn: int, holds: tuple[Hold, ...], count: int) -> tuple[int, ...]:
        return rolls[turn, len(holds)]

    rows = list(ruleset.row_ids)
    rng.shuffle(rows)
    moves: list[Move] = []
    for row in rows:
        for _ in range(2):
            hold = tuple(i for i in range(ruleset.dice) if rng.random() < 0.5)
            moves.append(Roll(hold if len(hold) < ruleset.dice else hold[:-1]))
        moves.append(Score(row))
    return source, moves


def play(source: DiceSource, moves: list[Move]) -> GameState:
    """Applies *moves* to a new maxi game."""
    state = new_game(find_ruleset("maxi"), source)
    for move in moves:
        state = apply(state, move)
    return state


def best_us(
    stmt: Callable[[], object], number: int, repeat: int = 30, timer: Timer = time.process_time
) -> float:
    """The best of *repeat* timings of *number* calls, in microseconds per call.

    By default the CPU time of this process: on a shared machine the wall clock also counts
    the time other processes hold the CPU. Many short repeats: the best is the least disturbed.
    """
    return min(timeit.repeat(stmt, number=number, repeat=repeat, timer=timer)) / number * 1e6


def main() -> None:
    """Prints the figures and whether each target is met."""
    maxi = find_ruleset("maxi")
    dice = (6, 2, 5, 2, 6, 1)
    assert len(maxi.score(dice)) == 20
    score_us = best_us(lambda: maxi.score(dice), number=20_000)
    score_wall = best_us(lambda: maxi.score(dice), number=20_000, timer=time.perf_counter)

    games = [scripted_game(seed) for seed in range(20)]
    for source, moves in games:
        assert len(moves) == 60 and play(source, moves).is_finished
    # The new game's first roll is dealt outside apply: time only the 60 applies.
    starts = [(new_game(maxi, source), moves) for source, moves in games]

    def apply_all() -> None:
        for state, moves in starts:
            for move in moves:
                state = apply(state, move)

    game_us = best_us(apply_all, number=5) / len(starts)
    game_wall = best_us(apply_all, number=5, timer=time.perf_counter) / len(starts)

    for label, value, wall, target in (
        ("score every row of one maxi roll", score_us, score_wall, SCORE_TARGET_US),
        ("apply a 60-move maxi game", game_us, game_wall, GAME_TARGET_US),
    ):
        verdict = "ok" if value < target else "MISSED"
        print(
            f"{label:34} {value:8.2f} µs CPU ({wall:.2f} µs wall)"
            f"   target < {target:g} µs   {verdict}"
        )


if __name__ == "__main__":
    main()
