"""Benchmark of the exact solver: build time, peak memory and the optimum of each ruleset.

Run as ``.venv/bin/python bench/bench_solver.py [RULESET[:name=value,...] ...]`` (default:
yatzy, yahtzee, yacht, maxi, maxi:bonus=50@75) with:

``--rounds N``   builds of each (default 3), the median reported;
``--numpy``      also times the pure-numpy path (the solver before its compiled kernels),
                 alternating with the compiled one within each round, and prints the ratio;
``--rust``       times the Rust ``yatzy-solver`` on yatzy alternately with ours (it is not a
                 dependency: the bench installs it with pip when it is missing);
``--reference``  builds each ruleset once more in float64 and prints both optima to 7
                 decimals and the largest difference of the served table from the reference;
``--layouts``    builds each ruleset in the compact layout and in the dense one (the tables
                 before it), alternating within each round, and prints for each the build,
                 the file's size, the time to map it, to read it through from a cold page
                 cache and to download it from a local S3 server (moto), and the largest
                 difference between the two over every state;
``--against F``  with ``--layouts``: also compares the compact table with the dense table
                 file F that an older checkout built (today's table), over every state.

Each table is solved from scratch into a temporary folder. Peak memory is the largest sum of
the proportional set sizes (PSS: shared pages of the memory-mapped table counted once) of
this process and its worker processes, sampled every 0.2 s. ``cpu`` is the processor time of
this process and its workers, ``load`` the one-minute load average when the build ended: on
a shared machine, the wall time alone says little.

Aims: ``maxi`` at most 60 s wall and 1 GB on 2 cores; ``yatzy`` at most half the time of
``yatzy-solver``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from daily.core.rules import Ruleset, parse_spec
from daily.strategy import model, solver
from daily.strategy.model import Model, level_states, model_of, with_layout
from daily.strategy.solver import Table, fill, state_count
from daily.tables.builder import solve, write_table
from daily.tables.files import Site
from daily.tables.loader import mapped_table

PUBLISHED = {"yatzy": 248.4399894, "yahtzee": 254.5877287}


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


class PeakMemory:
    """Samples the PSS of this process and its children in a thread; keeps the peak."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(0.2):
            total = _pss_kib(me) + sum(_pss_kib(c) for c in _children(me))
            self.peak_kib = max(self.peak_kib, total)


def _cpu_seconds() -> float:
    # The workers are joined when solve() returns, so RUSAGE_CHILDREN holds their time.
    me, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


@dataclasses.dataclass
class Run:
    """One timed build."""

    wall: float
    cpu: float
    peak_mib: float
    load: float
    optimum: float


def timed(build: Callable[[], float]) -> Run:
    """Runs *build* (which returns an optimum) under the clocks and the memory sampler."""
    with PeakMemory() as memory:
        started, cpu_started = time.perf_counter(), _cpu_seconds()
        optimum = build()
        wall = time.perf_counter() - started
        cpu = _cpu_seconds() - cpu_started
    return Run(wall, cpu, memory.peak_kib / 1024, os.getloadavg()[0], optimum)


def ours(ruleset: Ruleset, workers: int, compiled: bool) -> Callable[[], float]:
    """A from-scratch build of *ruleset*, compiled or on the numpy path."""

    def build() -> float:
        solver.KERNELS = model.COMPILED = compiled
        try:
            with tempfile.TemporaryDirectory() as scratch:
                table = solve(ruleset, Path(scratch), workers=workers)
                optimum = table.optimum
                del table
            return optimum
        finally:
            solver.KERNELS = model.COMPILED = True

    return build


def rust() -> Callable[[], float]:
    """yatzy-solver building Scandinavian yatzy (installed on first use, not a dependency)."""
    try:
        module: Any = importlib.import_module("yatzy_solver")
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "yatzy-solver"], check=True)
        module = importlib.import_module("yatzy_solver")

    def build() -> float:
        module.Solver.build(module.Variant("yatzy-scandinavian"))
        return float("nan")

    return build


