"""Games in Redis: a game is its settings plus its move log, verified by replay.

This module only persists; the flow (which move, when a game finishes, the sweeps) is the
game service's (:mod:`daily.service.games`). A move the service has replayed is appended by a
Lua script only if the log still has the length the replay saw: a concurrent or out-of-order
move changes nothing. A finished game is listed as pending until the rankings have counted
it (:mod:`daily.store.pending_results`), so a crash between finishing and counting is
repaired by the service's sweep.

Nothing here grows without bound: an unfinished game expires after the lifetime the
service hands in (its deadline if ranked, else when idle), and so do a guest's keys until
they finish a game, and the friend code a game made until it finishes; an unfinished game
that no index holds goes once it falls off its player's list. A finished game, its code and
its player are kept (the archiver moves the game and its code out of Redis later).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any, cast

import redis

from daily.core import party
from daily.core.errors import AlreadyApplied, DailyError, MoveConflict
from daily.core.record import (
    ComputerPart,
    Record,
    encode_move,
    encode_moves,
)
from daily.core.rules import GameState, Move
from daily.store import counters, keys, played_days, players
from daily.store.connection import queue_script
from daily.store.game_fields import ARCHIVED, COMPUTER, HEADER, from_fields, id_day, to_fields
from daily.store.guard import guarded
from daily.store.pending_results import mark_pending

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


# Claims a player's index keys (KEYS[4..]: one game per date, per code) for game ARGV[1],
# all or none, lists them on the player's key set (KEYS[3]: deleting the player finds them)
# and lists the game (KEYS[2]); returns the game already there, or '', then the ids that
# fell off the list (it keeps the newest ARGV[5]). Every key shares the player's hash tag. A
# guest's keys (KEYS[1..3]) expire together, never before the new game does (ARGV[4]
# seconds from now); so do those of a player with no record (its keys have no owner).
_CLAIM = """
for i = 4, #KEYS do
  local found = redis.call('GET', KEYS[i])
  if found then return {found} end
end
for i = 4, #KEYS do
  if tonumber(ARGV[3]) > 0 then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[3])
  else
    redis.call('SET', KEYS[i], ARGV[1])
  end
  redis.call('SADD', KEYS[3], KEYS[i])
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local last = -1 - tonumber(ARGV[5])
local dropped = redis.call('ZRANGE', KEYS[2], 0, last)
if #dropped > 0 then redis.call('ZREMRANGEBYRANK', KEYS[2], 0, last) end
local ttl = redis.call('TTL', KEYS[1])
if ttl ~= -1 then
  ttl = math.max(ttl, tonumber(ARGV[4]))
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
  if #KEYS > 3 then
    redis.call('EXPIRE', KEYS[3], math.max(ttl, redis.call('TTL', KEYS[3])))
  end
end
return {'', unpack(dropped)}
"""


# Drops an unfinished game (KEYS[1]) that fell off its player's list; a game that finished
# meanwhile (field t), or is not in the compact form, stays.
_FORGET = """
if redis.call('HEXISTS', KEYS[1], 'h') == 0 or redis.call('HEXISTS', KEYS[1], 't') == 1 then
  return 0
end
return redis.call('DEL', KEYS[1])
"""


# Keeps the code a finished game made (KEYS[1]) for good, if it is that game's (ARGV[1]):
# until then it expires with the game.
_KEEP_CODE = """
if redis.call('HGET', KEYS[1], 'game') == ARGV[1] then return redis.call('PERSIST', KEYS[1]) end
return 0
"""


# Moves on the expiry of the code an unfinished game made (KEYS[1]), if it is that game's
# (ARGV[1]), to at least ARGV[2] ms from now: the code lives as long as its game.
_RENEW_CODE = """
if redis.call('HGET', KEYS[1], 'game') ~= ARGV[1] then return 0 end
local left = redis.call('PTTL', KEYS[1])
if left > 0 and left < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
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


#: Reads an archived game back: its id and the day of its file; None if not there.
ArchiveReader = Callable[[str, date], Record | None]


