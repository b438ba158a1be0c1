"""Tables the service builds by itself: once per cache folder, in a background process.

A build holds an exclusive ``flock`` on ``<cache>/<key>.lock`` for its whole run. The lock
lives next to the table it guards, so it is exactly as shared as the table: every process
and every host that reads this cache folder (a shared volume) waits for the same build, and a
host with its own folder builds its own copy (a Redis lock would make it wait for a file it
can never see). The kernel drops the lock when the builder dies, however it dies: that is the
lease a crashed builder gives up, with no clock to tune. The table is written under a
temporary name and renamed into place when complete, so a half-written table is never read;
the next builder, holding the lock, deletes every temporary file a dead one left.

Progress goes to ``<key>.progress`` (JSON, replaced atomically) for :func:`status` to read;
the build time goes to ``<key>.json`` once the table is done.

One build at a time per cache folder: every build also holds ``<cache>/build.lock``, so
its memory (under 1 GiB for ``maxi`` and each of its variants, docs/strategy.md) is the
ceiling whatever clients ask. Tables asked for while a build runs wait in a queue, one file
each under ``<cache>/queue/``, oldest first; one background process (:func:`start`) builds
them in turn, and any request that finds the queue without its builder starts a new one.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from daily.core import metrics
from daily.core.errors import RulesError
from daily.core.rules import OptionValue, Ruleset, find_ruleset
from daily.strategy.model import model_of

#: The variable listing the tables the service builds by itself, in order (``maxi`` first).
TABLES_VAR = "DAILY_TABLES"
DEFAULT_TABLES = ("maxi", "yatzy", "yahtzee", "yacht")

State = Literal["missing", "building", "ready"]


@dataclass(frozen=True, slots=True)
class TableStatus:
    """Where one table stands: missing, building (with its progress) or ready."""

    ruleset: str  # the ruleset as a spec, e.g. ``maxi`` or ``maxi:bonus=50@75``
    state: State
    percent: float | None = None  # while building
    seconds: float | None = None  # building: spent so far; ready: what the build took
    eta: float | None = None  # building: the estimated seconds left, once it can be told


def spec_str(ruleset: Ruleset) -> str:
    """The ruleset as a short spec: its id and the options that differ from the defaults.

    >>> spec_str(find_ruleset("maxi", {"bonus": "50@75"}))
    'maxi:bonus=50@75'
    >>> spec_str(find_ruleset("yatzy"))
    'yatzy'
    """
    base = find_ruleset(ruleset.id).options_dict()
    changed = [
        f"{name}={json.dumps(value) if not isinstance(value, str) else value}"
        for name, value in ruleset.options_dict().items()
        if base.get(name) != value
    ]
    return ruleset.id + (":" + ",".join(changed) if changed else "")


def parse_spec(text: str) -> Ruleset:
    """Reads a spec of :func:`spec_str`; raises :class:`RulesError` for a bad one.

    >>> parse_spec("yatzy:forced=true") == find_ruleset("yatzy", {"forced": True})
    True
    """
    name, _, rest = text.strip().partition(":")
    options: dict[str, OptionValue] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(f"an option is name=value, got {item!r}")
        options[key] = json.loads(value) if value in ("true", "false") or value.isdigit() else value
    return find_ruleset(name, options)


def configured(environ: Mapping[str, str] | None = None) -> tuple[Ruleset, ...]:
    """The rulesets the service builds by itself: ``$DAILY_TABLES``, else maxi then the rest.

    >>> [r.id for r in configured({"DAILY_TABLES": "yacht, yatzy"})]
    ['yacht', 'yatzy']
    >>> configured({"DAILY_TABLES": ""})
    ()
    """
    env = os.environ if environ is None else environ
    text = env.get(TABLES_VAR)
    specs = DEFAULT_TABLES if text is None else [s for s in text.split(",") if s.strip()]
    return tuple(parse_spec(spec) for spec in specs)


def may_build(ruleset: Ruleset, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the service builds *ruleset* when asked: its id is among the configured ones.

    Any options of a configured ruleset qualify (``maxi`` with another bonus too).
    """
    return ruleset.id in {r.id for r in configured(environ)}


# Files


def _paths(ruleset: Ruleset, cache_dir: Path) -> dict[str, Path]:
    stem = Path(cache_dir) / model_of(ruleset).key
    return {
        "table": stem.with_name(stem.name + ".npy"),
        "lock": stem.with_name(stem.name + ".lock"),
        "progress": stem.with_name(stem.name + ".progress"),
        "meta": stem.with_name(stem.name + ".json"),
    }


def temp_files(ruleset: Ruleset, cache_dir: Path) -> list[Path]:
    """The temporary files of *ruleset*'s table in *cache_dir* (a build's, or a dead one's)."""
    key = model_of(ruleset).key
    return sorted(Path(cache_dir).glob(f"{key}.*.tmp"))