def line(name: str, runs: list[Run]) -> str:
    """The medians of *runs* as one line."""
    wall = statistics.median(r.wall for r in runs)
    cpu = statistics.median(r.cpu for r in runs)
    peak = max(r.peak_mib for r in runs)
    load = statistics.mean(r.load for r in runs)
    optimum = runs[-1].optimum
    shown = f"optimum {optimum:.7f}  " if optimum == optimum else " " * 26
    return (
        f"  {name:10} {shown}wall {wall:7.2f} s  cpu {cpu:7.2f} s  "
        f"peak {peak:6.0f} MiB  load {load:4.1f}  ({len(runs)} runs: "
        + ", ".join(f"{r.wall:.2f}" for r in runs)
        + ")"
    )


def bench(spec: str, args: argparse.Namespace) -> None:
    """Times one ruleset: compiled, and alternately the numpy path and the Rust solver."""
    ruleset = parse_spec(spec)
    print(f"{ruleset.spec}: {state_count(ruleset):,} states", flush=True)
    sides: dict[str, Callable[[], float]] = {"compiled": ours(ruleset, args.workers, True)}
    if args.numpy:
        sides["numpy"] = ours(ruleset, args.workers, False)
    if args.rust and spec == "yatzy":
        sides["rust"] = rust()
    runs: dict[str, list[Run]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, build in sides.items():  # alternating: the load changes under both alike
            runs[name].append(timed(build))
    if args.rounds <= 0:  # --rounds 0 --reference: the reference build alone
        reference(ruleset, args.workers)
        return
    for name in sides:
        print(line(name, runs[name]), flush=True)
    if ruleset.id in PUBLISHED and spec == ruleset.id:
        diff = runs["compiled"][-1].optimum - PUBLISHED[ruleset.id]
        print(f"  published {PUBLISHED[ruleset.id]}: diff {diff:+.1e}")
    base = statistics.median(r.wall for r in runs["compiled"])
    for name in sides:
        if name != "compiled":
            other = statistics.median(r.wall for r in runs[name])
            print(f"  compiled / {name}: {base / other:.3f} of its wall time", flush=True)
    if args.reference:
        reference(ruleset, args.workers)


def reference(ruleset: Ruleset, workers: int) -> None:
    """Builds *ruleset* in float64 and in the served dtype; prints optima and largest diff."""
    served_model = model_of(ruleset)
    wide = dataclasses.replace(served_model, dtype=np.float64)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "reference.npy"
        np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=wide.shape)
        started = time.perf_counter()
        fill(wide, path, range(1, wide.rows + 1), workers=workers)
        seconds = time.perf_counter() - started
        exact = Table(wide, np.load(path, mmap_mode="r").reshape(-1))
        served = solve(ruleset, Site(Path(scratch), "bench"), workers=workers)
        diff = float(np.max(np.abs(served.values.astype(np.float64) - exact.values)))
        print(
            f"  float64 reference optimum {exact.optimum:.7f} ({seconds:.0f} s wall); served "
            f"{np.dtype(served_model.dtype).name} {served.optimum:.7f}; largest difference over "
            f"all {exact.values.size:,} entries {diff:.2e}",
            flush=True,
        )


