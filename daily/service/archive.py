"""Cold games leave Redis: finished games past a window move to an archive of day files.

The files (:mod:`daily.service.archive_files`) are compressed JSON lines behind an fsspec
URL, a day's games spread over up to 256 files by a hash of their id, the codes made that
day beside them. The archiver (:func:`archive_old`) is safe to kill at any point: a file is
written whole or not at all, it merges with what the file held (a game is one line however
often it is archived), it is read back and checked before any game leaves Redis, and only
then does a game leave Redis: whole if its id names the day of its file
(:func:`daily.store.game_fields.new_id`), else as a marker that names the day. Its player's
indexes then let it go: off their list of games, and a ranked daily stays noted on their
notes (:mod:`daily.store.played_days`), which keep what history shows of it and where its
file is (no file read to list it). The codes the game made leave Redis with it, a dated code
for the files of its day, once the batch's games are out; a game leaves the archiver's
list last. Any other reader finds the game's file from its id (:func:`load`,
:func:`load_many`: each file read once), a dated code's from the code (:func:`load_code`).
One archiver runs at a time over every host, holding a short lease that it renews before
each file it writes.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import secrets
import signal
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from daily.core import dice
from daily.core.config import Config
from daily.core.errors import ArchiveError
from daily.core.record import Record
from daily.service.archive_files import Archive, dumps, open_archive, shard_of
from daily.store import (
    archived_games,
    boards,
    friend_codes,
    game_fields,
    kept_analyses,
    played_days,
    review_queue,
    saved_games,
)

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

log = logging.getLogger(__name__)

#: How many games one sweep of the service moves at most (``daily archive`` moves all).
SWEEP_BATCH = 2000
#: The archiver's lease (seconds): renewed before each file it writes, so one that dies
#: holds it this long at most.
LOCK_S = 30.0
#: A test hook: the name of the step at which the archiver kills its own process.
KILL_AT = "DAILY_ARCHIVE_KILL_AT"


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
    read = reader(config)
    return friend_codes.load_code(client, code, read) or _archived_code(client, config, code, read)


def standing_of(config: Config, code: str) -> dict[str, int] | None:
    """The standing of the board of *code* kept with it in the archive (member -> packed
    score; empty when nobody was counted); None when the archive holds no such code."""
    line = open_archive(config.archive_location).find_code(code, friend_codes.code_day(code))
    if line is None:
        return None
    return {str(name): int(packed) for name, packed in dict(line.get("board") or {}).items()}


def code_and_game(
    client: redis.Redis, config: Config, code: str, unless: str | None = None
) -> tuple[friend_codes.FriendCode | None, Record | None]:
    """The friend code *code* and the game it was made from, that game read once: an
    archived code is rebuilt from the very game the caller wants next (one file read, not
    two). The game is not read when its id is *unless* (the caller's own game)."""
    read = functools.lru_cache(maxsize=2)(reader(config))
    found = friend_codes.load_code(client, code, read) or _archived_code(client, config, code, read)
    if found is None or found.game_id == unless:
        return found, None
    return found, saved_games.load(client, found.game_id, read)


def _archived_code(
    client: redis.Redis, config: Config, code: str, read: saved_games.ArchiveReader
) -> friend_codes.FriendCode | None:
    # A dated code whose hash left Redis: the files of the day it names hold its game and
    # window (a code no file lists costs reading that file's short list of codes).
    day = friend_codes.code_day(code)
    if day > config.now().astimezone(UTC).date():
        return None
    line = open_archive(config.archive_location).find_code(code, day)
    record = saved_games.load(client, line["game"], read) if line else None
    if line is None or record is None:
        return None
    return friend_codes.code_from_game(code, record, line["made"], line["closes"])


def find_daily(
    client: redis.Redis, config: Config, player_id: str, played: played_days.PlayedDay
) -> Record | None:
    """*player_id*'s archived ranked daily that *played* notes, from the file it names."""
    if played.file_day is None or played.file_day > config.now().astimezone(UTC).date():
        return None
    return open_archive(config.archive_location).find_daily(player_id, played)


def load_many(client: redis.Redis, config: Config, game_ids: Sequence[str]) -> list[Record | None]:
    """The games *game_ids* in their order (None where unknown): those in Redis in one
    pipeline, the archived ones one read a file, the files fetched together."""
    located = saved_games.locate_many(client, game_ids)
    today = config.now().astimezone(UTC).date()
    wanted = [
        (game_id, where)
        for game_id, where in zip(game_ids, located, strict=True)
        if isinstance(where, date) and where <= today
    ]
    archived = open_archive(config.archive_location).find_many(wanted) if wanted else {}
    return [
        where if isinstance(where, Record) else archived.get(game_id)
        for game_id, where in zip(game_ids, located, strict=True)
    ]


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
    *limit*); None if another archiver holds the lease, which lasts *lock_s* seconds unless
    renewed (before each file written). Idempotent, and safe to kill."""
    lease = _Lease(client, secrets.token_hex(8), lock_s)
    if not archived_games.claim_archiver(client, lease.token, lock_s):
        return None
    try:
        if limit is not None:
            return _archive(client, config, lease, limit)[0]
        done = Archived(0, 0, 0)
        while True:  # a batch at a time: no step holds every due game, nor one pipeline
            step, seen = _archive(client, config, lease, SWEEP_BATCH, done.skipped)
            done = Archived(
                done.games + step.games, done.files + step.files, done.skipped + step.skipped
            )
            if seen < SWEEP_BATCH:
                return done
    finally:
        archived_games.release_archiver(client, lease.token)


@dataclasses.dataclass(frozen=True, slots=True)
class _Lease:
    """The archiver's hold on its lock: renewed as it works, so a dead archiver's runs out."""

    client: redis.Redis
    token: str
    seconds: float

    def renew(self) -> None:
        """Holds the lock *seconds* more; ArchiveError if it ran out (another may run)."""
        if not archived_games.renew_archiver(self.client, self.token, self.seconds):
            raise ArchiveError("the archiver's lease ran out: another archiver may run now")


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
    # The player's notes keep whether the bonus was reached: history shows it, no file read.
    bonus = archived_games.is_listed_archived(record) and record.state(config.secret_key).bonus > 0
    day = config.now().astimezone(UTC).date()
    archived_games.unindex_archived(client, record, _is_closed(record, config), bonus, today=day)


def _made_codes(
    client: redis.Redis, records: Sequence[Record]
) -> dict[str, list[friend_codes.FriendCode]]:
    # The codes each game made (its share code, or the friend code it was the first game
    # of) that Redis still holds, by game id: they leave Redis with the game.
    wanted = [(r.id, code) for r in records for code in sorted({c for c in (r.share, r.code) if c})]
    made: dict[str, list[friend_codes.FriendCode]] = defaultdict(list)
    codes = friend_codes.load_codes(client, [code for _, code in wanted])
    for (game_id, _), code in zip(wanted, codes, strict=True):
        if code is not None and code.game_id == game_id:
            made[game_id].append(code)
    return made


def _archive_codes(
    client: redis.Redis, archive: Archive, lease: _Lease, codes: Sequence[friend_codes.FriendCode]
) -> None:
    # A dated code goes to the files of the day it names, each file written once a batch and
    # read back before any hash goes; a random one into its shared hash. Either is rebuilt
    # from its game when read (load_code), so a crash between leaves a code that reads the same.
    groups: dict[tuple[date, int], dict[str, dict[str, Any]]] = defaultdict(dict)
    dated = [code for code in codes if friend_codes.is_dated(code)]
    for code in dated:
        line = {"id": code.code, "game": code.game_id, "made": code.made, "closes": code.closes}
        groups[friend_codes.code_day(code.code), shard_of(code.code)][code.code] = line
    for (day, shard), lines in sorted(groups.items()):
        lease.renew()
        before = archive.read_codes(day, shard)
        for name, line in lines.items():  # its board's standing (a second run: as kept)
            board = boards.standing(client, boards.Board.friend(name))
            if board or before.get(name, {}).get("board"):
                line["board"] = board or before[name]["board"]
        archive.write_codes(day, shard, before | lines)
        kept = archive.read_codes(day, shard)
        if any(kept.get(code) != line for code, line in lines.items()):
            raise ArchiveError(f"{archive.code_path(day, shard)} lost a code as it was written")
    # A board leaves with its code: a dated code's standing is in its line now; a random
    # code's (made before codes were dated) is not kept.
    friend_codes.drop_boards(client, codes)
    friend_codes.drop_codes(client, dated)
    for code in codes:
        if not friend_codes.is_dated(code):
            friend_codes.archive_code(client, code)


def _archive(
    client: redis.Redis, config: Config, lease: _Lease, limit: int, skip: int = 0
) -> tuple[Archived, int]:
    # One batch: the *limit* oldest due games after the *skip* left on the list before. A
    # game leaves the list only once its codes left Redis too, so a run killed midway is
    # finished by the next (a game out of Redis already is read back from the archive).
    archive = open_archive(config.archive_location)
    cutoff = (config.now() - timedelta(days=config.archive_days)).timestamp()
    due = archived_games.finished_before(client, cutoff, limit, skip)
    located = saved_games.locate_many(client, due)
    left = _read_left(config, due, located)
    for record in left:
        _unindex(client, config, record)
    made = _made_codes(client, [*left, *(r for r in located if isinstance(r, Record))])
    waiting = review_queue.unchecked_among(client, due)
    groups, skipped = _due_groups(config, located, made, waiting)
    _step("loaded")
    moved = [*left]
    for (day, shard), records in sorted(groups.items()):
        lease.renew()
        records = kept_analyses.fold(client, records)  # a kept analysis goes with its game
        lines = archive.read(day, shard)  # merged: a game archived before stays one line
        lines.update((record.id, record.to_dict()) for record in records)
        archive.write(day, shard, lines)
        _step("written")
        kept = archive.read(day, shard)
        if any(dumps(kept.get(r.id, {})) != dumps(r.to_dict()) for r in records):
            raise ArchiveError(f"{archive.path(day, shard)} lost a game as it was written")
        waiting = review_queue.unchecked_among(client, [record.id for record in records])
        for record in records:
            # Queued for its luck check meanwhile, held, or given its verdict: it waits.
            if record.id not in waiting and archived_games.mark_archived(client, record, day):
                _step("marked")
                _unindex(client, config, record)
                _step("unindexed")
                moved.append(record)
            else:  # its line waits in the file, harmless: the game is still read from Redis
                skipped += 1
    _archive_codes(client, archive, lease, [c for r in moved for c in made.get(r.id, [])])
    gone = [g for g, where in zip(due, located, strict=True) if not isinstance(where, Record)]
    archived_games.unlist_finished(client, [*gone, *(r.id for r in moved[len(left) :])])
    return Archived(len(moved) - len(left), len(groups), skipped), len(due)


def _read_left(
    config: Config, due: Sequence[str], located: Sequence[Record | date | None]
) -> list[Record]:
    # The due games out of Redis already whose archive holds them (read back, one file each).
    read = reader(config)
    return [
        found
        for game_id, where in zip(due, located, strict=True)
        if isinstance(where, date) and (found := read(game_id, where)) is not None
    ]


def _due_groups(
    config: Config,
    located: Sequence[Record | date | None],
    made: Mapping[str, Sequence[friend_codes.FriendCode]],
    waiting: Collection[str],
) -> tuple[dict[tuple[date, int], list[Record]], int]:
    # The due games in Redis that may leave it, by file; and how many wait: not counted yet,
    # held or waiting for review, or with a code still open (it leaves with its game).
    groups: dict[tuple[date, int], list[Record]] = defaultdict(list)
    skipped = 0
    now = config.now()
    for where in located:
        if not isinstance(where, Record):
            continue
        if not where.finished or where.finished_at is None or not where.submitted:
            skipped += 1
        elif where.extra.get("review") == "held" or where.id in waiting:
            skipped += 1  # its review decides first (a luck check may still hold it)
        elif any(now < code.practice_at(config.timezone) for code in made.get(where.id, [])):
            skipped += 1
        else:
            groups[file_day(where), shard_of(where.id)].append(where)
    return groups, skipped


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
