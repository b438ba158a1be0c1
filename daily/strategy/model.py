"""A ruleset turned into arrays: the between-turn states and the turn DP over them.

A between-turn state is ``(mask, upper, flag)``: *mask* has bit j set while row j is open,
*upper* is the upper total capped at the bonus threshold, *flag* is 1 once the joker row
(Yahtzee) holds 50. Its value is the expected points still to come under optimal play.
Upper totals that can no longer reach the threshold all have the same value, so they share
the entry of upper total 0, and a table keeps only the totals a sheet can make
(:mod:`daily.strategy.layout`, :meth:`Model.entry`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from daily.core.errors import RulesError
from daily.core.rules.rulesets import RULE_FIELDS, Ruleset
from daily.strategy import kernels
from daily.strategy.combos import Combos, IntArray, combos
from daily.strategy.layout import Kind, Layout, compact, dense, kept
from daily.strategy.specs import unsolved

FloatArray = npt.NDArray[np.floating]
#: 2: the compact layout (:mod:`daily.strategy.layout`); a dense table keeps version 1's name.
SOLVER_VERSION = 2
_UPPER = 6  # the six upper rows are rows 0 to 5 in every ruleset
#: Whether :func:`turn` runs the re-roll DP compiled (bench/bench_solver.py turns it off to
#: time the numpy version, which stays as the reference and serves ``keep_all``).
COMPILED = True


@dataclass(frozen=True, slots=True)
class Model:
    """The arrays of one ruleset that the solver, the hints and the bots share."""

    ruleset: Ruleset
    combos: Combos = field(repr=False)
    rows: int
    threshold: int  # 0 when there is no bonus: the upper total is then not tracked
    flags: int  # 2 with a joker row (Yahtzee), else 1
    joker: int  # the joker row's index, or -1
    points: npt.NDArray[np.float64] = field(repr=False)  # points[r, j] of roll r in row j
    scoring: tuple[IntArray, ...] = field(repr=False)  # scoring[j]: the rolls worth points in j
    dtype: type[np.floating] = field(repr=False)
    layout: Layout = field(repr=False)
    #: A file name stem that changes whenever the rules or the solver change (:func:`_key`):
    #: worked out once, as the model is made (a Maxi model's points are hashed in 0.24 ms).
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", _key(self))

    @property
    def uppers(self) -> int:
        """How many upper totals are tracked: 0 to the threshold."""
        return self.threshold + 1

    @property
    def size(self) -> int:
        """How many values the table holds: a block of slots per lower mask, times flags."""
        return (1 << (self.rows - _UPPER)) * self.layout.stride * self.flags

    @property
    def shape(self) -> tuple[int]:
        """The shape of the flat value table (see :mod:`daily.strategy.layout`)."""
        return (self.size,)

    @property
    def start(self) -> int:
        """The mask of a new game: every row open."""
        return (1 << self.rows) - 1

    def entry(
        self, mask: npt.NDArray[np.int64], upper: npt.NDArray[np.int64], flag: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """The flat table index of each state; dead upper totals share upper total 0."""
        block = (mask >> _UPPER) * self.layout.stride
        index: npt.NDArray[np.int64] = (block + self.layout.slots(mask & 63, upper)) * self.flags
        return index + flag

    def state_at(
        self, index: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The state ``(mask, upper, flag)`` of each flat index (a dead total reads as 0)."""
        rest, flag = np.divmod(np.asarray(index, np.int64), self.flags)
        block, slot = np.divmod(rest, self.layout.stride)
        mask = block << _UPPER | self.layout.code_of[slot]
        return mask, self.layout.upper_of[slot], flag

    def upper_total(self, upper: int) -> int:
        """The tracked upper total for a sheet's upper sum."""
        return min(upper, self.threshold)

    def open_rows(self, mask: int) -> list[int]:
        """The rows a turn of *mask* may score in, ignoring the joker."""
        rows = [j for j in range(self.rows) if mask >> j & 1]
        return rows[:1] if self.ruleset.forced else rows


