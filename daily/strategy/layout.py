"""Where each between-turn state's value sits in a table's flat array: the compact layout.

A table is one flat array. A state ``(mask, upper, flag)`` sits at
``((mask >> 6) * stride + slot[mask & 63, upper]) * flags + flag``: the lower rows' bits pick
a block of *stride* slots, and the upper rows' six bits (the *code*) with the upper total pick
one slot in it. The compact layout gives a code only the upper totals its closed upper rows
can make and that can still reach the threshold, plus upper total 0, whose slot every dead
total shares (they are all worth the same: the bonus is out of reach). ``maxi`` then needs
2,043 slots a block instead of 64 x 85 = 5,440 (134 MB instead of 356 MB). The dense layout,
every code with every total, is the one of the tables before it; it stays as the reference
the compact one is tested and measured against.

A total that no sheet can make (say 1 with the ones still open) has no slot of its own and
reads upper total 0's: the solver never asks for one, and a game never reaches one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
Kind = Literal["compact", "dense"]
#: FACE_SUMS[code]: the sum of the faces of the open upper rows in the six bits of *code*.
FACE_SUMS = np.array([sum(f + 1 for f in range(6) if m >> f & 1) for m in range(64)], np.int64)


@dataclass(frozen=True, slots=True)
class Layout:
    """The slots of one block: a slot for each (code, upper total), and back."""

    kind: Kind
    uppers: int  # upper totals tracked: 0 to the threshold
    stride: int  # slots a block (one block per combination of the lower rows)
    slot: Ints = field(repr=False)  # slot[code * uppers + upper]
    code_of: Ints = field(repr=False)  # code_of[s]: the code of slot s
    upper_of: Ints = field(repr=False)  # upper_of[s]: the upper total of slot s

    def slots(self, code: Ints, upper: Ints) -> Ints:
        """The slot of each (code, upper total) in its block."""
        found: Ints = self.slot[code * self.uppers + upper]
        return found


def reachable(dice: int, threshold: int, code: int) -> npt.NDArray[np.bool_]:
    """Which upper totals (0 to *threshold*, capped) the closed upper rows of *code* can make.

    >>> np.flatnonzero(reachable(5, 63, 0b111110))  # only the ones closed: 0 to 5 ones
    array([0, 1, 2, 3, 4, 5])
    """
    return np.array(_reachable(dice, threshold, code))


@lru_cache(maxsize=256)
def _reachable(dice: int, threshold: int, code: int) -> tuple[bool, ...]:
    reach = {0}
    for f in range(1, 7):
        if not code >> (f - 1) & 1:
            reach = {min(threshold, u + f * c) for u in reach for c in range(dice + 1)}
    return tuple(u in reach for u in range(threshold + 1))


def is_live(dice: int, threshold: int, code: int) -> npt.NDArray[np.bool_]:
    """Which upper totals can still reach *threshold* with the open upper rows of *code*."""
    live: npt.NDArray[np.bool_] = np.arange(threshold + 1) + dice * FACE_SUMS[code] >= threshold
    return live


def kept(dice: int, threshold: int, code: int) -> Ints:
    """The upper totals of *code* that have a slot of their own in the compact layout.

    >>> kept(5, 63, 0b100000).tolist()[:4], len(kept(5, 63, 0b100000))  # sixes open
    ([0, 33, 34, 35], 32)
    """
    uppers = np.arange(threshold + 1)
    own = reachable(dice, threshold, code) & is_live(dice, threshold, code)
    found: Ints = uppers[own | (uppers == 0)]
    return found


@lru_cache(maxsize=32)
def compact(dice: int, threshold: int) -> Layout:
    """The compact layout: only the totals :func:`kept` lists have slots.

    >>> compact(6, 84).stride, dense(6, 84).stride
    (2043, 5440)
    """
    uppers = threshold + 1
    slot = np.zeros(64 * uppers, np.int64)
    codes: list[int] = []
    totals: list[int] = []
    for code in range(64):
        own = kept(dice, threshold, code)
        first = len(codes)
        # Dead and unmade totals read upper total 0's slot, the first of the code.
        slot[code * uppers : (code + 1) * uppers] = first
        slot[code * uppers + own] = first + np.arange(own.size)
        codes += [code] * own.size
        totals += own.tolist()
    return _layout("compact", uppers, slot, codes, totals)


@lru_cache(maxsize=32)
def dense(dice: int, threshold: int) -> Layout:
    """The dense layout of the tables before the compact one: every code, every total."""
    uppers = threshold + 1
    slot = np.arange(64 * uppers, dtype=np.int64)
    for code in range(64):
        dead = ~is_live(dice, threshold, code)
        slot[code * uppers + np.flatnonzero(dead)] = code * uppers
    every = np.arange(64 * uppers)
    return _layout("dense", uppers, slot, (every // uppers).tolist(), (every % uppers).tolist())


def _layout(kind: Kind, uppers: int, slot: Ints, codes: list[int], totals: list[int]) -> Layout:
    code_of, upper_of = np.array(codes, np.int64), np.array(totals, np.int64)
    for array in (slot, code_of, upper_of):
        array.flags.writeable = False  # shared by every model of the ruleset (lru_cache)
    return Layout(kind, uppers, len(codes), slot, code_of, upper_of)
