"""The background builder: one process a host that builds the queued tables in turn.

Tables asked for wait in a queue, one file each under ``<cache>/queue/``, oldest first.
:func:`start` queues them and starts ``python -m daily.tables.background --queue``, which
builds (or fetches: :func:`daily.tables.builder.obtain`) them in turn and exits when the
queue is empty. It is handed its settings on its command line (the cache folder, the store)
and the key that signs the tables' digests on its standard input (never on a command line,
which any user of the host may read). It is started holding ``<cache>/build.lock`` already:
the starter takes the lock and hands it over, so however many server processes ask at once
(every gunicorn worker as it starts), one builder runs a host, and none starts while another
holds the lock. It runs
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
from daily.core.rules import parse_spec
from daily.strategy.model import Model, model_of
from daily.tables import builder, loader
from daily.tables.files import Site, host_lock, locked

#: How much less CPU priority the builder takes than the server that starts it (os.nice).
NICE = 10


# The queue: one file per table asked for, named by its key, holding its spec.


def _queue_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / "queue"


def enqueue(models: Sequence[Model], cache_dir: Path) -> None:
    """Queues the tables of *models* (in order, after those queued before; once each)."""
    folder = _queue_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    base = time.time_ns()
    for n, model in enumerate(models):
        entry = folder / model.key
        if entry.exists():
            continue  # queued already: it keeps its place
        tmp = folder / f".{entry.name}.{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(model.ruleset.spec)
        os.utime(tmp, ns=(base + n, base + n))
        os.replace(tmp, entry)


def queued(site: Site) -> list[Model]:
    """The tables waiting in the queue, first to build first."""
    folder = _queue_dir(site.cache)
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
            model = model_of(parse_spec(spec))
        except RulesError:  # not a table this version knows: dropped, never retried
            (folder / name).unlink(missing_ok=True)
            continue
        # A client that saw the table missing can queue it just after its build ended:
        # such an entry is done already, so it is taken off rather than left waiting.
        if loader.status(model, site).state == "ready":
            (folder / name).unlink(missing_ok=True)
            continue
        found.append(model)
    return found


def _dequeue(model: Model, cache_dir: Path) -> None:
    (_queue_dir(cache_dir) / model.key).unlink(missing_ok=True)


def run_queue(site: Site, workers: int = 1, *, held: int | None = None) -> list[str]:
    """Builds (or fetches) every queued table in turn, if no other builder holds the cache's
    build lock; returns what it did, a line a table (nothing when another builder runs).

    *held*: a descriptor of the build lock, locked already, that :func:`start` handed over;
    it is used first, then closed.
    """
    done: list[str] = []
    # Looked at again after the lock is let go: a table queued while the last build ended
    # found the lock held and started no builder, so this one takes it.
    while held is not None or queued(site):
        lock = _handed(held) if held is not None else locked(host_lock(site.cache), wait=False)
        held = None
        with lock as mine:
            if not mine:
                return done
            while todo := queued(site):
                done.append(_run_one(todo[0], site, workers))
    return done


def _run_one(model: Model, site: Site, workers: int) -> str:
    """Obtains one queued table and takes it off the queue; its line of :func:`run_queue`."""
    warm(model)
    started = time.monotonic()
    try:
        outcome = builder.obtain_held(model, site, None, workers, strict=False)
        line = _line(model, outcome, started)
    except Exception as e:  # one failed build must not hold up the tables after it
        line = f"{model.ruleset.spec}: failed: {type(e).__name__}: {e}"
    _dequeue(model, site.cache)
    return line


def _line(model: Model, outcome: builder.Outcome, started: float) -> str:
    """What obtaining a table did, as the builder prints it: ``maxi: built in 61.2 s``."""
    took = f"{time.monotonic() - started:.1f} s"
    done = {"built": f"built in {took}", "fetched": f"fetched in {took}"}
    return f"{model.ruleset.spec}: {done.get(outcome, 'already built')}"


@contextlib.contextmanager
def _handed(fd: int) -> Iterator[bool]:
    """A lock handed over held, yielded as :func:`daily.tables.files.locked` yields one."""
    try:
        yield True
    finally:
        os.close(fd)  # the last descriptor: the lock is let go


def warm(model: Model) -> None:
    """Compiles (and caches on disk) the re-roll kernel the requests use, so that no request
    pays for it: the heuristic computer runs it on its first game."""
    import numpy as np

    from daily.strategy import kernels

    c = model.combos
    kernels.turn_values(c, np.zeros((c.n_rolls, 1), model.dtype), 0)


# The process


_CHILD: list[subprocess.Popen[bytes]] = []
_CHILD_LOCK = threading.Lock()


def start(models: Sequence[Model], site: Site) -> bool:
    """Queues every table of *models* still missing (or refused) and starts the background
    process that builds the queue, unless one runs; returns whether it started one. Never
    waits.

    However many requests ask for however many tables, one build runs at a time, and a host
    starts one builder: the build lock is taken here and handed to the child.
    """
    todo = [m for m in models if loader.status(m, site).state in ("missing", "bad")]
    if not todo:
        return False
    enqueue(todo, site.cache)
    with _CHILD_LOCK:
        if _CHILD and _CHILD[0].poll() is None:
            return False  # this process's builder runs: it takes the new entries too
        fd = os.open(host_lock(site.cache), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # another builder runs (it reads the queue to the end)
            command = [
                sys.executable,
                "-m",
                "daily.tables.background",
                "--cache",
                str(site.cache),
                "--queue",
                "--lock-fd",
                str(fd),
            ]
            child = subprocess.Popen(
                [*command, *(["--store", site.store] if site.store else [])],
                stdin=subprocess.PIPE,
                pass_fds=(fd,),  # the child holds the lock from its first instant
                start_new_session=True,  # a Ctrl-C in the server's terminal is not for it
            )
        finally:
            os.close(fd)  # the child's copy keeps the lock
        _CHILD[:] = [child]
        hand_key(child, site.key)
    # Reaps the child when it ends (no zombie), without blocking anyone.
    threading.Thread(target=child.wait, daemon=True).start()
    return True


def hand_key(child: subprocess.Popen[bytes], key: str) -> None:
    """Writes the key that signs the tables' digests to a builder's standard input."""
    assert child.stdin is not None
    with contextlib.suppress(BrokenPipeError):  # a child that died at once: it is reaped
        child.stdin.write(key.encode() + b"\n")
    with contextlib.suppress(BrokenPipeError):
        child.stdin.close()


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
    """``python -m daily.tables.background --cache DIR SPEC...``: obtains each missing
    table; with ``--queue``, the queued ones instead (see :func:`run_queue`). The key that
    signs the tables' digests is the first line of its standard input."""
    parser = argparse.ArgumentParser(description="Builds missing strategy tables in order.")
    parser.add_argument("--cache", required=True)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--store", help="the tables' store (an fsspec URL or a folder)")
    parser.add_argument("--queue", action="store_true", help="build the queued tables")
    parser.add_argument("--lock-fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("specs", nargs="*")
    args = parser.parse_args(argv)
    key = sys.stdin.readline().rstrip("\n")
    os.nice(NICE)  # the web workers answer first; the solver's workers inherit it
    site = Site(Path(args.cache), key, args.store or None)
    with _announced(site.cache):
        if args.queue:
            for line in run_queue(site, args.workers, held=args.lock_fd):
                print(line, flush=True)
        for spec in args.specs:
            print(_obtain_one(model_of(parse_spec(spec)), site, args.workers), flush=True)
    return 0


def _obtain_one(model: Model, site: Site, workers: int) -> str:
    warm(model)
    started = time.monotonic()
    outcome = builder.obtain(model, site, workers=workers, strict=False)
    return _line(model, outcome, started)


if __name__ == "__main__":
    sys.exit(main())
