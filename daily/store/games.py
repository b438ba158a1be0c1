"""Games in Redis: a game is its settings plus its move log, verified by replay.

This module only persists; the flow (which move, when a game finishes, the sweeps) is the
game service's (:mod:`daily.games`). A move the service has replayed is appended by a Lua
script only if the log still has the length the replay saw: a concurrent or out-of-order
move changes nothing. A finished game is listed as pending until the rankings have counted
it, so a crash between finishing and counting is repaired by the service's sweep.

Nothing here grows without bound: an unfinished game expires after the lifetime the
service hands in (its deadline if ranked, else when idle), and so do a guest's keys until
they finish a game; a finished game, and its player, are kept. Which boards a game counts
on and when its seed is published are the service's rules (:mod:`daily.results`).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import secrets
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, cast

import redis

from daily import dice
from daily import party as parties
from daily.codes import new_code
from daily.config import Config
from daily.errors import ConflictError, DailyError
from daily.modes import OnePer, find_mode
from daily.record import (
    DEFAULT_STREAM,
    ComputerPart,
    OnCode,
    PartyPart,
    Record,
    decode_moves,
    encode_move,
    encode_moves,
    parse_entry,
)
from daily.rules import GameState, Move, find_ruleset
from daily.store import boards, counters, keys, leagues, players
from daily.store.connection import queue_script
from daily.store.guard import guarded

__all__ = ["FriendCode", "MoveConflict", "Record"]  # Record: re-exported for old imports

log = logging.getLogger(__name__)

#: A player's list of games keeps this many newest ids (their pages show 50).
MAX_LISTED_GAMES = 1000
#: A player's list of the codes they made keeps this many newest (their home page follows a
#: few), each for its ranked life and a day more.
MAX_LISTED_CODES = 20
#: How long after its ranked life a code stays on its creator's list.
CODE_FOLLOWED_AFTER = timedelta(days=1)

# Appends one move (ARGV[2], one character) to a game's log (field m) if the game is
# stored in the compact form, not finished (no total, field t) and its log has the
# expected length; a request whose idempotency digest (ARGV[7], '' for none) is the one
# of the last move stored was applied already. Marks the game finished in the same step
# when the move ends it, and keeps it for good then; an unfinished game's expiry moves
# on (ARGV[6] ms from now; 0: none).
_APPEND = """
local found = redis.call('HMGET', KEYS[1], 'h', 't', 'm', 'i')
if not found[1] then return -4 end
if ARGV[7] ~= '' and found[4] == ARGV[7] then return -5 end
if found[2] then return -1 end
local log = found[3] or ''
if #log ~= tonumber(ARGV[1]) then return -2 end
log = log .. ARGV[2]
redis.call('HSET', KEYS[1], 'm', log)
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[1], 'i', ARGV[7])
elseif found[4] then
  redis.call('HDEL', KEYS[1], 'i')
end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 't', ARGV[4], 'e', ARGV[5])
  redis.call('PERSIST', KEYS[1])
elseif tonumber(ARGV[6]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
return #log
"""

# Rewrites a game stored in the first form (a hash of long fields, KEYS[1], and a JSON
# move list, KEYS[2]) in the compact form (ARGV: field, value, ...), keeping its expiry;
# a game rewritten meanwhile is left as it is.
_MIGRATE = """
if redis.call('HEXISTS', KEYS[1], 'mode') == 0 then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], unpack(ARGV))
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""

# Claims a player's index keys (KEYS[3..]: one game per date, per code) for game ARGV[1],
# all or none, and lists the game (KEYS[2]); returns the game already there, or ''.
# Every key shares the player's hash tag. A guest's keys (KEYS[1], KEYS[2]) expire
# together, never before the new game does (ARGV[4] seconds from now).
_CLAIM = """
for i = 3, #KEYS do
  local found = redis.call('GET', KEYS[i])
  if found then return found end
end
for i = 3, #KEYS do
  if tonumber(ARGV[3]) > 0 then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[3])
  else
    redis.call('SET', KEYS[i], ARGV[1])
  end
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[5]))
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then
  ttl = math.max(ttl, tonumber(ARGV[4]))
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return ''
"""

# Keeps a finished game's player for good: the first ARGV[2] keys always (their record, game
# list and, when it has index keys, the set listing those), each later key (an index key) if
# it still names game ARGV[1]. Every key shares the player's hash tag.
_KEEP = """
local always = tonumber(ARGV[2])
for i = 1, #KEYS do
  if i <= always or redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('PERSIST', KEYS[i]) end
end
return 1
"""

