"""The store several hosts share their strategy tables through (``$DAILY_TABLES_URL``).

An fsspec URL: a folder every host mounts, or an object store (``s3://bucket/tables``, any
S3-compatible one, with ``s3fs`` installed and its usual ``AWS_*`` settings). A table is
built once, by the release step or by the first host that needs it, and uploaded; every other
host fetches it into its own cache folder (a download, or from a folder a link: mapped in
place) and never builds it.

The store holds, per table: ``<key>.npy``, then ``<key>.json`` (its size, its SHA-256, the
build's duration), written last: a table is in the store once its ``.json`` is, and a fetched
copy that does not match it is thrown away. ``<key>.lock`` is the lease of the host building
it (:meth:`Shelf.lease`), which every host sees: from a folder an ``flock`` (the kernel drops
it with its holder), from an object store an object created only if absent (S3's
``If-None-Match``) that its holder rewrites every :data:`BEAT` seconds with its progress, and
that another host takes over once it is :data:`STALE`. Should two hosts ever build at once
(a lease taken over in a race, a store that ignores the condition), both upload the same
bytes: the cost is one build, never a wrong table.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fsspec

from daily.core.errors import TableStoreError
from daily.core.rules import Ruleset
from daily.strategy.model import model_of

#: Seconds between two rewrites of an object store lease by its holder.
BEAT = 10.0
#: A lease not rewritten for this long belongs to a host that died: another takes it over.
STALE = 120.0
#: Seconds between two looks at a lease held by another host.
POLL = 2.0
CHUNK = 16 * 2**20  # bytes a read of a download

Progress = Callable[[float, float], None]


@dataclass(slots=True)
class Lease:
    """A build's hold on a table in the store: *held* false when another host built it
    meanwhile; *share* is the build's progress, which the lease shows other hosts."""

    held: bool
    share: float = 0.0