#: The rule fields a table's name was made of before the rules declared theirs, in that order
#: (the rows as their ids; their scorers are in the points): kept, so that every table built
#: keeps its name. Every other rule field joins the name when it is not its default.
_NAMED = (
    *("id", "dice", "rows", "bonus", "bonus_threshold"),
    *("extra_bonus", "joker_row", "forced", "rerolls"),
)
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Ruleset)}


def _key(model: Model) -> str:
    """A file name stem that changes whenever the rules or the solver change: every rule
    field of the ruleset (:data:`~daily.core.rules.rulesets.RULE_FIELDS`) is in it, so a
    new option's effect names another table without a word here."""
    r = model.ruleset
    # A dense table keeps the name it had before the compact layout (version 1), so the
    # tables an older checkout built stay readable as the reference.
    dense = model.layout.kind == "dense"
    version = (1,) if dense else (SOLVER_VERSION, model.layout.kind)
    named = tuple(r.row_ids if name == "rows" else getattr(r, name) for name in _NAMED)
    text = repr((*version, *named, np.dtype(model.dtype).str))
    others = _other_rules(r)
    if others:  # none for the rulesets and options the names were fixed for
        text += repr(others)
    text += model.points.tobytes().hex()  # the rows' scorers, as points
    return f"{r.id}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _other_rules(ruleset: Ruleset) -> tuple[tuple[str, object], ...]:
    """The rule fields outside :data:`_NAMED` that *ruleset* sets away from their default."""
    return tuple(
        (name, getattr(ruleset, name))
        for name in RULE_FIELDS
        if name not in _NAMED and getattr(ruleset, name) != _DEFAULTS[name]
    )


@lru_cache(maxsize=16)
def model_of(ruleset: Ruleset) -> Model:
    """Returns the solver's arrays for *ruleset*; raises :class:`RulesError` for one it cannot
    play (:func:`unsolved`: saved rolls, say)."""
    reason = unsolved(ruleset)
    if reason is not None:
        raise RulesError(reason)
    c = combos(ruleset.dice)
    points = np.array([ruleset.score(k) for k in c.keeps[c.rolls]], dtype=np.float64)
    threshold = ruleset.bonus_threshold if ruleset.bonus else 0
    return Model(
        ruleset=ruleset,
        combos=c,
        rows=len(ruleset.rows),
        threshold=threshold,
        flags=2 if ruleset.joker_row else 1,
        joker=ruleset.index_of(ruleset.joker_row) if ruleset.joker_row else -1,
        points=points,
        scoring=tuple(np.flatnonzero(points[:, j] > 0) for j in range(len(ruleset.rows))),
        dtype=np.float32 if ruleset.dice > 5 else np.float64,
        layout=compact(c.n, threshold),
    )


def with_layout(model: Model, kind: Kind) -> Model:
    """*model* with its table laid out the *kind* way: the dense layout is the reference that
    the tests and ``bench_solver.py --layouts`` hold the compact one to."""
    make = compact if kind == "compact" else dense
    return dataclasses.replace(model, layout=make(model.combos.n, model.threshold))


def level_states(model: Model, open_count: int) -> npt.NDArray[np.int64]:
    """Every state with *open_count* open rows to solve, as rows ``(mask, upper, flag)``.

    Only upper totals that the closed upper rows can make are listed, and of the dead ones
    (that can no longer reach the threshold) only upper total 0.
    """
    masks = _masks(model, open_count)
    if masks.size == 0:
        return np.zeros((0, 3), np.int64)
    parts = []
    for code in range(64):
        group = masks[(masks & 63) == code]
        if group.size == 0:
            continue
        uppers = kept(model.combos.n, model.threshold, code)
        m = np.repeat(group, uppers.size)
        u = np.tile(uppers, group.size)
        parts.append(np.stack([m, u, np.zeros_like(m)], axis=1))
    states = np.concatenate(parts)
    if model.joker >= 0:
        closed = states[(states[:, 0] >> model.joker & 1) == 0].copy()
        closed[:, 2] = 1
        states = np.concatenate([states, closed])
    return states


def level_size(model: Model, open_count: int) -> int:
    """How many states :func:`level_states` lists, without listing them."""
    masks = _masks(model, open_count)
    total = 0
    for code, group in zip(*np.unique(masks & 63, return_counts=True), strict=True):
        size = int(group) * kept(model.combos.n, model.threshold, int(code)).size
        if model.joker >= 0:
            size += int(np.count_nonzero((masks[(masks & 63) == code] >> model.joker & 1) == 0)) * (
                size // int(group)
            )
        total += size
    return total


