"""Deterministic dice sources and small game helpers shared by the rules tests."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Sequence

from daily.core.rules import DiceSource, GameState, Roll, Ruleset, Score, apply, new_game
from daily.core.rules.game import Hold

Call = tuple[int, tuple[Hold, ...], int]


class Script:
    """A dice source that hands out a scripted list of rolls in order and records each call."""

    def __init__(self, rolls: Iterable[Sequence[int]]) -> None:
        self.rolls = [tuple(roll) for roll in rolls]
        self.calls: list[Call] = []

    def __call__(self, turn: int, holds: tuple[Hold, ...], count: int) -> tuple[int, ...]:
        self.calls.append((turn, holds, count))
        if not self.rolls:
            raise AssertionError(f"the script ran out of rolls at turn {turn}, holds {holds}")
        roll = self.rolls.pop(0)
        assert len(roll) == count, f"scripted roll {roll} is not {count} dice"
        return roll


def seeded(seed: int, equal_chance: float = 0.0) -> DiceSource:
    """A source that depends only on (seed, turn, holds): replays give the same dice.

    With *equal_chance*, a roll is all one face that often, so jokers and bonuses happen.
    """

    def source(turn: int, holds: tuple[Hold, ...], count: int) -> tuple[int, ...]:
        rng = random.Random(f"{seed}:{turn}:{holds}")
        if rng.random() < equal_chance:
            return (rng.randint(1, 6),) * count
        return tuple(rng.randint(1, 6) for _ in range(count))

    return source


def play_turns(ruleset: Ruleset, turns: Sequence[tuple[Sequence[int], str]]) -> GameState:
    """Plays one roll per turn: each turn's dice are scored straight away in its row."""
    state = new_game(ruleset, Script(dice for dice, _ in turns))
    for _, row in turns:
        state = apply(state, Score(row))
    return state


def at(state: GameState, dice: Sequence[int], **scores: int | None) -> GameState:
    """*state* with *dice* on the table and the given rows already scored."""
    sheet = list(state.scores)
    for row, points in scores.items():
        sheet[state.ruleset.index_of(row)] = points
    return dataclasses.replace(state, dice=tuple(dice), scores=tuple(sheet))


def reroll(state: GameState, *hold: int) -> GameState:
    """Re-rolls every die not at the *hold* positions."""
    return apply(state, Roll(tuple(hold)))
