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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
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
from daily.store import boards, keys, leagues
from daily.store.guard import guarded

__all__ = ["FriendCode", "MoveConflict", "Record"]  # Record: re-exported for old imports

log = logging.getLogger(__name__)

#: A player's list of games keeps this many newest ids (their pages show 50).
MAX_LISTED_GAMES = 1000

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

# Keeps a finished game's player for good: their record, game list, and the index keys
# (KEYS[3..]) that name game ARGV[1]. Every key shares the player's hash tag.
_KEEP = """
redis.call('PERSIST', KEYS[1])
redis.call('PERSIST', KEYS[2])
for i = 3, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('PERSIST', KEYS[i]) end
end
return 1
"""

# Replaces a finished, counted game's hash (KEYS[1]) by the archive marker: one field,
# the day file ARGV[1] that holds it. A game not finished, not counted or held for review
# is left as it is (0); one archived already answers 1 again.
_ARCHIVE = """
local found = redis.call('HMGET', KEYS[1], 'a', 'h', 't', 'u', 'review')
if found[1] then return 1 end
if not found[2] or not found[3] or found[4] ~= '1' or found[5] == 'held' then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'a', ARGV[1])
return 1
"""

# Deletes a lock (KEYS[1]) only if it still holds this holder's token (ARGV[1]).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

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

#: Reads an archived game back: its id and the day its marker names; None if not there.
ArchiveReader = Callable[[str, date], Record | None]


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


def new_id() -> str:
    """A fresh unguessable game id, never starting with ``-`` (a command line would read it
    as an option: ``daily review release ID``)."""
    while (game_id := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return game_id


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

    An archived game is read from *archive* (without one: None).
    """
    fields: dict[str, str] = client.hgetall(keys.game(game_id))  # type: ignore[assignment]
    if not fields:
        return None
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
    pipe = client.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.hgetall(keys.game(game_id))
    found: list[Record | None] = []
    for game_id, fields in zip(game_ids, pipe.execute(), strict=True):
        if fields and _HEADER in fields and _ARCHIVED not in fields:
            found.append(from_fields(game_id, fields))
        else:
            found.append(load(client, game_id, archive) if fields else None)
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
def finished_before(client: redis.Redis, before: float, limit: int) -> list[str]:
    """Up to *limit* finished, unarchived game ids that finished before *before* (unix s)."""
    found = client.zrangebyscore(keys.games_finished(), "-inf", before, start=0, num=limit)
    return [str(game_id) for game_id in cast(list[str], found)]


@guarded
def mark_archived(client: redis.Redis, game_id: str, day: date) -> bool:
    """Replaces a finished, counted game's hash by the marker naming *day*'s file; False
    (nothing changed) for a game not finished, not counted or held for review."""
    script = client.register_script(_ARCHIVE)
    return bool(script(keys=[keys.game(game_id)], args=[day.isoformat()]))


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
    """Keeps a finished game's player for good: their record, game list and index keys."""
    index_keys = []
    if record.day is not None:
        index_keys.append(keys.player_daily(record.player_id, record.day.isoformat()))
    if record.code is not None:
        index_keys.append(keys.player_friend(record.player_id, record.code))
    keep = client.register_script(_KEEP)
    player_keys = [keys.player(record.player_id), keys.player_games(record.player_id)]
    keep(keys=[*player_keys, *index_keys], args=[record.id])
    if record.finished_at is not None:  # the archiver moves it out of Redis when it is old
        client.zadd(keys.games_finished(), {record.id: record.finished_at}, nx=True)


@guarded
def share_code(client: redis.Redis, config: Config, record: Record) -> str:
    """The one share code of a finished daily or solo game, made by whoever comes first."""
    code = create_code(client, config, record.player_id, record.ruleset, record.options,
                       record.seed_ref, record.id, day=record.day)  # fmt: skip
    if client.hsetnx(keys.game(record.id), _SHARE, code):
        return code
    # A concurrent finish made one first: theirs stands, ours is dropped unseen.
    client.delete(keys.friend_code(code))
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
        if script(keys=[keys.friend_code(code)], args=flat):
            return code


@guarded
def load_code(client: redis.Redis, code: str) -> FriendCode | None:
    """The friend code *code* (normalized), or None if nobody made it."""
    fields: dict[str, str] = client.hgetall(keys.friend_code(code))  # type: ignore[assignment]
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
