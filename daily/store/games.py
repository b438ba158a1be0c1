"""Games in Redis: a game is its settings plus its move log, verified by replay.

This module only persists; the flow (which move, when a game finishes, the sweeps) is the
game service's (:mod:`daily.games`). A move the service has replayed is appended by a Lua
script only if the log still has the length the replay saw: a concurrent or out-of-order
move changes nothing. A finished game is listed as pending until the rankings have counted
it, so a crash between finishing and counting is repaired by the service's sweep.

Nothing here grows without bound: an unfinished game expires at its deadline (a ranked
game) or when idle (``Config.idle_lifetime``), and so do a guest's keys until they
finish a game; a finished game, and its player, are kept.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from typing import Any, cast

import redis

from daily import dice
from daily import party as parties
from daily.codes import new_code
from daily.config import Config
from daily.errors import ConflictError, DailyError
from daily.modes import BoardKind, Mode, OnePer, find_mode
from daily.rules import (
    DiceSource,
    GameState,
    Move,
    Roll,
    Ruleset,
    Score,
    find_ruleset,
    replay,
)
from daily.store import boards, keys
from daily.store.guard import guarded

log = logging.getLogger(__name__)

#: A move sent without its index that repeats the game's last move this soon (seconds) is
#: taken for a duplicate of it, not a second roll: send the index to repeat a hold on purpose.
DUPLICATE_WINDOW_S = 2.0
#: A player's list of games keeps this many newest ids (their pages show 50).
MAX_LISTED_GAMES = 1000

# Appends one move if the game is not finished, its log has the expected length and,
# for a move sent without its index (ARGV[6] its arrival, -1 when indexed), nothing was
# stored since that request arrived and it does not repeat the last move within
# ARGV[9] seconds: a concurrent duplicate is refused, not played twice.
# Marks the game finished in the same step when the move ends it, and keeps it for good
# then; an unfinished game's expiry moves on (ARGV[8] ms from now; 0: none).
_APPEND = """
if redis.call('HGET', KEYS[1], 'finished') ~= '0' then return -1 end
if redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[1]) then return -2 end
local arrived = tonumber(ARGV[6])
local moved = tonumber(redis.call('HGET', KEYS[1], 'moved_at') or '0')
if arrived >= 0 then
  if moved >= arrived then return -3 end
  local last = redis.call('LINDEX', KEYS[2], -1)
  if last == ARGV[2] and tonumber(ARGV[7]) - moved < tonumber(ARGV[9]) then return -3 end