# Takes a finished, counted game's hash (KEYS[1]) out of Redis: a game whose id names its
# day (ARGV[2] '1') leaves nothing, any other is replaced by the archive marker, one field
# naming the day file ARGV[1] that holds it. A game not finished, not counted, held for
# review, or whose luck verdict came or went since the archiver read it (ARGV[3] '1': it had
# one) is left as it is (0); one archived already answers 1 again.
_ARCHIVE = """
local found = redis.call('HMGET', KEYS[1], 'a', 'h', 't', 'u', 'review', 'luck')
if found[1] then return 1 end
if not found[2] then
  if ARGV[2] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return 1 end
  return 0
end
if not found[3] or found[4] ~= '1' or found[5] == 'held' then return 0 end
if (found[6] and '1' or '0') ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] ~= '1' then redis.call('HSET', KEYS[1], 'a', ARGV[1]) end
return 1
"""

# Moves an archived game (ARGV[1]) off its player's live indexes, all on the player's slot:
# off their list of games (KEYS[1]); a ranked daily's entry (ARGV[2], '' for any other game:
# "id:day:total:bonus") onto the month's list of archived dailies (KEYS[3], entries each
# followed by a space, listed once however often this runs), which the player's key set
# (KEYS[2]) names so that deleting the player finds it. The index keys (KEYS[4..]) that
# still name the game are deleted and leave the key set.
_UNINDEX = """
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then
  local listed = redis.call('GET', KEYS[3]) or ''
  if not string.find(' ' .. listed, ' ' .. ARGV[1] .. ':', 1, true) then
    -- SET, not APPEND: an appended string keeps up to twice its length allocated
    redis.call('SET', KEYS[3], listed .. ARGV[2] .. ' ')
  end
  redis.call('SADD', KEYS[2], KEYS[3])
end
for i = 4, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    redis.call('SREM', KEYS[2], KEYS[i])
  end
end
return 1
"""

# Deletes a lock (KEYS[1]) only if it still holds this holder's token (ARGV[1]).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: An archived code is kept in the hash of the codes that share its first CODE_BUCKET
#: characters (32**5 hashes): a few entries each, so Redis keeps each a small listpack.
CODE_BUCKET = 5

# Creates a hash only if the key is new (friend codes: a collision retries).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class MoveConflict(ConflictError):
    """The move does not follow the stored log (a stale, repeated or concurrent move)."""


class AlreadyApplied(DailyError):
    """The request's idempotency key is the one of the last move stored: it was applied."""


# The compact form of a game's hash: every value short, so Redis keeps the hash as one
# small listpack (values up to 64 bytes). What never changes: the header h (mode, ruleset,
# start), player p, seed reference r, and where they apply options o, the code part k,
# the party's players n, the computer's level and engine l, the dice stream v, and the
# date d when the seed does not name it. Then the move log m, and what a game gains as it
# goes: total t and end e once finished, submitted u, share code s, the computer's moves
# c, the idempotency digest of the last move i, x for a past day replayed as practice.
# Any other field (review, luck) keeps its own name.
_HEADER, _PLAYER, _SEED, _OPTIONS, _CODE, _PLAYERS, _LEVEL, _STREAM, _DAY = "hproknlvd"
_LOG, _TOTAL, _ENDED, _SUBMITTED, _SHARE, _COMPUTER, _KEY, _REPLAYED = "mteuscix"
_COMPACT = set("hproknlvdmteuscix")
# An archived game's hash holds this one field, the day of the file that holds it.
_ARCHIVED = "a"

#: Reads an archived game back: its id and the day of its file; None if not there.
ArchiveReader = Callable[[str, date], Record | None]

#: The day a dated game id's first characters count from.
ID_EPOCH = date(2026, 1, 1)
_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
# A dated id: three base-62 characters of its UTC day since ID_EPOCH (62**3 days, over six
# centuries), then 13 random ones of the URL-safe alphabet (78 bits): 16 characters, as
# long as the ids made before, and of the same alphabet, so routes and checks stay.
_DAY_CHARS, _RANDOM_CHARS = 3, 13


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _seed_day(mode: str, seed_ref: str) -> date | None:
    # A daily's date is its seed's: stored only where it is not (none so far).
    return dice.SeedRef.parse(seed_ref).day if find_mode(mode).one_per is OnePer.DAY else None


