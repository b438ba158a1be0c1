"""The exact solver: the value of every between-turn state, written once, memory-mapped after.

:func:`solve` fills the table level by level (states with 1 open row, then 2, ...), each
level in batches through the compiled turn DP (:func:`~daily.strategy.model.turn_value`), and
writes it to ``<cache>/<ruleset>-<hash>.npy`` (under a temporary name until complete;
:mod:`daily.strategy.builder` runs it once per cache folder, in the background).
:func:`load_table` opens it read-only with ``mmap_mode="r"``, so every worker process of the
server shares one copy in the page cache.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from daily.core.errors import TableBuildingError, TableMissingError
from daily.core.rules.game import GameState
from daily.core.rules.rulesets import Ruleset
from daily.strategy import builder
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
#: Whether :func:`solve` runs the compiled kernels (:func:`~daily.strategy.model.turn_value`);
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


def default_cache_dir(environ: dict[str, str] | None = None) -> Path:
    """The cache folder: ``$DAILY_CACHE``, else ``~/.cache/daily``."""
    env = os.environ if environ is None else environ
    return Path(env.get("DAILY_CACHE") or Path.home() / ".cache" / "daily")


#: The variable naming the store that several hosts share their tables through.
TABLES_URL_VAR = "DAILY_TABLES_URL"


def tables_url(environ: dict[str, str] | None = None) -> str | None:
    """The tables' shared store: ``$DAILY_TABLES_URL`` (an fsspec URL or a folder), else None:
    then the cache folder is the only place a table is looked for, and built.

    >>> tables_url({"DAILY_TABLES_URL": " s3://bucket/tables "}), tables_url({})
    ('s3://bucket/tables', None)
    """
    env = os.environ if environ is None else environ
    return env.get(TABLES_URL_VAR, "").strip() or None


def table_path(ruleset: Ruleset, cache_dir: Path) -> Path:
    """Where the table of *ruleset* lives in *cache_dir*."""
    return Path(cache_dir) / f"{model_of(ruleset).key}.npy"


def state_count(ruleset: Ruleset) -> int:
    """How many states :func:`solve` computes for *ruleset*."""
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


def load_table(ruleset: Ruleset, cache_dir: Path, *, build: bool | None = None) -> Table:
    """Opens the table of *ruleset*; with *build* true, builds it first if it is missing.

    Otherwise a missing table raises :class:`TableBuildingError` while a build runs and
    :class:`TableMissingError` when none does: a caller never waits minutes by accident.
    """
    path = table_path(ruleset, cache_dir)
    if not path.exists():
        if build:
            builder.build(ruleset, cache_dir)
        else:
            found = builder.status(ruleset, cache_dir)
            if found.state == "building":
                raise TableBuildingError(ruleset, found)
            if found.state == "missing":
                raise TableMissingError(
                    ruleset,
                    f"no strategy table for {ruleset.id} yet: the service builds it, "
                    f"or run `daily solve {builder.spec_str(ruleset)}`",
                )
    return mapped_table(model_of(ruleset), path)


def mapped_table(model: Model, path: Path) -> Table:
    """The table file at *path* for *model*, memory-mapped read-only; a file of another size or
    type (another layout's, or damaged) raises :class:`TableMissingError` naming it."""
    values = _mapped(path, "r")
    if values.shape != model.shape or values.dtype != model.dtype:
        raise TableMissingError(
            model.ruleset,
            f"the strategy table {path} holds {values.size:,} {values.dtype} values, not "
            f"{model.size:,} {np.dtype(model.dtype)}: delete it, and it is built again",
        )
    return Table(model, values)


@lru_cache(maxsize=32)
def table_for(ruleset: Ruleset, cache_dir: Path) -> Table:
    """:func:`load_table` once per process: each server worker maps each table once.

    It never builds: a missing table raises :class:`TableMissingError` (not cached).
    """
    return load_table(ruleset, Path(cache_dir))


def solve(
    ruleset: Ruleset,
    cache_dir: Path,
    *,
    progress: Progress | None = None,
    workers: int = 1,
    batch: int = 0,
) -> Table:
    """Solves *ruleset* and writes its table to *cache_dir*; returns it memory-mapped."""
    write_table(model_of(ruleset), table_path(ruleset, cache_dir), progress=progress,
                workers=workers, batch=batch)  # fmt: skip
    return load_table(ruleset, cache_dir, build=False)


def write_table(
    model: Model,
    path: Path,
    *,
    progress: Progress | None = None,
    workers: int = 1,
    batch: int = 0,
) -> None:
    """Solves *model* (in its layout) into the ``.npy`` file at *path*, whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name in the same folder, renamed when complete: a reader
    # never sees a half-written table (builder.build deletes what a dead builder left).
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        # A new .npy memmap is a sparse file of zeros: the terminal states are worth nothing.
        values = np.lib.format.open_memmap(tmp, mode="w+", dtype=model.dtype, shape=model.shape)
        levels = range(1, model.rows + 1)
        fill(model, tmp, levels, progress=progress, workers=workers, batch=batch)
        values.flush()
        del values
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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
    mapped = np.load(path, mmap_mode="r+")
    flat: FloatArray = mapped.reshape(-1).view(np.ndarray)
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
    mapped.flush()


def _mapped(path: Path | str, mode: Literal["r", "r+"]) -> FloatArray:
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
    _WORKER["values"] = _mapped(path, "r+")


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
