"""Players who see the dice before they roll them, on the real dice stream: the cheaters that
the luck detector (:mod:`daily.strategy.luck`) must catch, for its tests and its bench.

The dice of a re-roll depend only on the turn and the hold positions (:mod:`daily.core.dice`), so
a player who knows the stream (a leaked seed, a replayed share code) can try every hold
pattern in their head. A *clairvoyant* turn tries every pattern of both re-rolls and plays
the line that ends on the best position (the exact table values each). A *scout* knows only
each pattern's first re-roll (63 accounts for 6 dice, one pattern each, have seen them all),
plays the best of those, then the second re-roll like the Expert.

Pure: the rules engine applies every move, so each line is legal; no clock, no random.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import numpy as np

from daily.core.rules.game import DiceSource, GameState, Hold, Move, Roll, Score, apply, new_game
from daily.strategy.hints import hint
from daily.strategy.luck import roll_values
from daily.strategy.model import FloatArray, turn
from daily.strategy.solver import Table, state_of


@dataclass(frozen=True, slots=True)
class Played:
    """A game played with foresight: the moves in log order and the final state."""

    moves: tuple[Move, ...]
    state: GameState


def patterns(dice: int) -> list[Hold]:
    """Every hold of a re-roll: each set of positions but all of them.

    >>> len(patterns(6)), patterns(2)
    (63, [(), (0,), (1,)])
    """
    return [tuple(i for i in range(dice) if bits >> i & 1) for bits in range(2**dice - 1)]


def positions(table: Table, state: GameState) -> list[FloatArray]:
    """``[n][roll]``: the value of each roll of this turn dealt with n re-rolls left."""
    model = table.model
    batch = np.array([state_of(model, state)], dtype=np.int64)
    solved = turn(model, table.values, batch, keep_all=True)
    left = range(len(solved.keeps) + 1)
    return [roll_values(model.combos, solved.final, solved.keeps, n)[:, 0] for n in left]


def play(
    table: Table, source: DiceSource, known: Collection[int], *, scouting: bool = False
) -> Played:
    """Plays a whole game on *source*, foreseeing the turns in *known* (1-based).

    Every other turn, and a scout's second re-roll, is played like the Expert.
    """
    state = new_game(table.model.ruleset, source)
    moves: list[Move] = []
    while not state.is_finished:
        if state.turn in known:
            line = scout_turn(table, state) if scouting else foreseen_turn(table, state)
        else:
            line = expert_turn(table, state)
        for move in line:
            state = apply(state, move)
            moves.append(move)
    return Played(tuple(moves), state)


def expert_turn(table: Table, state: GameState) -> list[Move]:
    """The rest of the turn as the Expert plays it, on dice it has not seen."""
    moves: list[Move] = []
    turn_number = state.turn
    while not state.is_finished and state.turn == turn_number:
        move = hint(table, state)[0].move(state.dice)
        moves.append(move)
        state = apply(state, move)
    return moves


def foreseen_turn(table: Table, state: GameState) -> list[Move]:
    """The line of this turn that ends on the best position, every re-roll foreseen."""
    value = _value_of(table, state, 0)
    best: tuple[float, list[Hold]] = (value(state), [])
    for first in patterns(len(state.dice)):
        once = apply(state, Roll(first))
        best = max(best, (value(once), [first]), key=lambda line: line[0])
        if once.rolls_left == 0:
            continue
        for second in patterns(len(state.dice)):
            twice = apply(once, Roll(second))
            best = max(best, (value(twice), [first, second]), key=lambda line: line[0])
    return _line(table, state, best[1])


def scout_turn(table: Table, state: GameState) -> list[Move]:
    """The scout's turn: the best known first re-roll, then the Expert's play."""
    dealt = {hold: apply(state, Roll(hold)).dice for hold in patterns(len(state.dice))}
    move = scout_move(table, state, dealt)
    if isinstance(move, Score):
        return [move]
    return [move, *expert_turn(table, apply(state, move))]


def scout_move(table: Table, state: GameState, dealt: Mapping[Hold, tuple[int, ...]]) -> Move:
    """At a turn's first roll, knowing what each hold's re-roll deals: hold or score."""
    now = _value_of(table, state, 0)(state)
    values = positions(table, state)
    c = table.model.combos
    left = state.rolls_left - 1
    best_hold, best = None, now
    for hold, dice in dealt.items():
        value = float(values[left][c.roll_index(dice)])
        if value > best:
            best_hold, best = hold, value
    return Roll(best_hold) if best_hold is not None else _best_row(table, state)


def _value_of(table: Table, state: GameState, left: int) -> Callable[[GameState], float]:
    """The value of scoring the dice of a state of this turn in its best row."""
    final = positions(table, state)[left]
    c = table.model.combos
    return lambda s: float(final[c.roll_index(s.dice)])


def _line(table: Table, state: GameState, holds: list[Hold]) -> list[Move]:
    moves: list[Move] = []
    for hold in holds:
        moves.append(Roll(hold))
        state = apply(state, Roll(hold))
    return [*moves, _best_row(table, state)]


def _best_row(table: Table, state: GameState) -> Move:
    return next(Score(a.row) for a in hint(table, state) if a.row is not None)
