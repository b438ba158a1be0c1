"""Dice combinatorics for the turn DP: every kept multiset and the index arrays linking them.

A *keep* is a sorted multiset of 0 to n dice; the keeps of size n are the rolls. Keeps are
numbered by size, then by how many distinct faces they show, so each size is one contiguous
slice and the turn DP works level by level on whole slices of a ``(keeps, states)`` array.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from daily.core.rules.scoring import FACES, Dice

IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class Combos:
    """The keeps of *n* dice and the index arrays of the turn DP."""

    n: int
    keeps: tuple[Dice, ...]
    index: dict[Dice, int] = field(repr=False)
    # starts[s]:starts[s+1] is the slice of the keeps of size s.
    starts: tuple[int, ...] = field(repr=False)
    # up[s][i, f-1]: the keep of size s+1 made by adding face f to keep i of size s.
    up: tuple[IntArray, ...] = field(repr=False)
    # down[s][i, d]: keep i of size s less its d-th distinct face (the last one repeated);
    # down_from[s][d]: the first keep of size s with more than d distinct faces.
    down: tuple[IntArray, ...] = field(repr=False)
    down_from: tuple[tuple[int, ...], ...] = field(repr=False)
    counts: npt.NDArray[np.int8] = field(repr=False)  # counts[k, f]: dice of face f in keep k
    # sub[r]: every distinct sub-multiset of roll r smaller than r, padded with -1.
    sub: IntArray = field(repr=False)

    @property
    def rolls(self) -> slice:
        """The slice of the keeps that are full rolls of n dice."""
        return slice(self.starts[self.n], self.starts[self.n + 1])

    @property
    def n_rolls(self) -> int:
        """How many distinct sorted rolls of n dice there are."""
        return self.starts[self.n + 1] - self.starts[self.n]

    def level(self, size: int) -> slice:
        """The slice of the keeps with *size* dice."""
        return slice(self.starts[size], self.starts[size + 1])

    def roll_index(self, dice: Dice) -> int:
        """The position of a roll among the rolls (not among all keeps).

        >>> combos(5).roll_index((1, 1, 1, 1, 1))
        0
        """
        return self.index[tuple(sorted(dice))] - self.starts[self.n]


@lru_cache(maxsize=8)
def combos(n: int) -> Combos:
    """Returns the keeps and index arrays for *n* dice.

    >>> c = combos(5)
    >>> len(c.keeps), c.n_rolls
    (462, 252)
    """
    keeps = tuple(
        k
        for s in range(n + 1)
        for k in sorted(
            itertools.combinations_with_replacement(FACES, s), key=lambda k: (len(set(k)), k)
        )
    )
    index = {k: i for i, k in enumerate(keeps)}
    starts = tuple(itertools.accumulate([0] + [_multisets(s) for s in range(n + 1)]))
    up = tuple(
        np.array(
            [
                [index[tuple(sorted((*k, f)))] for f in FACES]
                for k in keeps[starts[s] : starts[s + 1]]
            ]
        )
        for s in range(n)
    )
    counts = np.zeros((len(keeps), 7), dtype=np.int8)
    for i, k in enumerate(keeps):
        for die in k:
            counts[i, die] += 1
    down = tuple(_down(keeps[starts[s] : starts[s + 1]], index) for s in range(n + 1))
    down_from = tuple(
        tuple(
            starts[s] + sum(1 for k in keeps[starts[s] : starts[s + 1]] if len(set(k)) <= d)
            for d in range(max(s, 1))
        )
        for s in range(n + 1)
    )
    return Combos(
        n, keeps, index, starts, up, down, down_from, counts, _subs(keeps, index, starts, n)
    )


def _multisets(size: int) -> int:
    return len(list(itertools.combinations_with_replacement(FACES, size)))


def _minus(keep: Dice, face: int) -> Dice:
    rest = list(keep)
    rest.remove(face)
    return tuple(rest)


def _down(level: tuple[Dice, ...], index: dict[Dice, int]) -> IntArray:
    width = max((len(set(k)) for k in level), default=0)
    rows = []
    for k in level:
        faces = sorted(set(k))
        faces += faces[-1:] * (width - len(faces))
        rows.append([index[_minus(k, f)] for f in faces])
    return np.array(rows, dtype=np.intp).reshape(len(level), width)


def _subs(
    keeps: tuple[Dice, ...], index: dict[Dice, int], starts: tuple[int, ...], n: int
) -> IntArray:
    rows = []
    for roll in keeps[starts[n] : starts[n + 1]]:
        found = {
            tuple(sorted(roll[i] for i in range(n) if bits >> i & 1)) for bits in range(2**n - 1)
        }
        rows.append(sorted(index[k] for k in found))
    width = max(len(r) for r in rows)
    return np.array([r + [-1] * (width - len(r)) for r in rows], dtype=np.intp)
