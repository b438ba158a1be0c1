"""Where a table stands in a host's cache, and opening it: checked, then memory-mapped.

:func:`table_for` opens each table once per process (every server worker maps the same file,
so the page cache holds one copy), after :func:`daily.tables.digests.check`; it looks at the
file again (one ``stat``) at every call, and a file changed since it was checked is checked
again before it is used. Whatever is wrong with a table (missing, being built, refused by its
check, unreadable) comes out as :class:`TableMissingError` or :class:`TableBuildingError`,
which callers already wait on: never another error.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from daily.core.errors import BadTableError, TableBuildingError, TableMissingError
from daily.strategy.model import Model
from daily.strategy.solver import Table, mapped
from daily.strategy.specs import TableStatus
from daily.tables import digests
from daily.tables.files import Paths, Site, is_locked, locked, paths_of, read_json


def status(model: Model, site: Site) -> TableStatus:
    """Where the table of *model* stands in the cache (it reads no table: a few ``stat``
    calls and the signed record); the one function ``/healthz`` and the metrics read."""
    paths = paths_of(model, site.cache)
    spec = model.ruleset.spec
    problem = digests.refusal(site, model)
    if paths.table.exists():
        try:
            digest = digests.record_of(site, model)
            if os.stat(paths.table).st_size == digest.size:
                return TableStatus(spec, "ready", seconds=digest.seconds)
            problem = "the table's size differs from its digest"
        except (BadTableError, OSError) as e:
            problem = str(e)
    if not is_locked(paths.lock):  # no build or fetch at work on it
        return TableStatus(spec, "bad" if problem else "missing", problem=problem)
    progress = read_json(paths.progress)
    started = float(progress.get("started", time.time()))
    spent = max(0.0, time.time() - started)
    share = min(1.0, max(0.0, float(progress.get("share", 0.0))))
    # Estimated from the build's own start: the work so far over the time so far.
    eta = spent * (1 - share) / share if share >= 0.01 else None
    return TableStatus(spec, "building", 100 * share, spent, eta, problem)


def statuses(models: Sequence[Model], site: Site) -> list[TableStatus]:
    """The :func:`status` of each of *models*."""
    return [status(m, site) for m in models]


def load_table(model: Model, site: Site) -> Table:
    """Opens the table of *model*, checked against its digest; never builds it.

    Raises :class:`TableBuildingError` while a build (or a fetch) runs, and
    :class:`TableMissingError` when there is no table, or the one there is refused (it is
    then moved aside, for the next build or fetch to replace): a caller never waits minutes
    by accident, and never maps a table that does not match its digest.
    """
    paths = paths_of(model, site.cache)
    if not paths.table.exists():
        raise _absent(model, site)
    try:
        digests.check(site, model)
    except BadTableError as e:
        try:
            _refuse(model, site, str(e))
        except OSError as moved:  # a cache it cannot write to: refused all the same
            message = f"the strategy table of {model.ruleset.id} was refused ({e}): {moved}"
            raise TableMissingError(model.ruleset, message) from None
    return mapped_table(model, paths.table)


def _absent(model: Model, site: Site) -> TableMissingError:
    found = status(model, site)
    if found.state == "building":
        return TableBuildingError(model.ruleset, found)
    why = f" (the last one was refused: {found.problem})" if found.problem else ""
    return TableMissingError(
        model.ruleset,
        f"no strategy table for {model.ruleset.id} yet{why}: the service builds it, "
        f"or run `daily solve {model.ruleset.spec}`",
    )


def _refuse(model: Model, site: Site, problem: str) -> None:
    """Moves a table that failed its check aside, unless a build or fetch holds it (then it
    is on its way): raises what :func:`load_table` raises either way."""
    paths = paths_of(model, site.cache)
    with locked(paths.lock, wait=False) as mine:
        if mine:
            try:  # looked at again: a build may have put a good one in place meanwhile
                digests.check(site, model)
                return
            except BadTableError as e:
                digests.refuse(site, model, str(e))
    raise _absent(model, site)


def mapped_table(model: Model, path: Path) -> Table:
    """The table file at *path* for *model*, memory-mapped read-only; a file of another size or
    type, or one that cannot be read, raises :class:`TableMissingError` naming it."""
    try:
        values = mapped(path, "r")
    except (OSError, ValueError) as e:
        message = f"the strategy table {path} cannot be read: {e}"
        raise TableMissingError(model.ruleset, message) from None
    if values.shape != model.shape or values.dtype != model.dtype:
        raise TableMissingError(
            model.ruleset,
            f"the strategy table {path} holds {values.size:,} {values.dtype} values, not "
            f"{model.size:,} {np.dtype(model.dtype)}: delete it, and it is built again",
        )
    return Table(model, values)


_OPEN: dict[tuple[Path, Site], tuple[str, Table]] = {}
_OPENING = threading.Lock()


def table_for(model: Model, site: Site) -> Table:
    """:func:`load_table` once per process and file: each server worker maps each table once,
    and checks it again only when the file or its record changes (two ``stat`` calls tell)."""
    paths = paths_of(model, site.cache)
    seen = _seen(paths)
    opened = (paths.table, site)
    found = _OPEN.get(opened)
    if found is not None and seen is not None and found[0] == seen:
        return found[1]
    with _OPENING:  # one check at a time: a Maxi table is hashed once, not by every thread
        _OPEN.pop(opened, None)
        table = load_table(model, site)
        after = _seen(paths)  # the record may have been written: seen next time
        if after is not None and after == seen:
            _OPEN[opened] = (after, table)
        return table


def forget() -> None:
    """Forgets every table this process opened (tests that swap tables in and out)."""
    with _OPENING:
        _OPEN.clear()


def table_path_of(model: Model, site: Site) -> Path:
    """Where the table of *model* lives in *site*'s cache."""
    return paths_of(model, site.cache).table


def _seen(paths: Paths) -> str | None:
    """The fingerprints of a table and of its record; None when either is gone."""
    try:
        return digests.fingerprint(os.stat(paths.table)) + digests.fingerprint(
            os.stat(paths.digest)
        )
    except OSError:
        return None
