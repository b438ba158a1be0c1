"""Cold games leave Redis: finished games past a window move to an archive of day files.

The archive is a folder of compressed JSON lines, one :meth:`Record.to_dict` a line, behind
an fsspec URL (a local folder by default, an object store such as S3 when several hosts
share it). A day's games are spread over up to :data:`SHARDS` files by a hash of their id,
``YYYY-MM-DD/xx.jsonl.gz``, so reading one game back reads a small file. Each file ends
with a line that carries the SHA-256 of the lines before it and their count; a file whose
checksum does not match is refused.

The archiver (:func:`archive_old`) is safe to kill at any point: a file is written whole or
not at all (a temporary name renamed, or one object put), it merges with what the file
held (a game is one line however often it is archived), it is read back and checked
before any game leaves Redis, and a game leaves Redis only as a marker that names its day.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import json
import logging
import os
import secrets
import signal
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import fsspec

from daily.config import Config
from daily.errors import DailyError
from daily.record import Record
from daily.store import games as store

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

log = logging.getLogger(__name__)

#: How many files a day's games are spread over (by the first byte of their id's hash).
SHARDS = 256
#: How many games one sweep of the service moves at most (``daily archive`` moves all).
SWEEP_BATCH = 2000
#: How long the archiver's lock holds if its holder dies (seconds).
LOCK_S = 600.0
#: A test hook: the name of the step at which the archiver kills its own process.
KILL_AT = "DAILY_ARCHIVE_KILL_AT"


class ArchiveError(DailyError):
    """An archive file that cannot be read back as written (a checksum that does not match)."""


def _dumps(body: Mapping[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"), sort_keys=True)


def shard_of(game_id: str) -> int:
    """The file of its day that holds game *game_id*.

    >>> shard_of("g1")
    113
    """
    return hashlib.sha256(game_id.encode()).digest()[0] % SHARDS


def encode(lines: Mapping[str, Mapping[str, Any]]) -> bytes:
    """A file's bytes: *lines* (game id -> record dict) sorted by id, then the checksum line."""
    body = "".join(_dumps(lines[game_id]) + "\n" for game_id in sorted(lines)).encode()
    trailer = _dumps({"games": len(lines), "sha256": hashlib.sha256(body).hexdigest()})
    return gzip.compress(body + trailer.encode() + b"\n", mtime=0)


def decode(data: bytes, name: str = "archive file") -> dict[str, dict[str, Any]]:
    """The lines of a file written by :func:`encode`, by game id; ArchiveError if it is damaged.

    >>> decode(encode({"g1": {"id": "g1"}}))
    {'g1': {'id': 'g1'}}
    """
    try:
        text = gzip.decompress(data)
    except (OSError, EOFError) as e:
        raise ArchiveError(f"{name} is not gzip: {e}") from None
    body, _, last = text.rstrip(b"\n").rpartition(b"\n")
    body = body + b"\n" if body else b""
    try:
        trailer = json.loads(last)
        lines = [json.loads(line) for line in body.splitlines()]
    except ValueError:
        raise ArchiveError(f"{name} holds a line that is not JSON") from None
    if not isinstance(trailer, dict) or "sha256" not in trailer:
        raise ArchiveError(f"{name} has no checksum line")
    if trailer["sha256"] != hashlib.sha256(body).hexdigest() or trailer["games"] != len(lines):
        raise ArchiveError(f"{name} does not match its checksum")
    return {line["id"]: line for line in lines}


class Archive:
    """The archive at *url* (an fsspec URL or a local folder)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fs, self.root = fsspec.core.url_to_fs(url)
        self._local = "file" in _protocols(self.fs)

    def path(self, day: date, shard: int) -> str:
        """The file of *day* that holds the games of *shard*."""
        return f"{self.root.rstrip('/')}/{day.isoformat()}/{shard:02x}.jsonl.gz"

    def read(self, day: date, shard: int) -> dict[str, dict[str, Any]]:
        """The lines of a file, by game id (none if there is no such file)."""
        path = self.path(day, shard)
        try:
            data = self.fs.cat_file(path)
        except FileNotFoundError:
            return {}
        return decode(data, path)

    def write(self, day: date, shard: int, lines: Mapping[str, Mapping[str, Any]]) -> None:
        """Writes a file whole or not at all: a temporary file renamed, or one object put."""
        path = self.path(day, shard)
        data = encode(lines)
        if not self._local:
            self.fs.pipe_file(path, data)  # an object store's put is atomic
            return
        self.fs.makedirs(path.rpartition("/")[0], exist_ok=True)
        temporary = f"{path}.{secrets.token_hex(6)}.tmp"
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())  # on disk before the rename makes it the file
        os.replace(temporary, path)

    def find(self, game_id: str, day: date) -> Record | None:
        """The archived game *game_id* from *day*'s files, or None."""
        line = self.read(day, shard_of(game_id)).get(game_id)
        return Record.from_dict(line) if line else None