class Shelf:
    """The tables' store at *url* (an fsspec URL or a folder)."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            # A fresh filesystem each time: it reads the AWS_* settings of now.
            self.fs, root = fsspec.core.url_to_fs(url, skip_instance_cache=True)
        except (ImportError, ValueError) as e:
            raise TableStoreError(f"cannot open the tables' store {url!r}: {e}") from None
        self.root = root.rstrip("/")
        protocols = (self.fs.protocol,) if isinstance(self.fs.protocol, str) else self.fs.protocol
        self.local = "file" in protocols

    def path(self, ruleset: Ruleset, suffix: str) -> str:
        """The store's file of *ruleset*'s table with *suffix* (``npy``, ``json``, ``lock``)."""
        return f"{self.root}/{model_of(ruleset).key}.{suffix}"

    def meta(self, ruleset: Ruleset) -> dict[str, Any] | None:
        """What the store says of *ruleset*'s table (size, sha256, seconds), or None if it
        does not hold it; raises :class:`TableStoreError` when the store does not answer."""
        try:
            body = json.loads(self._call(self.fs.cat_file, self.path(ruleset, "json")))
        except FileNotFoundError:
            return None
        except ValueError:
            raise TableStoreError(f"{self.path(ruleset, 'json')} is not JSON") from None
        return body if isinstance(body, dict) else None

    def has(self, ruleset: Ruleset) -> bool:
        """Whether the store holds *ruleset*'s table, whole."""
        return self.meta(ruleset) is not None

    def fetch(self, ruleset: Ruleset, target: Path, progress: Progress | None = None) -> float:
        """Puts the store's table of *ruleset* at *target* (a link to a folder's file, else a
        checked download, renamed into place); returns the build's seconds."""
        meta = self.meta(ruleset)
        if meta is None:
            raise TableStoreError(f"the tables' store holds no {ruleset.id} table")
        source = self.path(ruleset, "npy")
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            with self._guarded():
                if self.local:
                    tmp.symlink_to(Path(source).resolve())  # mapped in place: no copy
                else:
                    self._download(source, tmp, meta, progress)
                os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return float(meta.get("seconds", 0.0))

    def _download(self, source: str, tmp: Path, meta: dict[str, Any], progress: Progress | None
                  ) -> None:  # fmt: skip
        size, digest, done = int(meta["size"]), hashlib.sha256(), 0
        with self._call(self.fs.open, source, "rb", block_size=CHUNK) as src, tmp.open("wb") as out:
            while chunk := self._call(src.read, CHUNK):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(min(done, size), size)
        if done != size or digest.hexdigest() != meta["sha256"]:
            raise TableStoreError(f"{source} does not match its checksum: not used")

    def upload(self, ruleset: Ruleset, table: Path, seconds: float) -> None:
        """Puts the table file *table* of *ruleset* in the store, then its ``.json``."""
        digest = hashlib.sha256()
        with table.open("rb") as f:
            while chunk := f.read(CHUNK):
                digest.update(chunk)
        meta = {"size": table.stat().st_size, "sha256": digest.hexdigest(),
                "seconds": round(seconds, 1)}  # fmt: skip
        with self._guarded():
            self._put(self.path(ruleset, "npy"), table)
            self._write(self.path(ruleset, "json"), json.dumps(meta).encode())

    def _put(self, path: str, source: Path) -> None:
        if not self.local:
            self._call(self.fs.put_file, str(source), path)  # an object appears whole
            return
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(f"{path}.{secrets.token_hex(6)}.tmp")
        try:
            with source.open("rb") as src, tmp.open("wb") as out:
                while chunk := src.read(CHUNK):
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())  # on disk before the rename makes it the table
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    def _write(self, path: str, data: bytes) -> None:
        if not self.local:
            self._call(self.fs.pipe_file, path, data)
            return
        tmp = Path(f"{path}.{secrets.token_hex(6)}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)

    @contextlib.contextmanager
    def lease(self, ruleset: Ruleset, waiting: Progress | None = None) -> Iterator[Lease]:
        """Holds the store's build lease of *ruleset*, waiting while another host holds it
        (*waiting* is told that host's progress); yields a :class:`Lease` not held when the
        table came to the store meanwhile. Whoever holds it builds, uploads, lets go."""
        hold = self._flock if self.local else self._object_lease
        with hold(ruleset, waiting) as lease:
            yield lease

    @contextlib.contextmanager
    def _flock(self, ruleset: Ruleset, waiting: Progress | None) -> Iterator[Lease]:
        path = Path(self.path(ruleset, "lock"))
        with self._guarded():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not self._flocked(ruleset, fd, path, waiting):
                yield Lease(False)
                return
            lease = Lease(True)
            with _beating(lambda: _rewrite(fd, _lease_body(lease))):
                yield lease
        finally:
            os.close(fd)  # closing the last descriptor drops the lock

    def _flocked(self, ruleset: Ruleset, fd: int, path: Path, waiting: Progress | None) -> bool:
        """Takes the folder's lock (waiting); False when the table came to the store first."""
        with self._guarded():
            while not self.has(ruleset):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    # The last holder may have let go just after putting the table there.
                    return not self.has(ruleset)
                except BlockingIOError:
                    _tell(waiting, _read_lease(path.read_bytes()))
                    time.sleep(POLL)
        return False

    @contextlib.contextmanager
    def _object_lease(self, ruleset: Ruleset, waiting: Progress | None) -> Iterator[Lease]:
        path = self.path(ruleset, "lock")
        lease = Lease(True)
        while True:
            if self.has(ruleset):
                yield Lease(False)
                return
            try:
                self._call(self.fs.pipe_file, path, _lease_body(lease), mode="create")
                break
            except FileExistsError:
                self._wait_for(path, waiting)
        try:
            if self.has(ruleset):  # the last holder put it there just before letting go
                yield Lease(False)
                return
            with _beating(lambda: self._call(self.fs.pipe_file, path, _lease_body(lease))):
                yield lease
        finally:
            with contextlib.suppress(Exception):  # a lease left behind goes stale
                self.fs.rm_file(path)

    def _wait_for(self, path: str, waiting: Progress | None) -> None:
        """Waits a little for another host's lease; removes it once it is stale."""
        try:
            holder = _read_lease(self._call(self.fs.cat_file, path))
        except FileNotFoundError:
            return  # let go meanwhile: try again at once
        if time.time() - float(holder.get("beat", 0.0)) > STALE:
            with contextlib.suppress(FileNotFoundError):
                self._call(self.fs.rm_file, path)
            return
        _tell(waiting, holder)
        time.sleep(POLL)

    def _call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Calls the filesystem; any failure but a missing or existing file becomes a
        :class:`TableStoreError` that names the store."""
        try:
            return method(*args, **kwargs)
        except (FileNotFoundError, FileExistsError):
            raise
        except Exception as e:
            raise TableStoreError(f"the tables' store {self.url} failed: {e}") from e

    @contextlib.contextmanager
    def _guarded(self) -> Iterator[None]:
        """Turns any failure of the block into a :class:`TableStoreError` naming the store."""
        try:
            yield
        except TableStoreError:
            raise
        except Exception as e:
            raise TableStoreError(f"the tables' store {self.url} failed: {e}") from e


def open_shelf(url: str | None, cache_dir: Path) -> Shelf | None:
    """The store at *url*, or None when there is none: no URL, or the cache folder itself."""
    if not url:
        return None
    shelf = Shelf(url)
    if shelf.local and Path(shelf.root).resolve() == Path(cache_dir).resolve():
        return None
    return shelf


def _lease_body(lease: Lease) -> bytes:
    body = {"host": socket.gethostname(), "pid": os.getpid(), "beat": time.time(),
            "share": round(lease.share, 4)}  # fmt: skip
    return json.dumps(body).encode()


def _read_lease(data: bytes) -> dict[str, Any]:
    try:
        body = json.loads(data or b"{}")
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _rewrite(fd: int, data: bytes) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def _tell(waiting: Progress | None, holder: dict[str, Any]) -> None:
    if waiting is not None:
        waiting(min(1.0, max(0.0, float(holder.get("share", 0.0)))), 1.0)


@contextlib.contextmanager
def _beating(beat: Callable[[], object]) -> Iterator[None]:
    """Calls *beat* now and every :data:`BEAT` seconds until the block ends."""
    beat()
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(BEAT):
            with contextlib.suppress(Exception):  # a missed beat is retried at the next
                beat()

    thread = threading.Thread(target=run, daemon=True, name="lease-beat")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