def _short_seed(seed_ref: str) -> str:
    # A random seed's 64 hex digits as 43 base64 ones: the value stays under 64 bytes.
    if seed_ref.startswith("hex:"):
        return "b64:" + base64.urlsafe_b64encode(bytes.fromhex(seed_ref[4:])).decode().rstrip("=")
    return seed_ref


def _long_seed(stored: str) -> str:
    if stored.startswith("b64:"):
        return "hex:" + base64.urlsafe_b64decode(stored[4:] + "=").hex()
    return stored


def to_fields(record: Record) -> dict[str, str]:
    """The hash fields that store *record* in the compact form."""
    fields = {
        _HEADER: _json([record.mode, record.ruleset, round(record.created, 3)]),
        _PLAYER: record.player_id,
        _SEED: _short_seed(record.seed_ref),
        _LOG: record.log(),
        **record.extra,
    }
    if record.options:
        fields[_OPTIONS] = _json(dict(record.options))
    if record.day != _seed_day(record.mode, record.seed_ref):
        fields[_DAY] = record.day.isoformat() if record.day else ""
    if record.on_code is not None:
        on = record.on_code
        fields[_CODE] = _json([on.code, int(on.target), int(on.practice), on.closes_at])
    if record.party_part is not None:
        fields[_PLAYERS] = _json(list(record.party_part.players))
    if record.computer_part is not None:
        fields[_LEVEL] = _json([record.computer_part.level, record.computer_part.engine])
        if record.computer_part.moves:
            fields[_COMPUTER] = encode_moves(record.rules, record.computer_part.moves)
    if record.stream != DEFAULT_STREAM:
        fields[_STREAM] = record.stream
    if record.finished_at is not None and record.total is not None:
        fields[_TOTAL] = str(record.total)
        fields[_ENDED] = repr(round(record.finished_at, 3))
    if record.submitted:
        fields[_SUBMITTED] = "1"
    if record.replayed:
        fields[_REPLAYED] = "1"
    if record.share:
        fields[_SHARE] = record.share
    return fields


def from_fields(game_id: str, fields: Mapping[str, str], moves: Sequence[str] = ()) -> Record:
    """Reads a record back from its hash fields (either form; the first form's JSON move
    list is *moves*)."""
    if _HEADER not in fields:
        return _from_first_form(game_id, fields, moves)
    mode, ruleset, created = json.loads(fields[_HEADER])
    options = json.loads(fields[_OPTIONS]) if _OPTIONS in fields else {}
    rules = find_ruleset(ruleset, options)
    day = _seed_day(mode, _long_seed(fields[_SEED]))
    if _DAY in fields:
        day = date.fromisoformat(fields[_DAY]) if fields[_DAY] else None
    code = json.loads(fields[_CODE]) if _CODE in fields else None
    level = json.loads(fields[_LEVEL]) if _LEVEL in fields else None
    return Record(
        id=game_id, mode=mode, ruleset=ruleset, options=options,
        player_id=fields[_PLAYER], seed_ref=_long_seed(fields[_SEED]), created=float(created),
        moves=decode_moves(rules, fields.get(_LOG, "")), day=day,
        on_code=OnCode(code[0], bool(code[1]), bool(code[2]), code[3]) if code else None,
        party_part=PartyPart(tuple(json.loads(fields[_PLAYERS])))
        if _PLAYERS in fields else None,
        computer_part=ComputerPart(level[0], level[1],
                                   decode_moves(rules, fields.get(_COMPUTER, "")))
        if level else None,
        stream=fields.get(_STREAM, DEFAULT_STREAM),
        finished=_TOTAL in fields,
        total=int(fields[_TOTAL]) if _TOTAL in fields else None,
        finished_at=float(fields[_ENDED]) if _ENDED in fields else None,
        share=fields.get(_SHARE), submitted=fields.get(_SUBMITTED) == "1",
        extra={k: v for k, v in fields.items() if k not in _COMPACT},
        last_key=fields.get(_KEY),
        replayed=fields.get(_REPLAYED) == "1",
    )  # fmt: skip


#: The fields of the first form that are not kept as extras.
_FIRST_FORM = {"mode", "ruleset", "options", "player", "seed", "created", "target", "finished",
               "submitted", "date", "code", "total", "finished_at", "share", "practice",
               "closes_at", "moved_at", "players", "computer", "level", "engine"}  # fmt: skip


