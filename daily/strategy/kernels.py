"""Compiled kernels (numba) of the turn DP's re-roll part, the bulk of a solve's work.

The numpy version (:func:`daily.strategy.model.expect` and :func:`~daily.strategy.model.best_keep`)
sweeps the whole ``(keeps, batch)`` array once per face and per level, so it runs at the
speed of memory. The kernel takes the same steps in the same order, but on blocks of
:data:`BLOCK` states at a time that stay in the processor's cache, with the inner loop over
the states of a block (contiguous, so the compiler vectorizes it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np
import numpy.typing as npt

from daily.strategy.combos import Combos, combos

#: States per block: 924 keeps x 64 states x 4 bytes stays within a core's L2 cache.
BLOCK = 64


@dataclass(frozen=True, slots=True)
class Links:
    """The keep graph of :class:`Combos` as flat arrays, for the kernel."""

    up: npt.NDArray[np.int32]  # up[i, f]: keep i (smaller than a roll) plus face f+1
    down: npt.NDArray[np.int32]  # down[i, d]: keep i less one of its faces (padded by repeats)
    width: npt.NDArray[np.int32]  # width[i]: how many distinct faces keep i shows
    starts: npt.NDArray[np.int32]  # starts[s]: the first keep of size s; starts[n+1]: the end


def links(c: Combos) -> Links:
    """The flat keep graph of *c*."""
    return _links(c.n)


@lru_cache(maxsize=8)
def _links(n: int) -> Links:
    c = combos(n)
    total = c.starts[c.n + 1]
    up = np.zeros((c.starts[c.n], 6), np.int32)
    for size in range(c.n):
        up[c.level(size)] = c.up[size]
    width = max(c.down[s].shape[1] for s in range(1, c.n + 1))
    down = np.zeros((total, width), np.int32)
    for size in range(1, c.n + 1):
        part = c.down[size]
        # Pad with the last column: taking the max of the same keep twice changes nothing.
        padded = np.concatenate([part, np.repeat(part[:, -1:], width - part.shape[1], 1)], 1)
        down[c.level(size)] = padded
    width_of = np.array([len(set(k)) for k in c.keeps], np.int32)
    return Links(up, down, width_of, np.array(c.starts, np.int32))


@numba.njit(cache=True, nogil=True)
def _expect(keeps: np.ndarray, up: np.ndarray, starts: np.ndarray, n: int, w: int) -> None:
    six = keeps.dtype.type(6.0)
    for size in range(n - 1, -1, -1):
        for i in range(starts[size], starts[size + 1]):
            a0, a1, a2, a3, a4, a5 = up[i, 0], up[i, 1], up[i, 2], up[i, 3], up[i, 4], up[i, 5]
            for b in range(w):
                # The numpy version's order: take the first face, add the others, divide.
                s = keeps[a0, b]
                s += keeps[a1, b]
                s += keeps[a2, b]
                s += keeps[a3, b]
                s += keeps[a4, b]
                s += keeps[a5, b]
                keeps[i, b] = s / six


@numba.njit(cache=True, nogil=True)
def _best(
    keeps: np.ndarray, down: np.ndarray, width: np.ndarray, starts: np.ndarray, n: int, w: int
) -> None:
    # In place, smallest keeps first: each keep becomes the best of its sub-multisets. The
    # smaller keeps' own values are not needed afterwards (the next expectation overwrites).
    for size in range(1, n + 1):
        for i in range(starts[size], starts[size + 1]):
            target = keeps[i]
            for d in range(width[i]):
                _maximum(target, keeps[down[i, d]], w)


@numba.njit(cache=True, nogil=True)
def _maximum(target: np.ndarray, other: np.ndarray, w: int) -> None:
    for b in range(w):
        target[b] = max(target[b], other[b])


@numba.njit(cache=True, nogil=True)
def _turn_values(
    final: np.ndarray,
    up: np.ndarray,
    down: np.ndarray,
    width: np.ndarray,
    starts: np.ndarray,
    n: int,
    rerolls: int,
    out: np.ndarray,
) -> None:
    states = final.shape[1]
    total = starts[n + 1]
    first = starts[n]
    keeps = np.empty((total, BLOCK), final.dtype)
    for b0 in range(0, states, BLOCK):
        w = min(BLOCK, states - b0)
        for r in range(total - first):
            for b in range(w):
                keeps[first + r, b] = final[r, b0 + b]
        for _ in range(rerolls):
            _expect(keeps, up, starts, n, w)
            _best(keeps, down, width, starts, n, w)
        _expect(keeps, up, starts, n, w)
        for b in range(w):
            out[b0 + b] = keeps[0, b]


def turn_values(c: Combos, final: np.ndarray, rerolls: int) -> np.ndarray:
    """The value of each state's turn before its first roll, from ``final[roll, state]``."""
    graph = links(c)
    out = np.empty(final.shape[1], final.dtype)
    _turn_values(
        np.ascontiguousarray(final),
        graph.up,
        graph.down,
        graph.width,
        graph.starts,
        c.n,
        rerolls,
        out,
    )
    return out


