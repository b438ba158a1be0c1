"""Analysis of a finished game: each decision against the best one, and the points lost.

The move log is replayed through the rules engine with the game's dice source; at every
decision the played action and the best one are valued by the exact table (expected final
score with optimal play afterwards), so the loss of a decision is what it cost on average,
not what it happened to cost with the dice that followed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from daily.core.errors import ReplayError, RulesError
from daily.core.rules.game import (
    DiceSource,
    GameState,
    Move,
    Roll,
    Score,
    apply,
    new_game,
    parse_move,
)
from daily.core.rules.scoring import Dice
from daily.strategy.hints import Action, Advisor
from daily.strategy.solver import Table


@dataclass(frozen=True, slots=True)
class Decision:
    """One move of the log, valued: what was played, the best action, the expected loss."""

    index: int  # the move's position in the log
    turn: int
    roll: int
    dice: Dice
    played: Action
    best: Action

    @property
    def loss(self) -> float:
        """Expected points given away by this move (0 for a best move)."""
        return self.played.loss


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every decision of a game and the expected points lost in all."""

    decisions: tuple[Decision, ...]
    total: int  # the game's final score
    optimum: float  # the expected final score of optimal play from the start

    @property
    def lost(self) -> float:
        """The expected points lost over the whole game."""
        return sum(d.loss for d in self.decisions)


def analyse(table: Table, source: DiceSource, moves: Iterable[Any]) -> Analysis:
    """Replays *moves* with *source* and values every decision; raises :class:`ReplayError`."""
    state = new_game(table.model.ruleset, source)
    advisor = Advisor(table, [state])
    decisions = []
    for index, entry in enumerate(moves):
        try:
            move = entry if isinstance(entry, Roll | Score) else parse_move(entry)
            if (state.turn, state.scores) != advisor.turns[0]:
                advisor = Advisor(table, [state])
            decisions.append(_decision(advisor, state, move, index))
            state = apply(state, move)
        except RulesError as e:
            raise ReplayError(index, str(e)) from e
    if not state.is_finished:
        raise ReplayError(len(decisions), "the game is not finished")
    return Analysis(tuple(decisions), state.total, table.optimum)


def _decision(advisor: Advisor, state: GameState, move: Move, index: int) -> Decision:
    actions = advisor.actions(0, state)
    played = next((a for a in actions if _plays(a, state, move)), None)
    if played is None:
        apply(state, move)  # raises the rules engine's own error for an illegal move
        raise RulesError(f"move has no value: {move!r}")
    return Decision(index, state.turn, state.roll, state.dice, played, actions[0])


def _plays(action: Action, state: GameState, move: Move) -> bool:
    if isinstance(move, Score):
        return action.row == move.row
    held = tuple(sorted(state.dice[p] for p in move.hold if 0 <= p < len(state.dice)))
    return action.keep == held and len(set(move.hold)) == len(move.hold)