def _from_first_form(game_id: str, fields: Mapping[str, str], moves: Sequence[str]) -> Record:
    # Games written before the compact form: long field names, a JSON move list.
    code = fields.get("code")
    closes = fields.get("closes_at")
    on_code = None
    if code is not None:
        on_code = OnCode(code, fields.get("target") == "1", fields.get("practice") == "1",
                         float(closes) if closes is not None else None)  # fmt: skip
    mode = fields["mode"]
    computer = None
    if find_mode(mode).is_computer:
        entries = json.loads(fields.get("computer", "[]"))
        computer = ComputerPart(fields.get("level") or "medium", fields.get("engine"),
                                tuple(parse_entry(e) for e in entries))  # fmt: skip
    players = json.loads(fields["players"]) if "players" in fields else None
    return Record(
        id=game_id, mode=mode, ruleset=fields["ruleset"], options=json.loads(fields["options"]),
        player_id=fields["player"], seed_ref=fields["seed"], created=float(fields["created"]),
        moves=tuple(parse_entry(json.loads(m)) for m in moves),
        day=date.fromisoformat(fields["date"]) if "date" in fields else None,
        on_code=on_code, party_part=PartyPart(tuple(players)) if players else None,
        computer_part=computer, finished=fields.get("finished") == "1",
        total=int(fields["total"]) if "total" in fields else None,
        finished_at=float(fields["finished_at"]) if "finished_at" in fields else None,
        share=fields.get("share"), submitted=fields.get("submitted") == "1",
        extra={k: v for k, v in fields.items() if k not in _FIRST_FORM},
    )  # fmt: skip


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


def new_id(created: float | None = None) -> str:
    """A fresh unguessable game id that names the UTC day of *created* (unix seconds), so an
    archived game's file is found from its id alone; never starting with ``-`` (a command
    line would read it as an option: ``daily review release ID``). Without *created*, an id
    whose first characters are random, as ids were before they were dated.

    >>> at = datetime(2026, 12, 1, 9, tzinfo=UTC).timestamp()
    >>> game_id = new_id(at)
    >>> len(game_id), game_id[:3], id_day(game_id)
    (16, '05O', datetime.date(2026, 12, 1))
    """
    days = len(_BASE62) ** _DAY_CHARS
    number = -1
    if created is not None:
        number = (datetime.fromtimestamp(created, UTC).date() - ID_EPOCH).days
    if not 0 <= number < days:  # no day, or a clock before the epoch: undated
        number = secrets.randbelow(days)
    prefix = ""
    for _ in range(_DAY_CHARS):
        number, digit = divmod(number, len(_BASE62))
        prefix = _BASE62[digit] + prefix
    return prefix + secrets.token_urlsafe(10)[:_RANDOM_CHARS]


def id_day(game_id: str) -> date | None:
    """The day a game id of the dated form names, or None for an id of no such form.

    An id made before ids were dated (random characters) names a day too, by chance; such a
    game is archived with a marker (see :func:`is_dated`), so its id's day is never used.

    >>> id_day("05OAbCdEfGhIjKlM"), id_day("g1")
    (datetime.date(2026, 12, 1), None)
    """
    if len(game_id) != _DAY_CHARS + _RANDOM_CHARS:
        return None
    number = 0
    for char in game_id[:_DAY_CHARS]:
        digit = _BASE62.find(char)
        if digit < 0:
            return None
        number = number * len(_BASE62) + digit
    return ID_EPOCH + timedelta(days=number)


def is_dated(record: Record) -> bool:
    """Whether *record*'s id names the UTC day it was made (an id made by :func:`new_id`;
    an older random id names it only by a chance of one in 238,328)."""
    return id_day(record.id) == datetime.fromtimestamp(record.created, UTC).date()