@numba.njit(cache=True, nogil=True)
def _rolls(
    keeps: np.ndarray,
    first: int,
    b0: int,
    w: int,
    upper: np.ndarray,
    counts: np.ndarray,
    lower: np.ndarray,
    scoring_start: np.ndarray,
    scoring_row: np.ndarray,
    scoring_points: np.ndarray,
    scoring_kind: np.ndarray,
    joker_roll: np.ndarray,
    joker_value: np.ndarray,
    joker_active: np.ndarray,
) -> None:
    upper_open, lower_open, scratch = _open_rows(keeps, b0, w, upper, lower)
    for r in range(counts.shape[0]):
        row = keeps[first + r]
        for b in range(w):
            row[b] = scratch[b]
        for j in range(upper.shape[0]):
            if upper_open[j]:
                _maximum(row, upper[j, counts[r, j], b0 : b0 + w], w)
        for s in range(scoring_start[r], scoring_start[r + 1]):
            j = scoring_row[s]
            if lower_open[j]:
                # In the table's type: p + x rounds once, as the numpy version's double sum.
                points = scoring_points[s]
                after = lower[j, scoring_kind[s], b0 : b0 + w]
                for b in range(w):
                    row[b] = max(row[b], points + after[b])
    _jokers(keeps, first, b0, w, joker_roll, joker_value, joker_active)


@numba.njit(cache=True, nogil=True)
def _jokers(
    keeps: np.ndarray,
    first: int,
    b0: int,
    w: int,
    joker_roll: np.ndarray,
    joker_value: np.ndarray,
    joker_active: np.ndarray,
) -> None:
    """A joker roll's value where the joker rule is active in the state."""
    for f in range(joker_roll.shape[0]):
        k = first + joker_roll[f]
        for b in range(w):
            if joker_active[b0 + b]:
                keeps[k, b] = joker_value[f, b0 + b]


@numba.njit(cache=True, nogil=True)
def _open_rows(
    keeps: np.ndarray, b0: int, w: int, upper: np.ndarray, lower: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The upper and lower rows open in some state of the block, and the best scratch."""
    # Rows closed in every state of the block are skipped (-inf everywhere).
    upper_open = np.zeros(upper.shape[0], np.bool_)
    for j in range(upper.shape[0]):
        for b in range(w):
            if upper[j, 0, b0 + b] > -np.inf:
                upper_open[j] = True
                break
    lower_open = np.zeros(lower.shape[0], np.bool_)
    # Scratching a lower row (0 points) is worth the same on every roll: taken once.
    scratch = np.full(w, -np.inf, keeps.dtype)
    for j in range(lower.shape[0]):
        for b in range(w):
            x = lower[j, 0, b0 + b]
            scratch[b] = max(scratch[b], x)
            if x > -np.inf or lower[j, 1, b0 + b] > -np.inf:
                lower_open[j] = True
    return upper_open, lower_open, scratch


@numba.njit(cache=True, nogil=True)
def _solve_turns(
    upper: np.ndarray,
    counts: np.ndarray,
    lower: np.ndarray,
    scoring: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    joker: tuple[np.ndarray, np.ndarray, np.ndarray],
    up: np.ndarray,
    down: np.ndarray,
    width: np.ndarray,
    starts: np.ndarray,
    n: int,
    rerolls: int,
    out: np.ndarray,
) -> None:
    states = out.shape[0]
    total = starts[n + 1]
    first = starts[n]
    keeps = np.empty((total, BLOCK), out.dtype)
    for b0 in range(0, states, BLOCK):
        w = min(BLOCK, states - b0)
        _rolls(keeps, first, b0, w, upper, counts, lower, *scoring, *joker)
        for _ in range(rerolls):
            _expect(keeps, up, starts, n, w)
            _best(keeps, down, width, starts, n, w)
        _expect(keeps, up, starts, n, w)
        for b in range(w):
            out[b0 + b] = keeps[0, b]


@dataclass(frozen=True, slots=True)
class Scoring:
    """Which rolls score points in which lower rows, by roll (compressed rows)."""

    start: npt.NDArray[np.int64]  # start[r]:start[r+1] are the entries of roll r
    row: npt.NDArray[np.int64]
    points: npt.NDArray[np.float64]
    kind: npt.NDArray[np.int64]  # 1 for the joker row (its 50 sets the flag), else 0


def scoring(points: npt.NDArray[np.float64], lower_rows: list[int], joker: int) -> Scoring:
    """The positive points of each roll in *lower_rows* of a ``points[roll, row]`` table."""
    start, rows, values, kinds = [0], [], [], []
    for r in range(points.shape[0]):
        for index, j in enumerate(lower_rows):
            if points[r, j] > 0:
                rows.append(index)
                values.append(points[r, j])
                kinds.append(1 if j == joker else 0)
        start.append(len(rows))
    return Scoring(
        np.array(start, np.int64),
        np.array(rows, np.int64),
        np.array(values, np.float64),
        np.array(kinds, np.int64),
    )


def solve_turns(
    c: Combos,
    rerolls: int,
    upper: np.ndarray,
    lower: np.ndarray,
    table: Scoring,
    joker: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """The value of each state's turn, from what each row gains after it.

    *upper[j, count, state]*: scoring *count* dice in upper row j; *lower[j, kind, state]*:
    what follows scoring a lower row (kind 1: the joker row with points); -inf where a row
    may not be scored. *joker*: the rolls the forced joker binds, their values, the states.
    """
    graph = links(c)
    out = np.empty(upper.shape[2], upper.dtype)
    counts = np.ascontiguousarray(c.counts[c.rolls, 1:]).astype(np.int64)
    _solve_turns(
        upper,
        counts,
        lower,
        (table.start, table.row, table.points.astype(upper.dtype), table.kind),
        joker,
        graph.up,
        graph.down,
        graph.width,
        graph.starts,
        c.n,
        rerolls,
        out,
    )
    return out