@contextlib.contextmanager
def _locked(path: Path, *, wait: bool) -> Iterator[bool]:
    """Holds the build lock of *path* while the block runs; yields whether it got it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the last descriptor drops the lock


@contextlib.contextmanager
def holding(ruleset: Ruleset, cache_dir: Path) -> Iterator[None]:
    """Holds the build lock of *ruleset*'s table (waiting for it): the table counts as
    being built meanwhile, and no other builder starts."""
    with _locked(_paths(ruleset, cache_dir)["lock"], wait=True):
        yield


def _write_json(path: Path, body: dict[str, Any]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(body))
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        body = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}


# Status


def status(ruleset: Ruleset, cache_dir: Path) -> TableStatus:
    """Where the table of *ruleset* stands in *cache_dir*; the one function /healthz and
    metrics read."""
    paths = _paths(ruleset, cache_dir)
    spec = spec_str(ruleset)
    if paths["table"].exists():
        return TableStatus(spec, "ready", seconds=_read_json(paths["meta"]).get("seconds"))
    # No lock file: no builder ever came (a probe creates nothing in the folder).
    if not paths["lock"].exists():
        return TableStatus(spec, "missing")
    with _locked(paths["lock"], wait=False) as free:
        if free:
            return TableStatus(spec, "missing")
    progress = _read_json(paths["progress"])
    started = float(progress.get("started", time.time()))
    spent = max(0.0, time.time() - started)
    share = min(1.0, max(0.0, float(progress.get("share", 0.0))))
    # Estimated from the build's own start: the work so far over the time so far.
    eta = spent * (1 - share) / share if share >= 0.01 else None
    return TableStatus(spec, "building", 100 * share, spent, eta)


def statuses(rulesets: Sequence[Ruleset], cache_dir: Path) -> list[TableStatus]:
    """The :func:`status` of each of *rulesets*."""
    return [status(r, cache_dir) for r in rulesets]


# Building


def _host_lock(cache_dir: Path) -> Path:
    """The lock that lets one build run at a time over everything using *cache_dir*."""
    return Path(cache_dir) / "build.lock"


def build(
    ruleset: Ruleset,
    cache_dir: Path,
    *,
    progress: Any = None,
    workers: int = 1,
) -> bool:
    """Builds the table of *ruleset* unless it exists, holding the lock; waits for a running
    build (of this table or any other in *cache_dir*) instead of starting a second.
    Returns whether this call built it.

    *progress* is called with (done, total) in units of work, as :func:`solver.solve` does.
    """
    with _locked(_host_lock(cache_dir), wait=True):
        return _build(ruleset, cache_dir, progress=progress, workers=workers)


def _build(ruleset: Ruleset, cache_dir: Path, *, progress: Any = None, workers: int = 1) -> bool:
    """:func:`build`, the caller holding the host's build lock."""
    from daily.strategy.solver import solve

    paths = _paths(ruleset, cache_dir)
    with _locked(paths["lock"], wait=True):
        if paths["table"].exists():
            return False
        for stale in temp_files(ruleset, cache_dir):
            stale.unlink(missing_ok=True)  # we hold the lock: their builder is gone
        started = time.time()
        report = _reporter(paths["progress"], started, progress)
        report(0, 1)
        metrics.table_build_started(spec_str(ruleset))
        try:
            solve(ruleset, cache_dir, progress=report, workers=workers)
            seconds = time.time() - started
            _write_json(paths["meta"], {"seconds": round(seconds, 1)})
            metrics.table_build_finished(spec_str(ruleset), seconds)
        finally:
            paths["progress"].unlink(missing_ok=True)
            for mine in temp_files(ruleset, cache_dir):
                mine.unlink(missing_ok=True)
    return True


def _reporter(path: Path, started: float, progress: Any) -> Callable[[float, float], None]:
    """Writes a build's progress to *path* (at most once a second) and hands it on."""
    shown = 0.0

    def report(done: float, total: float) -> None:
        nonlocal shown
        now = time.monotonic()
        if done >= total or now - shown >= 1.0:
            shown = now
            _write_json(path, {"started": started, "share": done / total})
        if progress is not None:
            progress(done, total)

    return report


# The queue: one file per table asked for, named by its key, holding its spec.


def _queue_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / "queue"


def enqueue(rulesets: Sequence[Ruleset], cache_dir: Path) -> None:
    """Queues the tables of *rulesets* (in order, after those queued before; once each)."""
    folder = _queue_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    base = time.time_ns()
    for n, ruleset in enumerate(rulesets):
        entry = folder / model_of(ruleset).key
        if entry.exists():
            continue  # queued already: it keeps its place
        tmp = folder / f".{entry.name}.{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(spec_str(ruleset))
        os.utime(tmp, ns=(base + n, base + n))
        os.replace(tmp, entry)


