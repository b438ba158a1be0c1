"""Every table a host maps is checked first against its digest: its size and SHA-256, in a
record signed with the service's key.

The record (``<key>.json`` beside the table, in the cache folder and in the store) names the
table's key, size and SHA-256 and the build's seconds, and carries an HMAC of them
(itsdangerous' :class:`~itsdangerous.Signer`, keyed by the service's secret with a salt of
its own): whoever can write the files but not read the secret cannot alter a table and its
record together unnoticed, nor pass one table off as another (the key is signed too).

Hashing a Maxi table takes a fraction of a second, so a host does it once per file: the
cache's record also holds the file's fingerprint when it was last hashed (device, inode,
size, change times, and the boot: a host that crashed hashes again). A file whose
fingerprint is the record's is taken as checked; any write to it changes its ``ctime``,
which no one can set back, so it is hashed again.

A table that fails is refused (:func:`refuse`): moved aside to ``<key>.npy.bad``, the reason
written to ``<key>.bad`` (``/healthz`` and the metrics report it), and fetched or built
again; it is never mapped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from itsdangerous import Signer

from daily.core import metrics
from daily.core.errors import BadTableError
from daily.strategy.model import Model
from daily.tables.files import Site, paths_of, read_json, write_json

#: The salt that keeps these signatures apart from every other use of the secret.
SALT = "daily.strategy-table"
CHUNK = 16 * 2**20  # bytes a read while hashing
Progress = Callable[[float, float], None]


@dataclass(frozen=True, slots=True)
class Digest:
    """What a table must be: its model's key, its size in bytes and its SHA-256, and what its
    build took; *seen* is the fingerprint of the file last hashed (the cache's record only)."""

    key: str
    size: int
    sha256: str
    seconds: float = 0.0
    seen: str | None = None

    def body(self) -> dict[str, object]:
        """The record's fields, as signed (*seen* only when there is one)."""
        body: dict[str, object] = {
            "key": self.key,
            "size": self.size,
            "sha256": self.sha256,
            "seconds": round(self.seconds, 1),
        }
        return body if self.seen is None else body | {"seen": self.seen}


def _signer(secret: str) -> Signer:
    return Signer(secret, salt=SALT, digest_method=hashlib.sha256)


def _payload(body: Mapping[str, object]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def seal(digest: Digest, secret: str) -> dict[str, object]:
    """The record of *digest*, signed with *secret*: what ``<key>.json`` holds."""
    body = digest.body()
    return body | {"signature": _signer(secret).get_signature(_payload(body)).decode()}


def unseal(body: Mapping[str, object] | None, secret: str, key: str) -> Digest:
    """The digest a record vouches for, if it is signed with *secret* and names *key*;
    raises :class:`BadTableError` saying what is wrong otherwise.

    >>> record = seal(Digest("yatzy-0f", 8, "ab" * 32), "s3cret")
    >>> unseal(record, "s3cret", "yatzy-0f").size
    8
    >>> unseal(record | {"size": 9}, "s3cret", "yatzy-0f")
    Traceback (most recent call last):
    ...
    daily.core.errors.BadTableError: the table's digest is not signed with this service's key
    """
    if not body:
        raise BadTableError("the table has no digest")
    fields = {name: value for name, value in body.items() if name != "signature"}
    signature = str(body.get("signature", "")).encode()
    if not _signer(secret).verify_signature(_payload(fields), signature):
        raise BadTableError("the table's digest is not signed with this service's key")
    seen = fields.get("seen")
    try:
        digest = Digest(
            str(fields["key"]),
            int(str(fields["size"])),
            str(fields["sha256"]),
            float(str(fields.get("seconds", 0.0))),
            None if seen is None else str(seen),
        )
    except (KeyError, TypeError, ValueError):
        raise BadTableError("the table's digest is not readable") from None
    if digest.key != key:
        raise BadTableError(f"the digest is {digest.key}'s, not {key}'s")
    return digest


def sha256_of(path: Path, progress: Progress | None = None) -> tuple[int, str]:
    """The size and SHA-256 of the file at *path* (raises :class:`OSError` as reading does)."""
    digest, done = hashlib.sha256(), 0
    size = os.stat(path).st_size
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
            done += len(chunk)
            if progress is not None:
                progress(min(done, size), max(size, 1))
    return done, digest.hexdigest()


@lru_cache(maxsize=1)
def _boot() -> str:
    # A host that restarts (after a crash too) hashes every table again, once.
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def fingerprint(stat: os.stat_result) -> str:
    """What tells a file apart from its earlier self without reading it: any write to it
    changes its ``ctime``, a copy has another inode, and a reboot another boot id."""
    return (
        f"{_boot()}:{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}:"
        f"{stat.st_ctime_ns}"
    )


def record_of(site: Site, model: Model) -> Digest:
    """The digest of *model*'s table that the cache's signed record vouches for; raises
    :class:`BadTableError` when there is none this service signed."""
    paths = paths_of(model, site.cache)
    return unseal(read_json(paths.digest), site.key, model.key)


def check(site: Site, model: Model) -> Digest:
    """Checks *model*'s table in the cache against its record: at once when the file is the
    one last hashed, else by hashing it (and the record then remembers this file). Raises
    :class:`BadTableError` for a table that does not match, or cannot be read."""
    path = paths_of(model, site.cache).table
    digest = record_of(site, model)
    try:
        stat = os.stat(path)
        if stat.st_size != digest.size:
            raise BadTableError(f"the table has {stat.st_size:,} bytes, not {digest.size:,}")
        if digest.seen == fingerprint(stat):
            return digest
        size, sha256 = sha256_of(path)
        after = os.stat(path)
    except OSError as e:
        raise BadTableError(f"the table cannot be read: {e.strerror or e}") from None
    if (size, sha256) != (digest.size, digest.sha256):
        raise BadTableError("the table's SHA-256 does not match its digest")
    if fingerprint(after) == fingerprint(stat):  # unchanged while it was read
        remember(
            site,
            model,
            Digest(digest.key, digest.size, digest.sha256, digest.seconds, fingerprint(after)),
        )
    return digest


def remember(site: Site, model: Model, digest: Digest) -> None:
    """Writes the cache's record of *model*'s table, signed; a refusal it ends is cleared."""
    paths = paths_of(model, site.cache)
    try:
        write_json(paths.digest, seal(digest, site.key))
        paths.bad.unlink(missing_ok=True)
    except OSError:  # a read-only cache: the next process hashes the table again
        pass


def seal_file(site: Site, model: Model, seconds: float) -> Digest:
    """Hashes *model*'s table just put in the cache (by its builder or fetcher, holding its
    lock) and writes its record."""
    path = paths_of(model, site.cache).table
    size, sha256 = sha256_of(path)
    digest = Digest(model.key, size, sha256, seconds, fingerprint(os.stat(path)))
    remember(site, model, digest)
    return digest


def refuse(site: Site, model: Model, problem: str) -> None:
    """Moves *model*'s refused table aside and writes why, for ``/healthz`` and the metrics;
    the caller holds the table's lock (no build is putting a good one in place meanwhile)."""
    paths = paths_of(model, site.cache)
    _remove(paths.refused)
    try:
        os.replace(paths.table, paths.refused)  # kept for a look; the next refusal replaces it
    except FileNotFoundError:
        pass
    except OSError:
        _remove(paths.table)
    paths.digest.unlink(missing_ok=True)
    write_json(paths.bad, {"problem": problem, "at": time.time()})
    metrics.table_refused(model.ruleset.spec)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def refusal(site: Site, model: Model) -> str | None:
    """Why the last table of *model* found in the cache was refused, while nothing good has
    replaced it; None otherwise."""
    problem = read_json(paths_of(model, site.cache).bad).get("problem")
    return str(problem) if problem else None
