"""Friend codes in Redis: the dice a code names, who made it and when it closes.

A code names the UTC day it was made in its first three characters (as a game id does), its
other five are random. A code is a small hash of its own while its game lives in Redis: a
fresh friend code expires with its creator's game unless that game finishes
(:func:`daily.store.saved_games.keep`), a finished game's share code is kept. Once the game
is archived and the code's window is over, the code leaves Redis: a dated code for its
day's files in the archive (:mod:`daily.service.archive`), one of the random codes made
before codes were dated into a hash shared with the codes of its first five characters;
either is rebuilt from its game when read. A creator's list of codes follows the few
newest, each for its ranked life and a day more.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import cast

import redis

from daily.core import dice
from daily.core.codes import ALPHABET, new_code
from daily.core.config import Config
from daily.core.record import (
    Record,
)
from daily.core.rules import Options
from daily.store import keys
from daily.store.connection import queue_script
from daily.store.game_fields import ID_EPOCH, SHARE
from daily.store.guard import guarded
from daily.store.saved_games import ArchiveReader, load

#: A player's list of the codes they made keeps this many newest (their home page follows a
#: few), each for its ranked life and a day more.
MAX_LISTED_CODES = 20


#: How long after its ranked life a code stays on its creator's list.
CODE_FOLLOWED_AFTER = timedelta(days=1)


#: An archived code that names no day is kept in the hash of the codes that share its first
#: CODE_BUCKET characters (32**5 hashes): a few entries each, so Redis keeps each a small
#: listpack.
CODE_BUCKET = 5


#: The characters of a code that name its day (32**3 days from 2026-01-01: 89 years).
DAY_CHARS = 3


#: How much longer than its game's first lifetime a fresh friend code is kept unfinished.
CODE_MARGIN = timedelta(days=1)


# Creates a hash only if the key is new (friend codes: a collision retries), expiring in
# ARGV[1] ms (0: kept); the fields follow.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
"""


@dataclass(frozen=True, slots=True)
class FriendCode:
    """A friend code: the dice it names, its ruleset, who made it and when it closes."""

    code: str
    ruleset: str
    options: Options
    creator: str
    game_id: str
    seed_ref: str
    made: float = 0.0  # unix seconds
    closes: float = 0.0  # unix seconds; 0 (a code from before codes closed): closed

    @property
    def window(self) -> dice.Window:
        """When the code is ranked, and when its seed may be revealed."""
        return dice.Window(_at(self.made), _at(self.closes))

    @property
    def day(self) -> date | None:
        """The date whose daily seed the code replays, if it is a daily's code."""
        return dice.SeedRef.parse(self.seed_ref).day

    def practice_at(self, zone: tzinfo) -> datetime:
        """When the code may be played as practice: once its seed can be revealed.

        A daily's code waits for its day's reveal too, even if it closed before the day.
        """
        day = self.day
        reveals = self.window.reveals_at
        return max(reveals, dice.Day(day, zone).reveals_at) if day else reveals


