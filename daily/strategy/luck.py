"""Luck of a game's dice, measured with the exact table: the clairvoyance detector.

Every roll deals a position. Its *luck* is the value of that position minus the value of
the keep it was rolled from, both under optimal play from there (for a turn's first roll
the keep is the between-turn state), divided by the spread (standard deviation) of what
that keep could have dealt. Whatever the player's skill, each roll's luck has mean 0 and
variance 1 given everything before it. A player who knew the dice picks the keeps whose
dice they know to be good, and is lucky again and again.

The verdict is a test martingale (:func:`evalue_of`): bettors who, before each roll, stake
part of their wealth on that roll's luck being positive (some on every roll, some on each
turn's first re-roll alone, what scouts learn). For an honest player their mean wealth is a
nonnegative supermartingale starting at 1, whatever the player's policy, so by Ville's
inequality it ever reaches 1/:data:`ALPHA` with probability at most :data:`ALPHA`. A game
whose wealth reaches it is flagged; its *score* is log10 of the highest wealth.
docs/clairvoyance.md states the bound and what it assumes.

Pure: numpy and the rules engine, no clock, no global random.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from daily.core.errors import ReplayError, RulesError
from daily.core.rules.game import DiceSource, Roll, Score, apply, new_game, parse_move
from daily.strategy.combos import Combos
from daily.strategy.model import FloatArray, Model, turn
from daily.strategy.solver import Table, state_of

IntArray = npt.NDArray[np.int64]

#: One roll's luck counts at most this many standard deviations either way: a jackpot that
#: had one chance in thousands (six of a kind from nothing: 216) must not outweigh a whole
#: game. 8 keeps the honest mean at 0 to within 0.002 and gave the bench's best catch rates
#: at a false-positive rate of 1 in 10,000 (of 1.5, 2, 2.5, 3, 4, 5, 6, 8, 12 and none).
CLIP = 8.0

#: The false-positive rate guaranteed for every honest way of playing, every ruleset.
ALPHA = 1e-4
#: A game is flagged once its bettors' wealth reaches 1/ALPHA: a score (log10) of 4.
THRESHOLD = -math.log10(ALPHA)
#: The bettors' stakes: the wealth is the mean of one bettor per stake and per family of
#: :data:`BETS` (a mixture of test martingales is one), each staking that much of its wealth
#: per unit of luck. A stake above 1 is safe: :data:`CAP` bounds what a roll can cost.
STAKES = (0.1, 0.2, 0.35, 0.5, 0.7, 1.0, 1.4, 2.0)
#: Which rolls of a turn a family of bettors bets on, as (first, last) roll numbers (0: the
#: turn's first roll, 1: its first re-roll, ...; 99: its last): every roll (a player who saw
#: all the dice), every re-roll, and each turn's first re-roll alone (what scouts can learn).
#: A bettor sits out the other rolls, whose noise would only cost it wealth.
BETS = ((0, 99), (1, 99), (1, 1))
#: No roll may take more than this share of a bettor's wealth, however bad the roll: a stake
#: is cut to CAP / |the worst luck the keep could deal|.
CAP = 0.9


@dataclass(frozen=True, slots=True)
class Turns:
    """A batch of turns to value: the state and, per roll, the roll and the keep before it.

    ``rolls[t, i]`` is the index (among the rolls) of the i-th roll of turn t, -1 if the
    turn was scored before it; ``keeps[t, i]`` is the keep (among all keeps) that roll i+1
    was rolled from, -1 if none.
    """

    states: IntArray  # (T, 3): mask, upper, flag
    rolls: IntArray  # (T, rerolls + 1)
    keeps: IntArray  # (T, rerolls)


@dataclass(frozen=True, slots=True)
class Check:
    """A game's luck: each roll's luck, the worst its keep could deal and its number in its
    turn, the score (log10 of the bettors' highest wealth, :func:`evalue_of`) and the verdict."""

    lucks: tuple[float, ...]
    lows: tuple[float, ...]
    steps: tuple[int, ...]
    score: float
    threshold: float = THRESHOLD

    @property
    def flagged(self) -> bool:
        """Whether the bettors' wealth reached 1/ALPHA: no honest game does, but ALPHA."""
        return self.score >= self.threshold


def evalue_of(lucks: npt.ArrayLike, lows: npt.ArrayLike, steps: npt.ArrayLike) -> float:
    """log10 of the highest wealth the bettors reach over rolls of these *lucks*.

    *lows* is, per roll, the lowest luck its keep could deal, and *steps* the roll's number
    in its turn (0: the first roll). A bettor of stake ``s`` and family ``(first, last)``
    (:data:`STAKES`, :data:`BETS`) multiplies its wealth by ``1 + s * min(luck, CLIP)`` at
    each roll numbered first to last, ``s`` cut to ``CAP / |low|``: the stake is set before
    the roll, so for an honest roll (mean 0) the factor has mean at most 1 and never goes
    below 1 - CAP. NaN rolls (no spread) count for nothing.

    >>> round(evalue_of([], [], []), 6), round(evalue_of([0.0] * 9, [-2.0] * 9, [1] * 9), 6)
    (0.0, 0.0)
    >>> evalue_of([3.0] * 30, [-1.0] * 30, [0, 1, 2] * 10) > THRESHOLD  # lucky, again and again
    True
    """
    result = evalues_of(
        np.asarray(lucks, np.float64)[None],
        np.asarray(lows, np.float64)[None],
        np.asarray(steps, np.int64)[None],
    )
    return float(result[0])


def evalues_of(lucks: FloatArray, lows: FloatArray, steps: npt.ArrayLike) -> FloatArray:
    """:func:`evalue_of` of each row of *lucks* and *lows* (``(games, rolls)``); *steps*, the
    roll numbers, has their shape or broadcasts to it."""
    ok = np.isfinite(lucks) & np.isfinite(lows) & (lows < 0)
    x = np.where(ok, np.minimum(lucks, CLIP), 0.0)
    low = np.where(ok, -lows, 1.0)
    step = np.broadcast_to(np.asarray(steps), x.shape)
    on = np.array([(step >= first) & (step <= last) for first, last in BETS])  # (bets, g, r)
    stakes = np.minimum(np.asarray(STAKES)[:, None, None], CAP / low[None])  # (stakes, g, r)
    bets = (on[:, None] * stakes[None]).reshape(len(BETS) * len(STAKES), *x.shape)
    wealth = np.exp(np.cumsum(np.log1p(bets * x[None]), axis=2))
    # The highest wealth at any roll: Ville's bound holds for the whole path, not only its end.
    result: FloatArray = np.log10(wealth.mean(axis=0).max(axis=1, initial=1.0))
    return result


def score_of(lucks: npt.ArrayLike, clip: float = CLIP) -> float:
    """The game score of a sequence of roll lucks: their clipped sum over its square root.

    >>> score_of([1.0, 1.0, 1.0, 1.0]), score_of([]), score_of([216.0])
    (2.0, 0.0, 8.0)
    """
    values = np.asarray(lucks, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 0.0
    return float(np.clip(values, -clip, clip).sum() / math.sqrt(values.size))


def scores_of(lucks: FloatArray, clip: float = CLIP) -> FloatArray:
    """:func:`score_of` of each row of *lucks* (NaN where a game had no such roll)."""
    ok = np.isfinite(lucks)
    total = np.where(ok, np.clip(lucks, -clip, clip), 0.0).sum(axis=1)
    count = ok.sum(axis=1)
    result: FloatArray = np.where(count > 0, total / np.sqrt(np.maximum(count, 1)), 0.0)
    return result


def check(table: Table, source: DiceSource, moves: Iterable[Any]) -> Check:
    """Replays a finished game and values its luck; raises :class:`ReplayError`."""
    model = table.model
    turns = trace(model, source, moves)
    solved = turn(model, table.values, turns.states, keep_all=True)
    lucks, lows = luck_and_low(model, solved.final, solved.keeps, turns.rolls, turns.keeps)
    ok = np.isfinite(lucks)  # in play order: turn by turn, roll by roll
    values, floors, steps = lucks[ok], lows[ok], np.nonzero(ok)[1]
    return Check(
        tuple(float(v) for v in values),
        tuple(float(v) for v in floors),
        tuple(int(i) for i in steps),
        evalue_of(values, floors, steps),
    )


def trace(model: Model, source: DiceSource, moves: Iterable[Any]) -> Turns:
    """Replays *moves* and lists each turn's state, rolls and keeps (a finished game)."""
    c = model.combos
    width = model.ruleset.rerolls + 1
    state = new_game(model.ruleset, source)
    states, rolls, keeps = [], [], []
    index = 0
    for index, entry in enumerate(moves):
        try:
            move = entry if isinstance(entry, Roll | Score) else parse_move(entry)
            if state.roll == 1:
                states.append(state_of(model, state))
                rolls.append([c.roll_index(state.dice)] + [-1] * (width - 1))
                keeps.append([-1] * (width - 1))
            if isinstance(move, Roll):
                keep = tuple(sorted(state.dice[p] for p in move.hold if 0 <= p < len(state.dice)))
                keeps[-1][state.roll - 1] = c.index[keep]
            state = apply(state, move)
            if isinstance(move, Roll):
                rolls[-1][state.roll - 1] = c.roll_index(state.dice)
        except (RulesError, KeyError) as e:
            raise ReplayError(index, str(e)) from e
    if not state.is_finished:
        raise ReplayError(index + 1, "the game is not finished")
    return Turns(
        np.array(states, dtype=np.int64).reshape(-1, 3),
        np.array(rolls, dtype=np.int64).reshape(-1, width),
        np.array(keeps, dtype=np.int64).reshape(-1, width - 1),
    )


def luck(model: Model, values: FloatArray, turns: Turns) -> FloatArray:
    """``luck[t, i]``: the luck of roll i of turn t, NaN where there was no such roll.

    A roll whose keep could deal only positions of one value (no spread) has no luck: NaN.
    """
    solved = turn(model, values, turns.states, keep_all=True)
    return luck_of(model, solved.final, solved.keeps, turns.rolls, turns.keeps)


def luck_of(
    model: Model,
    final: FloatArray,
    keep_values: list[FloatArray],
    rolls: IntArray,
    keeps: IntArray,
) -> FloatArray:
    """:func:`luck` from a solved turn (the fields of :class:`~daily.strategy.model.Turn`)."""
    return luck_and_low(model, final, keep_values, rolls, keeps)[0]


def luck_and_low(
    model: Model,
    final: FloatArray,
    keep_values: list[FloatArray],
    rolls: IntArray,
    keeps: IntArray,
) -> tuple[FloatArray, FloatArray]:
    """:func:`luck_of`, and beside each roll's luck the lowest luck its keep could deal."""
    c = model.combos
    rerolls = len(keep_values)
    batch = np.arange(rolls.shape[0])
    moves = transitions(c)
    out = np.full(rolls.shape, np.nan)
    lows = np.full(rolls.shape, np.nan)
    for i in range(rerolls + 1):
        left = rerolls - i  # re-rolls left once roll i is dealt
        dealt = rolls[:, i] >= 0
        if not dealt.any():
            continue
        position = roll_values(c, final, keep_values, left)  # (rolls, batch)
        if i == 0:
            chance = np.broadcast_to(moves[0], (rolls.shape[0], c.n_rolls))
        else:
            chance = moves[np.maximum(keeps[:, i - 1], 0)]
        # Both moments from the same numbers as the outcome, in float64: an honest roll's
        # luck then has mean 0 exactly, not up to the table's float32 rounding.
        table = position.T.astype(np.float64)
        mean = np.einsum("br,br->b", chance, table)
        spread = np.einsum("br,br->b", chance, table * table) - mean * mean
        sd = np.sqrt(np.maximum(spread, 0.0))
        got = table[batch, np.maximum(rolls[:, i], 0)]
        # A spread below float32 rounding of values in the hundreds is no spread at all.
        ok = dealt & (sd > 1e-3)
        out[ok, i] = (got[ok] - mean[ok]) / sd[ok]
        worst = np.where(chance > 0, table, np.inf).min(axis=1)
        lows[ok, i] = (worst[ok] - mean[ok]) / sd[ok]
    return out, lows


def roll_values(
    c: Combos, final: FloatArray, keep_values: list[FloatArray], left: int
) -> FloatArray:
    """``(rolls, batch)``: the value of each roll dealt with *left* re-rolls left."""
    if left == 0:
        return final
    keeps = keep_values[left - 1]
    best = keeps[c.rolls].copy()  # keeping every die: no more re-rolls, the roll as it is
    padded = np.concatenate([keeps, np.full((1, keeps.shape[1]), -np.inf, keeps.dtype)])
    for column in c.sub.T:
        np.maximum(best, padded[column], out=best)  # -1 (no such sub-keep) reads -inf
    return best


@lru_cache(maxsize=8)
def _transitions(n: int) -> npt.NDArray[np.float64]:
    from daily.strategy.combos import combos

    c = combos(n)
    counts = c.counts[:, 1:].astype(np.int64)  # (keeps, 6)
    rolls = counts[c.rolls]  # (rolls, 6)
    diff = rolls[None, :, :] - counts[:, None, :]  # (keeps, rolls, 6)
    fact = np.array([math.factorial(k) for k in range(n + 1)], dtype=np.float64)
    size = n - counts.sum(axis=1)  # dice re-rolled from each keep
    possible = (diff >= 0).all(axis=2)
    ways = fact[size][:, None] / np.prod(fact[np.clip(diff, 0, n)], axis=2)
    chance: npt.NDArray[np.float64] = np.where(possible, ways / 6.0 ** size[:, None], 0.0)
    chance.flags.writeable = False
    return chance


def transitions(c: Combos) -> npt.NDArray[np.float64]:
    """``(keeps, rolls)``: the chance that re-rolling the rest of keep k deals roll r.

    >>> from daily.strategy.combos import combos
    >>> chance = transitions(combos(5))
    >>> bool(np.allclose(chance.sum(axis=1), 1.0)), float(chance[0, 0] * 6**5)
    (True, 1.0)
    """
    return _transitions(c.n)


def keep_indices(c: Combos, counts: npt.NDArray[np.integer]) -> IntArray:
    """The keep index of each row of face *counts* (``(..., 6)``: dice of faces 1 to 6)."""
    weights = (c.n + 1) ** np.arange(6, dtype=np.int64)
    result: IntArray = _keep_codes(c.n)[counts.astype(np.int64) @ weights]
    return result


def roll_indices(c: Combos, dice: npt.NDArray[np.integer]) -> IntArray:
    """The roll index of each row of *dice* (faces 1 to 6, any order, last axis the dice).

    >>> from daily.strategy.combos import combos
    >>> c = combos(5)
    >>> roll_indices(c, np.array([[1, 1, 1, 1, 1], [6, 5, 4, 3, 2]])).tolist() == [
    ...     c.roll_index((1,) * 5), c.roll_index((2, 3, 4, 5, 6))]
    True
    """
    codes = ((c.n + 1) ** (dice.astype(np.int64) - 1)).sum(axis=-1)
    result: IntArray = _keep_codes(c.n)[codes] - c.starts[c.n]
    return result


@lru_cache(maxsize=8)
def _keep_codes(n: int) -> IntArray:
    # Face counts read as a number in base n+1 -> keep index (-1: not a keep of <= n dice).
    from daily.strategy.combos import combos

    c = combos(n)
    codes = c.counts[:, 1:].astype(np.int64) @ ((n + 1) ** np.arange(6, dtype=np.int64))
    table = np.full((n + 1) ** 6, -1, dtype=np.int64)
    table[codes] = np.arange(len(c.keeps))
    table.flags.writeable = False
    return table
