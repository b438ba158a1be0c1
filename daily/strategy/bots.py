"""Computer opponents: Expert plays optimally, Hard, Medium and Easy make ever larger slips.

Every bot ranks the legal actions by their exact expected final score (the hints). Expert
takes the best. The others draw among the actions within a *window* of points below the
best, with softmax weights ``exp(-loss / temperature)``: they make small slips often and
never throw a game away (Easy never gives away more than its window in one decision).
Randomness comes only from the caller's :class:`numpy.random.Generator`; every move goes
through the rules engine's :func:`~daily.core.rules.game.apply`, so a bot can only play legal moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from daily.core.errors import RulesError
from daily.core.modes import Level
from daily.core.rules.game import DiceSource, GameState, Move, apply, new_game
from daily.strategy.hints import Action, Advisor
from daily.strategy.solver import Table


@dataclass(frozen=True, slots=True)
class Bot:
    """A computer player: how far below the best it may play, and how readily."""

    level: Level
    temperature: float  # points of expected loss that divide a choice's weight by e
    window: float  # the largest expected loss it may accept in one decision

    def pick(self, values: np.ndarray, rng: np.random.Generator) -> int:
        """The index of the option it plays among options worth *values*."""
        best = int(np.argmax(values))
        if self.temperature <= 0:
            return best
        loss = values[best] - values
        weights = np.where(loss <= self.window, np.exp(-loss / self.temperature), 0.0)
        cumulative = np.cumsum(weights)
        # Inverse-CDF draw: one uniform number, much cheaper than Generator.choice(p=...).
        return int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))


LEVELS: dict[str, Bot] = {
    bot.level: bot
    for bot in (
        Bot("expert", 0.0, 0.0),
        Bot("hard", 0.3, 2.0),
        Bot("medium", 1.0, 4.0),
        Bot("easy", 2.0, 6.0),
    )
}


def find_bot(level: str) -> Bot:
    """Returns the bot of *level* (expert, hard, medium, easy)."""
    try:
        return LEVELS[level]
    except KeyError:
        raise RulesError(f"unknown level: {level!r} (known: {', '.join(LEVELS)})") from None


def choose(table: Table, bot: Bot, state: GameState, rng: np.random.Generator) -> Action:
    """The action *bot* plays in *state*."""
    advisor = Advisor(table, [state], rolls=state.rolls_left > 0)
    values, keeps, rows = advisor.options(0, state)
    return advisor.action(values, keeps, rows, bot.pick(values, rng), float(values.max()))


@dataclass(frozen=True, slots=True)
class Played:
    """A game or turn a bot played: the moves, in log order, and the state they led to."""

    moves: tuple[Move, ...]
    state: GameState


def play_turn(table: Table, bot: Bot, state: GameState, rng: np.random.Generator) -> Played:
    """Plays the rest of the turn of *state* (the computer's turn in computer mode)."""
    return _play_turn(Advisor(table, [state]), 0, bot, state, rng)


def play_games(
    table: Table,
    bot: Bot,
    sources: Sequence[DiceSource],
    rng: np.random.Generator,
) -> list[Played]:
    """Plays one whole game per dice source, all in step so each turn is solved in one batch."""
    states = [new_game(table.model.ruleset, source) for source in sources]
    moves: list[list[Move]] = [[] for _ in sources]
    for _ in range(table.model.rows):
        advisor = Advisor(table, states)
        for i, state in enumerate(states):
            played = _play_turn(advisor, i, bot, state, rng)
            moves[i] += played.moves
            states[i] = played.state
    return [Played(tuple(m), s) for m, s in zip(moves, states, strict=True)]


def _play_turn(
    advisor: Advisor, i: int, bot: Bot, state: GameState, rng: np.random.Generator
) -> Played:
    moves: list[Move] = []
    turn = state.turn
    while not state.is_finished and state.turn == turn:
        values, keeps, rows = advisor.options(i, state)
        action = advisor.action(values, keeps, rows, bot.pick(values, rng), float(values.max()))
        move = action.move(state.dice)
        state = apply(state, move)
        moves.append(move)
    return Played(tuple(moves), state)
