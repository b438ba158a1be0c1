"""The archive's files: a folder of compressed JSON lines behind an fsspec URL.

A local folder by default, an object store such as S3 when several hosts share it. A day's
games are spread over up to :data:`SHARDS` files by a hash of their id,
``YYYY-MM-DD/xx.jsonl.gz``, one :meth:`Record.to_dict` a line, so reading one game back reads
a small file; the codes made that day and archived lie beside them, in
``YYYY-MM-DD/codes/xx.jsonl.gz`` by a hash of the code. Each file ends with a line that
carries the SHA-256 of the lines before it and their count; a file whose checksum does not
match is refused. Beside each file, ``xx.ids`` lists the ids it holds (written first, so it
never lists fewer): an id that no game has, made up by a client, costs reading that short
list, not unpacking and checking the whole file. A file is written whole or not at all (a
temporary name renamed, or one object put). What goes into the files, and when, is
:mod:`daily.service.archive`'s.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import secrets
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from datetime import date
from typing import Any

import fsspec

from daily.core.errors import ArchiveError
from daily.core.record import Record
from daily.store import game_fields, played_days

#: How many files a day's games are spread over (by the first byte of their id's hash).
SHARDS = game_fields.SHARDS


def dumps(body: Mapping[str, Any]) -> str:
    """One line of a file: *body* as compact JSON, its keys sorted.

    >>> dumps({"id": "g1", "total": 2, "a": None})
    '{"a":null,"id":"g1","total":2}'
    """
    return json.dumps(body, separators=(",", ":"), sort_keys=True)


def shard_of(game_id: str) -> int:
    """The file of its day that holds game *game_id* (or code).

    >>> shard_of("g1")
    113
    """
    return game_fields.archive_shard(game_id)


def encode(lines: Mapping[str, Mapping[str, Any]]) -> bytes:
    """A file's bytes: *lines* (game id -> record dict) sorted by id, then the checksum line."""
    body = "".join(dumps(lines[game_id]) + "\n" for game_id in sorted(lines)).encode()
    trailer = dumps({"games": len(lines), "sha256": hashlib.sha256(body).hexdigest()})
    return gzip.compress(body + trailer.encode() + b"\n", mtime=0)


def decode(
    data: bytes,
    name: str = "archive file",
    wanted: Collection[str] | None = None,
    player: str | None = None,
) -> dict[str, dict[str, Any]]:
    """The lines of a file written by :func:`encode`, by game id (only those of *wanted*
    ids, or of *player*'s games, if given: the others are checked, not parsed); ArchiveError
    if it is damaged.

    >>> decode(encode({"g1": {"id": "g1"}, "g2": {"id": "g2"}}), wanted={"g2"})
    {'g2': {'id': 'g2'}}
    >>> list(decode(encode({"g1": {"id": "g1", "player": "p1"}}), player="p2"))
    []
    """
    try:
        text = gzip.decompress(data)
    except (OSError, EOFError) as e:
        raise ArchiveError(f"{name} is not gzip: {e}") from None
    body, _, last = text.rstrip(b"\n").rpartition(b"\n")
    body = body + b"\n" if body else b""
    rows = body.splitlines()
    if wanted is not None:  # a line names its id as "id":"..." (keys sorted, no spaces)
        needles = [f'"id":{json.dumps(game_id)}'.encode() for game_id in wanted]
        rows = [row for row in rows if any(needle in row for needle in needles)]
    if player is not None:
        needle = f'"player":{json.dumps(player)}'.encode()
        rows = [row for row in rows if needle in row]
    try:
        trailer = json.loads(last)
        lines = [json.loads(line) for line in rows]
    except ValueError:
        raise ArchiveError(f"{name} holds a line that is not JSON") from None
    if not isinstance(trailer, dict) or "sha256" not in trailer:
        raise ArchiveError(f"{name} has no checksum line")
    count = body.count(b"\n")
    if trailer["sha256"] != hashlib.sha256(body).hexdigest() or trailer["games"] != count:
        raise ArchiveError(f"{name} does not match its checksum")
    return {line["id"]: line for line in lines if wanted is None or line["id"] in wanted}