@guarded
def start(
    client: redis.Redis, record: Record, lifetime_s: float, index_keys: Sequence[str] = ()
) -> tuple[Record, bool]:
    """Stores a new game; returns it and True, or the existing game and False.

    *index_keys* (one game per player and date, or per player and code; a daily played
    on its code takes both) are claimed all or none; if one names a game already, that
    game is returned instead. The game and its index keys expire unfinished after
    *lifetime_s* seconds (the service's :func:`daily.games.expires_in`).
    """
    ttl_ms = int(lifetime_s * 1000)
    # The game and the player's keys live on two cluster slots, so no transaction holds
    # both: a crash between leaves an unlisted game, which expires unfinished.
    pipe = client.pipeline(transaction=True)
    pipe.hset(keys.game(record.id), mapping=cast(Mapping[Any, Any], to_fields(record)))
    pipe.pexpire(keys.game(record.id), ttl_ms)
    pipe.execute()
    claim = client.register_script(_CLAIM)
    player_keys = [keys.player(record.player_id), keys.player_games(record.player_id)]
    index_ms = ttl_ms if index_keys else 0
    ttl_s = ttl_ms // 1000 + 1
    args: list[str | int | float] = [record.id, record.created, index_ms, ttl_s, MAX_LISTED_GAMES]
    existing = str(claim(keys=[*player_keys, *index_keys], args=args) or "")
    if not existing:
        return record, True
    # Somebody (a double click) started the same game first: keep theirs.
    client.delete(keys.game(record.id))
    found = load(client, existing)
    if found is None:
        raise DailyError(f"an index of player {record.player_id} names a missing game")
    return found, False


@guarded
def load(client: redis.Redis, game_id: str, archive: ArchiveReader | None = None) -> Record | None:
    """The game *game_id* with its move log, or None: one round trip (three, once, for a
    game still in the first form, whose moves are a list of their own).

    An archived game is read from *archive* (without one: None): from the day file its
    marker names, or, with no hash left, the day its id names.
    """
    fields: dict[str, str] = client.hgetall(keys.game(game_id))  # type: ignore[assignment]
    return _from_hash(client, game_id, fields, archive)


@guarded
def load_for(
    client: redis.Redis,
    game_id: str,
    player_id: str,
    archive: ArchiveReader | None = None,
    counting: Sequence[counters.Counter] = (),
) -> tuple[Record | None, bool, tuple[counters.Count, ...]]:
    """The game *game_id* (as :func:`load` reads it), whether *player_id* was deleted, and
    the request counted on the rate limits' *counting*, all in one round trip: a move's own
    request needs all three, and pays for one."""
    pipe = client.pipeline(transaction=False)  # several slots: one round trip per node
    pipe.hgetall(keys.game(game_id))
    pipe.hexists(keys.player(player_id), players.DELETED)
    groups = counters.queue(pipe, counting)
    fields, deleted, *replies = pipe.execute()
    counts = counters.read(groups, replies)
    if deleted:
        return None, True, counts
    return _from_hash(client, game_id, cast(dict[str, str], fields), archive), False, counts


def _from_hash(
    client: redis.Redis, game_id: str, fields: dict[str, str], archive: ArchiveReader | None
) -> Record | None:
    if not fields:
        day = id_day(game_id) if archive else None
        return archive(game_id, day) if archive and day else None
    if _ARCHIVED in fields:
        return archive(game_id, date.fromisoformat(fields[_ARCHIVED])) if archive else None
    if _HEADER in fields:
        return from_fields(game_id, fields)
    # A game of the first form is rewritten in the compact form the first time it is read,
    # so every write after this one finds the short field names.
    moves = cast(list[str], client.lrange(keys.game_moves(game_id), 0, -1))
    record = from_fields(game_id, fields, moves)
    migrate(client, record)
    return record


@guarded
def load_many(
    client: redis.Redis, game_ids: Sequence[str], archive: ArchiveReader | None = None
) -> list[Record | None]:
    """The games *game_ids* in their order (None where missing): their hashes read in one
    pipeline, so a page listing a player's games costs one round trip, not one a game. A game
    that needs more (the first form, an archived one) is read as :func:`load` reads it."""
    found: list[Record | None] = []
    for game_id, where in zip(game_ids, locate_many(client, game_ids), strict=True):
        if isinstance(where, Record):
            found.append(where)
        else:
            found.append(archive(game_id, where) if archive and where else None)
    return found


