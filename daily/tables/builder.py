"""Tables the service builds by itself: once per cache folder, in a background process.

A build holds the table's lock (:mod:`daily.tables.files`) for its whole run. The table is
written under a temporary name, flushed to disk, made read-only and renamed into place when
complete, then hashed and its signed digest written (:mod:`daily.tables.digests`), so a
half-written table is never read and a table is never used unchecked; the next builder,
holding the lock, deletes every temporary file a dead one left.

Several hosts share their tables through a store (the site's ``store``,
:mod:`daily.tables.shelf`): a table the store holds is fetched (:func:`fetch`, in a thread of
the process that needs it: no builder starts) and checked against the store's signed digest
as it is copied; one it does not hold is built under the store's lease, which every host
sees, then uploaded; a host that finds another building it waits for that build and fetches
its table. A store's copy that fails its check is dropped from the store (its record) and
built again.

Progress goes to ``<key>.progress`` (JSON, replaced atomically) for
:func:`daily.tables.loader.status` to read.

One build at a time per cache folder: every build also holds ``<cache>/build.lock``, so
its memory (under 1 GiB for ``maxi`` and each of its variants, docs/strategy.md) is the
ceiling whatever clients ask; :mod:`daily.tables.background` builds the queue in turn.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Literal

from daily.core import metrics
from daily.core.errors import BadTableError, TableStoreError
from daily.strategy.model import Model
from daily.strategy.solver import Progress, Table, fill
from daily.tables import digests
from daily.tables.files import (
    Paths,
    Site,
    host_lock,
    locked,
    paths_of,
    settle,
    temp_files,
    write_json,
)
from daily.tables.loader import load_table
from daily.tables.shelf import Shelf, open_shelf

#: What obtaining a table did: built it, fetched it from the store, or found it here.
Outcome = Literal["built", "fetched", "found"]
log = logging.getLogger(__name__)


def build(model: Model, site: Site, *, progress: Progress | None = None, workers: int = 1) -> bool:
    """Builds the table of *model* unless it is here (and sound), holding the lock; waits
    for a running build (of this table or any other in the cache) instead of starting a
    second. Returns whether this call built it (see :func:`obtain`).

    *progress* is called with (done, total) in units of work, as :func:`solver.fill` does.
    """
    return obtain(model, site, progress=progress, workers=workers) == "built"


def obtain(
    model: Model,
    site: Site,
    *,
    progress: Progress | None = None,
    workers: int = 1,
    strict: bool = True,
) -> Outcome:
    """Makes the table of *model* ready in the site's cache, and in its store if it has
    one: fetched from the store, else built (under the store's lease) and uploaded.

    With *strict* false (the background builder) a store that fails is logged and the table
    built here alone; with it true (``daily solve``) the :class:`TableStoreError` is raised.
    """
    with locked(host_lock(site.cache), wait=True):
        return obtain_held(model, site, progress, workers, strict)


def obtain_held(
    model: Model, site: Site, progress: Progress | None, workers: int, strict: bool
) -> Outcome:
    """:func:`obtain`, the caller holding the host's build lock (the queue's builder)."""
    paths = paths_of(model, site.cache)
    with locked(paths.lock, wait=True):
        shelf = _opened(site, strict)
        if _is_sound(model, site, paths):
            if shelf is not None:
                _share(model, site, shelf, strict)
            return "found"
        _clean(model, site)  # we hold the lock: their builder is gone
        report = _reporter(paths.progress, time.time(), progress)
        report(0, 1)
        try:
            if shelf is None:
                _solve(model, site, report, workers)
                return "built"
            return _through(shelf, model, site, report, workers, strict)
        finally:
            paths.progress.unlink(missing_ok=True)
            _clean(model, site)


def _is_sound(model: Model, site: Site, paths: Paths) -> bool:
    """Whether the cache holds a table of *model* that passes its check; one that fails
    is refused (the caller holds its lock)."""
    if not (paths.table.exists() or paths.table.is_symlink()):
        return False
    try:
        digests.check(site, model)
        return True
    except BadTableError as e:
        log.warning("%s: refused, built or fetched again: %s", model.ruleset.spec, e)
        digests.refuse(site, model, str(e))
        return False


def _clean(model: Model, site: Site) -> None:
    for stale in temp_files(model, site.cache):
        stale.unlink(missing_ok=True)


def _opened(site: Site, strict: bool) -> Shelf | None:
    try:
        return open_shelf(site)
    except TableStoreError:
        if strict:
            raise
        log.warning("the tables' store %s cannot be opened: tables are built here", site.store)
        return None


def _through(
    shelf: Shelf, model: Model, site: Site, report: Progress, workers: int, strict: bool
) -> Outcome:
    """Fetches the store's table, or builds it under the store's lease and uploads it; a
    store's copy that fails its check is dropped there, and built again."""
    paths = paths_of(model, site.cache)
    try:
        for _ in range(2):  # the second time, a bad copy is gone from the store
            with shelf.lease(model, waiting=report) as lease:
                if not lease.held:  # in the store, or another host built it meanwhile
                    if _fetched(shelf, model, site, report):
                        return "fetched"
                    continue

                def shown(done: float, total: float) -> None:
                    lease.share = done / total  # what the lease shows the hosts that wait
                    report(done, total)

                digest = _solve(model, site, shown, workers)
                shelf.upload(model, paths.table, digest)
                return "built"
    except TableStoreError as e:
        if strict:
            raise
        log.warning("%s: %s", model.ruleset.spec, e)
        if paths.table.exists():
            return "built"  # not uploaded: the next `daily solve` of it here does
    _solve(model, site, report, workers)  # no store to be had: this host builds
    return "built"