@guarded
def start(
    client: redis.Redis, record: Record, lifetime_s: float, index_keys: Sequence[str] = ()
) -> tuple[Record, bool]:
    """Stores a new game; returns it and True, or the existing game and False.

    *index_keys* (one game per player and date, or per player and code; a daily played
    on its code takes both) are claimed all or none, and listed on the player's key set;
    if one names a game already, that game is returned instead. The game and its index
    keys expire unfinished after *lifetime_s* seconds (the service's
    :func:`daily.service.games.expires_in`). An unfinished game that no index holds goes
    once it falls off the player's list of :data:`MAX_LISTED_GAMES` (nothing leads to it).
    """
    ttl_ms = int(lifetime_s * 1000)
    # The game and the player's keys live on two cluster slots, so no transaction holds
    # both: a crash between leaves an unlisted game, which expires unfinished.
    pipe = client.pipeline(transaction=True)
    pipe.hset(keys.game(record.id), mapping=cast(Mapping[Any, Any], to_fields(record)))
    pipe.pexpire(keys.game(record.id), ttl_ms)
    pipe.execute()
    claim = client.register_script(_CLAIM)
    player = record.player_id
    player_keys = [keys.player(player), keys.player_games(player), keys.player_keys(player)]
    index_ms = ttl_ms if index_keys else 0
    ttl_s = ttl_ms // 1000 + 1
    args: list[str | int | float] = [record.id, record.created, index_ms, ttl_s, MAX_LISTED_GAMES]
    existing, *dropped = [str(x or "") for x in claim(keys=[*player_keys, *index_keys], args=args)]
    if not existing:  # a clock gone back may drop the new game itself: it stays
        _forget_unfinished(client, [game_id for game_id in dropped if game_id != record.id])
        return record, True
    # Somebody (a double click) started the same game first: keep theirs.
    client.delete(keys.game(record.id))
    found = load(client, existing)
    if found is None:
        raise DailyError(f"an index of player {record.player_id} names a missing game")
    return found, False


def _forget_unfinished(client: redis.Redis, game_ids: Sequence[str]) -> None:
    """Drops the unfinished games among *game_ids* (off their player's list) that no index
    holds: a ranked game's index must keep naming it until its deadline."""
    if not game_ids:
        return
    pipe = client.pipeline(transaction=False)  # one slot a game
    for game_id, fields in zip(game_ids, locate_many(client, game_ids), strict=True):
        if isinstance(fields, Record) and not fields.finished and fields.kind.one_per is None:
            queue_script(pipe, _FORGET, [keys.game(game_id)], [])
    pipe.execute()


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
    if ARCHIVED in fields:
        return archive(game_id, date.fromisoformat(fields[ARCHIVED])) if archive else None
    if HEADER in fields:
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
        elif ARCHIVED in fields:
            found.append(date.fromisoformat(fields[ARCHIVED]))
        elif HEADER in fields:
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
def games_of(client: redis.Redis, player_id: str, limit: int = 50) -> list[str]:
    """A player's game ids, newest first."""
    return [str(g) for g in client.zrevrange(keys.player_games(player_id), 0, limit - 1)]


def append(
    client: redis.Redis,
    record: Record,
    move: Move,
    state: GameState | party.Party,
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
    first, so no crash between storing and counting it loses the result; a ranked daily's
    is then noted on its player's dailies (:mod:`daily.store.played_days`). The code an
    unfinished game made lives at least as long as the game.
    """
    if state.is_finished:
        mark_pending(client, record.id, now)
    _append(client, record, move, state, now, key, lifetime_s)
    after = _with_move(record, move, state, now, key)
    played = None
    if isinstance(state, GameState) and state.is_finished:
        played = played_days.of_record(after, state.bonus > 0)
    if played is not None:  # a crash before this is repaired when the game is archived
        played_days.note(client, record.player_id, played, datetime.fromtimestamp(now, UTC).date())
    elif record.code and record.practice and not state.is_finished:
        _renew_code(client, record, lifetime_s)
    return after


@guarded
def _renew_code(client: redis.Redis, record: Record, lifetime_s: float) -> None:
    # A practice game's lifetime moves on with each move; a ranked one's is its deadline,
    # which its code's first lifetime covers (daily.store.friend_codes.create_code).
    assert record.code is not None
    script = client.register_script(_RENEW_CODE)
    script(keys=[keys.friend_code(record.code)], args=[record.id, int(lifetime_s * 1000)])


#: The refusal of a move that does not follow the stored log.
CHANGED = "the game changed meanwhile (a move was sent twice?); reload it"


@guarded
def _append(
    client: redis.Redis,
    record: Record,
    move: Move,
    state: GameState | party.Party,
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
    record: Record, move: Move, state: GameState | party.Party, now: float, key: str
) -> Record:
    moves = (*record.moves, move)
    last_key = key or None
    if not state.is_finished:
        return dataclasses.replace(record, moves=moves, last_key=last_key)
    return dataclasses.replace(
        record,
        moves=moves,
        last_key=last_key,
        finished=True,
        total=state.total,
        finished_at=round(now, 3),
    )


@guarded
def keep(client: redis.Redis, record: Record) -> None:
    """Keeps a finished game's player for good: their record, game list and index keys
    (with the set that lists those), and the friend code the game made, in one round trip."""
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
    if record.code is not None:  # with its game, when the archiver moves that
        queue_script(pipe, _KEEP_CODE, [keys.friend_code(record.code)], [record.id])
    pipe.execute()


@guarded
def set_computer(client: redis.Redis, record: Record, moves: Sequence[Move]) -> Record:
    """Stores the computer's moves of a computer game (derived: every writer writes the same)."""
    client.hset(keys.game(record.id), COMPUTER, encode_moves(record.rules, moves))
    part = record.computer_part or ComputerPart("medium")
    return dataclasses.replace(record, computer_part=dataclasses.replace(part, moves=tuple(moves)))