def queued(cache_dir: Path) -> list[Ruleset]:
    """The tables waiting in the queue, first to build first."""
    folder = _queue_dir(cache_dir)
    if not folder.is_dir():
        return []
    entries = []
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            continue
        try:
            entries.append((entry.stat().st_mtime_ns, entry.name, entry.read_text()))
        except OSError:  # built and taken off meanwhile
            continue
    found = []
    for _, name, spec in sorted(entries):
        try:
            ruleset = parse_spec(spec)
        except RulesError:  # not a table this version knows: dropped, never retried
            (folder / name).unlink(missing_ok=True)
            continue
        # A client that saw the table missing can queue it just after its build ended:
        # such an entry is done already, so it is taken off rather than left waiting.
        if _paths(ruleset, cache_dir)["table"].exists():
            (folder / name).unlink(missing_ok=True)
            continue
        found.append(ruleset)
    return found


def _dequeue(ruleset: Ruleset, cache_dir: Path) -> None:
    (_queue_dir(cache_dir) / model_of(ruleset).key).unlink(missing_ok=True)


def run_queue(cache_dir: Path, workers: int = 1) -> list[str]:
    """Builds every queued table in turn, if no other builder holds *cache_dir*'s build lock;
    returns what it did, a line a table (nothing when another builder runs)."""
    done: list[str] = []
    # Looked at again after the lock is let go: a table queued while the last build ended
    # found the lock held and started no builder, so this one takes it.
    while queued(cache_dir):
        with _locked(_host_lock(cache_dir), wait=False) as mine:
            if not mine:
                return done
            while todo := queued(cache_dir):
                ruleset = todo[0]
                _warm(ruleset)
                started = time.monotonic()
                try:
                    built = _build(ruleset, Path(cache_dir), workers=workers)
                    took = f"built in {time.monotonic() - started:.1f} s" if built else ""
                except Exception as e:  # one failed build must not hold up the tables after it
                    took = f"failed: {type(e).__name__}: {e}"
                _dequeue(ruleset, cache_dir)
                done.append(f"{spec_str(ruleset)}: {took or 'already built'}")
    return done


_CHILD: list[subprocess.Popen[bytes]] = []
_CHILD_LOCK = threading.Lock()


def start(rulesets: Sequence[Ruleset], cache_dir: Path) -> bool:
    """Queues every table of *rulesets* still missing and starts the background process that
    builds the queue, unless one runs; returns whether it started one. Never waits.

    However many requests ask for however many tables, one build runs at a time.
    """
    todo = [r for r in rulesets if status(r, cache_dir).state == "missing"]
    if not todo:
        return False
    enqueue(todo, cache_dir)
    with _CHILD_LOCK:
        if _CHILD and _CHILD[0].poll() is None:
            return False  # this process's builder runs: it takes the new entries too
        with _locked(_host_lock(cache_dir), wait=False) as free:
            if not free:
                return False  # another process's builder runs (it reads the queue to the end)
        command = [sys.executable, "-m", "daily.strategy.builder", "--cache", str(cache_dir)]
        child = subprocess.Popen(
            [*command, "--queue"],
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C in the server's terminal does not kill it
        )
        _CHILD[:] = [child]
    # Reaps the child when it ends (no zombie), without blocking anyone.
    threading.Thread(target=child.wait, daemon=True).start()
    return True


def _warm(ruleset: Ruleset) -> None:
    """Compiles (and caches on disk) the re-roll kernel the requests use, so that no request
    pays for it: the heuristic computer runs it on its first game."""
    import numpy as np

    from daily.strategy import kernels

    c = model_of(ruleset).combos
    kernels.turn_values(c, np.zeros((c.n_rolls, 1), model_of(ruleset).dtype), 0)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m daily.strategy.builder --cache DIR SPEC...``: builds each missing table;
    with ``--queue``, builds the queued tables instead (see :func:`run_queue`)."""
    parser = argparse.ArgumentParser(description="Builds missing strategy tables in order.")
    parser.add_argument("--cache", required=True)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--queue", action="store_true", help="build the queued tables")
    parser.add_argument("specs", nargs="*")
    args = parser.parse_args(argv)
    if args.queue:
        for line in run_queue(Path(args.cache), workers=args.workers):
            print(line, flush=True)
        return 0
    for spec in args.specs:
        ruleset = parse_spec(spec)
        _warm(ruleset)
        started = time.monotonic()
        built = build(ruleset, Path(args.cache), workers=args.workers)
        done = f"built in {time.monotonic() - started:.1f} s" if built else "already built"
        print(f"{spec_str(ruleset)}: {done}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