def layouts(spec: str, args: argparse.Namespace) -> None:
    """Builds *spec* in both layouts, alternating; prints each side and their differences."""
    ruleset = parse_spec(spec)
    models = {"compact": model_of(ruleset), "dense": with_layout(model_of(ruleset), "dense")}
    print(f"{ruleset.spec}: {state_count(ruleset):,} states", flush=True)
    runs: dict[str, list[Run]] = {kind: [] for kind in models}
    with tempfile.TemporaryDirectory() as scratch:
        paths = {kind: Path(scratch) / f"{m.key}.npy" for kind, m in models.items()}
        for _ in range(args.rounds):
            for kind, m in models.items():  # alternating: the load changes under both alike
                paths[kind].unlink(missing_ok=True)
                runs[kind].append(timed(built(m, paths[kind], args.workers)))
        tables = {}
        for kind, m in models.items():
            size = paths[kind].stat().st_size
            opened, read = cold_load(m, paths[kind])
            fetched = f", fetched from S3 in {download(paths[kind]):.2f} s" if args.fetch else ""
            print(line(kind, runs[kind]), flush=True)
            print(f"    {kind}: {size / 1e6:.1f} MB, mapped in {opened * 1e3:.2f} ms, read "
                  f"through cold in {read:.2f} s{fetched}", flush=True)  # fmt: skip
            tables[kind] = mapped_table(m, paths[kind])
        for what in ("wall", "cpu"):
            ratio = [getattr(a, what) / getattr(b, what)
                     for a, b in zip(runs["compact"], runs["dense"], strict=True)]  # fmt: skip
            print(f"  compact / dense {what}: median {statistics.median(ratio):.3f} "
                  f"({', '.join(f'{r:.3f}' for r in ratio)})")  # fmt: skip
        print(f"  largest difference over every state: "
              f"{difference(tables['compact'], tables['dense']):.2e}", flush=True)  # fmt: skip
        if args.against:
            older = mapped_table(models["dense"], Path(args.against))
            print(f"  against {args.against}: largest difference over every state "
                  f"{difference(tables['compact'], older):.2e}", flush=True)  # fmt: skip


def built(model: Model, path: Path, workers: int) -> Callable[[], float]:
    """A from-scratch build of *model* (in its layout) into *path*."""

    def build() -> float:
        write_table(model, path, workers=workers)
        return mapped_table(model, path).optimum

    return build


def cold_load(model: Model, path: Path) -> tuple[float, float]:
    """Seconds to map the table at *path*, and to read every value of it from the disk (its
    pages are dropped from the page cache first)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    started = time.perf_counter()
    table = mapped_table(model, path)
    opened = time.perf_counter() - started
    started = time.perf_counter()
    float(np.add.reduce(table.values, dtype=np.float64))
    return opened, time.perf_counter() - started


def download(path: Path) -> float:
    """Seconds to download the file at *path* from a local S3 server (moto), as a host
    fetches a table: in chunks, checked against its SHA-256."""
    from moto.server import ThreadedMotoServer

    from daily.tables import shelf
    from daily.tables.digests import Digest

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ACCESS_KEY_ID="bench",
                      AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")  # fmt: skip
    try:
        store = shelf.Shelf("s3://bench-tables/daily", "bench")
        with contextlib.suppress(FileExistsError):  # moto's buckets live in the process
            store.fs.mkdir("bench-tables")
        store.fs.put_file(str(path), "bench-tables/daily/table.npy")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        meta = Digest("table", path.stat().st_size, digest)
        with tempfile.TemporaryDirectory() as scratch:
            started = time.perf_counter()
            store._download("bench-tables/daily/table.npy", Path(scratch) / "t", meta, None)
            return time.perf_counter() - started
    finally:
        server.stop()


def difference(one: Table, other: Table) -> float:
    """The largest difference between two tables of one ruleset (any layouts), every state."""
    worst = 0.0
    for k in range(one.model.rows + 1):
        states = level_states(one.model, k)
        for i in range(0, len(states), 1 << 20):
            part = states[i : i + (1 << 20)]
            a = one.values[one.model.entry(part[:, 0], part[:, 1], part[:, 2])]
            b = other.values[other.model.entry(part[:, 0], part[:, 1], part[:, 2])]
            worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b))))
    return worst


def main() -> None:
    """Runs the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*", default=[
        "yatzy", "yahtzee", "yacht", "maxi", "maxi:bonus=50@75"])  # fmt: skip
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--numpy", action="store_true", help="also time the numpy path")
    parser.add_argument("--rust", action="store_true", help="also time yatzy-solver on yatzy")
    parser.add_argument("--reference", action="store_true", help="float64 reference builds")
    parser.add_argument("--layouts", action="store_true", help="compact against dense")
    parser.add_argument("--fetch", action="store_true", help="--layouts: time an S3 download")
    parser.add_argument("--against", help="--layouts: a dense table file an older checkout built")
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, workers {args.workers}, load {os.getloadavg()[0]:.1f}")
    for spec in args.rulesets:
        (layouts if args.layouts else bench)(spec, args)


if __name__ == "__main__":
    main()
