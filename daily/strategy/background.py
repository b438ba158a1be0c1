"""The background builder: one process a host that builds the queued tables in turn.

Tables asked for wait in a queue, one file each under ``<cache>/queue/``, oldest first.
:func:`start` queues them and starts ``python -m daily.strategy.background --queue``, which
builds (or fetches: :func:`daily.strategy.builder.obtain`) them in turn and exits when the
queue is empty. It is started holding ``<cache>/build.lock`` already: the starter takes the
lock and hands it over, so however many server processes ask at once (every gunicorn worker
as it starts), one builder runs a host, and none starts while another holds the lock. It runs
at a lower CPU priority (:data:`NICE`) than the web workers beside it, and writes
``<cache>/builder.json`` (its host, pid and start) so that :func:`stop` can end it with the
server that started it: ``daily serve`` on SIGTERM or SIGINT, gunicorn's master on exit.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from daily.core.errors import RulesError
from daily.core.rules import Ruleset
from daily.strategy import builder
from daily.strategy.builder import parse_spec, spec_str
from daily.strategy.model import model_of

#: How much less CPU priority the builder takes than the server that starts it (os.nice).
NICE = 10


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
        if builder.status(ruleset, cache_dir).state == "ready":
            (folder / name).unlink(missing_ok=True)
            continue
        found.append(ruleset)
    return found


def _dequeue(ruleset: Ruleset, cache_dir: Path) -> None:
    (_queue_dir(cache_dir) / model_of(ruleset).key).unlink(missing_ok=True)


def run_queue(
    cache_dir: Path, workers: int = 1, *, store: str | None = None, held: int | None = None
) -> list[str]:
    """Builds (or fetches) every queued table in turn, if no other builder holds *cache_dir*'s
    build lock; returns what it did, a line a table (nothing when another builder runs).

    *held*: a descriptor of the build lock, locked already, that :func:`start` handed over;
    it is used first, then closed.
    """
    done: list[str] = []
    # Looked at again after the lock is let go: a table queued while the last build ended
    # found the lock held and started no builder, so this one takes it.
    while held is not None or queued(cache_dir):
        lock = (
            _handed(held)
            if held is not None
            else builder.locked(builder.host_lock(cache_dir), wait=False)
        )
        held = None
        with lock as mine:
            if not mine:
                return done
            while todo := queued(cache_dir):
                done.append(_run_one(todo[0], Path(cache_dir), workers, store))
    return done


def _run_one(ruleset: Ruleset, cache_dir: Path, workers: int, store: str | None) -> str:
    """Obtains one queued table and takes it off the queue; its line of :func:`run_queue`."""
    warm(ruleset)
    started = time.monotonic()
    try:
        outcome = builder.obtain_held(ruleset, cache_dir, None, workers, store, strict=False)
        line = _line(ruleset, outcome, started)
    except Exception as e:  # one failed build must not hold up the tables after it
        line = f"{spec_str(ruleset)}: failed: {type(e).__name__}: {e}"
    _dequeue(ruleset, cache_dir)
    return line


def _line(ruleset: Ruleset, outcome: builder.Outcome, started: float) -> str:
    """What obtaining a table did, as the builder prints it: ``maxi: built in 61.2 s``."""
    took = f"{time.monotonic() - started:.1f} s"
    done = {"built": f"built in {took}", "fetched": f"fetched in {took}"}
    return f"{spec_str(ruleset)}: {done.get(outcome, 'already built')}"


@contextlib.contextmanager
def _handed(fd: int) -> Iterator[bool]:
    """A lock handed over held, yielded as :func:`daily.strategy.builder.locked` yields one."""
    try:
        yield True
    finally:
        os.close(fd)  # the last descriptor: the lock is let go


def warm(ruleset: Ruleset) -> None:
    """Compiles (and caches on disk) the re-roll kernel the requests use, so that no request
    pays for it: the heuristic computer runs it on its first game."""
    import numpy as np

    from daily.strategy import kernels

    c = model_of(ruleset).combos
    kernels.turn_values(c, np.zeros((c.n_rolls, 1), model_of(ruleset).dtype), 0)


# The process


_CHILD: list[subprocess.Popen[bytes]] = []
_CHILD_LOCK = threading.Lock()


def start(rulesets: Sequence[Ruleset], cache_dir: Path, store: str | None = None) -> bool:
    """Queues every table of *rulesets* still missing and starts the background process that
    builds the queue, unless one runs; returns whether it started one. Never waits.

    However many requests ask for however many tables, one build runs at a time, and a host
    starts one builder: the build lock is taken here and handed to the child.
    """
    todo = [r for r in rulesets if builder.status(r, cache_dir).state == "missing"]
    if not todo:
        return False
    enqueue(todo, cache_dir)
    with _CHILD_LOCK:
        if _CHILD and _CHILD[0].poll() is None:
            return False  # this process's builder runs: it takes the new entries too
        fd = os.open(builder.host_lock(cache_dir), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # another builder runs (it reads the queue to the end)
            command = [sys.executable, "-m", "daily.strategy.background", "--cache",
                       str(cache_dir), "--queue", "--lock-fd", str(fd)]  # fmt: skip
            child = subprocess.Popen(
                [*command, *(["--store", store] if store else [])],
                stdin=subprocess.DEVNULL,
                pass_fds=(fd,),  # the child holds the lock from its first instant
                start_new_session=True,  # a Ctrl-C in the server's terminal is not for it
            )
        finally:
            os.close(fd)  # the child's copy keeps the lock
        _CHILD[:] = [child]
    # Reaps the child when it ends (no zombie), without blocking anyone.
    threading.Thread(target=child.wait, daemon=True).start()
    return True


def _pid_file(cache_dir: Path) -> Path:
    return Path(cache_dir) / "builder.json"


def _started_at(pid: int) -> int | None:
    """When process *pid* started, in clock ticks since boot (None: there is no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return None if fields[0] == "Z" else int(fields[19])


def running(cache_dir: Path) -> int | None:
    """The pid of the background builder of *cache_dir* on this host, if one runs."""
    try:
        found: dict[str, Any] = json.loads(_pid_file(cache_dir).read_text())
        pid, host, since = int(found["pid"]), found["host"], found["since"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    # The pid alone could be another process's by now, or another host's (a shared folder).
    if host != socket.gethostname() or since is None or _started_at(pid) != since:
        return None
    return pid


def stop(cache_dir: Path, timeout: float = 10.0) -> int | None:
    """Stops the background builder of *cache_dir* on this host (SIGTERM to it and its
    workers, SIGKILL after *timeout*); returns its pid, or None when none ran.

    What it was building is left to the next builder, which deletes its temporary file.
    """
    with _CHILD_LOCK:
        own = _CHILD[0] if _CHILD and _CHILD[0].poll() is None else None
    pids = {pid for pid in (running(cache_dir), own and own.pid) if pid}
    for pid in pids:
        for signum in (signal.SIGTERM, signal.SIGKILL):
            _signal(pid, signum)
            deadline = time.monotonic() + timeout
            while _started_at(pid) is not None and time.monotonic() < deadline:
                if own is not None:
                    own.poll()  # reaps our own child
                time.sleep(0.05)
            if _started_at(pid) is None:
                break
    _pid_file(cache_dir).unlink(missing_ok=True)
    return min(pids) if pids else None


def _signal(pid: int, signum: int) -> None:
    """Sends *signum* to the builder and the solver's workers: its process group when it
    leads one (it runs in a session of its own), else the builder alone."""
    with contextlib.suppress(ProcessLookupError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signum)
        else:
            os.kill(pid, signum)


@contextlib.contextmanager
def _announced(cache_dir: Path) -> Iterator[None]:
    """Writes ``builder.json`` while the block runs, for :func:`stop` to find this process."""
    path = _pid_file(cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"pid": os.getpid(), "host": socket.gethostname(), "since": _started_at(os.getpid())}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(body))
    os.replace(tmp, path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            if json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m daily.strategy.background --cache DIR SPEC...``: obtains each missing
    table; with ``--queue``, the queued ones instead (see :func:`run_queue`)."""
    parser = argparse.ArgumentParser(description="Builds missing strategy tables in order.")
    parser.add_argument("--cache", required=True)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--store", help="the tables' store (an fsspec URL or a folder)")
    parser.add_argument("--queue", action="store_true", help="build the queued tables")
    parser.add_argument("--lock-fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("specs", nargs="*")
    args = parser.parse_args(argv)
    os.nice(NICE)  # the web workers answer first; the solver's workers inherit it
    cache = Path(args.cache)
    with _announced(cache):
        if args.queue:
            for line in run_queue(cache, args.workers, store=args.store, held=args.lock_fd):
                print(line, flush=True)
        for spec in args.specs:
            print(_obtain_one(parse_spec(spec), cache, args.workers, args.store), flush=True)
    return 0


def _obtain_one(ruleset: Ruleset, cache_dir: Path, workers: int, store: str | None) -> str:
    warm(ruleset)
    started = time.monotonic()
    outcome = builder.obtain(ruleset, cache_dir, workers=workers, store=store, strict=False)
    return _line(ruleset, outcome, started)


if __name__ == "__main__":
    sys.exit(main())
