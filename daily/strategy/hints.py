"""Best-move hints: every legal action of a game state with its expected final score.

The table gives the value of every between-turn state; the turn in progress is solved on
demand (:class:`Advisor`), for one game or for a batch of games at once (the bots).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from daily.core.errors import IllegalMoveError
from daily.core.rules.game import GameState, Move, Roll, Score
from daily.core.rules.scoring import Dice
from daily.strategy.model import FloatArray, score_values, turn
from daily.strategy.solver import Table, state_of


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action: re-roll keeping *keep* (dice values), or score *row*."""

    keep: Dice | None
    row: str | None
    value: float  # the expected final score after this action, playing on optimally
    loss: float = 0.0  # how much less than the best action it expects

    def move(self, dice: Dice) -> Move:
        """The move that plays this action on *dice*."""
        if self.row is not None:
            return Score(self.row)
        return Roll(hold_positions(dice, self.keep or ()))


def hold_positions(dice: Dice, keep: Dice) -> tuple[int, ...]:
    """The positions of *dice* to hold so that the held dice show *keep*.

    >>> hold_positions((6, 2, 6, 3, 2), (2, 6))
    (0, 1)
    """
    used: list[int] = []
    for value in sorted(keep):
        position = next(i for i, d in enumerate(dice) if d == value and i not in used)
        used.append(position)
    return tuple(sorted(used))


class Advisor:
    """The solved turn of a batch of games, for every decision of that turn."""

    def __init__(self, table: Table, states: Sequence[GameState], *, rolls: bool = True) -> None:
        self.table = table
        self.model = table.model
        for state in states:
            if state.is_finished:
                raise IllegalMoveError("the game is over")
        batch = np.array([state_of(self.model, s) for s in states], dtype=np.int64)
        self.turns = [(s.turn, s.scores) for s in states]
        self.rows = score_values(self.model, table.values, batch)
        self.keeps: list[FloatArray] = (
            turn(self.model, table.values, batch, keep_all=True).keeps if rolls else []
        )

    def options(self, i: int, state: GameState) -> tuple[FloatArray, list[int], list[int]]:
        """Game *i*'s options now: values (keeps, then rows), keep indices, row indices."""
        if (state.turn, state.scores) != self.turns[i]:
            raise IllegalMoveError("the advisor was built for another turn")
        c = self.model.combos
        r = c.roll_index(state.dice)
        rows = [self.model.ruleset.index_of(row) for row in state.open_rows()]
        keeps: list[int] = []
        parts = [np.array([self.rows[j][r, i] for j in rows], dtype=np.float64)]
        if state.rolls_left > 0:
            subs = c.sub[r]
            keeps = [int(k) for k in subs[subs >= 0]]
            values = self.keeps[state.rolls_left - 1][keeps, i].astype(np.float64)
            parts.insert(0, values)
        return np.concatenate(parts) + state.total, keeps, rows

    def actions(self, i: int, state: GameState) -> list[Action]:
        """Every legal action of game *i*, best first, each with its loss against the best."""
        values, keeps, rows = self.options(i, state)
        best = float(values.max())
        actions = [self.action(values, keeps, rows, k, best) for k in range(values.size)]
        return sorted(actions, key=lambda a: (-a.value, a.row or "", a.keep or ()))

    def action(
        self,
        values: FloatArray,
        keeps: list[int],
        rows: list[int],
        k: int,
        best: float,
    ) -> Action:
        """Option *k* of :meth:`options` as an :class:`Action`."""
        value = float(values[k])
        loss = max(0.0, best - value)
        if k < len(keeps):
            return Action(self.model.combos.keeps[keeps[k]], None, value, loss)
        row = self.model.ruleset.rows[rows[k - len(keeps)]].id
        return Action(None, row, value, loss)


def hint(table: Table, state: GameState) -> list[Action]:
    """Every legal action of *state*, best first, with its expected final score and loss."""
    return Advisor(table, [state], rolls=state.rolls_left > 0).actions(0, state)
