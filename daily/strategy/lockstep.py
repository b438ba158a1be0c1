"""Many games played in lockstep, a turn at a time, to calibrate the luck detector.

Each turn of a whole batch of games is solved in one call of the vectorized turn DP, then
every game plays it: an honest player by its policy (the bots' levels with the same noise
model as :mod:`daily.strategy.bots`, or uniformly random legal actions) on fresh random
dice, a clairvoyant one by the line its foresight shows. The dice come from the caller's
:class:`numpy.random.Generator` (each die uniform and independent, as in the real stream),
and every roll's luck is measured as :mod:`daily.strategy.luck` measures a real game's.

Clairvoyance is modelled on the real dice stream: the dice a re-roll deals depend on the
*positions* held (:mod:`daily.core.dice`), so each hold pattern is its own outcome. A player who
*knows* a turn sees every outcome of every pattern of both re-rolls and plays the line that
ends on the best position; a *scout* (one account per hold pattern) knows only the first
re-roll of each pattern, picks the best, and plays the second re-roll honestly.

Pure: numpy only; rulesets with a joker (``yahtzee``) are not simulated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from daily.core.errors import RulesError
from daily.strategy.bots import LEVELS
from daily.strategy.luck import (
    IntArray,
    evalues_of,
    keep_indices,
    luck_and_low,
    roll_indices,
    roll_values,
    scores_of,
)
from daily.strategy.model import FloatArray, Model, score_values, turn
from daily.strategy.solver import Table

BoolArray = npt.NDArray[np.bool_]
#: Honest people who are not bots: never re-rolling (the best row at once), re-rolling every
#: die while they may, chasing the upper bonus, chasing the last row (Maxi Yatzy, Yatzy: all
#: dice equal), greedy for points now.
STYLES = ("never", "all", "upper", "maxi", "greedy")
#: The honest policies: the bot levels, a player of uniformly random legal actions, the styles.
POLICIES = (*LEVELS, "random", *STYLES)
#: The greedy style re-rolls (keeping its most common face) while no row pays this much.
GREEDY_ENOUGH = 20


@dataclass(frozen=True, slots=True)
class Games:
    """A batch of simulated games: final totals and every roll's luck."""

    totals: IntArray  # (games,)
    lucks: FloatArray  # (games, turns, rerolls + 1), NaN where no roll (or no spread)
    lows: FloatArray  # the same shape: the lowest luck each roll's keep could deal

    @property
    def scores(self) -> FloatArray:
        """Each game's luck score (:func:`daily.strategy.luck.scores_of`)."""
        return scores_of(self.lucks.reshape(self.lucks.shape[0], -1))

    @property
    def evalues(self) -> FloatArray:
        """Each game's detector score: log10 of its bettors' highest wealth (in play order)."""
        flat = self.lucks.shape[0], -1
        steps = np.arange(self.lucks.shape[2])[None, :].repeat(self.lucks.shape[1], axis=0)
        return evalues_of(self.lucks.reshape(flat), self.lows.reshape(flat), steps.reshape(1, -1))


def play(
    table: Table,
    policy: str,
    games: int,
    rng: np.random.Generator,
    *,
    known: BoolArray | None = None,
    scouting: bool = False,
) -> Games:
    """Plays *games* games of *policy*; a game foresees the turns that *known* marks.

    *known* is ``(games, turns)``; a known turn is played with full foresight, or only of
    the first re-roll when *scouting*. Outside known turns the game plays *policy*.
    """
    model = table.model
    if model.joker >= 0:
        raise RulesError(f"{model.ruleset.id}: the lockstep simulation does not play the joker")
    if policy not in POLICIES:
        raise RulesError(f"unknown policy: {policy!r} (known: {', '.join(POLICIES)})")
    if model.ruleset.rerolls != 2:
        raise RulesError("the lockstep simulation plays two re-rolls a turn")
    sim = _Batch(model, table.values, policy, rng, games)
    foresight = np.zeros((games, model.rows), bool) if known is None else known
    for t in range(model.rows):
        sim.play_turn(t, foresight[:, t], scouting)
    return Games(sim.total.astype(np.int64), sim.lucks, sim.lows)