def _protocols(fs: fsspec.AbstractFileSystem) -> tuple[str, ...]:
    found = fs.protocol
    return (found,) if isinstance(found, str) else tuple(found)


@functools.lru_cache(maxsize=8)
def open_archive(url: str) -> Archive:
    """The archive at *url*, opened once per process."""
    return Archive(url)


def reader(config: Config) -> store.ArchiveReader:
    """What the store calls to read an archived game back (see :func:`daily.store.games.load`)."""
    return open_archive(config.archive_location).find


def load(client: redis.Redis, config: Config, game_id: str) -> Record | None:
    """The game *game_id*, from Redis or, once archived, from the archive; None if unknown."""
    return store.load(client, game_id, reader(config))


@dataclasses.dataclass(frozen=True, slots=True)
class Archived:
    """What one run of the archiver did."""

    games: int  # games moved out of Redis
    files: int  # files written
    skipped: int  # due games left in Redis: not counted yet, or held for review


def _step(name: str) -> None:
    # The kill test's hook: dies here, as a crash or an OOM kill would, when told to.
    if os.environ.get(KILL_AT) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def archive_old(
    client: redis.Redis,
    config: Config,
    limit: int | None = None,
    lock_s: float = LOCK_S,
) -> Archived | None:
    """Moves finished games older than ``config.archive_days`` to the archive (at most
    *limit*); None if another archiver holds the lock. Idempotent, and safe to kill."""
    token = secrets.token_hex(8)
    if not store.claim_archiver(client, token, lock_s):
        return None
    try:
        return _archive(client, config, limit)
    finally:
        store.release_archiver(client, token)


def _archive(client: redis.Redis, config: Config, limit: int | None) -> Archived:
    archive = open_archive(config.archive_location)
    cutoff = (config.now() - timedelta(days=config.archive_days)).timestamp()
    due = store.finished_before(client, cutoff, limit if limit is not None else 1 << 40)
    groups: dict[tuple[date, int], list[Record]] = defaultdict(list)
    gone, skipped = [], 0
    for game_id in due:
        record = store.load(client, game_id)  # None: archived already (a marker), or gone
        if record is None:
            gone.append(game_id)
        elif not record.finished or record.finished_at is None or not record.submitted:
            skipped += 1
        elif record.extra.get("review") == "held":
            skipped += 1
        else:
            day = datetime.fromtimestamp(record.finished_at, UTC).date()
            groups[day, shard_of(record.id)].append(record)
    store.unlist_finished(client, gone)
    _step("loaded")
    moved = 0
    for (day, shard), records in sorted(groups.items()):
        lines = archive.read(day, shard)  # merged: a game archived before stays one line
        lines.update((record.id, record.to_dict()) for record in records)
        archive.write(day, shard, lines)
        _step("written")
        kept = archive.read(day, shard)
        if any(_dumps(kept.get(r.id, {})) != _dumps(r.to_dict()) for r in records):
            raise ArchiveError(f"{archive.path(day, shard)} lost a game as it was written")
        done = []
        for record in records:
            if store.mark_archived(client, record.id, day):
                done.append(record.id)
                _step("marked")
            else:  # changed meanwhile (held for review): its line waits, harmless
                skipped += 1
        store.unlist_finished(client, done)
        moved += len(done)
    return Archived(moved, len(groups), skipped)


def sweep(client: redis.Redis, config: Config) -> Archived | None:
    """Archives a batch of old games if any are due and no other archiver runs; else None."""
    cutoff = (config.now() - timedelta(days=config.archive_days)).timestamp()
    if not store.finished_before(client, cutoff, 1):
        return None
    try:
        return archive_old(client, config, limit=SWEEP_BATCH)
    except OSError as e:  # the archive is out of reach: the games stay in Redis till later
        log.warning("archiving to %s failed: %s", config.archive_location, e)
        return None
