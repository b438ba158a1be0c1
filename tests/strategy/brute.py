"""A brute-force evaluator: exact expectimax over the rules engine, for small end games.

Independent of the solver's arrays: every score, bonus and joker comes from the rules
engine's own ``apply``; dice outcomes are enumerated with their multinomial probabilities.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache
from math import factorial
from typing import Any

from daily.core.rules import GameState, Ruleset, Score, apply, find_ruleset
from daily.core.rules.scoring import FACES, Dice

Scores = tuple[int | None, ...]


def state(
    ruleset: Ruleset, scores: Scores, dice: Dice, rolls_left: int, extra: int = 0
) -> GameState:
    """A game state mid-game, with a source that must never be asked for dice."""
    turn = sum(p is not None for p in scores) + 1
    return GameState(
        ruleset, tuple(scores), tuple(dice), turn, ruleset.rerolls - rolls_left + 1, rolls_left,
        (), extra, lambda t, h, n: (1,) * n,
    )  # fmt: skip


@lru_cache(maxsize=16)
def outcomes(count: int) -> tuple[tuple[Dice, float], ...]:
    """Every sorted roll of *count* dice with its probability."""
    result = []
    for roll in itertools.combinations_with_replacement(FACES, count):
        ways = factorial(count)
        for c in Counter(roll).values():
            ways //= factorial(c)
        result.append((roll, ways / 6**count))
    return tuple(result)


class Brute:
    """Exact expected final totals under optimal play, by plain recursion with memos."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.n = ruleset.dice
        self.memo: dict[object, float] = {}

    def sheet(self, scores: Scores, extra: int = 0) -> float:
        """The expected final total from the start of a turn with this sheet."""
        key = ("sheet", scores, extra)
        if key not in self.memo:
            self.memo[key] = sum(
                p * self.dice(scores, extra, roll, self.ruleset.rerolls)
                for roll, p in outcomes(self.n)
            )
        return self.memo[key]

    def dice(self, scores: Scores, extra: int, dice: Dice, rolls_left: int) -> float:
        """The expected final total with *dice* on the table, playing the best action."""
        key = ("dice", scores, extra, dice, rolls_left)
        if key not in self.memo:
            self.memo[key] = max(self.actions(scores, extra, dice, rolls_left).values())
        return self.memo[key]

    def actions(
        self, scores: Scores, extra: int, dice: Dice, rolls_left: int
    ) -> dict[tuple[str, object], float]:
        """Every legal action (("score", row) or ("keep", dice)) with its expected total."""
        now = state(self.ruleset, scores, dice, rolls_left, extra)
        values: dict[tuple[str, object], float] = {}
        for row in now.open_rows():
            after = apply(now, Score(row))
            values["score", row] = (
                after.total if after.is_finished else self.sheet(after.scores, after.extra_bonuses)
            )
        if rolls_left > 0:
            keeps = {
                tuple(sorted(dice[i] for i in range(self.n) if bits >> i & 1))
                for bits in range(2**self.n - 1)
            }
            for keep in keeps:
                values["keep", keep] = self.keep(scores, extra, keep, rolls_left)
        return values

    def keep(self, scores: Scores, extra: int, keep: Dice, rolls_left: int) -> float:
        """The expected total after keeping *keep* and re-rolling the other dice."""
        key = ("keep", scores, extra, keep, rolls_left)
        if key not in self.memo:
            self.memo[key] = sum(
                p * self.dice(scores, extra, tuple(sorted(keep + roll)), rolls_left - 1)
                for roll, p in outcomes(self.n - len(keep))
            )
        return self.memo[key]


def ruleset_of(spec: str) -> Ruleset:
    """A ruleset from a test id: ``"maxi"``, ``"maxi:bonus=50@75,forced=true"``."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        options[key] = (
            value == "true"
            if value in ("true", "false")
            else (int(value) if value.isdigit() else value)
        )
    return find_ruleset(name, options)


def sheet(ruleset: Ruleset, open_rows: tuple[str, ...], **closed: int) -> tuple[int | None, ...]:
    """A sheet with *open_rows* open; closed rows score as given, else a plausible default."""
    scores: list[int | None] = []
    for row in ruleset.rows:
        if row.id in open_rows:
            scores.append(None)
        else:
            scores.append(closed.get(row.id, 3 * row.face if row.face else 7))
    return tuple(scores)
