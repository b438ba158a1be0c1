"""A host's cache folder of strategy tables: where each table's files are, and their locks.

Per table, named by its model's key (:attr:`daily.strategy.model.Model.key`):
``<key>.npy`` the table, ``<key>.json`` its signed digest (:mod:`daily.tables.digests`),
``<key>.lock`` the build lock, ``<key>.progress`` a build's progress, ``<key>.bad`` why the
last table found here was refused, and ``<key>.npy.bad`` that table, kept for a look.

A build holds an exclusive ``flock`` on ``<key>.lock`` for its whole run. The lock lives next
to the table it guards, so it is exactly as shared as the table: every process that reads
this cache folder waits for the same build. The kernel drops the lock when its holder dies,
however it dies: that is the lease a crashed builder gives up, with no clock to tune.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from daily.core.config import Config
from daily.strategy.model import Model


@dataclass(frozen=True, slots=True)
class Site:
    """Where a host keeps its tables, as the service hands it down (read once at start):
    the cache folder, the store every host shares (``DAILY_TABLES_URL``, None: none), and
    the key that signs the tables' digests (the service's secret)."""

    cache: Path
    key: str = field(repr=False)
    store: str | None = None

    @classmethod
    def of(cls, config: Config) -> Site:
        """The site of *config*: its tables' settings, and its dice key to sign their digests
        (it never changes, so a rotation of the other keys keeps every table)."""
        return cls(config.cache_dir, config.secret_key, config.tables_url)


@dataclass(frozen=True, slots=True)
class Paths:
    """The files of one table in a cache folder."""

    table: Path
    digest: Path
    lock: Path
    progress: Path
    bad: Path
    refused: Path


def paths_of(model: Model, cache: Path) -> Paths:
    """The files of *model*'s table in the folder *cache*."""
    stem = Path(cache) / model.key
    named = [
        stem.with_name(f"{stem.name}{suffix}")
        for suffix in (".npy", ".json", ".lock", ".progress", ".bad", ".npy.bad")
    ]
    return Paths(*named)


def table_path(model: Model, cache: Path) -> Path:
    """Where the table of *model* lives in the folder *cache*."""
    return paths_of(model, cache).table


def temp_files(model: Model, cache: Path) -> list[Path]:
    """The temporary files of *model*'s table in *cache* (a build's, or a dead one's)."""
    return sorted(Path(cache).glob(f"{model.key}.*.tmp"))


def host_lock(cache: Path) -> Path:
    """The lock that lets one build run at a time over everything using *cache*."""
    return Path(cache) / "build.lock"


@contextlib.contextmanager
def locked(path: Path, *, wait: bool) -> Iterator[bool]:
    """Holds the lock file *path* while the block runs; yields whether it got it."""
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


def is_locked(path: Path) -> bool:
    """Whether another process holds the lock file *path* now (a probe creates nothing; a
    lock that cannot be opened counts as free: nobody builds through it)."""
    if not path.exists():
        return False
    try:
        with locked(path, wait=False) as free:
            return not free
    except OSError:
        return False


@contextlib.contextmanager
def holding(model: Model, cache: Path) -> Iterator[None]:
    """Holds the build lock of *model*'s table (waiting for it): the table counts as
    being built meanwhile, and no other builder starts."""
    with locked(paths_of(model, cache).lock, wait=True):
        yield


def settle(path: Path) -> None:
    """Puts the file at *path* on disk (a crash after its rename leaves it whole) and makes
    it read-only: a table is never written in place once it is done (a mapped file cut
    short under a reader would kill it)."""
    with path.open("rb") as f:
        os.fsync(f.fileno())
    path.chmod(0o444)


def write_json(path: Path, body: Mapping[str, object]) -> None:
    """Writes *body* to *path* whole (a temporary file renamed into place)."""
    # A name of its own: two threads of a process may write the same record at once.
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_text(json.dumps(body))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object at *path*; empty when it is missing, unreadable or not an object."""
    try:
        body = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}
