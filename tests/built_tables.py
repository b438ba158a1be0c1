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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from daily.core.rules import Ruleset, find_ruleset
from daily.strategy.model import model_of
from daily.tables import builder, digests
from daily.tables.files import Site, table_path
from daily.tables.loader import load_table

PACKAGE = Path(__file__).parent.parent / "daily"
#: The secret of every test app (``make_app`` in tests/conftest.py): it signs the digests of
#: the tables built here, so that the apps take them.
SECRET = "test-secret-" + "x" * 32


def site(cache: Path, store: str | None = None, key: str = SECRET) -> Site:
    """Where a test keeps its tables: *cache*, signed with the test apps' secret."""
    return Site(Path(cache), key, store)


def builder_process(cache: Path, *args: str) -> subprocess.Popen[str]:
    """``python -m daily.tables.background --cache CACHE ARGS...`` on one worker, as the
    service starts it: handed the key that signs the tables' digests on its standard input."""
    command = [sys.executable, "-m", "daily.tables.background", "--cache", str(cache)]
    child = subprocess.Popen([*command, "--workers", "1", *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert child.stdin is not None
    child.stdin.write(SECRET + "\n")
    child.stdin.close()
    child.stdin = None  # handed over: communicate() has nothing more to write
    return child


def session_tables() -> dict[str, str]:
    """The session's tables' settings (tests/conftest.py sets them), for a config a test reads
    from an environment of its own: its cache folder as it is now, and no table built by
    itself."""
    return {"DAILY_CACHE": os.environ["DAILY_CACHE"], "DAILY_TABLES": ""}


def seal(cache: Path, ruleset: Ruleset) -> None:
    """Writes the signed digest of a table that a test put in *cache* by hand (an end-game
    table, say), as a builder writes it: the apps then take that table."""
    digests.seal_file(site(cache), model_of(ruleset), 0.0)


def code_version() -> str:
    """A digest of the code that computes a strategy table and vouches for it: the rules,
    the solver and the tables' machinery (the digest's record)."""
    digest = hashlib.sha256()
    for path in sorted([*(PACKAGE / "core" / "rules").glob("*.py"),
                        *(PACKAGE / "strategy").glob("*.py"),
                        *(PACKAGE / "tables").glob("*.py")]):  # fmt: skip
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


#: Every version's folder.
TABLES_ROOT = Path(tempfile.gettempdir()) / "daily-test-tables"
#: This version's folder.
TABLE_CACHE = TABLES_ROOT / code_version()


def shared_table(name: str) -> Path:
    """The table file of ruleset *name*, built once (or found) under :data:`TABLE_CACHE`."""
    model = model_of(find_ruleset(name))
    if not TABLE_CACHE.exists():
        _prune_unused()
    if not table_path(model, TABLE_CACHE).exists():
        # On every core: the run's own build (tests/conftest.py) is at low priority, so it
        # takes what the tests leave idle, and at the end, when the tests that need Maxi
        # wait for it, all of the machine (one core left half of it idle then).
        builder.build(model, site(TABLE_CACHE), workers=os.cpu_count() or 1)
    load_table(model, site(TABLE_CACHE))
    os.utime(TABLE_CACHE)  # used now: see _prune_unused
    return table_path(model, TABLE_CACHE)


def maxi_is_built() -> bool:
    """Whether this version's Maxi table is there (built by an earlier run)."""
    return table_path(model_of(find_ruleset("maxi")), TABLE_CACHE).exists()


def link_table(found: Path, cache: Path) -> Path:
    """*found* (a shared table file) and what its build wrote beside it (its signed digest,
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


if __name__ == "__main__":  # python -m tests.built_tables RULESET...: what tests/conftest.py starts
    for name in sys.argv[1:]:
        shared_table(name)
