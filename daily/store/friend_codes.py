"""Friend codes in Redis: the dice a code names, who made it and when it closes.

A code is a small hash of its own while its game lives in Redis; once the game is archived
and the code's window is over, it moves into a hash shared with the codes of its first five
characters, and is rebuilt from its game when read. A creator's list of codes follows the
few newest, each for its ranked life and a day more.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, cast

import redis

from daily.core import dice
from daily.core.codes import new_code
from daily.core.config import Config
from daily.core.record import (
    Record,
)
from daily.store import keys
from daily.store.game_fields import SHARE
from daily.store.guard import guarded
from daily.store.saved_games import ArchiveReader, load

#: A player's list of the codes they made keeps this many newest (their home page follows a
#: few), each for its ranked life and a day more.
MAX_LISTED_CODES = 20


#: How long after its ranked life a code stays on its creator's list.
CODE_FOLLOWED_AFTER = timedelta(days=1)


#: An archived code is kept in the hash of the codes that share its first CODE_BUCKET
#: characters (32**5 hashes): a few entries each, so Redis keeps each a small listpack.
CODE_BUCKET = 5


# Creates a hash only if the key is new (friend codes: a collision retries).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


@dataclass(frozen=True, slots=True)
class FriendCode:
    """A friend code: the dice it names, its ruleset, who made it and when it closes."""

    code: str
    ruleset: str
    options: Mapping[str, Any]
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


@guarded
def share_code(client: redis.Redis, config: Config, record: Record) -> str:
    """The one share code of a finished daily or solo game, made by whoever comes first."""
    code = create_code(client, config, record.player_id, record.ruleset, record.options,
                       record.seed_ref, record.id, day=record.day)  # fmt: skip
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
    options: Mapping[str, Any],
    seed_ref: str | None,
    game_id: str,
    day: date | None = None,
) -> str:
    """Stores a fresh friend code; *seed_ref* None gives the code its own seed.

    The code is ranked for ``config.code_lifetime`` from now, and a daily's code (*day*)
    never past its day's close: the day's seed is revealed an hour after that.
    """
    made = config.now()
    puzzle = dice.Day(day, config.timezone) if day is not None else None
    window = dice.code_window(made, config.code_lifetime, puzzle)
    script = client.register_script(_CREATE)
    while True:
        code = new_code()
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
            continue  # an archived code's: 40 random bits rarely meet one, but may
        if script(keys=[keys.friend_code(code)], args=flat):
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
    found = client.zrevrangebyscore(keys.player_codes(player_id), "+inf", since, start=0,
                                    num=limit)  # fmt: skip
    return [str(code) for code in cast(list[str], found)]


@guarded
def load_code(
    client: redis.Redis, code: str, archive: ArchiveReader | None = None
) -> FriendCode | None:
    """The friend code *code* (normalized), or None if nobody made it.

    An archived code (:func:`archive_code`) is rebuilt from its game, read through
    *archive* (without one: None).
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
    return FriendCode(code, record.ruleset, record.options, record.player_id, record.id,
                      record.seed_ref or str(dice.SeedRef.friend(code)), float(made),
                      float(closes))  # fmt: skip


@guarded
def code_exists(client: redis.Redis, code: str) -> bool:
    """Whether somebody made the friend code *code*, archived or not."""
    pipe = client.pipeline(transaction=False)
    pipe.exists(keys.friend_code(code))
    pipe.hexists(keys.code_bucket(code), code[CODE_BUCKET:])
    return any(pipe.execute())


@guarded
def archive_code(client: redis.Redis, found: FriendCode) -> None:
    """Moves the code *found* out of its own hash (232 bytes) into a hash it shares with
    the codes of its first five characters (about 65 bytes an entry): its game, which says
    the rest, and its window. For a code whose game is archived and whose window is over.
    In this order, and idempotent: a crash between leaves both, and the hash is read first.
    """
    entry = f"{found.game_id} {found.made!r} {found.closes!r}"
    client.hset(keys.code_bucket(found.code), found.code[CODE_BUCKET:], entry)
    client.delete(keys.friend_code(found.code))


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
