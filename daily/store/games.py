"""Games in Redis: a game is its settings plus its move log, verified by replay.

Every move is checked by replaying the stored log plus the new move with the
rules engine, then appended by a Lua script only if the log still has the
length the replay saw: a concurrent or out-of-order move changes nothing.
A finished game is listed as pending until the rankings have counted it, so a
crash between finishing and counting is repaired by :func:`retry_pending`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, cast

import redis

from daily import dice
from daily import party as parties
from daily.codes import new_code
from daily.config import Config
from daily.errors import DailyError, IllegalMoveError, StorageError
from daily.rules import GameState, Move, Roll, Ruleset, Score, apply, find_ruleset, replay
from daily.store import boards, keys, reviews
from daily.store.guard import guarded

log = logging.getLogger(__name__)

#: Modes whose finished games count on the rankings.
RANKED_MODES = ("daily", "friend")
#: Modes whose finished games get a fresh friend code to share their dice.
SHARED_MODES = ("daily", "solo")
#: A pending game that is still unfinished after this long lost its finishing move.
PENDING_GRACE_S = 60.0
#: The pending results are swept at most this often (see :func:`sweep_pending`).
SWEEP_INTERVAL_S = 60.0

# Appends one move if the game is not finished and its log has the expected
# length; marks the game finished in the same step when the move ends it.
_APPEND = """
if redis.call('HGET', KEYS[1], 'finished') ~= '0' then return -1 end
if redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[1]) then return -2 end
redis.call('RPUSH', KEYS[2], ARGV[2])
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'finished', '1', 'total', ARGV[4], 'finished_at', ARGV[5])
end
return redis.call('LLEN', KEYS[2])
"""

# Creates a hash only if the key is new (friend codes: a collision retries).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class MoveConflict(DailyError):
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
    extra: Mapping[str, str] = field(default_factory=dict)  # mode-specific fields

    @property
    def rules(self) -> Ruleset:
        """The ruleset with the game's options applied."""
        return find_ruleset(self.ruleset, self.options)

    def state(self, secret: str) -> GameState:
        """Replays the move log; raises :class:`~daily.errors.ReplayError` if it is corrupt.

        A party game's state is the sheet of the player whose turn it is.
        """
        if self.mode == "party":
            return self.party(secret).state
        source = dice.stream(dice.seed_from_ref(self.seed_ref, secret))
        return replay(self.rules, source, [_stored_move(entry) for entry in self.moves])

    def party(self, secret: str) -> parties.Party:
        """Replays a party game's log: every player's sheet and whose turn it is."""
        names = json.loads(self.extra["players"])
        seed = dice.seed_from_ref(self.seed_ref, secret)
        return parties.replay(self.rules, names, seed, [_stored_move(m) for m in self.moves])

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
            **self.extra,
        }
        if self.day:
            fields["date"] = self.day.isoformat()
        if self.code:
            fields["code"] = self.code
        return fields

    @classmethod
    def from_fields(cls, game_id: str, fields: Mapping[str, str], moves: Sequence[str]) -> Record:
        """Reads a record back from its hash fields and move list."""
        known = {"mode", "ruleset", "options", "player", "seed", "created", "target", "finished",
                 "submitted", "date", "code", "total", "finished_at", "share"}  # fmt: skip
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
    """A friend code: the dice it names, its ruleset and who made it."""

    code: str
    ruleset: str
    options: Mapping[str, Any]
    creator: str
    game_id: str
    seed_ref: str


def new_id() -> str:
    """A fresh unguessable game id."""
    return secrets.token_urlsafe(12)


