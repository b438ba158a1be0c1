"""Tables the service builds by itself: once per cache folder, in a background process.

A build holds an exclusive ``flock`` on ``<cache>/<key>.lock`` for its whole run. The lock
lives next to the table it guards, so it is exactly as shared as the table: every process
that reads this cache folder waits for the same build. The kernel drops the lock when the
builder dies, however it dies: that is the lease a crashed builder gives up, with no clock to
tune. The table is written under a temporary name and renamed into place when complete, so a
half-written table is never read; the next builder, holding the lock, deletes every temporary
file a dead one left.

Several hosts share their tables through a store (``$DAILY_TABLES_URL``,
:mod:`daily.strategy.shelf`): a table the store holds is fetched (:func:`fetch`, in a thread
of the process that needs it: no builder starts), and one it does not is built under the
store's lease, which every host sees, then uploaded; a host that finds another building it
waits for that build and fetches its table.

Progress goes to ``<key>.progress`` (JSON, replaced atomically) for :func:`status` to read;
the build time goes to ``<key>.json`` once the table is done.

One build at a time per cache folder: every build also holds ``<cache>/build.lock``, so
its memory (under 1 GiB for ``maxi`` and each of its variants, docs/strategy.md) is the
ceiling whatever clients ask. Tables asked for while a build runs wait in a queue, one file
each under ``<cache>/queue/``, oldest first; one background process (:func:`start`) builds
them in turn, at a lower CPU priority than the web workers (:data:`NICE`). It is started
holding ``build.lock`` already (the lock is handed to it), so however many server processes
ask at once, a host starts one; :func:`stop` ends it with the server.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from daily.core import metrics
from daily.core.errors import RulesError, TableStoreError
from daily.core.rules import OptionValue, Ruleset, find_ruleset
from daily.strategy.model import model_of
from daily.strategy.shelf import Progress, Shelf, open_shelf

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
def locked(path: Path, *, wait: bool) -> Iterator[bool]:
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
    with locked(_paths(ruleset, cache_dir)["lock"], wait=True):
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
    with locked(paths["lock"], wait=False) as free:
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

#: What obtaining a table did: built it, fetched it from the store, or found it here.
Outcome = Literal["built", "fetched", "found"]
log = logging.getLogger(__name__)


def host_lock(cache_dir: Path) -> Path:
    """The lock that lets one build run at a time over everything using *cache_dir*."""
    return Path(cache_dir) / "build.lock"


def build(
    ruleset: Ruleset,
    cache_dir: Path,
    *,
    progress: Any = None,
    workers: int = 1,
    store: str | None = None,
) -> bool:
    """Builds the table of *ruleset* unless it exists, holding the lock; waits for a running
    build (of this table or any other in *cache_dir*) instead of starting a second.
    Returns whether this call built it (see :func:`obtain`).

    *progress* is called with (done, total) in units of work, as :func:`solver.solve` does.
    """
    return obtain(ruleset, cache_dir, progress=progress, workers=workers, store=store) == "built"


def obtain(
    ruleset: Ruleset,
    cache_dir: Path,
    *,
    progress: Any = None,
    workers: int = 1,
    store: str | None = None,
    strict: bool = True,
) -> Outcome:
    """Makes the table of *ruleset* ready in *cache_dir*, and in the store at *store* if one is
    named: fetched from the store, else built (under the store's lease) and uploaded.

    With *strict* false (the background builder) a store that fails is logged and the table
    built here alone; with it true (``daily solve``) the :class:`TableStoreError` is raised.
    """
    with locked(host_lock(cache_dir), wait=True):
        return obtain_held(ruleset, Path(cache_dir), progress, workers, store, strict)


def obtain_held(
    ruleset: Ruleset,
    cache_dir: Path,
    progress: Any,
    workers: int,
    store: str | None,
    strict: bool,
) -> Outcome:
    """:func:`obtain`, the caller holding the host's build lock (the queue's builder)."""
    paths = _paths(ruleset, cache_dir)
    with locked(paths["lock"], wait=True):
        shelf = _opened(store, cache_dir, strict)
        if paths["table"].exists():
            if shelf is not None:
                _share(ruleset, paths, shelf, strict)
            return "found"
        for stale in temp_files(ruleset, cache_dir):
            stale.unlink(missing_ok=True)  # we hold the lock: their builder is gone
        report = _reporter(paths["progress"], time.time(), progress)
        report(0, 1)
        try:
            if shelf is None:
                _solve(ruleset, cache_dir, report, workers)
                return "built"
            return _through(shelf, ruleset, cache_dir, report, workers, strict)
        finally:
            paths["progress"].unlink(missing_ok=True)
            for mine in temp_files(ruleset, cache_dir):
                mine.unlink(missing_ok=True)


def _opened(store: str | None, cache_dir: Path, strict: bool) -> Shelf | None:
    try:
        return open_shelf(store, cache_dir)
    except TableStoreError:
        if strict:
            raise
        log.warning("the tables' store %s cannot be opened: tables are built here", store)
        return None


def _through(
    shelf: Shelf, ruleset: Ruleset, cache_dir: Path, report: Progress, workers: int, strict: bool
) -> Outcome:
    """Fetches the store's table, or builds it under the store's lease and uploads it."""
    paths = _paths(ruleset, cache_dir)
    try:
        with shelf.lease(ruleset, waiting=report) as lease:
            if not lease.held:  # in the store, or another host built it meanwhile
                _fetch_into(shelf, ruleset, paths, report)
                return "fetched"

            def shown(done: float, total: float) -> None:
                lease.share = done / total  # what the lease shows the hosts that wait
                report(done, total)

            seconds = _solve(ruleset, cache_dir, shown, workers)
            shelf.upload(ruleset, paths["table"], seconds)
            return "built"
    except TableStoreError as e:
        if strict:
            raise
        log.warning("%s: %s", spec_str(ruleset), e)
        if paths["table"].exists():
            return "built"  # not uploaded: the next `daily solve` of it here does
    _solve(ruleset, cache_dir, report, workers)  # no store to be had: this host builds
    return "built"


def _solve(ruleset: Ruleset, cache_dir: Path, report: Progress, workers: int) -> float:
    """Solves the table into *cache_dir*, counted in the metrics; returns its seconds."""
    from daily.strategy.solver import solve

    started = time.time()
    metrics.table_build_started(spec_str(ruleset))
    solve(ruleset, cache_dir, progress=report, workers=workers)
    seconds = time.time() - started
    _write_json(_paths(ruleset, cache_dir)["meta"], {"seconds": round(seconds, 1)})
    metrics.table_build_finished(spec_str(ruleset), seconds)
    return seconds


def _share(ruleset: Ruleset, paths: dict[str, Path], shelf: Shelf, strict: bool) -> None:
    """Uploads a table built here to a store that lacks it (built before there was one)."""
    try:
        if not shelf.has(ruleset):
            seconds = float(_read_json(paths["meta"]).get("seconds", 0.0))
            shelf.upload(ruleset, paths["table"], seconds)
    except TableStoreError as e:
        if strict:
            raise
        log.warning("%s: %s", spec_str(ruleset), e)


def _fetch_into(shelf: Shelf, ruleset: Ruleset, paths: dict[str, Path], report: Progress) -> None:
    seconds = shelf.fetch(ruleset, paths["table"], progress=report)
    _write_json(paths["meta"], {"seconds": seconds, "fetched": shelf.url})


def fetch(ruleset: Ruleset, cache_dir: Path, shelf: Shelf) -> bool:
    """Fetches the store's table of *ruleset* into *cache_dir*, unless it is there or on its
    way (being built or fetched here: then it returns at once); returns whether it did.

    No builder process starts: a host that fetches never builds. Raises
    :class:`TableStoreError` when the store fails (the copy is then thrown away).
    """
    paths = _paths(ruleset, cache_dir)
    with locked(paths["lock"], wait=False) as mine:
        if not mine or paths["table"].exists():
            return False
        for stale in temp_files(ruleset, cache_dir):
            stale.unlink(missing_ok=True)
        try:
            _fetch_into(shelf, ruleset, paths, _reporter(paths["progress"], time.time(), None))
        finally:
            paths["progress"].unlink(missing_ok=True)
            for mine_left in temp_files(ruleset, cache_dir):
                mine_left.unlink(missing_ok=True)
    return True


def fetch_soon(ruleset: Ruleset, cache_dir: Path, shelf: Shelf) -> None:
    """:func:`fetch`, now from a folder (a link), in a thread of this process from an object
    store (a download: the table shows as building, with its progress, meanwhile)."""

    def run() -> None:
        try:
            fetch(ruleset, cache_dir, shelf)
        except TableStoreError as e:  # asked again, it is tried again
            log.warning("%s: %s", spec_str(ruleset), e)

    if shelf.local:
        run()
    else:
        threading.Thread(target=run, daemon=True, name=f"fetch-{spec_str(ruleset)}").start()


def _reporter(path: Path, started: float, progress: Any) -> Progress:
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