@guarded
def locate_many(client: redis.Redis, game_ids: Sequence[str]) -> list[Record | date | None]:
    """Each of *game_ids* in Redis (its record), or archived (the day of its file: its
    marker's, else its id's: whether the archive holds it is the archive's to say), or None
    (an id of no dated form that Redis does not hold). One pipeline for all."""
    pipe = client.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.hgetall(keys.game(game_id))
    found: list[Record | date | None] = []
    for game_id, fields in zip(game_ids, pipe.execute(), strict=True):
        if not fields:
            found.append(id_day(game_id))
        elif _ARCHIVED in fields:
            found.append(date.fromisoformat(fields[_ARCHIVED]))
        elif _HEADER in fields:
            found.append(from_fields(game_id, fields))
        else:
            found.append(load(client, game_id))  # the first form: rewritten as it is read
    return found


@guarded
def index_lookup(
    client: redis.Redis, index_key: str, archive: ArchiveReader | None = None
) -> Record | None:
    """The game an index key (a player's daily or friend game) names, or None."""
    game_id = client.get(index_key)
    return load(client, str(game_id), archive) if game_id else None


@guarded
def archived_day(client: redis.Redis, game_id: str) -> date | None:
    """The day file an archived game is in; None if it is not archived."""
    day = client.hget(keys.game(game_id), _ARCHIVED)
    return date.fromisoformat(str(day)) if day else None


@guarded
def finished_before(client: redis.Redis, before: float, limit: int, skip: int = 0) -> list[str]:
    """Up to *limit* finished, unarchived game ids that finished before *before* (unix s),
    oldest first, after the *skip* oldest."""
    found = client.zrangebyscore(keys.games_finished(), "-inf", before, start=skip, num=limit)
    return [str(game_id) for game_id in cast(list[str], found)]


@guarded
def mark_archived(client: redis.Redis, record: Record, day: date) -> bool:
    """Takes a finished, counted game out of Redis, archived in *day*'s file: a dated game
    (:func:`is_dated`, filed on its id's day) leaves nothing, any other a marker naming
    *day*. False (nothing changed) for a game not finished, not counted, held for review,
    or whose luck verdict changed since *record* was read."""
    dated = is_dated(record) and id_day(record.id) == day
    args = [day.isoformat(), "1" if dated else "0", "1" if "luck" in record.extra else "0"]
    script = client.register_script(_ARCHIVE)
    return bool(script(keys=[keys.game(record.id)], args=args))


def index_keys_of(record: Record) -> list[str]:
    """The player's index keys that may name *record* (its day's, its code's)."""
    found = []
    if record.day is not None:
        found.append(keys.player_daily(record.player_id, record.day.isoformat()))
        found.append(keys.player_practice(record.player_id, record.day.isoformat()))
    if record.code is not None:
        found.append(keys.player_friend(record.player_id, record.code))
    return found


def month_of(record: Record) -> str:
    """The month (``YYYY-MM``) whose list of archived dailies holds *record*: its puzzle's
    day's, else the UTC day it was made."""
    day = record.day or datetime.fromtimestamp(record.created, UTC).date()
    return day.isoformat()[:7]


def is_listed_archived(record: Record) -> bool:
    """Whether the player's month list keeps *record* once archived: a ranked daily, what
    their history, stats and advent doors read; any other game is found by its id alone."""
    return record.kind.one_per is OnePer.DAY and not record.practice


@dataclass(frozen=True, slots=True)
class ArchivedDaily:
    """What a player's month list keeps of an archived ranked daily: what their history,
    stats and advent doors show, so that they read no archive file."""

    game_id: str
    day: date
    total: int
    bonus: bool  # the upper section's bonus reached

    def entry(self) -> str:
        """The entry on the month list: ``id:day of the month:total:bonus``.

        >>> ArchivedDaily("05OAbCdEfGhIjKlM", date(2026, 12, 3), 287, True).entry()
        '05OAbCdEfGhIjKlM:03:287:1'
        """
        return f"{self.game_id}:{self.day.day:02d}:{self.total}:{int(self.bonus)}"

    @classmethod
    def parse(cls, entry: str, month: str) -> ArchivedDaily:
        """An entry of the list of *month* (``YYYY-MM``) read back.

        >>> ArchivedDaily.parse("05OAbCdEfGhIjKlM:03:287:1", "2026-12").day
        datetime.date(2026, 12, 3)
        """
        game_id, day, total, bonus = entry.rsplit(":", 3)
        return cls(game_id, date.fromisoformat(f"{month}-{day}"), int(total), bonus == "1")