@guarded
def start(client: redis.Redis, record: Record, index_key: str | None = None) -> tuple[Record, bool]:
    """Stores a new game; returns it and True, or the existing game and False.

    *index_key* (one game per player and date, or per player and code) is set
    only if it is new; otherwise the game already there is returned instead.
    """
    # The game and the player's list live on two cluster slots, so no transaction holds
    # both: a crash between leaves an unlisted game, or a listed id that loads as None.
    pipe = client.pipeline(transaction=False)
    pipe.hset(keys.game(record.id), mapping=cast(Mapping[Any, Any], record.to_fields()))
    pipe.zadd(keys.player_games(record.player_id), {record.id: record.created})
    pipe.execute()
    if index_key is None or client.set(index_key, record.id, nx=True):
        return record, True
    # Somebody (a double click) started the same game first: keep theirs.
    client.delete(keys.game(record.id))
    client.zrem(keys.player_games(record.player_id), record.id)
    existing = client.get(index_key)
    found = load(client, str(existing)) if existing else None
    if found is None:
        raise DailyError(f"index {index_key!r} names a game that does not exist")
    return found, False


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


def play(
    client: redis.Redis, config: Config, record: Record, move: Move, expected: int | None = None
) -> tuple[Record, GameState]:
    """Applies *move* to the stored game; returns the new record and state.

    A party game's state is the sheet of the player to move next.

    *expected* is the number of moves the client has seen; a mismatch with
    the log raises :class:`MoveConflict` and changes nothing.
    """
    if record.finished:
        raise MoveConflict("the game is over")
    if expected is not None and expected != len(record.moves):
        raise MoveConflict(f"move {expected} was sent but the game is at move {len(record.moves)}")
    _check_open(record, config)
    state = _advance(record, move, config.secret_key)  # raises RulesError: nothing stored
    entry = move.to_dict()
    now = config.now().timestamp()
    if state.is_finished:
        _mark_pending(client, record.id, now)
    _append(client, record, entry, state, now)
    record = _with_move(record, entry, state, now)
    if state.is_finished:
        record = finish(client, config, record)
        # Every finish also sweeps up counts that a crash left behind a while ago; this
        # game is stored and counted, so a failing sweep must not fail its answer.
        try:
            retry_pending(client, config, min_age_s=PENDING_GRACE_S)
        except DailyError:
            log.exception("the sweep of pending results failed")
    return record, state.state if isinstance(state, parties.Party) else state


def _advance(record: Record, move: Move, secret: str) -> GameState | parties.Party:
    # A party's move goes to whoever's turn it is; the game ends when every sheet is full.
    if record.mode == "party":
        return parties.play(record.party(secret), move)
    return apply(record.state(secret), move)


def _check_open(record: Record, config: Config) -> None:
    if record.mode == "daily" and record.day is not None:
        if dice.Day(record.day, config.timezone).is_revealed(config.now()):
            raise IllegalMoveError(f"the daily puzzle of {record.day} is over")


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
) -> None:
    finished = "1" if state.is_finished else "0"
    args: list[str | int | float] = [
        len(record.moves),
        json.dumps(entry),
        finished,
        state.total,
        now,
    ]
    script = client.register_script(_APPEND)
    result = script(keys=[keys.game(record.id), keys.game_moves(record.id)], args=args)
    if int(result) < 0:
        raise MoveConflict("the game changed meanwhile (a move was sent twice?); reload it")


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
def finish(client: redis.Redis, config: Config, record: Record) -> Record:
    """Counts a finished game on the rankings and gives it a share code (idempotent)."""
    if record.mode in SHARED_MODES and record.share is None:
        code = create_code(client, record.player_id, record.ruleset, record.options,
                           record.seed_ref, record.id)  # fmt: skip
        client.hset(keys.game(record.id), "share", code)
        record = dataclasses.replace(record, share=code)
    if not record.submitted:
        submit(client, config, record)
        record = dataclasses.replace(record, submitted=True)
    return record