end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'moved_at', ARGV[7])
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'finished', '1', 'total', ARGV[4], 'finished_at', ARGV[5])
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
elseif tonumber(ARGV[8]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
  redis.call('PEXPIRE', KEYS[2], ARGV[8])
end
return redis.call('LLEN', KEYS[2])
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

# Creates a hash only if the key is new (friend codes: a collision retries).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class MoveConflict(ConflictError):
    """The move does not follow the stored log (a stale, repeated or concurrent move)."""


@dataclass(frozen=True, slots=True)
class Record:
    """A stored game: mode, ruleset, seed reference, player and the move log."""

    id: str
    mode: str
    ruleset: str
    options: Mapping[str, Any]
    player_id: str
    seed_ref: str  # see daily.dice.seed_from_ref
    created: float
    moves: tuple[dict[str, Any], ...] = ()
    day: date | None = None  # daily games
    code: str | None = None  # friend games: the normalized code
    target: bool = False  # friend games: the creator's score is shown
    finished: bool = False
    total: int | None = None
    finished_at: float | None = None
    share: str | None = None  # the friend code that replays this game's dice
    submitted: bool = False  # the result has been counted by the rankings
    practice: bool = False  # played on a closed code: on no board
    closes_at: float | None = None  # games on a code: when the code stopped being ranked
    moved_at: float = 0.0  # wall-clock time the last move was stored (see play)
    players: tuple[str, ...] = ()  # party games: every player's name, in turn order
    level: str | None = None  # computer games: the bot's level
    engine: str | None = None  # computer games: "exact" or "heuristic", chosen at the start
    computer_moves: tuple[dict[str, Any], ...] = ()  # computer games: the bot's moves so far
    stream: str = "v1"  # the dice stream (daily.dice.VERSIONS); stored records without one: v1
    extra: Mapping[str, str] = field(default_factory=dict)  # other fields (review, luck...)

    @property
    def kind(self) -> Mode:
        """The description of the game's mode."""
        return find_mode(self.mode)

    @property
    def is_ranked(self) -> bool:
        """Whether the game counts on a board (a daily, or a friend game on an open code)."""
        return self.kind.is_ranked and not self.practice

    @property
    def rules(self) -> Ruleset:
        """The ruleset with the game's options applied."""
        return find_ruleset(self.ruleset, self.options)

    def state(self, secret: str) -> GameState:
        """Replays the move log; raises :class:`~daily.errors.ReplayError` if it is corrupt.

        A party game's state is the sheet of the player whose turn it is.
        """
        if self.kind.is_party:
            return self.party(secret).state
        return replay(self.rules, self.source(secret), [_stored_move(m) for m in self.moves])

    def source(self, secret: str) -> DiceSource:
        """The game's dice: its seed in its stream version (a party's are per player)."""
        return dice.stream(dice.seed_from_ref(self.seed_ref, secret), self.stream)

    def party(self, secret: str) -> parties.Party:
        """Replays a party game's log: every player's sheet and whose turn it is."""
        seed = dice.seed_from_ref(self.seed_ref, secret)
        return parties.replay(
            self.rules, list(self.players), seed, [_stored_move(m) for m in self.moves],
            self.stream,
        )  # fmt: skip

    def to_fields(self) -> dict[str, str]:
        """The hash fields that store the record (the moves live in their own list)."""
        fields = {
            "mode": self.mode,
            "ruleset": self.ruleset,
            "options": json.dumps(dict(self.options)),
            "player": self.player_id,
            "seed": self.seed_ref,
            "created": repr(self.created),
            "target": "1" if self.target else "0",
            "finished": "1" if self.finished else "0",
            "submitted": "1" if self.submitted else "0",
            "practice": "1" if self.practice else "0",
            **self.extra,
        }
        if self.stream != "v1":
            fields["stream"] = self.stream
        if self.players:
            fields["players"] = json.dumps(list(self.players))
        if self.level is not None:
            fields["level"] = self.level
        if self.engine is not None:
            fields["engine"] = self.engine
        if self.kind.is_computer:
            fields["computer"] = json.dumps(list(self.computer_moves))
        if self.closes_at is not None:
            fields["closes_at"] = repr(self.closes_at)
        if self.day:
            fields["date"] = self.day.isoformat()
        if self.code:
            fields["code"] = self.code
        return fields

    @classmethod
    def from_fields(cls, game_id: str, fields: Mapping[str, str], moves: Sequence[str]) -> Record:
        """Reads a record back from its hash fields and move list."""
        known = {"mode", "ruleset", "options", "player", "seed", "created", "target", "finished",
                 "submitted", "date", "code", "total", "finished_at", "share", "practice",
                 "closes_at", "moved_at", "players", "computer", "level", "engine",
                 "stream"}  # fmt: skip
        return cls(
            id=game_id,
            mode=fields["mode"],
            ruleset=fields["ruleset"],
            options=json.loads(fields["options"]),
            player_id=fields["player"],
            seed_ref=fields["seed"],
            created=float(fields["created"]),
            moves=tuple(json.loads(m) for m in moves),
            day=date.fromisoformat(fields["date"]) if "date" in fields else None,
            code=fields.get("code"),
            target=fields.get("target") == "1",
            finished=fields.get("finished") == "1",
            total=int(fields["total"]) if "total" in fields else None,
            finished_at=float(fields["finished_at"]) if "finished_at" in fields else None,
            share=fields.get("share"),
            submitted=fields.get("submitted") == "1",
            practice=fields.get("practice") == "1",
            closes_at=float(fields["closes_at"]) if "closes_at" in fields else None,
            moved_at=float(fields.get("moved_at", 0.0)),
            players=tuple(json.loads(fields.get("players", "[]"))),
            level=fields.get("level"),
            engine=fields.get("engine"),
            computer_moves=tuple(json.loads(fields.get("computer", "[]"))),
            stream=fields.get("stream", "v1"),
            extra={k: v for k, v in fields.items() if k not in known},
        )


def _stored_move(entry: Mapping[str, Any]) -> Move:
    # The log holds only moves written by Move.to_dict after they replayed, so the
    # full checks of parse_move are skipped; apply() still checks every move.
    if "hold" in entry:
        return Roll(tuple(entry["hold"]))
    return Score(entry["score"])


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
    client: redis.Redis, config: Config, record: Record, index_keys: Sequence[str] = ()
) -> tuple[Record, bool]:
    """Stores a new game; returns it and True, or the existing game and False.

    *index_keys* (one game per player and date, or per player and code; a daily played
    on its code takes both) are claimed all or none; if one names a game already, that
    game is returned instead. An unfinished game expires at its deadline, or when idle.
    """
    ttl_ms = int(expires_in(record, config) * 1000)
    # The game and the player's keys live on two cluster slots, so no transaction holds
    # both: a crash between leaves an unlisted game, which expires unfinished.
    pipe = client.pipeline(transaction=True)
    pipe.hset(keys.game(record.id), mapping=cast(Mapping[Any, Any], record.to_fields()))
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