@guarded
def unindex_archived(
    client: redis.Redis, record: Record, drop_index: bool, bonus: bool = False
) -> None:
    """Moves an archived game off its player's list of games, a ranked daily (its upper
    *bonus* reached or not) onto their month's list of archived dailies; with *drop_index*,
    its index keys (its day's, its code's) go too. Idempotent: a game is listed once
    however often this runs."""
    player = record.player_id
    player_keys = [keys.player_games(player), keys.player_keys(player),
                   keys.player_archived(player, month_of(record))]  # fmt: skip
    index = index_keys_of(record) if drop_index else []
    entry = ""
    if is_listed_archived(record) and record.day is not None and record.total is not None:
        entry = ArchivedDaily(record.id, record.day, record.total, bonus).entry()
    script = client.register_script(_UNINDEX)
    script(keys=[*player_keys, *index], args=[record.id, entry])


@guarded
def archived_of(client: redis.Redis, player_id: str, months: Sequence[str]) -> list[ArchivedDaily]:
    """*player_id*'s archived dailies of *months* (``YYYY-MM``), in their order, each
    month's in the order archived."""
    if not months:
        return []
    lists = client.mget([keys.player_archived(player_id, month) for month in months])
    return [ArchivedDaily.parse(entry, month)
            for month, listed in zip(months, lists, strict=True) if listed
            for entry in str(listed).split()]  # fmt: skip


@guarded
def unlist_finished(client: redis.Redis, game_ids: Sequence[str]) -> None:
    """Takes archived (or vanished) games off the list the archiver reads."""
    if game_ids:
        client.zrem(keys.games_finished(), *game_ids)


@guarded
def claim_archiver(client: redis.Redis, token: str, lock_s: float) -> bool:
    """Whether this process may archive now: one lock over every host, for *lock_s* at most."""
    return bool(client.set(keys.archive_lock(), token, nx=True, px=int(lock_s * 1000)))


@guarded
def release_archiver(client: redis.Redis, token: str) -> None:
    """Frees the archiver's lock if this process (*token*) still holds it."""
    script = client.register_script(_RELEASE)
    script(keys=[keys.archive_lock()], args=[token])


@guarded
def games_of(client: redis.Redis, player_id: str, limit: int = 50) -> list[str]:
    """A player's game ids, newest first."""
    return [str(g) for g in client.zrevrange(keys.player_games(player_id), 0, limit - 1)]


def append(
    client: redis.Redis,
    record: Record,
    move: Move,
    state: GameState | parties.Party,
    *,
    now: float,
    lifetime_s: float,
    key: str = "",
) -> Record:
    """Stores one replayed *move* that leads to *state* at *now* (unix seconds); returns the
    new record. An unfinished game then expires after *lifetime_s* seconds.

    The log must still be the one *record* holds (else :class:`MoveConflict`); *key*, a
    request's idempotency digest, that names the last move stored means the request was
    applied already (:class:`AlreadyApplied`). A finishing move is listed as pending
    first, so no crash between storing and counting it loses the result.
    """
    if state.is_finished:
        _mark_pending(client, record.id, now)
    _append(client, record, move, state, now, key, lifetime_s)
    return _with_move(record, move, state, now, key)


#: The refusal of a move that does not follow the stored log.
CHANGED = "the game changed meanwhile (a move was sent twice?); reload it"


@guarded
def _mark_pending(client: redis.Redis, game_id: str, now: float) -> None:
    # Listed before the finishing move is stored, so no crash can lose the result.
    client.zadd(keys.pending_results(), {game_id: now})


@guarded
def _append(
    client: redis.Redis,
    record: Record,
    move: Move,
    state: GameState | parties.Party,
    now: float,
    key: str,
    ttl_s: float,
) -> None:
    args: list[str | int | float] = [
        len(record.moves),
        encode_move(record.rules, move),
        "1" if state.is_finished else "0",
        state.total,
        repr(round(now, 3)),
        int(ttl_s * 1000),
        key,
    ]
    script = client.register_script(_APPEND)
    result = int(script(keys=[keys.game(record.id)], args=args))
    if result == -4 and migrate(client, record):  # the first form: rewritten, then again
        result = int(script(keys=[keys.game(record.id)], args=args))
    if result == -5:
        raise AlreadyApplied(f"the request was applied already as move {len(record.moves)}")
    if result < 0:
        raise MoveConflict(CHANGED, moves=len(record.moves))