@dataclass(frozen=True, slots=True)
class _Plan:
    """The line a foreseeing game plays this turn: its first *depth* steps are planned."""

    depth: IntArray  # (games,): steps 0 .. depth-1 follow the plan (0: none)
    stop: IntArray  # (games,): the roll at which the plan scores (0, 1 or 2)
    keeps: IntArray  # (games, 2): the keep before re-roll 1 and 2
    rolls: IntArray  # (games, 3): the rolls the plan knows it will get

    @classmethod
    def none(cls, size: int) -> _Plan:
        """No game plans anything."""
        return cls(
            np.zeros(size, np.int64),
            np.full(size, 9, np.int64),
            np.full((size, 2), -1, np.int64),
            np.full((size, 3), -1, np.int64),
        )


class _Batch:
    """The state of a batch of games between turns, and the play of one turn."""

    def __init__(
        self, model: Model, values: FloatArray, policy: str, rng: np.random.Generator, size: int
    ) -> None:
        self.model = model
        self.values = values
        self.policy = policy
        self.rng = rng
        self.size = size
        self.mask = np.full(size, (1 << model.rows) - 1, dtype=np.int64)
        self.upper = np.zeros(size, dtype=np.int64)
        self.total = np.zeros(size, dtype=np.int64)
        self.lucks = np.full((size, model.rows, 3), np.nan)
        self.lows = np.full((size, model.rows, 3), np.nan)
        n = model.combos.n
        # held[h, p]: hold pattern h (every one but holding all dice) keeps position p.
        self.held = (np.arange(2**n - 1)[:, None] >> np.arange(n)[None, :] & 1).astype(bool)

    def play_turn(self, t: int, known: BoolArray, scouting: bool) -> None:
        """Plays turn *t* of every game; *known* games foresee it."""
        model, c = self.model, self.model.combos
        states = np.stack([self.mask, self.upper, np.zeros_like(self.mask)], axis=1)
        solved = turn(model, self.values, states, keep_all=True)
        self.keep_table = solved.keeps
        self.row_values = np.full((c.n_rolls, self.size, model.rows), -np.inf, model.dtype)
        for j, v in score_values(model, self.values, states).items():
            self.row_values[:, :, j] = v
        self.positions = [roll_values(c, solved.final, solved.keeps, n) for n in range(3)]
        first = self.rng.integers(1, 7, size=(self.size, c.n), dtype=np.int8)
        rolls = np.full((self.size, 3), -1, dtype=np.int64)
        keeps = np.full((self.size, 2), -1, dtype=np.int64)
        rolls[:, 0] = roll_indices(c, first)
        plan = _Plan.none(self.size)
        if known.any():
            plan = self.foresee(np.flatnonzero(known), first, scouting)
        for i in range(3):
            self.step(i, rolls, keeps, plan)
        self.lucks[:, t, :], self.lows[:, t, :] = luck_and_low(
            model, solved.final, solved.keeps, rolls, keeps
        )

    def step(self, i: int, rolls: IntArray, keeps: IntArray, plan: _Plan) -> None:
        """Every game still rolling at roll *i* keeps some dice and re-rolls, or scores."""
        c = self.model.combos
        games = np.flatnonzero(rolls[:, i] >= 0)
        if i < 2:
            games = games[rolls[games, i + 1] < 0]
        if i > 0:
            games = games[keeps[games, i - 1] >= 0]
        if games.size == 0:
            return
        r = rolls[games, i]
        left = 2 - i
        subs = c.sub[r] if left > 0 else np.zeros((games.size, 0), np.intp)
        rows = self.row_values[r, games]
        options = np.concatenate([self.keep_values(left, subs, games), rows], axis=1)
        choice = self.choose(options) if self.policy not in STYLES else self.style(r, subs, games)
        planned = plan.depth[games] > i
        if planned.any():
            choice[planned] = self.planned(i, games[planned], subs[planned], plan)
        width = subs.shape[1]
        rerolled = choice < width
        g = games[rerolled]
        if g.size:
            kept = subs[rerolled, choice[rerolled]]
            keeps[g, i] = kept
            dealt = self.reroll(kept)
            known = plan.depth[g] > i
            dealt[known] = plan.rolls[g[known], i + 1]
            rolls[g, i + 1] = dealt
        s = games[~rerolled]
        if s.size:
            self.score(s, rolls[s, i], choice[~rerolled] - width)

    def keep_values(self, left: int, subs: npt.NDArray[np.intp], games: IntArray) -> FloatArray:
        """``(games, subs)``: the value of each sub-keep with *left* re-rolls left."""
        if left == 0:
            return np.zeros((games.size, 0))
        values = self.keep_table[left - 1]
        result: FloatArray = np.where(
            subs >= 0, values[np.maximum(subs, 0), games[:, None]], -np.inf
        )
        return result

    def planned(self, i: int, games: IntArray, subs: npt.NDArray[np.intp], plan: _Plan) -> IntArray:
        """The option index that plays the plan's step *i* (the best row when it scores)."""
        rows = np.argmax(self.row_values[plan.rolls[games, i], games], axis=1)
        if subs.shape[1] == 0:
            scored: IntArray = rows
            return scored
        keep = np.argmax(subs == plan.keeps[games, min(i, 1), None], axis=1)
        result: IntArray = np.where(plan.stop[games] == i, subs.shape[1] + rows, keep)
        return result

    def choose(self, options: FloatArray) -> IntArray:
        """The option each game's policy plays among *options* (``(games, options)``)."""
        if self.policy == "expert":
            best: IntArray = np.argmax(options, axis=1)
            return best
        finite = np.isfinite(options)
        if self.policy == "random":
            weights = finite.astype(np.float64)
        else:
            bot = LEVELS[self.policy]
            loss = options.max(axis=1, keepdims=True) - options
            weights = np.where(finite & (loss <= bot.window), np.exp(-loss / bot.temperature), 0)
        cumulative = np.cumsum(weights, axis=1)
        draw = self.rng.random(options.shape[0]) * cumulative[:, -1]
        # Inverse-CDF draw, as Bot.pick: the first option whose cumulative weight passes it.
        passed = (cumulative <= draw[:, None]).sum(axis=1)
        choice: IntArray = np.minimum(passed, options.shape[1] - 1)
        return choice

    def style(self, r: IntArray, subs: npt.NDArray[np.intp], games: IntArray) -> IntArray:
        """The option each game of an honest style plays with roll *r* (see :data:`STYLES`)."""
        model, c = self.model, self.model.combos
        width = subs.shape[1]
        rows = self.row_values[r, games]  # (games, rows), -inf where scored
        open_rows = np.isfinite(rows)
        points = np.where(open_rows, model.points[r].astype(np.float64), -np.inf)
        best_row = width + np.argmax(rows, axis=1)  # the table's best row: how styles score
        counts = c.counts[c.starts[c.n] + r, 1:].astype(np.int64)  # (games, 6): faces 1-6
        if self.policy == "upper":  # only faces whose upper row is still open
            counts = np.where(open_rows[:, :6], counts, 0)
        face = 5 - np.argmax((counts * 7 + np.arange(1, 7))[:, ::-1], axis=1)  # ties: higher
        most = counts[np.arange(games.size), face]
        if self.policy == "never" or width == 0:
            return self._scored(best_row, points, face, most, width)
        if self.policy == "all":  # the empty keep (index 0): every die re-rolled
            empty = subs == 0
            every: IntArray = np.where(empty.any(axis=1), np.argmax(empty, axis=1), best_row)
            return every
        target = np.zeros((games.size, 6), np.int64)
        target[np.arange(games.size), face] = most
        kept = keep_indices(c, target)
        column = np.argmax(subs == kept[:, None], axis=1)
        can = (subs[np.arange(games.size), column] == kept) & (most > 0) & (most < c.n)
        if self.policy == "greedy":
            can &= points.max(axis=1) < GREEDY_ENOUGH
        played: IntArray = np.where(can, column, self._scored(best_row, points, face, most, width))
        return played

    def _scored(
        self, best: IntArray, points: FloatArray, face: IntArray, most: IntArray, width: int
    ) -> IntArray:
        """The row each style scores: the greedy the most points, the upper chaser its face's
        row with three or more, the Maxi chaser Maxi Yatzy, else the table's best row."""
        rows = np.arange(points.shape[0])
        chosen: IntArray = best
        maxi = self.model.rows - 1  # maxi_yatzy (yatzy): the last row
        if self.policy == "greedy":
            chosen = width + np.argmax(points, axis=1)
        elif self.policy == "upper":
            chosen = np.where(np.isfinite(points[rows, face]) & (most >= 3), width + face, best)
        elif self.policy == "maxi":
            chosen = np.where(
                np.isfinite(points[:, maxi]) & (points[:, maxi] > 0), width + maxi, best
            )
        return chosen

    def reroll(self, kept: npt.NDArray[np.intp]) -> IntArray:
        """The roll each keep deals with fresh random dice for the rest."""
        c = self.model.combos
        counts = c.counts[kept, 1:].astype(np.int64)
        fresh = self.rng.integers(0, 6, size=(kept.size, c.n))
        used = np.arange(c.n)[None, :] < (c.n - counts.sum(axis=1))[:, None]
        np.add.at(counts, (np.repeat(np.arange(kept.size), c.n), fresh.ravel()), used.ravel())
        result: IntArray = keep_indices(c, counts) - c.starts[c.n]
        return result

    def score(self, games: IntArray, rolls: IntArray, rows: IntArray) -> None:
        """Scores each game's roll in its row: sheet, upper total, bonus."""
        model = self.model
        points = model.points[rolls, rows].astype(np.int64)
        upper = rows < 6
        after = np.minimum(self.upper[games] + points, model.threshold)
        bonus = upper & (self.upper[games] < model.threshold) & (after >= model.threshold)
        self.upper[games] = np.where(upper, after, self.upper[games])
        self.total[games] += points + model.ruleset.bonus * bonus
        self.mask[games] ^= np.int64(1) << rows

    def foresee(self, games: IntArray, first: npt.NDArray[np.int8], scouting: bool) -> _Plan:
        """The plan of each foreseeing game: the best line its foresight shows."""
        plan = _Plan.none(self.size)
        for part in np.array_split(games, max(1, games.size // 64)):
            if part.size:
                (self._scout if scouting else self._foresee)(part, first[part], plan)
        return plan

    def _scout(self, games: IntArray, first: npt.NDArray[np.int8], plan: _Plan) -> None:
        # Every first re-roll is known (one scout per hold pattern); the second is not.
        c = self.model.combos
        r0 = roll_indices(c, first)
        dealt = self._deal(first)  # (games, patterns, dice)
        r1 = roll_indices(c, dealt)
        now = self.positions[0][r0, games]
        later = self.positions[1][r1, games[:, None]]
        h1 = np.argmax(later, axis=1)
        go = later[np.arange(games.size), h1] > now
        plan.depth[games] = 1
        plan.stop[games] = np.where(go, 9, 0)
        plan.rolls[games, 0] = r0
        plan.keeps[games, 0] = self._kept(first, h1)
        plan.rolls[games, 1] = r1[np.arange(games.size), h1]

    def _foresee(self, games: IntArray, first: npt.NDArray[np.int8], plan: _Plan) -> None:
        # Every re-roll of every pattern is known: the line that ends on the best position.
        c = self.model.combos
        m, patterns = games.size, self.held.shape[0]
        at = np.arange(m)
        r0 = roll_indices(c, first)
        d1 = self._deal(first)
        r1 = roll_indices(c, d1)
        d2 = self._deal(d1.reshape(m * patterns, c.n)).reshape(m, patterns, patterns, c.n)
        r2 = roll_indices(c, d2)
        final = self.positions[0]
        v0 = final[r0, games]
        v1 = final[r1, games[:, None]]
        v2 = final[r2, games[:, None, None]].reshape(m, -1)
        b1, b2 = np.argmax(v1, axis=1), np.argmax(v2, axis=1)
        best = np.stack([v0, v1[at, b1], v2[at, b2]], axis=1)
        stop = np.argmax(best, axis=1)  # ties go to the shorter line
        h1 = np.where(stop == 2, b2 // patterns, b1)
        h2 = b2 % patterns
        plan.depth[games] = 3
        plan.stop[games] = stop
        plan.rolls[games, 0] = r0
        plan.rolls[games, 1] = r1[at, h1]
        plan.rolls[games, 2] = r2[at, h1, h2]
        plan.keeps[games, 0] = self._kept(first, h1)
        plan.keeps[games, 1] = self._kept(d1[at, h1], h2)

    def _deal(self, dice: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
        """``(games, patterns, dice)``: what each hold pattern's re-roll deals."""
        fresh = self.rng.integers(1, 7, size=(dice.shape[0], *self.held.shape), dtype=np.int8)
        dealt: npt.NDArray[np.int8] = np.where(self.held[None], dice[:, None, :], fresh)
        return dealt

    def _kept(self, dice: npt.NDArray[np.int8], pattern: IntArray) -> IntArray:
        """The keep index of the dice that each game's hold *pattern* keeps."""
        c = self.model.combos
        held = self.held[pattern]  # (games, dice)
        faces = np.arange(1, 7)[None, None, :]
        counts = ((dice[:, :, None] == faces) & held[:, :, None]).sum(axis=1)
        return keep_indices(c, counts)