#: An unfinished game is kept at least this long (seconds), even at its deadline.
MIN_KEEP_S = 60.0


def expires_in(record: Record, config: Config) -> float:
    """Seconds until an unfinished *record* is dropped: at its deadline if ranked, else
    when idle for ``config.idle_lifetime``.

    Relative, not a date: Redis counts it on its own clock, and the configured clock may
    be frozen (``DAILY_NOW``, tests).
    """
    deadline = deadline_of(record, config)
    if deadline is None:
        return config.idle_lifetime.total_seconds()
    return max(MIN_KEEP_S, (deadline - config.now()).total_seconds())


def deadline_of(record: Record, config: Config) -> datetime | None:
    """When a ranked game stops: its day's or its code's reveal; None for unranked games."""
    if record.practice:
        return None
    if record.kind.one_per is OnePer.DAY and record.day is not None:
        return dice.Day(record.day, config.timezone).reveals_at
    if record.kind.one_per is OnePer.CODE and record.closes_at is not None:
        return _at(record.closes_at) + dice.REVEAL_GRACE
    return None


@guarded
def load(client: redis.Redis, game_id: str) -> Record | None:
    """The game *game_id* with its move log, or None."""
    pipe = client.pipeline(transaction=True)
    pipe.hgetall(keys.game(game_id))
    pipe.lrange(keys.game_moves(game_id), 0, -1)
    fields, moves = pipe.execute()
    return Record.from_fields(game_id, fields, moves) if fields else None


@guarded
def index_lookup(client: redis.Redis, index_key: str) -> Record | None:
    """The game an index key (a player's daily or friend game) names, or None."""
    game_id = client.get(index_key)
    return load(client, str(game_id)) if game_id else None


@guarded
def games_of(client: redis.Redis, player_id: str, limit: int = 50) -> list[str]:
    """A player's game ids, newest first."""
    return [str(g) for g in client.zrevrange(keys.player_games(player_id), 0, limit - 1)]


def append(
    client: redis.Redis,
    config: Config,
    record: Record,
    entry: dict[str, Any],
    state: GameState | parties.Party,
    since: float,
) -> Record:
    """Stores one replayed move (*entry*) that leads to *state*; returns the new record.

    *since* is the arrival of a request sent without the move's index (-1: indexed): a
    move stored meanwhile, or the same move just before, refuses this one
    (:class:`MoveConflict`). A finishing move is listed as pending first, so no crash
    between storing and counting it loses the result.
    """
    now = config.now().timestamp()
    if state.is_finished:
        _mark_pending(client, record.id, now)
    _append(client, record, entry, state, now, since, expires_in(record, config))
    return _with_move(record, entry, state, now)


#: The refusal of a move that raced another copy of itself.
RACED = "another move reached the game while this one was on its way (sent twice?); reload it"


@guarded
def _mark_pending(client: redis.Redis, game_id: str, now: float) -> None:
    # Listed before the finishing move is stored, so no crash can lose the result.
    client.zadd(keys.pending_results(), {game_id: now})


@guarded
def _append(
    client: redis.Redis,
    record: Record,
    entry: dict[str, Any],
    state: GameState | parties.Party,
    now: float,
    since: float,
    ttl_s: float,
) -> None:
    finished = "1" if state.is_finished else "0"
    # The wall clock, not the configured one (frozen in tests and demos): it orders requests.
    args: list[str | int | float] = [
        len(record.moves),
        json.dumps(entry),
        finished,
        state.total,
        now,
        repr(since),
        repr(time.time()),
        int(ttl_s * 1000),
        DUPLICATE_WINDOW_S,
    ]
    script = client.register_script(_APPEND)
    result = int(script(keys=[keys.game(record.id), keys.game_moves(record.id)], args=args))
    moves = len(record.moves)
    if result == -3:
        raise MoveConflict(RACED, moves=moves)
    if result < 0:
        raise MoveConflict("the game changed meanwhile (a move was sent twice?); reload it",
                           moves=moves)  # fmt: skip