@guarded
def migrate(client: redis.Redis, record: Record) -> bool:
    """Rewrites a game stored in the first form in the compact form (as *record*, read
    from it); False if it is not in the first form (any more)."""
    flat = [x for pair in to_fields(record).items() for x in pair]
    script = client.register_script(_MIGRATE)
    return bool(script(keys=[keys.game(record.id), keys.game_moves(record.id)], args=flat))


def _with_move(
    record: Record, move: Move, state: GameState | parties.Party, now: float, key: str
) -> Record:
    moves = (*record.moves, move)
    last_key = key or None
    if not state.is_finished:
        return dataclasses.replace(record, moves=moves, last_key=last_key)
    return dataclasses.replace(record, moves=moves, last_key=last_key, finished=True,
                               total=state.total, finished_at=round(now, 3))  # fmt: skip


@guarded
def keep(client: redis.Redis, record: Record) -> None:
    """Keeps a finished game's player for good: their record, game list and index keys
    (with the set that lists those), in one round trip."""
    index_keys = []
    if record.day is not None:
        index_keys.append(keys.player_daily(record.player_id, record.day.isoformat()))
    if record.code is not None:
        index_keys.append(keys.player_friend(record.player_id, record.code))
    player_keys = [keys.player(record.player_id), keys.player_games(record.player_id)]
    if index_keys:
        player_keys.append(keys.player_keys(record.player_id))
    pipe = client.pipeline(transaction=False)  # two slots: the player's, the archiver's list
    queue_script(pipe, _KEEP, [*player_keys, *index_keys], [record.id, len(player_keys)])
    if record.finished_at is not None:  # the archiver moves it out of Redis when it is old
        pipe.zadd(keys.games_finished(), {record.id: record.finished_at}, nx=True)
    pipe.execute()


@guarded
def share_code(client: redis.Redis, config: Config, record: Record) -> str:
    """The one share code of a finished daily or solo game, made by whoever comes first."""
    code = create_code(client, config, record.player_id, record.ruleset, record.options,
                       record.seed_ref, record.id, day=record.day)  # fmt: skip
    if client.hsetnx(keys.game(record.id), _SHARE, code):
        return code
    # A concurrent finish made one first: theirs stands, ours is dropped unseen.
    client.delete(keys.friend_code(code))
    client.zrem(keys.player_codes(record.player_id), code)
    return str(client.hget(keys.game(record.id), _SHARE))


@guarded
def submit(
    client: redis.Redis, config: Config, record: Record, results: Sequence[boards.Result]
) -> None:
    """Counts a finished game on the boards of *results*, then clears it from the pending list.

    Which results count (none for a game held for review) is the review flow's decision
    (:func:`daily.reviews.submit`). Every board step is a no-op when repeated.
    """
    for result in results:
        boards.submit(
            client, result, retention_days=config.board_retention_days, zone=config.timezone
        )
        # A daily also counts on each of its player's leagues (docs/rankings.md, Leagues).
        leagues.count(client, result, zone=config.timezone)
    # In this order, one after the other (two cluster slots): a crash between leaves a
    # counted game listed as pending, which the game service's retry_pending clears.
    client.hset(keys.game(record.id), _SUBMITTED, "1")
    client.zrem(keys.pending_results(), record.id)


@guarded
def pending(client: redis.Redis, listed_before: float) -> list[tuple[str, float]]:
    """The games listed as pending before *listed_before* (unix seconds), with when."""
    found = client.zrangebyscore(keys.pending_results(), "-inf", listed_before, withscores=True)
    return [(str(game_id), float(at)) for game_id, at in cast(list[tuple[str, float]], found)]


@guarded
def unlist_pending(client: redis.Redis, game_id: str) -> None:
    """Takes *game_id* off the pending list (counted, or never finished)."""
    client.zrem(keys.pending_results(), game_id)


@guarded
def claim_sweep(client: redis.Redis, interval_s: float) -> bool:
    """Whether this process may sweep now: one short-lived lock key over every worker."""
    return bool(client.set(keys.pending_sweep(), "1", nx=True, ex=int(interval_s)))


@guarded
def set_computer(client: redis.Redis, record: Record, moves: Sequence[Move]) -> Record:
    """Stores the computer's moves of a computer game (derived: every writer writes the same)."""
    client.hset(keys.game(record.id), _COMPUTER, encode_moves(record.rules, moves))
    part = record.computer_part or ComputerPart("medium")
    return dataclasses.replace(record, computer_part=dataclasses.replace(part, moves=tuple(moves)))


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