class Archive:
    """The archive at *url* (an fsspec URL or a local folder)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fs, self.root = fsspec.core.url_to_fs(url)
        self._local = "file" in _protocols(self.fs)

    def path(self, day: date, shard: int) -> str:
        """The file of *day* that holds the games of *shard*."""
        return f"{self.root.rstrip('/')}/{day.isoformat()}/{shard:02x}.jsonl.gz"

    @staticmethod
    def ids_path(path: str) -> str:
        """The list of the ids that the file at *path* holds, one a line."""
        return path.removesuffix(".jsonl.gz") + ".ids"

    def code_path(self, day: date, shard: int) -> str:
        """The file of *day* that holds the archived codes of *shard* made that day."""
        return f"{self.root.rstrip('/')}/{day.isoformat()}/codes/{shard:02x}.jsonl.gz"

    def read(self, day: date, shard: int) -> dict[str, dict[str, Any]]:
        """The lines of a file, by game id (none if there is no such file)."""
        return self._read(self.path(day, shard))

    def read_codes(self, day: date, shard: int) -> dict[str, dict[str, Any]]:
        """The lines of a file of codes, by code (none if there is no such file)."""
        return self._read(self.code_path(day, shard))

    def _read(self, path: str) -> dict[str, dict[str, Any]]:
        try:
            data = self.fs.cat_file(path)
        except FileNotFoundError:
            return {}
        return decode(data, path)

    def write(self, day: date, shard: int, lines: Mapping[str, Mapping[str, Any]]) -> None:
        """Writes a file and its list of ids, each whole or not at all (a temporary file
        renamed, or one object put): the list first, so it never lists fewer ids than the
        file holds, even if the writer dies between the two."""
        self._write(self.path(day, shard), lines)

    def write_codes(self, day: date, shard: int, lines: Mapping[str, Mapping[str, Any]]) -> None:
        """Writes a file of codes (code -> its game and window) as :meth:`write` does."""
        self._write(self.code_path(day, shard), lines)

    def _write(self, path: str, lines: Mapping[str, Mapping[str, Any]]) -> None:
        self._put(self.ids_path(path), "".join(f"{i}\n" for i in sorted(lines)).encode())
        self._put(path, encode(lines))

    def _put(self, path: str, data: bytes) -> None:
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
        return self.find_many([(game_id, day)]).get(game_id)

    def find_many(self, wanted: Sequence[tuple[str, date]]) -> dict[str, Record]:
        """The archived games of *wanted* (game id, day of its file) that the archive holds,
        by id: each file read once, the files fetched together (concurrently from an
        object store)."""
        by_path: dict[str, set[str]] = defaultdict(set)
        for game_id, day in wanted:
            by_path[self.path(day, shard_of(game_id))].add(game_id)
        by_path = self._held(by_path)
        if not by_path:
            return {}
        paths = sorted(by_path)
        if len(paths) == 1:
            try:
                datas = {paths[0]: self.fs.cat_file(paths[0])}
            except FileNotFoundError:
                return {}
        else:
            datas = self.fs.cat(paths, on_error="omit")
        found: dict[str, Record] = {}
        for path, data in datas.items():
            # An object store may name the path without its protocol or root slash.
            ids = by_path.get(path) or by_path[_matching(path, paths)]
            for game_id, line in decode(data, path, ids).items():
                found[game_id] = Record.from_dict(line)
        return found

    def find_code(self, code: str, day: date) -> dict[str, Any] | None:
        """The line of the archived code *code*, made on *day*: its game and window."""
        path = self.code_path(day, shard_of(code))
        if not self._held({path: {code}}):
            return None
        try:
            data = self.fs.cat_file(path)
        except FileNotFoundError:
            return None
        return decode(data, path, {code}).get(code)

    def find_daily(self, player_id: str, played: played_days.PlayedDay) -> Record | None:
        """*player_id*'s ranked daily of *played*'s day, from the file its note names (a
        search of one file for the player's lines); None if the note names none."""
        if played.file_day is None:
            return None
        path = self.path(played.file_day, played.shard)
        try:
            data = self.fs.cat_file(path)
        except FileNotFoundError:
            return None
        for line in decode(data, path, player=player_id).values():
            record = Record.from_dict(line)
            if played_days.is_noted(record) and record.day == played.day:
                return record
        return None

    def _held(self, by_path: dict[str, set[str]]) -> dict[str, set[str]]:
        """*by_path* without the ids that the files' lists of ids do not name (a file with
        no list, written before there were lists, keeps every id asked of it)."""
        lists = {self.ids_path(path): path for path in by_path}
        found = self.fs.cat(sorted(lists), on_error="omit") if lists else {}
        held = dict(by_path)
        for name, data in found.items():
            path = lists.get(name) or lists[_matching(name, sorted(lists))]
            ids = set(data.decode().split())
            held[path] = by_path[path] & ids
        return {path: ids for path, ids in held.items() if ids}


def _matching(path: str, paths: Sequence[str]) -> str:
    return next(p for p in paths if p.strip("/").endswith(path.strip("/").split("://")[-1]))


def _protocols(fs: fsspec.AbstractFileSystem) -> tuple[str, ...]:
    found = fs.protocol
    return (found,) if isinstance(found, str) else tuple(found)


@functools.lru_cache(maxsize=8)
def open_archive(url: str) -> Archive:
    """The archive at *url*, opened once per process."""
    return Archive(url)
