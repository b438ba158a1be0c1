"""Cold games leave Redis: finished games past a window move to an archive of day files.

The archive is a folder of compressed JSON lines, one :meth:`Record.to_dict` a line, behind
an fsspec URL (a local folder by default, an object store such as S3 when several hosts
share it). A day's games are spread over up to :data:`SHARDS` files by a hash of their id,
``YYYY-MM-DD/xx.jsonl.gz``, so reading one game back reads a small file. Each file ends
with a line that carries the SHA-256 of the lines before it and their count; a file whose
checksum does not match is refused. Beside each file, ``xx.ids`` lists the ids it holds
(written first, so it never lists fewer): an id that no game has, made up by a client, costs
reading that short list, not unpacking and checking the whole file.

The archiver (:func:`archive_old`) is safe to kill at any point: a file is written whole or
not at all (a temporary name renamed, or one object put), it merges with what the file
held (a game is one line however often it is archived), it is read back and checked
before any game leaves Redis, and only then does a game leave Redis: whole if its id names
the day of its file (:func:`daily.store.game_fields.new_id`), else as a marker that names the day.
Its player's indexes then let it go: off their list of games, and a ranked daily onto
their month's list of archived dailies, which keeps what history shows of it
(:func:`archived_dailies`: no file read); any other reader finds the game's file from its id
(:func:`load`, :func:`load_many`: each file read once).
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
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import fsspec

from daily.core import dice
from daily.core.config import Config
from daily.core.errors import DailyError
from daily.core.record import Record
from daily.store import archived_games, friend_codes, game_fields, review_queue, saved_games

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


def decode(
    data: bytes, name: str = "archive file", wanted: Collection[str] | None = None
) -> dict[str, dict[str, Any]]:
    """The lines of a file written by :func:`encode`, by game id (only those of *wanted*
    ids, if given: the others are checked, not parsed); ArchiveError if it is damaged.

    >>> decode(encode({"g1": {"id": "g1"}, "g2": {"id": "g2"}}), wanted={"g2"})
    {'g2': {'id': 'g2'}}
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

    def read(self, day: date, shard: int) -> dict[str, dict[str, Any]]:
        """The lines of a file, by game id (none if there is no such file)."""
        path = self.path(day, shard)
        try:
            data = self.fs.cat_file(path)
        except FileNotFoundError:
            return {}
        return decode(data, path)

    def write(self, day: date, shard: int, lines: Mapping[str, Mapping[str, Any]]) -> None:
        """Writes a file and its list of ids, each whole or not at all (a temporary file
        renamed, or one object put): the list first, so it never lists fewer ids than the
        file holds, even if the writer dies between the two."""
        path = self.path(day, shard)
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


def reader(config: Config) -> saved_games.ArchiveReader:
    """What the store calls to read an archived game back (see
    :func:`daily.store.saved_games.load`): a day still to come has no file, so an id that
    names one is not looked for."""
    found = open_archive(config.archive_location)
    today = config.now().astimezone(UTC).date()

    def read(game_id: str, day: date) -> Record | None:
        return found.find(game_id, day) if day <= today else None

    return read


def load(client: redis.Redis, config: Config, game_id: str) -> Record | None:
    """The game *game_id*, from Redis or, once archived, from the archive; None if unknown."""
    return saved_games.load(client, game_id, reader(config))


def load_code(client: redis.Redis, config: Config, code: str) -> friend_codes.FriendCode | None:
    """The friend code *code*, from Redis or, once archived, rebuilt from its game."""
    return friend_codes.load_code(client, code, reader(config))


def code_and_game(
    client: redis.Redis, config: Config, code: str, unless: str | None = None
) -> tuple[friend_codes.FriendCode | None, Record | None]:
    """The friend code *code* and the game it was made from, that game read once: an
    archived code is rebuilt from the very game the caller wants next (one file read, not
    two). The game is not read when its id is *unless* (the caller's own game)."""
    read = functools.lru_cache(maxsize=2)(reader(config))
    found = friend_codes.load_code(client, code, read)
    if found is None or found.game_id == unless:
        return found, None
    return found, saved_games.load(client, found.game_id, read)


def load_many(client: redis.Redis, config: Config, game_ids: Sequence[str]) -> list[Record | None]:
    """The games *game_ids* in their order (None where unknown): those in Redis in one
    pipeline, the archived ones one read a file, the files fetched together."""
    located = saved_games.locate_many(client, game_ids)
    today = config.now().astimezone(UTC).date()
    wanted = [(game_id, where) for game_id, where in zip(game_ids, located, strict=True)
              if isinstance(where, date) and where <= today]  # fmt: skip
    archived = open_archive(config.archive_location).find_many(wanted) if wanted else {}
    return [where if isinstance(where, Record) else archived.get(game_id)
            for game_id, where in zip(game_ids, located, strict=True)]  # fmt: skip


def archived_dailies(
    client: redis.Redis, config: Config, player_id: str, since: date
) -> list[archived_games.ArchivedDaily]:
    """*player_id*'s archived ranked dailies of the months from *since*'s to today's, as
    their month lists keep them (no archive file read)."""
    months, day = [], since.replace(day=1)
    end = config.now().astimezone(UTC).date()
    while day <= end:
        months.append(day.isoformat()[:7])
        day = (day + timedelta(days=32)).replace(day=1)
    return archived_games.archived_of(client, player_id, months)