def _at(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def dated_code(made: datetime) -> str:
    """A fresh code that names the UTC day of *made* in its first three characters.

    >>> code = dated_code(datetime(2026, 12, 3, 9, tzinfo=UTC))
    >>> len(code), code[:3], code_day(code)
    (8, '0AG', datetime.date(2026, 12, 3))
    """
    number = (made.astimezone(UTC).date() - ID_EPOCH).days
    prefix = ""
    for _ in range(DAY_CHARS):
        number, digit = divmod(number, len(ALPHABET))
        prefix = ALPHABET[digit] + prefix
    return prefix + new_code()[DAY_CHARS:]


def code_day(code: str) -> date:
    """The day a normalized code names (a random code, made before codes were dated, names
    one by chance).

    >>> code_day("0AGK7P2Q"), code_day("00000000")
    (datetime.date(2026, 12, 3), datetime.date(2026, 1, 1))
    """
    number = 0
    for char in code[:DAY_CHARS]:
        number = number * len(ALPHABET) + ALPHABET.index(char)
    return ID_EPOCH + timedelta(days=number)


def is_dated(found: FriendCode) -> bool:
    """Whether *found* names the UTC day it was made (a random code, made before codes were
    dated, by a chance of one in 32,768), so the archive finds it from the code alone."""
    return code_day(found.code) == _at(found.made).date()


def code_from_game(code: str, record: Record, made: float, closes: float) -> FriendCode:
    """The code *code* rebuilt from the game it was made for (*record*) and its window: its
    ruleset, options, creator and seed are the game's."""
    return FriendCode(
        code,
        record.ruleset,
        record.options,
        record.player_id,
        record.id,
        record.seed_ref or str(dice.SeedRef.friend(code)),
        made,
        closes,
    )


@guarded
def share_code(client: redis.Redis, config: Config, record: Record) -> str:
    """The one share code of a finished daily or solo game, made by whoever comes first."""
    code = create_code(
        client,
        config,
        record.player_id,
        record.ruleset,
        record.options,
        record.seed_ref,
        record.id,
        day=record.day,
    )
    if client.hsetnx(keys.game(record.id), SHARE, code):
        return code
    # A concurrent finish made one first: theirs stands, ours is dropped unseen.
    client.delete(keys.friend_code(code))
    client.zrem(keys.player_codes(record.player_id), code)
    return str(client.hget(keys.game(record.id), SHARE))


@guarded
def create_code(
    client: redis.Redis,
    config: Config,
    creator: str,
    ruleset: str,
    options: Options,
    seed_ref: str | None,
    game_id: str,
    day: date | None = None,
) -> str:
    """Stores a fresh friend code; *seed_ref* None gives the code its own seed.

    The code is ranked for ``config.code_lifetime`` from now, and a daily's code (*day*)
    never past its day's close: the day's seed is revealed an hour after that. A code of its
    own seed is its creator's game's (*game_id*, not started yet): it expires with that
    game unless the game finishes, so it outlives the game's first lifetime (the code's
    deadline, or ``config.idle_lifetime`` for a practice code) by :data:`CODE_MARGIN`. A
    share code (*seed_ref* given) is made for a finished game, and kept.
    """
    made = config.now()
    puzzle = dice.Day(day, config.timezone) if day is not None else None
    window = dice.code_window(made, config.code_lifetime, puzzle)
    lifetime = None
    if seed_ref is None:
        deadline = window.closes_at + dice.REVEAL_GRACE - made
        lifetime = max(deadline, config.idle_lifetime) + CODE_MARGIN
    script = client.register_script(_CREATE)
    while True:
        code = dated_code(made)
        fields = {
            "ruleset": ruleset,
            "options": json.dumps(dict(options)),
            "creator": creator,
            "game": game_id,
            "seed": seed_ref or str(dice.SeedRef.friend(code)),
            "made": repr(window.opens_at.timestamp()),
            "closes": repr(window.closes_at.timestamp()),
        }
        flat = [x for pair in fields.items() for x in pair]
        if client.hexists(keys.code_bucket(code), code[CODE_BUCKET:]):
            continue  # an archived random code's: its last five characters rarely meet one
        ttl_ms = int(lifetime.total_seconds() * 1000) if lifetime is not None else 0
        if script(keys=[keys.friend_code(code)], args=[ttl_ms, *flat]):
            _list_code(client, config, creator, code, made.timestamp())
            return code


def _list_code(client: redis.Redis, config: Config, creator: str, code: str, made: float) -> None:
    """Lists *code* among its creator's codes (after the code itself: a crash between leaves
    a code its creator's home page does not follow, never a listed code that is missing)."""
    keep_s = int((config.code_lifetime + CODE_FOLLOWED_AFTER).total_seconds())
    key = keys.player_codes(creator)
    pipe = client.pipeline(transaction=True)  # one slot: the player's tag
    pipe.zadd(key, {code: made})
    pipe.zremrangebyscore(key, "-inf", made - keep_s)
    pipe.zremrangebyrank(key, 0, -MAX_LISTED_CODES - 1)
    pipe.expire(key, keep_s)
    pipe.execute()


@guarded
def codes_of(client: redis.Redis, player_id: str, since: float, limit: int) -> list[str]:
    """The newest *limit* codes *player_id* made since *since* (unix seconds), newest first."""
    found = client.zrevrangebyscore(keys.player_codes(player_id), "+inf", since, start=0, num=limit)
    return [str(code) for code in cast(list[str], found)]


@guarded
def load_code(
    client: redis.Redis, code: str, archive: ArchiveReader | None = None
) -> FriendCode | None:
    """The friend code *code* (normalized), or None if Redis does not hold it.

    A code archived into a shared hash (:func:`archive_code`) is rebuilt from its game,
    read through *archive* (without one: None). A dated code archived to its day's files is
    the archive service's to read (:func:`daily.service.archive.load_code`).
    """
    fields: dict[str, str] = client.hgetall(keys.friend_code(code))  # type: ignore[assignment]
    if fields or archive is None:
        return _code_of(code, fields)
    entry = client.hget(keys.code_bucket(code), code[CODE_BUCKET:])
    if entry is None:
        return None
    game_id, made, closes = str(entry).split()
    record = load(client, game_id, archive)
    if record is None:
        return None
    return code_from_game(code, record, float(made), float(closes))


@guarded
def code_exists(client: redis.Redis, code: str) -> bool:
    """Whether Redis knows the friend code *code*: its hash, or its entry in a shared hash (a
    dated code archived to its day's files is the archive's to find)."""
    pipe = client.pipeline(transaction=False)
    pipe.exists(keys.friend_code(code))
    pipe.hexists(keys.code_bucket(code), code[CODE_BUCKET:])
    return any(pipe.execute())


@guarded
def archive_code(client: redis.Redis, found: FriendCode) -> None:
    """Moves the code *found*, one that names no day (:func:`is_dated`), out of its own hash
    (232 bytes) into a hash it shares with the codes of its first five characters (about 65
    bytes an entry): its game, which says the rest, and its window. For a code whose game
    is archived and whose window is over. In this order, and idempotent: a crash between
    leaves both, and the hash is read first.
    """
    entry = f"{found.game_id} {found.made!r} {found.closes!r}"
    client.hset(keys.code_bucket(found.code), found.code[CODE_BUCKET:], entry)
    client.delete(keys.friend_code(found.code))


# Deletes a code's hash (KEYS[1]) if it still names game ARGV[1].
_DROP = """
if redis.call('HGET', KEYS[1], 'game') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@guarded
def drop_codes(client: redis.Redis, found: Sequence[FriendCode]) -> None:
    """Deletes the hashes of the dated codes *found*, once their day's archive files hold
    them (a code read finds it there then)."""
    pipe = client.pipeline(transaction=False)  # one slot a code
    for code in found:
        queue_script(pipe, _DROP, [keys.friend_code(code.code)], [code.game_id])
    pipe.execute()


@guarded
def drop_boards(client: redis.Redis, found: Sequence[FriendCode]) -> None:
    """Deletes the boards of the codes *found*, which leave Redis with them (a dated code's
    standing is kept in its line of the archive; before the code's hash goes, so that a
    crash between leaves the code to be archived again)."""
    pipe = client.pipeline(transaction=False)  # one slot a board
    for code in found:
        pipe.delete(keys.board_friend(code.code))
    pipe.execute()


@guarded
def load_codes(client: redis.Redis, codes: Sequence[str]) -> list[FriendCode | None]:
    """The friend codes *codes* in their order (None where unknown), read in one pipeline."""
    pipe = client.pipeline(transaction=False)
    for code in codes:
        pipe.hgetall(keys.friend_code(code))
    return [_code_of(code, fields) for code, fields in zip(codes, pipe.execute(), strict=True)]


def _code_of(code: str, fields: Mapping[str, str]) -> FriendCode | None:
    if not fields:
        return None
    return FriendCode(
        code=code,
        ruleset=fields["ruleset"],
        options=json.loads(fields["options"]),
        creator=fields["creator"],
        game_id=fields["game"],
        seed_ref=fields["seed"],
        made=float(fields.get("made", 0.0)),
        closes=float(fields.get("closes", 0.0)),
    )