def _masks(model: Model, open_count: int) -> npt.NDArray[np.int64]:
    n = model.rows
    if model.ruleset.forced:
        # Rows are filled top to bottom: the open rows are always the last ones.
        return np.array([((1 << open_count) - 1) << (n - open_count)], np.int64)
    everything = np.arange(1 << n, dtype=np.int64)
    bits = np.zeros_like(everything)
    for j in range(n):
        bits += everything >> j & 1
    masks: npt.NDArray[np.int64] = everything[bits == open_count]
    return masks


@dataclass(slots=True)
class Turn:
    """The turn DP of a batch of states: values by rolls left, keeps and rolls."""

    final: FloatArray  # final[r, b]: best value of scoring roll r now
    keeps: list[FloatArray]  # keeps[t-1][k, b]: value of keeping k with t rolls left
    value: FloatArray  # value[b]: expected value of the turn before its first roll


def _candidates(
    model: Model, table: FloatArray, states: IntArray, buf: FloatArray
) -> Iterator[tuple[int, FloatArray]]:
    """Yields each row j with ``buf[r, b]``: points + bonus + what follows, -inf if closed.

    The joker (Yahtzee) is not applied here: see :func:`_joker`.
    """
    allowed = _allowed(model, states[:, 0])
    for j in range(model.rows):
        if allowed[j].any():
            _fill_row(model, table, states, allowed[j], j, buf)
            yield j, buf


def _fill_row(
    model: Model,
    table: FloatArray,
    states: IntArray,
    ok: npt.NDArray[np.bool_],
    j: int,
    buf: FloatArray,
) -> None:
    """Fills ``buf[r, b]`` with the value of scoring roll r in row j (-inf where not *ok*)."""
    c = model.combos
    mask, upper, flag = states[:, 0], states[:, 1], states[:, 2]
    nxt = mask ^ (1 << j)
    if j < _UPPER:
        steps = np.empty((c.n + 1, mask.size), dtype=buf.dtype)
        for count in range(c.n + 1):
            steps[count] = _upper_gain(model, table, nxt, upper, flag, (j + 1) * count)
        steps[:, ~ok] = -np.inf
        np.take(steps, c.counts[c.rolls, j + 1], axis=0, out=buf)
    elif j == model.joker:
        # Scoring the joker row with points (50) sets the flag of the extra bonus.
        after = np.where(
            model.points[:, j, None] > 0,
            table[model.entry(nxt, upper, np.ones_like(flag))][None, :],
            table[model.entry(nxt, upper, np.zeros_like(flag))][None, :],
        )
        np.add(model.points[:, j, None], after, out=buf)
        buf[:, ~ok] = -np.inf
    else:
        np.add(model.points[:, j, None], _lower_gain(model, table, states, ok, j), out=buf)


def _lower_gain(
    model: Model, table: FloatArray, states: IntArray, ok: npt.NDArray[np.bool_], j: int
) -> FloatArray:
    """The value after scoring lower row j, per state; -inf where j may not be scored."""
    mask, upper, flag = states[:, 0], states[:, 1], states[:, 2]
    gain: FloatArray = np.where(ok, table[model.entry(mask ^ (1 << j), upper, flag)], -np.inf)
    return gain.astype(model.dtype)


def _upper_gain(
    model: Model,
    table: FloatArray,
    nxt: npt.NDArray[np.int64],
    upper: npt.NDArray[np.int64],
    flag: npt.NDArray[np.int64],
    points: int,
) -> FloatArray:
    """Points of an upper row, the bonus if they reach the threshold, and what follows."""
    after = np.minimum(upper + points, model.threshold)
    bonus = (upper < model.threshold) & (after >= model.threshold)
    return points + model.ruleset.bonus * bonus + table[model.entry(nxt, after, flag)]


