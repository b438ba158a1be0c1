"""Computer mode: the computer's side of a game, played on the player's own dice stream.

The computer plays the same dice source as the player with its own holds, one turn after
each of the player's turns (so it sees the same first roll, and its re-rolls show nothing
the player could still use). Its moves are a pure function of the ruleset, the dice, the
level and the game id: each turn's bot draws come from :func:`bot_rng`, so a replay
reproduces them. While its strategy table is still being built (a game's ``engine`` is
fixed when it starts) it plays on a heuristic value function instead
(:func:`heuristic_table`), and says so. Everything here is pure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from daily.core.rules import DiceSource, GameState, Move, Ruleset, Score, apply, new_game
from daily.strategy.bots import Bot, play_turn
from daily.strategy.model import FloatArray, Model, model_of, turn
from daily.strategy.solver import Table

#: Who won a finished computer game, from the player's side.
Outcome = Literal["you", "computer", "tie"]
WIN: Outcome = "you"
LOSS: Outcome = "computer"
TIE: Outcome = "tie"


def bot_rng(game_id: str, turn: int) -> np.random.Generator:
    """The random draws of the computer's turn *turn* in game *game_id*.

    >>> float(bot_rng("g1", 3).random()) == float(bot_rng("g1", 3).random())
    True
    """
    digest = hashlib.sha256(f"computer:v1:{game_id}:{turn}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


@dataclass(frozen=True, slots=True)
class Step:
    """One move of the computer's turn and the dice it was made on."""

    dice: tuple[int, ...]
    move: Move
    points: int | None = None  # the points a Score move wrote


@dataclass(frozen=True, slots=True)
class Side:
    """The computer's game so far: its sheet and its last full turn."""

    state: GameState
    last_turn: tuple[Step, ...]


def replay_side(ruleset: Ruleset, source: DiceSource, moves: Sequence[Move]) -> Side:
    """The computer's sheet after *moves* (stored, already verified) and its last turn."""
    state = new_game(ruleset, source)
    steps: list[Step] = []
    last: tuple[Step, ...] = ()
    for move in moves:
        after = apply(state, move)
        points = None
        if isinstance(move, Score):
            points = after.scores[ruleset.index_of(move.row)]
        steps.append(Step(state.dice, move, points))
        if isinstance(move, Score):
            last, steps = tuple(steps), []
        state = after
    return Side(state, last)


def catch_up(
    table: Table, bot: Bot, source: DiceSource, game_id: str, moves: Sequence[Move], turns: int
) -> tuple[Move, ...]:
    """The computer's moves, *moves* continued until it has scored *turns* turns."""
    ruleset = table.model.ruleset
    side = replay_side(ruleset, source, moves)
    state, played = side.state, list(moves)
    while not state.is_finished and state.turn <= turns:
        turn_played = play_turn(table, bot, state, bot_rng(game_id, state.turn))
        played += turn_played.moves
        state = turn_played.state
    return tuple(played)


def outcome(you: GameState, computer: GameState | None) -> Outcome | None:
    """Who won once both sheets are full: :data:`WIN`, :data:`LOSS` or :data:`TIE`.

    >>> from daily.core.rules import find_ruleset
    >>> outcome(new_game(find_ruleset("yatzy"), lambda turn, holds, n: (1,) * n), None) is None
    True
    """
    if computer is None or not (you.is_finished and computer.is_finished):
        return None
    if you.total == computer.total:
        return TIE
    return WIN if you.total > computer.total else LOSS


# The heuristic: a value function in the table's place.


@lru_cache(maxsize=8)
def heuristic_table(ruleset: Ruleset) -> Table:
    """A :class:`Table` whose values are a par estimate, for rulesets with no table built.

    The value of a between-turn state is the sum of its open rows' pars plus the bonus
    times an estimated chance of reaching it; the turn in progress is still solved exactly
    against it, so the computer keeps and scores sensibly (see docs/computer.md for its figures).
    """
    model = model_of(ruleset)
    values = _Heuristic(model, _pars(model))
    # The turn DP only ever indexes the table with arrays of entries: a function does.
    return Table(model, cast(FloatArray, values))


#: A row's par is this share of what it expects when it is the only row left (3 rolls
#: for it alone overrate every row; the share was tuned on yatzy against the exact table).
PAR_SHARE = 0.85
#: How many dice of its face an open upper row is expected to score, per die rolled.
UPPER_SHARE = 0.5


class _Heuristic:
    """Par values of between-turn states, indexed like a table's flat value array."""

    def __init__(self, model: Model, pars: npt.NDArray[np.float64]) -> None:
        self.model = model
        self.pars = pars

    def __getitem__(self, index: npt.NDArray[np.int64]) -> FloatArray:
        m = self.model
        mask, upper, _ = m.state_at(np.asarray(index, dtype=np.int64))
        value = np.zeros(mask.shape, dtype=np.float64)
        for j, par in enumerate(self.pars):
            value += (mask >> j & 1) * par
        if m.threshold:
            value += self._bonus(mask, upper)
        return value.astype(m.dtype)

    def _bonus(self, mask: npt.NDArray[np.int64], upper: npt.NDArray[np.int64]) -> FloatArray:
        m = self.model
        faces = np.zeros(mask.shape, dtype=np.float64)
        for f in range(1, 7):
            faces += (mask >> (f - 1) & 1) * f
        expected = upper + UPPER_SHARE * m.combos.n * faces
        live = (upper < m.threshold) & (upper + m.combos.n * faces >= m.threshold)
        chance = 1.0 / (1.0 + np.exp(-(expected - m.threshold) / (1.0 + faces / 3.0)))
        bonus: FloatArray = m.ruleset.bonus * np.where(live, chance, 0.0)
        return bonus


def _pars(model: Model) -> npt.NDArray[np.float64]:
    """Each row's par: :data:`PAR_SHARE` of its value when it is the only row left."""
    states = np.array([(1 << j, 0, 0) for j in range(model.rows)], dtype=np.int64)
    single = turn(model, cast(FloatArray, _Zero()), states).value
    return PAR_SHARE * np.asarray(single, dtype=np.float64)


class _Zero:
    """Zero for every state: the pars measure each row alone, without the bonus chase."""

    def __getitem__(self, index: npt.NDArray[np.int64]) -> FloatArray:
        return np.zeros(np.shape(index), dtype=np.float64)