def _fetched(shelf: Shelf, model: Model, site: Site, report: Progress | None) -> bool:
    """Fetches the store's table into the cache; False when the store's copy fails its
    check (its record is then taken out of the store, and the refusal noted here)."""
    try:
        fetch_into(shelf, model, site, report)
        return True
    except BadTableError as e:
        log.warning("%s: the store's copy is refused: %s", model.ruleset.spec, e)
        shelf.forget(model)
        digests.refuse(site, model, f"the store's copy: {e}")
        return False


def _solve(
    model: Model, site: Site, report: Progress | None, workers: int, batch: int = 0
) -> digests.Digest:
    """Solves the table into the cache, counted in the metrics, and writes its digest."""
    started = time.time()
    metrics.table_build_started(model.ruleset.spec)
    write_table(
        model,
        paths_of(model, site.cache).table,
        progress=report,
        workers=workers,
        batch=batch,
    )
    seconds = time.time() - started
    digest = digests.seal_file(site, model, seconds)
    metrics.table_build_finished(model.ruleset.spec, seconds)
    return digest


def solve(
    model: Model,
    site: Site,
    *,
    progress: Progress | None = None,
    workers: int = 1,
    batch: int = 0,
) -> Table:
    """Solves *model* into the site's cache (no lock: see :func:`build`) and writes its
    digest; returns the table, memory-mapped."""
    _solve(model, site, progress, workers, batch)
    return load_table(model, site)


def write_table(
    model: Model,
    path: Path,
    *,
    progress: Progress | None = None,
    workers: int = 1,
    batch: int = 0,
) -> None:
    """Solves *model* (in its layout) into the ``.npy`` file at *path*, whole or not at all."""
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name in the same folder, renamed when complete: a reader
    # never sees a half-written table (obtain deletes what a dead builder left).
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        # A new .npy memmap is a sparse file of zeros: the terminal states are worth nothing.
        values = np.lib.format.open_memmap(tmp, mode="w+", dtype=model.dtype, shape=model.shape)
        fill(model, tmp, range(1, model.rows + 1), progress=progress, workers=workers, batch=batch)
        values.flush()
        del values
        settle(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _share(model: Model, site: Site, shelf: Shelf, strict: bool) -> None:
    """Uploads a table built here to a store that lacks it (built before there was one)."""
    try:
        if not shelf.has(model):
            digest = digests.record_of(site, model)
            shelf.upload(model, paths_of(model, site.cache).table, digest)
    except TableStoreError as e:
        if strict:
            raise
        log.warning("%s: %s", model.ruleset.spec, e)


def fetch_into(shelf: Shelf, model: Model, site: Site, report: Progress | None) -> None:
    """Copies the store's table into the cache, checked as it comes, and writes its digest
    (the caller holds the table's lock)."""
    path = paths_of(model, site.cache).table
    digest = shelf.fetch(model, path, progress=report)
    seen = digests.fingerprint(os.stat(path))
    digests.remember(
        site, model, digests.Digest(digest.key, digest.size, digest.sha256, digest.seconds, seen)
    )


def fetch(model: Model, site: Site, shelf: Shelf) -> bool:
    """Fetches the store's table of *model* into the cache, unless it is there or on its
    way (being built or fetched here: then it returns at once); returns whether it did.

    No builder process starts: a host that fetches never builds. Raises
    :class:`TableStoreError` when the store fails (the copy is then thrown away); a copy
    that fails its check is refused (:func:`_fetched`) and False returned.
    """
    paths = paths_of(model, site.cache)
    with locked(paths.lock, wait=False) as mine:
        if not mine or _is_sound(model, site, paths):
            return False
        _clean(model, site)
        try:
            return _fetched(shelf, model, site, _reporter(paths.progress, time.time(), None))
        finally:
            paths.progress.unlink(missing_ok=True)
            _clean(model, site)


def fetch_soon(model: Model, site: Site, shelf: Shelf) -> None:
    """:func:`fetch`, now from a folder (a local copy), in a thread of this process from an
    object store (a download: the table shows as building, with its progress, meanwhile)."""

    def run() -> None:
        try:
            fetch(model, site, shelf)
        except TableStoreError as e:  # asked again, it is tried again
            log.warning("%s: %s", model.ruleset.spec, e)

    if shelf.local:
        run()
    else:
        threading.Thread(target=run, daemon=True, name=f"fetch-{model.ruleset.spec}").start()


def _reporter(path: Path, started: float, progress: Progress | None) -> Progress:
    """Writes a build's progress to *path* (at most once a second) and hands it on."""
    shown = 0.0

    def report(done: float, total: float) -> None:
        nonlocal shown
        now = time.monotonic()
        if done >= total or now - shown >= 1.0:
            shown = now
            write_json(path, {"started": started, "share": done / total})
        if progress is not None:
            progress(done, total)

    return report
