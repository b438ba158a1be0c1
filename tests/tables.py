"""The strategy tables the tests use, built once and shared between workers and runs.

The yatzy and yacht tables take seconds each to build and the daily's Maxi table a minute or
more of both cores: each is built once, while every other worker waits on the builder's
lock, into one folder per version of the code that computes a table (the rules and the
solver), so a change there builds them again and no test reads a table of older code.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from daily.core.rules import find_ruleset
from daily.strategy import builder
from daily.strategy.solver import load_table, table_path

PACKAGE = Path(__file__).parent.parent / "daily"


def code_version() -> str:
    """A digest of the code that computes a strategy table: the rules and the solver."""
    digest = hashlib.sha256()
    for path in sorted([*(PACKAGE / "core" / "rules").glob("*.py"),
                        *(PACKAGE / "strategy").glob("*.py")]):  # fmt: skip
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


#: Every version's folder.
TABLES_ROOT = Path(tempfile.gettempdir()) / "daily-test-tables"
#: This version's folder.
TABLE_CACHE = TABLES_ROOT / code_version()


def shared_table(name: str) -> Path:
    """The table file of ruleset *name*, built once (or found) under :data:`TABLE_CACHE`."""
    ruleset = find_ruleset(name)
    if not TABLE_CACHE.exists():
        _prune_unused()
    if not table_path(ruleset, TABLE_CACHE).exists():
        # On every core: the run's own build (tests/conftest.py) is at low priority, so it
        # takes what the tests leave idle, and at the end, when the tests that need Maxi
        # wait for it, all of the machine (one core left half of it idle then).
        builder.build(ruleset, TABLE_CACHE, workers=os.cpu_count() or 1)
    load_table(ruleset, TABLE_CACHE)
    os.utime(TABLE_CACHE)  # used now: see _prune_unused
    return table_path(ruleset, TABLE_CACHE)


def maxi_is_built() -> bool:
    """Whether this version's Maxi table is there (built by an earlier run)."""
    return table_path(find_ruleset("maxi"), TABLE_CACHE).exists()


def link_table(found: Path, cache: Path) -> Path:
    """*found* (a shared table file) and what its build wrote beside it (the build time,
    ``<key>.json``) linked into the folder *cache*; returns the table's link."""
    for path in (found, found.with_suffix(".json")):
        link = cache / path.name
        if path.exists() and not link.exists():
            link.symlink_to(path)
    return cache / found.name


def _prune_unused() -> None:
    """Removes what other versions of the code left and no run has used for a day."""
    day_ago = time.time() - 86400
    for entry in TABLES_ROOT.iterdir() if TABLES_ROOT.is_dir() else ():
        if entry != TABLE_CACHE and entry.stat().st_mtime < day_ago:
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


if __name__ == "__main__":  # python -m tests.tables RULESET...: what tests/conftest.py starts
    for name in sys.argv[1:]:
        shared_table(name)