def _with_move(
    record: Record, entry: dict[str, Any], state: GameState | parties.Party, now: float
) -> Record:
    moves = (*record.moves, entry)
    if not state.is_finished:
        return dataclasses.replace(record, moves=moves)
    return dataclasses.replace(
        record, moves=moves, finished=True, total=state.total, finished_at=now
    )


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


@guarded
def share_code(client: redis.Redis, config: Config, record: Record) -> str:
    """The one share code of a finished daily or solo game, made by whoever comes first."""
    code = create_code(client, config, record.player_id, record.ruleset, record.options,
                       record.seed_ref, record.id, day=record.day)  # fmt: skip
    if client.hsetnx(keys.game(record.id), "share", code):
        return code
    # A concurrent finish made one first: theirs stands, ours is dropped unseen.
    client.delete(keys.friend_code(code))
    return str(client.hget(keys.game(record.id), "share"))


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
    # In this order, one after the other (two cluster slots): a crash between leaves a
    # counted game listed as pending, which the game service's retry_pending clears.
    client.hset(keys.game(record.id), "submitted", "1")
    client.zrem(keys.pending_results(), record.id)


def results_of(record: Record) -> list[boards.Result]:
    """What a finished game puts on the boards: its day's or code's result, and the code
    boards it opens (the share code made from it, the code a daily was played on)."""
    if record.practice or record.total is None:
        return []
    found = []
    if record.is_ranked:
        found.append(result_of(record))
    # A daily played on a friend's code also counts on that code's board (ZADD NX: once).
    codes = [record.code] if record.kind.board is BoardKind.DAILY and record.code else []
    if record.kind.shares and record.share:
        codes.append(record.share)  # the creator's own game opens its code's board
    for code in codes:
        found.append(
            dataclasses.replace(result_of(record), mode=BoardKind.FRIEND, day=None, code=code)
        )
    return found


def result_of(record: Record) -> boards.Result:
    """The rankings' view of a finished game."""
    if record.total is None or record.finished_at is None:
        raise DailyError(f"game {record.id} is not finished")
    return boards.Result(
        game_id=record.id,
        player_id=record.player_id,
        mode=record.mode,
        total=record.total,
        finished_at=record.finished_at,
        day=record.day,
        code=record.code,
    )


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
    entries = tuple(move.to_dict() for move in moves)
    client.hset(keys.game(record.id), "computer", json.dumps(list(entries)))
    return dataclasses.replace(record, computer_moves=entries)


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


def seed_reveals_at(client: redis.Redis, config: Config, record: Record) -> datetime | None:
    """When the seed of *record* may be published; None if no ranked board ever uses it.

    A day's seed: an hour after the day closes. A code's dice (its own seed, or the seed
    of the solo game it was made from): once the code's ranked games are over. A daily's
    code only replays the day, so the day decides. Unknown: never.
    """
    ref = dice.SeedRef.parse(record.seed_ref)
    if ref.day is not None:
        return dice.Day(ref.day, config.timezone).reveals_at
    shared = record.kind.shares and not record.kind.is_ranked  # a solo game's dice
    code = record.code or (record.share if shared else None)
    if code is not None:
        found = load_code(client, code)
        return found.practice_at(config.timezone) if found else datetime.max.replace(tzinfo=UTC)
    if ref.kind == "friend" or shared:
        return datetime.max.replace(tzinfo=UTC)  # a code or share not made (yet): keep it
    return None  # a party's or a computer game's own random seed: nobody else plays it


def is_seed_public(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether the seed of *record* may be shown now (see :func:`seed_reveals_at`)."""
    reveals = seed_reveals_at(client, config, record)
    return reveals is None or config.now() >= reveals


def board_of(record: Record) -> boards.Board | None:
    """The board a game counts on: its date's or its friend code's; None for unranked games."""
    if record.practice:
        return None
    if record.kind.board is BoardKind.DAILY and record.day is not None:
        return boards.Board.daily(record.day)
    if record.kind.board is BoardKind.FRIEND and record.code is not None:
        return boards.Board.friend(record.code)
    return None


def rank_of(client: redis.Redis, record: Record) -> int | None:
    """The rank of a finished game's player on its board, once counted."""
    board = board_of(record)
    if board is None or not record.submitted:
        return None
    entry = boards.rank_of(client, board, record.player_id)
    return entry.rank if entry else None
