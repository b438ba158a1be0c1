"""The exact solver: the value of every between-turn state, and the table that holds them.

:func:`fill` solves a table level by level (states with 1 open row, then 2, ...), each level
in batches through the compiled turn DP (:func:`~daily.strategy.model.turn_value`), into a
``.npy`` file that it maps (its workers map the same file and write their own states). Which
file, when it is built, checked and opened is :mod:`daily.tables`'s business: this module
reads no setting and takes no lock.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import signal
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from daily.core.rules.game import GameState
from daily.core.rules.rulesets import Ruleset
from daily.strategy.model import (
    FloatArray,
    Model,
    level_size,
    level_states,
    model_of,
    turn,
    turn_value,
)

Progress = Callable[[float, float], None]
#: Whether :func:`fill` runs the compiled kernels (:func:`~daily.strategy.model.turn_value`);
#: the numpy path (:func:`~daily.strategy.model.turn`) stays as the reference they match.
KERNELS = True


@dataclass(frozen=True, slots=True)
class Table:
    """A solved ruleset: the expected points to come from every between-turn state."""

    model: Model = field(repr=False)
    values: FloatArray = field(repr=False)  # flat, indexed by Model.entry

    @property
    def optimum(self) -> float:
        """The expected final score of a new game under optimal play."""
        return self.value_of(self.model.start, 0, 0)

    def value_of(self, mask: int, upper: int, flag: int) -> float:
        """The expected points still to come from one between-turn state."""
        index = self.model.entry(np.array([mask]), np.array([upper]), np.array([flag]))
        return float(self.values[index[0]])


def state_count(ruleset: Ruleset) -> int:
    """How many states solving *ruleset* computes."""
    model = model_of(ruleset)
    return sum(level_size(model, k) for k in range(1, model.rows + 1))


def state_work(model: Model, open_count: int) -> float:
    """The work of solving one state with *open_count* open rows, in units of one row.

    Every state pays for the re-roll DP over all keeps (about :data:`KEEP_WORK` rows' worth)
    and for each open row it may score in.
    """
    rows = 1 if model.ruleset.forced else open_count
    return KEEP_WORK + rows


#: The re-roll DP of one state costs about as much as scoring this many rows (measured).
KEEP_WORK = 25.0


def level_work(model: Model, open_count: int) -> float:
    """The work of solving every state with *open_count* open rows (see :func:`state_work`)."""
    return level_size(model, open_count) * state_work(model, open_count)


def is_small(ruleset: Ruleset) -> bool:
    """Whether the table of *ruleset* takes seconds to build, not a minute (five dice).

    >>> from daily.core.rules import find_ruleset
    >>> is_small(find_ruleset("yatzy")), is_small(find_ruleset("maxi"))
    (True, False)
    """
    return ruleset.dice <= 5


def fill(
    model: Model,
    path: Path,
    open_counts: Iterable[int],
    *,
    progress: Progress | None = None,
    workers: int = 1,
    batch: int = 0,
) -> None:
    """Solves the states with each of *open_counts* open rows into the ``.npy`` at *path*.

    The levels must come in increasing order, each after every level below it.
    """
    array = np.load(path, mmap_mode="r+")
    flat: FloatArray = array.reshape(-1).view(np.ndarray)
    # 4,096 states a chunk: the per-call numpy overhead is amortized, the gains stay small.
    batch = batch or 4096
    levels = list(open_counts)
    total = sum(level_work(model, k) for k in levels)
    done = 0.0
    pool = _pool(model, workers, str(path)) if workers > 1 else None
    try:
        for open_count in levels:
            # One level at a time: every state of a level reads only the levels below.
            states = level_states(model, open_count)
            chunks = [states[i : i + batch] for i in range(0, states.shape[0], batch)]
            if pool is None:
                sizes: Iterable[int] = (_solve_chunk(model, flat, chunk) for chunk in chunks)
            else:
                sizes = pool.imap_unordered(_worker_chunk, chunks)
            for size in sizes:
                done += size * state_work(model, open_count)
                if progress:
                    progress(min(done, total), total)
            del states, chunks
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    array.flush()


def mapped(path: Path | str, mode: Literal["r", "r+"]) -> FloatArray:
    """The table file as a flat array on the file's pages.

    A plain ndarray view of the memmap: np.memmap's own indexing costs more than the lookups.
    """
    values: FloatArray = np.load(path, mmap_mode=mode).reshape(-1).view(np.ndarray)
    return values


def _solve_chunk(model: Model, flat: FloatArray, states: npt.NDArray[np.int64]) -> int:
    value = turn_value(model, flat, states) if KERNELS else turn(model, flat, states).value
    flat[model.entry(states[:, 0], states[:, 1], states[:, 2])] = value
    return int(states.shape[0])


_WORKER: dict[str, Any] = {}


def _pool(model: Model, workers: int, path: str) -> multiprocessing.pool.Pool:
    # fork hands the model to the workers (its scorers do not pickle); every worker maps
    # the same file read-write and writes only the states of its own chunks.
    _WORKER["model"] = model
    context = multiprocessing.get_context("fork")
    return context.Pool(workers, initializer=_init_worker, initargs=(path,))


def _init_worker(path: str) -> None:
    _die_with_parent()
    _WORKER["values"] = mapped(path, "r+")


def _die_with_parent() -> None:
    # A builder killed outright (SIGKILL) must not leave its workers behind: they hold its
    # lock file open, and the next builder waits for that lock.
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _worker_chunk(states: npt.NDArray[np.int64]) -> int:
    return _solve_chunk(_WORKER["model"], _WORKER["values"], states)


def state_of(model: Model, state: GameState) -> tuple[int, int, int]:
    """The between-turn state ``(mask, upper, flag)`` of a game's sheet."""
    mask = sum(1 << j for j, points in enumerate(state.scores) if points is None)
    flag = 0
    if model.joker >= 0 and state.scores[model.joker]:
        flag = 1
    return mask, model.upper_total(state.upper), flag