def _allowed(model: Model, mask: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    opened = np.array([(mask >> j & 1) == 1 for j in range(model.rows)]).reshape(model.rows, -1)
    if not model.ruleset.forced:
        return opened
    first = np.argmax(opened, axis=0)
    forced: npt.NDArray[np.bool_] = opened & (np.arange(model.rows)[:, None] == first[None, :])
    return forced


@dataclass(slots=True)
class Joker:
    """The forced joker for one face: which states it binds and each allowed row's value."""

    roll: int  # the roll index of five (all) equal dice
    active: npt.NDArray[np.bool_]  # states whose joker row is filled
    values: dict[int, FloatArray]  # row -> value per state, -inf where the row is not allowed


def _joker(model: Model, table: FloatArray, states: IntArray) -> Iterator[Joker]:
    """Yields the forced joker of every face (Yahtzee); nothing for other rulesets."""
    if model.joker < 0:
        return
    c = model.combos
    mask, upper, flag = states[:, 0], states[:, 1], states[:, 2]
    active = (mask >> model.joker & 1) == 0
    if not active.any():
        return
    allowed = _allowed(model, mask)
    rows = model.ruleset.rows
    lower = [j for j in range(_UPPER, model.rows) if j != model.joker]
    any_lower = np.any(allowed[lower], axis=0)
    extra = model.ruleset.extra_bonus * (flag == 1)
    for face in range(1, 7):
        own = allowed[face - 1]
        values: dict[int, FloatArray] = {}
        for j in range(model.rows):
            nxt = mask ^ (1 << j)
            if j < _UPPER:
                value = _upper_gain(model, table, nxt, upper, flag, face * c.n * (j + 1 == face))
                # The matching upper row first; another upper row only when no lower is open.
                ok = own if j + 1 == face else ~own & ~any_lower
            elif j != model.joker:
                points = model.ruleset.joker_points_of(rows[j].id, face * c.n)
                value = points + table[model.entry(nxt, upper, flag)]
                ok = ~own
            else:
                continue
            if model.ruleset.forced:
                ok = np.ones_like(own)  # the next row, whatever it is, with joker points
            values[j] = np.where(allowed[j] & ok, value + extra, -np.inf)
        yield Joker(c.roll_index((face,) * c.n), active, values)


def final_values(model: Model, table: FloatArray, states: IntArray) -> FloatArray:
    """``final[r, b]``: the value of scoring roll r in the best allowed row."""
    final = np.full((model.combos.n_rolls, states.shape[0]), -np.inf, dtype=model.dtype)
    buf = np.empty_like(final)
    # Most lower rows score 0 on most rolls: their 0-point value (scratching) is the same
    # for every roll, so it is taken once, and only the scoring rolls are visited.
    scratch = np.full(states.shape[0], -np.inf, dtype=model.dtype)
    allowed = _allowed(model, states[:, 0])
    for j in range(model.rows):
        ok = allowed[j]
        if not ok.any():
            continue
        scoring = model.scoring[j]
        if j < _UPPER or j == model.joker or scoring.size > model.combos.n_rolls // 2:
            _fill_row(model, table, states, ok, j, buf)
            np.maximum(final, buf, out=final)
            continue
        gain = _lower_gain(model, table, states, ok, j)
        np.maximum(scratch, gain, out=scratch)
        part = final[scoring]
        np.maximum(part, model.points[scoring, j, None] + gain[None, :], out=part)
        final[scoring] = part
    np.maximum(final, scratch[None, :], out=final)
    for joker in _joker(model, table, states):
        best = np.max(np.array(list(joker.values.values())), axis=0)
        final[joker.roll, joker.active] = best[joker.active]
    return final


def score_values(model: Model, table: FloatArray, states: IntArray) -> dict[int, FloatArray]:
    """For each row j, ``(rolls, batch)`` values of scoring each roll in j, joker applied."""
    out: dict[int, FloatArray] = {}
    buf = np.empty((model.combos.n_rolls, states.shape[0]), dtype=model.dtype)
    for j, cand in _candidates(model, table, states, buf):
        out[j] = cand.copy()
    for joker in _joker(model, table, states):
        for j in out:
            value = joker.values.get(j)
            out[j][joker.roll, joker.active] = -np.inf if value is None else value[joker.active]
    return out


def expect(c: Combos, keeps: FloatArray, rolls: FloatArray) -> None:
    """Fills ``keeps[k]`` with the mean of *rolls* over the dice that keeping k re-rolls."""
    keeps[c.rolls] = rolls
    for size in range(c.n - 1, -1, -1):
        up = c.up[size]
        level = keeps[c.level(size)]
        np.take(keeps, up[:, 0], axis=0, out=level)
        for f in range(1, 6):
            level += keeps[up[:, f]]
        # Divided, not multiplied by 1/6: float32's 1/6 is 3e-8 too large, and that bias
        # compounds over the 60 expectations of a maxi game (1e-3 points at the optimum).
        level /= 6.0


def best_keep(c: Combos, keeps: FloatArray) -> FloatArray:
    """For every roll, the best value among its sub-multisets (itself included)."""
    best = keeps.copy()
    for size in range(1, c.n + 1):
        end = c.starts[size + 1]
        down = c.down[size]
        for d in range(down.shape[1]):
            first = c.down_from[size][d]
            part = best[first:end]
            np.maximum(part, best[down[first - c.starts[size] :, d]], out=part)
    return best[c.rolls]


def turn(model: Model, table: FloatArray, states: IntArray, *, keep_all: bool = False) -> Turn:
    """Solves the turn of each state: the expected value before its first roll."""
    c = model.combos
    final = final_values(model, table, states)
    if not keep_all and COMPILED:
        return Turn(final, [], kernels.turn_values(c, final, model.ruleset.rerolls))
    keeps = np.empty((len(c.keeps), states.shape[0]), dtype=model.dtype)
    saved = []
    rolls = final
    for _ in range(model.ruleset.rerolls):
        expect(c, keeps, rolls)
        if keep_all:
            saved.append(keeps.copy())
        rolls = best_keep(c, keeps)
    expect(c, keeps, rolls)
    return Turn(final, saved, keeps[0].copy())


def turn_value(model: Model, table: FloatArray, states: IntArray) -> FloatArray:
    """``turn(...).value`` by the compiled kernel, the solver's path: the same numbers.

    Only what each row gains after it is gathered here (a few table lookups per row and
    state); the kernel spreads it over the rolls and runs the re-roll DP in the cache.
    """
    c = model.combos
    mask, upper, flag = states[:, 0], states[:, 1], states[:, 2]
    allowed = _allowed(model, mask)
    size = states.shape[0]
    uppers = np.full((_UPPER, c.n + 1, size), -np.inf, dtype=model.dtype)
    for j in range(_UPPER):
        if allowed[j].any():
            nxt = mask ^ (1 << j)
            for count in range(c.n + 1):
                gain = _upper_gain(model, table, nxt, upper, flag, (j + 1) * count)
                uppers[j, count] = np.where(allowed[j], gain, -np.inf)
    lowers = np.full((model.rows - _UPPER, 2, size), -np.inf, dtype=model.dtype)
    for j in range(_UPPER, model.rows):
        if not allowed[j].any():
            continue
        if j == model.joker:
            nxt = mask ^ (1 << j)
            for kind in (0, 1):
                after = table[model.entry(nxt, upper, np.full_like(flag, kind))]
                lowers[j - _UPPER, kind] = np.where(allowed[j], after, -np.inf)
        else:
            lowers[j - _UPPER, 0] = _lower_gain(model, table, states, allowed[j], j)
    jokers = list(_joker(model, table, states))
    joker = (
        np.array([j.roll for j in jokers], np.int64),
        np.array(
            [np.max(np.array(list(j.values.values())), axis=0) for j in jokers], model.dtype
        ).reshape(len(jokers), size),
        jokers[0].active if jokers else np.zeros(size, np.bool_),
    )
    value: FloatArray = kernels.solve_turns(
        c, model.ruleset.rerolls, uppers, lowers, _scoring(model), joker
    )
    return value


@lru_cache(maxsize=16)
def _scoring_of(ruleset: Ruleset) -> kernels.Scoring:
    model = model_of(ruleset)
    lower = list(range(_UPPER, model.rows))
    return kernels.scoring(model.points[:, _UPPER:], list(range(len(lower))), model.joker - _UPPER)


def _scoring(model: Model) -> kernels.Scoring:
    return _scoring_of(model.ruleset)