@dataclasses.dataclass(frozen=True, slots=True)
class Archived:
    """What one run of the archiver did."""

    games: int  # games moved out of Redis
    files: int  # files written
    skipped: int  # due games left in Redis: not counted yet, held or waiting for review


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
    if not archived_games.claim_archiver(client, token, lock_s):
        return None
    try:
        if limit is not None:
            return _archive(client, config, limit)[0]
        done = Archived(0, 0, 0)
        while True:  # a batch at a time: no step holds every due game, nor one pipeline
            step, seen = _archive(client, config, SWEEP_BATCH, done.skipped)
            done = Archived(done.games + step.games, done.files + step.files,
                            done.skipped + step.skipped)  # fmt: skip
            if seen < SWEEP_BATCH:
                return done
    finally:
        archived_games.release_archiver(client, token)


def file_day(record: Record) -> date:
    """The day whose files hold *record* once archived: the day its id names if it is dated
    (its file is found from its id alone), else the day it finished (its marker names it)."""
    day = game_fields.id_day(record.id)
    if day is not None and game_fields.is_dated(record):
        return day
    if record.finished_at is None:
        raise ArchiveError(f"game {record.id} is not finished")
    return datetime.fromtimestamp(record.finished_at, UTC).date()


def _is_closed(record: Record, config: Config) -> bool:
    # Whether nothing ranked can start on the game's day or code any more, so the indexes
    # that keep a player to one game there may go with it. A friend code's index stays
    # (the code's page shows the player's game, and a replay of the code is that game).
    now = config.now()
    if record.day is not None and now < dice.Day(record.day, config.timezone).reveals_at:
        return False
    closes = record.closes_at
    return closes is None or now >= datetime.fromtimestamp(closes, UTC) + dice.REVEAL_GRACE


def _unindex(client: redis.Redis, config: Config, record: Record) -> None:
    # The month list keeps whether the bonus was reached: history shows it, no file read.
    bonus = archived_games.is_listed_archived(record) and record.state(config.secret_key).bonus > 0
    archived_games.unindex_archived(client, record, _is_closed(record, config), bonus)
    # The code the game made (its share code, or the friend code it was the first game of)
    # goes with it once nothing ranked can start on it: its game says the rest, so Redis
    # keeps a short entry, not the code's own hash.
    for code in {c for c in (record.share, record.code) if c}:
        made = friend_codes.load_code(client, code)
        if made and made.game_id == record.id and config.now() >= made.practice_at(config.timezone):
            friend_codes.archive_code(client, made)


def _archive(
    client: redis.Redis, config: Config, limit: int, skip: int = 0
) -> tuple[Archived, int]:
    # One batch: the *limit* oldest due games after the *skip* left on the list before.
    archive = open_archive(config.archive_location)
    read = reader(config)
    cutoff = (config.now() - timedelta(days=config.archive_days)).timestamp()
    due = archived_games.finished_before(client, cutoff, limit, skip)
    waiting = review_queue.unchecked_among(client, due)
    groups: dict[tuple[date, int], list[Record]] = defaultdict(list)
    gone, skipped = [], 0
    for game_id, where in zip(due, saved_games.locate_many(client, due), strict=True):
        if not isinstance(where, Record):
            # Out of Redis already (a run killed before it moved the player's indexes),
            # or gone: the move is finished, and the game leaves the list.
            archived = read(game_id, where) if where is not None else None
            if archived is not None:
                _unindex(client, config, archived)
            gone.append(game_id)
        elif not where.finished or where.finished_at is None or not where.submitted:
            skipped += 1
        elif where.extra.get("review") == "held" or game_id in waiting:
            skipped += 1  # its review decides first (a luck check may still hold it)
        else:
            groups[file_day(where), shard_of(where.id)].append(where)
    archived_games.unlist_finished(client, gone)
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
        waiting = review_queue.unchecked_among(client, [record.id for record in records])
        for record in records:
            # Queued for its luck check meanwhile, held, or given its verdict: it waits.
            if record.id not in waiting and archived_games.mark_archived(client, record, day):
                _step("marked")
                _unindex(client, config, record)
                _step("unindexed")
                done.append(record.id)
            else:  # its line waits in the file, harmless: the game is still read from Redis
                skipped += 1
        archived_games.unlist_finished(client, done)
        moved += len(done)
    return Archived(moved, len(groups), skipped), len(due)


def sweep(client: redis.Redis, config: Config) -> Archived | None:
    """Archives a batch of old games if any are due and no other archiver runs; else None."""
    cutoff = (config.now() - timedelta(days=config.archive_days)).timestamp()
    if not archived_games.finished_before(client, cutoff, 1):
        return None
    try:
        return archive_old(client, config, limit=SWEEP_BATCH)
    except OSError as e:  # the archive is out of reach: the games stay in Redis till later
        log.warning("archiving to %s failed: %s", config.archive_location, e)
        return None
