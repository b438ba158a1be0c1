"""The store several hosts share their strategy tables through (``DAILY_TABLES_URL``).

An fsspec URL: a folder every host mounts, or an object store (``s3://bucket/tables``, any
S3-compatible one, with ``s3fs`` installed and its usual ``AWS_*`` settings). A table is
built once, by the release step or by the first host that needs it, and uploaded; every other
host fetches it into its own cache folder (a copy, from a folder too: a file of the store
changed in place under a host must not change the table it maps) and never builds it.

The store holds, per table: ``<key>.npy``, then ``<key>.json``, its digest's record (size,
SHA-256, the build's duration, signed with the service's key: :mod:`daily.tables.digests`),
written last: a table is in the store once a record this service signed is, and a copy that
does not match it as it is fetched is refused, never used: its record is then taken out
(:meth:`Shelf.forget`), and the table built and uploaded again. ``<key>.lock`` is the lease
of the host building it (:meth:`Shelf.lease`), which every host sees: from a folder an
``flock`` (the kernel drops it with its holder), from an object store an object created only
if absent (S3's ``If-None-Match``) that its holder rewrites every :data:`BEAT` seconds with
its progress, and that another host takes over once it is :data:`STALE`. Should two hosts
ever build at once (a lease taken over in a race, a store that ignores the condition), both
upload the same bytes: the cost is one build, never a wrong table.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
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

from daily.core.errors import BadTableError, TableStoreError
from daily.strategy.model import Model
from daily.tables.digests import Digest, seal, unseal
from daily.tables.files import Site, settle

log = logging.getLogger(__name__)

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
    """The tables' store at *url* (an fsspec URL or a folder); *key* is the service's secret,
    which signs the digests of the tables it holds."""

    def __init__(self, url: str, key: str) -> None:
        self.url = url
        self._key = key
        try:
            # A fresh filesystem each time: it reads the AWS_* settings of now.
            self.fs, root = fsspec.core.url_to_fs(url, skip_instance_cache=True)
        except (ImportError, ValueError) as e:
            raise TableStoreError(f"cannot open the tables' store {url!r}: {e}") from None
        self.root = root.rstrip("/")
        protocols = (self.fs.protocol,) if isinstance(self.fs.protocol, str) else self.fs.protocol
        self.local = "file" in protocols

    def path(self, model: Model, suffix: str) -> str:
        """The store's file of *model*'s table with *suffix* (``npy``, ``json``, ``lock``)."""
        return f"{self.root}/{model.key}.{suffix}"

    def meta(self, model: Model) -> Digest | None:
        """The digest of *model*'s table that the store's signed record vouches for, or None
        if it holds none this service signed (a record of another key, or of an older
        version, counts as none: the table is built and uploaded again); raises
        :class:`TableStoreError` when the store does not answer."""
        try:
            text = self._call(self.fs.cat_file, self.path(model, "json"))
        except FileNotFoundError:
            return None
        try:
            body = json.loads(text)
            return unseal(body if isinstance(body, dict) else None, self._key, model.key)
        except (ValueError, BadTableError) as e:
            log.warning("%s: not used: %s", self.path(model, "json"), e)
            return None

    def has(self, model: Model) -> bool:
        """Whether the store holds *model*'s table, whole, vouched for by this service."""
        return self.meta(model) is not None

    def fetch(self, model: Model, target: Path, progress: Progress | None = None) -> Digest:
        """Copies the store's table of *model* to *target*, checked against its digest as it
        comes (a copy that does not match raises :class:`BadTableError` and is thrown away),
        made read-only and renamed into place; returns the digest."""
        digest = self.meta(model)
        if digest is None:
            raise TableStoreError(f"the tables' store holds no {model.ruleset.id} table")
        source = self.path(model, "npy")
        tmp = target.with_name(f"{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            with self._guarded():
                self._download(source, tmp, digest, progress)
                settle(tmp)
                os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return digest

    def _download(self, source: str, tmp: Path, digest: Digest, progress: Progress | None) -> None:
        sha256, done = hashlib.sha256(), 0
        try:
            src = self._call(self.fs.open, source, "rb", block_size=CHUNK)
        except FileNotFoundError:
            raise BadTableError(f"{source} is missing") from None
        with src, tmp.open("wb") as out:
            while chunk := self._call(src.read, CHUNK):
                out.write(chunk)
                sha256.update(chunk)
                done += len(chunk)
                if done > digest.size:
                    break  # longer than its digest: no need to read the rest
                if progress is not None:
                    progress(min(done, digest.size), digest.size)
        if done != digest.size:
            raise BadTableError(f"{source} has {done:,} bytes, not {digest.size:,}")
        if sha256.hexdigest() != digest.sha256:
            raise BadTableError(f"{source}'s SHA-256 does not match its digest")

    def upload(self, model: Model, table: Path, digest: Digest) -> None:
        """Puts the table file *table* of *model* in the store, then its signed record."""
        record = seal(Digest(digest.key, digest.size, digest.sha256, digest.seconds), self._key)
        with self._guarded():
            self._put(self.path(model, "npy"), table)
            self._write(self.path(model, "json"), json.dumps(record).encode())

    def forget(self, model: Model) -> None:
        """Takes *model*'s record out of the store (its table failed its check): no host
        fetches that table again, and the next to need it builds and uploads it."""
        with contextlib.suppress(FileNotFoundError):
            self._call(self.fs.rm_file, self.path(model, "json"))

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
    def lease(self, model: Model, waiting: Progress | None = None) -> Iterator[Lease]:
        """Holds the store's build lease of *model*, waiting while another host holds it
        (*waiting* is told that host's progress); yields a :class:`Lease` not held when the
        table came to the store meanwhile. Whoever holds it builds, uploads, lets go."""
        hold = self._flock if self.local else self._object_lease
        with hold(model, waiting) as lease:
            yield lease

    @contextlib.contextmanager
    def _flock(self, model: Model, waiting: Progress | None) -> Iterator[Lease]:
        path = Path(self.path(model, "lock"))
        with self._guarded():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not self._flocked(model, fd, path, waiting):
                yield Lease(False)
                return
            lease = Lease(True)
            with _beating(lambda: _rewrite(fd, _lease_body(lease))):
                yield lease
        finally:
            os.close(fd)  # closing the last descriptor drops the lock

    def _flocked(self, model: Model, fd: int, path: Path, waiting: Progress | None) -> bool:
        """Takes the folder's lock (waiting); False when the table came to the store first."""
        with self._guarded():
            while not self.has(model):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    # The last holder may have let go just after putting the table there.
                    return not self.has(model)
                except BlockingIOError:
                    _tell(waiting, _read_lease(path.read_bytes()))
                    time.sleep(POLL)
        return False

    @contextlib.contextmanager
    def _object_lease(self, model: Model, waiting: Progress | None) -> Iterator[Lease]:
        path = self.path(model, "lock")
        lease = Lease(True)
        while True:
            if self.has(model):
                yield Lease(False)
                return
            try:
                self._call(self.fs.pipe_file, path, _lease_body(lease), mode="create")
                break
            except FileExistsError:
                self._wait_for(path, waiting)
        try:
            if self.has(model):  # the last holder put it there just before letting go
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
        except (TableStoreError, BadTableError):
            raise
        except Exception as e:
            raise TableStoreError(f"the tables' store {self.url} failed: {e}") from e


def open_shelf(site: Site) -> Shelf | None:
    """The store of *site*, or None when there is none: no URL, or the cache folder itself."""
    if not site.store:
        return None
    shelf = Shelf(site.store, site.key)
    if shelf.local and Path(shelf.root).resolve() == Path(site.cache).resolve():
        return None
    return shelf


def _lease_body(lease: Lease) -> bytes:
    body = {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "beat": time.time(),
        "share": round(lease.share, 4),
    }
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