@guarded
def submit(client: redis.Redis, config: Config, record: Record) -> None:
    """Hands a finished ranked game to the rankings, then clears it from the pending list."""
    held = reviews.is_held(client, config, record)  # too lucky: kept off every public board
    if record.mode in RANKED_MODES and record.total is not None and not held:
        boards.submit(
            client,
            result_of(record),
            retention_days=config.board_retention_days,
            zone=config.timezone,
        )
    if record.mode in SHARED_MODES and record.share and record.total is not None and not held:
        # The creator's own game opens the board of the code made from it (ZADD NX: once).
        shared = dataclasses.replace(result_of(record), mode="friend", day=None, code=record.share)
        boards.submit(client, shared, retention_days=config.board_retention_days)
    # In this order, one after the other (two cluster slots): a crash between leaves a
    # counted game listed as pending, which retry_pending clears.
    client.hset(keys.game(record.id), "submitted", "1")
    client.zrem(keys.pending_results(), record.id)


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
def retry_pending(client: redis.Redis, config: Config, min_age_s: float = 0.0) -> int:
    """Counts every pending game listed at least *min_age_s* ago; returns how many."""
    counted = 0
    now = config.now().timestamp()
    listed = cast(
        list[tuple[str, float]],
        client.zrangebyscore(keys.pending_results(), "-inf", now - min_age_s, withscores=True),
    )
    for game_id, listed_at in listed:
        record = load(client, str(game_id))
        if record is not None and record.finished and not record.submitted:
            try:
                finish(client, config, record)
                counted += 1
            except StorageError:
                raise
            except DailyError:  # one bad record must not stop the sweep; it stays listed
                log.exception("could not count game %s", game_id)
        elif record is None or record.finished or now - listed_at > PENDING_GRACE_S:
            # Counted already, or the finishing move never landed (a refused or lost
            # move); a young entry may be a move still in flight, so it stays.
            client.zrem(keys.pending_results(), str(game_id))
    return counted


@guarded
def sweep_pending(client: redis.Redis, config: Config) -> int | None:
    """Runs :func:`retry_pending` if no process ran it in the last minute; None if skipped."""
    # Nothing is written while nothing is due; then one short-lived lock key makes it at
    # most once a minute over every worker and host.
    due = config.now().timestamp() - PENDING_GRACE_S
    if not client.zrangebyscore(keys.pending_results(), "-inf", due, start=0, num=1):
        return None
    if not client.set(keys.pending_sweep(), "1", nx=True, ex=int(SWEEP_INTERVAL_S)):
        return None
    return retry_pending(client, config, min_age_s=PENDING_GRACE_S)


@guarded
def set_computer(client: redis.Redis, record: Record, moves: Sequence[Move]) -> Record:
    """Stores the computer's moves of a computer game (derived: every writer writes the same)."""
    text = json.dumps([move.to_dict() for move in moves])
    client.hset(keys.game(record.id), "computer", text)
    return dataclasses.replace(record, extra={**record.extra, "computer": text})


@guarded
def create_code(
    client: redis.Redis,
    creator: str,
    ruleset: str,
    options: Mapping[str, Any],
    seed_ref: str | None,
    game_id: str,
) -> str:
    """Stores a fresh friend code; *seed_ref* None gives the code its own seed."""
    script = client.register_script(_CREATE)
    while True:
        code = new_code()
        fields = {
            "ruleset": ruleset,
            "options": json.dumps(dict(options)),
            "creator": creator,
            "game": game_id,
            "seed": seed_ref or f"friend:{code}",
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
    )


def board_of(record: Record) -> boards.Board | None:
    """The board a game counts on: its date's or its friend code's; None for unranked modes."""
    if record.mode == "daily" and record.day is not None:
        return boards.Board.daily(record.day)
    if record.mode == "friend" and record.code is not None:
        return boards.Board.friend(record.code)
    return None


def rank_of(client: redis.Redis, record: Record) -> int | None:
    """The rank of a finished game's player on its board, once counted."""
    board = board_of(record)
    if board is None or not record.submitted:
        return None
    entry = boards.rank_of(client, board, record.player_id)
    return entry.rank if entry else None
