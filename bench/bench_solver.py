"""Benchmark of the exact solver: build time, peak memory and the optimum of each ruleset.

Run as ``.venv/bin/python bench/bench_solver.py [RULESET[:name=value,...] ...] [--workers N]``
(default: yatzy, yahtzee, yacht, maxi, maxi:bonus=50@75). Each table is solved from scratch
into a temporary folder (or ``--keep DIR``, to use the tables afterwards). Peak memory is the
largest sum of the proportional set sizes (PSS: shared pages of the memory-mapped table
counted once) of this process and its worker processes, sampled every 0.5 s.

If the Rust-based ``yatzy-solver`` package from PyPI is installed, the ``yatzy`` build is
timed side by side with its ``Solver.build(Variant("yatzy-scandinavian"))``.

Aims: ``maxi`` under 6 minutes and under 3 GB on 2 cores. ``cpu`` is the processor time of
this process and its workers together, and ``load`` the one-minute load average at the end:
on a shared machine, wall time over cpu time shows how much of the machine the solve got.
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import tempfile
import threading
import time
from pathlib import Path

from daily.rules import find_ruleset
from daily.strategy.solver import solve, state_count

PUBLISHED = {"yatzy": 248.4399894, "yahtzee": 254.5877}


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
        while not self._stop.wait(0.5):
            total = _pss_kib(me) + sum(_pss_kib(c) for c in _children(me))
            self.peak_kib = max(self.peak_kib, total)


def _cpu_seconds() -> float:
    # The workers are joined when solve() returns, so RUSAGE_CHILDREN holds their time.
    me, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _parse(spec: str) -> tuple[str, dict[str, object]]:
    name, _, rest = spec.partition(":")
    options: dict[str, object] = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        options[key] = int(value) if value.isdigit() else value
    return name, options


def bench(spec: str, workers: int, keep: str | None) -> None:
    """Solves one ruleset from scratch and prints its figures."""
    name, options = _parse(spec)
    ruleset = find_ruleset(name, options)
    with tempfile.TemporaryDirectory() as scratch, PeakMemory() as memory:
        started, cpu_started = time.perf_counter(), _cpu_seconds()
        table = solve(ruleset, Path(keep or scratch), workers=workers)
        seconds = time.perf_counter() - started
        cpu = _cpu_seconds() - cpu_started
        optimum = table.optimum
    line = (
        f"{spec:24} optimum {optimum:.7f}  states {state_count(ruleset):>11,}  "
        f"time {seconds:7.1f} s  cpu {cpu:7.1f} s  peak {memory.peak_kib / 1024:6.0f} MiB  "
        f"workers {workers}, load {os.getloadavg()[0]:.1f}"
    )
    if name in PUBLISHED and not options:
        line += f"  published {PUBLISHED[name]} (diff {optimum - PUBLISHED[name]:+.1e})"
    print(line, flush=True)
    if name == "yatzy" and not options:
        _rust_side_by_side()


def _rust_side_by_side() -> None:
    try:
        yatzy_solver = importlib.import_module("yatzy_solver")
    except ImportError:
        print("  (yatzy-solver not installed: pip install yatzy-solver to compare)")
        return
    started = time.perf_counter()
    yatzy_solver.Solver.build(yatzy_solver.Variant("yatzy-scandinavian"))
    print(f"  yatzy-solver (Rust, PyPI) builds yatzy in {time.perf_counter() - started:.1f} s")


def main() -> None:
    """Runs the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*", default=[
        "yatzy", "yahtzee", "yacht", "maxi", "maxi:bonus=50@75"])  # fmt: skip
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", metavar="DIR", help="write the tables to this cache folder")
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, workers {args.workers}")
    for spec in args.rulesets:
        bench(spec, args.workers, args.keep)


if __name__ == "__main__":
    main()
