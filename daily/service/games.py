"""The game service: starts, plays and views games, between the web layer and the store.

It holds the flow of a game (who may start what, whose turn it is, when the computer
plays, when a game finishes) and is pure but for the Redis client and the configuration
it is handed: no Flask here, and every write goes through :mod:`daily.store`. The web
layer parses a request, calls one function here and renders what it returns.

Nothing that only reads writes game state: the computer plays its turn in the request
that ends the player's turn (:func:`play`), and :func:`view` derives a lost computer turn
in memory. The one write a view may make is to count a finished game that a crash left
uncounted (:func:`finish`, idempotent), as the sweep would.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from daily.core import dice, ledger, party
from daily.core.config import Config
from daily.core.errors import (
    AlreadyApplied,
    BadInputError,
    ConflictError,
    DailyError,
    ErrorCode,
    IllegalMoveError,
    MoveConflict,
    NoStrategyError,
    NotAllowedError,
    StorageError,
    TableMissingError,
)
from daily.core.modes import OnePer
from daily.core.party import Party
from daily.core.record import Record
from daily.core.rules import GameState, Move, Score, apply
from daily.service import archive, results, reviews, tables
from daily.store import friend_codes, pending_results, players, saved_games
from daily.strategy import bots, computer

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis


log = logging.getLogger(__name__)

#: The level of a computer game that names none.
DEFAULT_LEVEL = "medium"


#: A pending game that is still unfinished after this long lost its finishing move.
PENDING_GRACE_S = 60.0


#: The pending results are swept at most this often (see :func:`sweep_pending`).
SWEEP_INTERVAL_S = 60.0


#: The longest idempotency key a request may carry.
MAX_KEY_LENGTH = 255


def idempotency_digest(key: str) -> str:
    """The short digest a game keeps of the idempotency key of its last move.

    >>> idempotency_digest("5f0c7b52-2a6e-4b8e-9a51-0e7c3f6a1d2b")
    'dUtKP_ccCL1d'
    """
    if not 0 < len(key) <= MAX_KEY_LENGTH or not key.isprintable():
        raise BadInputError(f"an Idempotency-Key is 1 to {MAX_KEY_LENGTH} printable characters")
    digest = hashlib.blake2b(key.encode(), digest_size=9).digest()
    return base64.urlsafe_b64encode(digest).decode()


def play(
    client: redis.Redis,
    config: Config,
    record: Record,
    move: Move,
    expected: int | None = None,
    key: str | None = None,
) -> tuple[Record, GameState]:
    """Applies *move* to the stored game; returns the new record and state.

    A party game's state is the sheet of the player to move next; in a computer game the
    computer plays its turn once the player has scored theirs.

    *expected* is the number of moves the client has seen; a mismatch with the log raises
    :class:`MoveConflict` and changes nothing. *key* is the request's idempotency key: a
    request whose key is the one of the last move stored was applied already, and gets
    the game as it is now. A request with neither is applied as it comes, so the same hold
    sent twice rolls twice.
    """
    digest = idempotency_digest(key) if key is not None else ""
    if digest and record.last_key == digest:
        return _as_is(record, config)
    if record.finished:
        raise MoveConflict("the game is over", moves=len(record.moves))
    if expected is not None and expected != len(record.moves):
        raise MoveConflict(
            f"move {expected} was sent but the game is at move {len(record.moves)}",
            moves=len(record.moves),
        )
    _check_open(record, config)
    state = _advance(record, move, config.secret_key)  # raises RulesError: nothing stored
    now, lifetime_s = config.now().timestamp(), expires_in(record, config)
    try:
        after = saved_games.append(
            client, record, move, state, now=now, lifetime_s=lifetime_s, key=digest
        )
    except AlreadyApplied:  # a copy of this request was stored since the game was read
        found = saved_games.load(client, record.id)
        if found is None:
            raise
        return _as_is(found, config)
    if isinstance(state, GameState):
        record.after(config.secret_key, move, state)
    record = after
    if state.is_finished:
        record = _finish(client, config, record)
    elif record.kind.is_computer:
        record = _computer_turn(client, config, record)
    return record, state.state if isinstance(state, Party) else state


def _as_is(record: Record, config: Config) -> tuple[Record, GameState]:
    return record, record.state(config.secret_key)


def _advance(record: Record, move: Move, secret: str) -> GameState | Party:
    # A party's move goes to whoever's turn it is; the game ends when every sheet is full.
    if record.kind.is_party:
        return party.play(record.party(secret), move)
    return apply(record.state(secret), move)


#: An unfinished game is kept at least this long (seconds), even at its deadline.
MIN_KEEP_S = 60.0


def deadline_of(record: Record, config: Config) -> datetime | None:
    """When a ranked game stops: its day's or its code's reveal; None for unranked games."""
    if record.practice:
        return None
    if record.kind.one_per is OnePer.DAY and record.day is not None:
        return dice.Day(record.day, config.timezone).reveals_at
    if record.kind.one_per is OnePer.CODE and record.closes_at is not None:
        return datetime.fromtimestamp(record.closes_at, UTC) + dice.REVEAL_GRACE
    return None


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


def _check_open(record: Record, config: Config) -> None:
    deadline = deadline_of(record, config)
    if deadline is not None and config.now() >= deadline:
        if record.kind.one_per is OnePer.DAY:
            raise IllegalMoveError(f"the daily puzzle of {record.day} is over")
        raise IllegalMoveError(f"the ranked games on code {record.code} are over")


def _finish(client: redis.Redis, config: Config, record: Record) -> Record:
    record = finish(client, config, record)
    if record.kind.is_computer:
        record = _computer_turn(client, config, record)
    # Every finish also sweeps up counts that a crash left behind a while ago; this
    # game is stored and counted, so a failing sweep must not fail its answer.
    try:
        retry_pending(client, config, min_age_s=PENDING_GRACE_S)
    except DailyError:
        log.exception("the sweep of pending results failed")
    return record


def finish(client: redis.Redis, config: Config, record: Record) -> Record:
    """Keeps a finished game and its player, gives it a share code and counts it (idempotent).

    Any number of requests may finish the same game at once (the finishing move and the
    reads that heal a lost count): they agree on one share code and count it once.
    """
    saved_games.keep(client, record)  # with its index keys, and the set that lists them
    if record.kind.shares and record.share is None and not record.practice:
        record = dataclasses.replace(record, share=friend_codes.share_code(client, config, record))
    if not record.submitted:
        plan = reviews.submit(client, config, record)
        tally = ledger.tally_str(ledger.tally_of(plan))  # as the store kept it
        record = dataclasses.replace(
            record, submitted=True, extra={**record.extra, ledger.TALLY: tally}
        )
    return record


def retry_pending(client: redis.Redis, config: Config, min_age_s: float = 0.0) -> int:
    """Counts every pending game listed at least *min_age_s* ago; returns how many."""
    counted = 0
    now = config.now().timestamp()
    for game_id, listed_at in pending_results.pending(client, now - min_age_s):
        record = saved_games.load(client, game_id)
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
            pending_results.unlist_pending(client, game_id)
    return counted


def sweep_pending(client: redis.Redis, config: Config) -> int | None:
    """Runs :func:`retry_pending` if no process ran it in the last minute; None if skipped."""
    # Nothing is written while nothing is due; then one short-lived lock key makes it at
    # most once a minute over every worker and host.
    due = config.now().timestamp() - PENDING_GRACE_S
    if not pending_results.pending(client, due) or not pending_results.claim_sweep(
        client, SWEEP_INTERVAL_S
    ):
        return None
    return retry_pending(client, config, min_age_s=PENDING_GRACE_S)


def _computer_turn(client: redis.Redis, config: Config, record: Record) -> Record:
    """Lets the computer play every turn the player has scored, and stores its moves.

    Its moves are derived (every writer writes the same), so a lost write is redone by
    the next move; a table that went missing leaves them to a later move.
    """
    try:
        moves = computer_moves(record, config)
    except (TableMissingError, NoStrategyError):  # the player's move stands; a view says why
        log.warning("the computer of game %s waits for its table", record.id)
        return record
    if len(moves) == len(record.computer_moves):
        return record
    return saved_games.set_computer(client, record, moves)


def computer_moves(record: Record, config: Config) -> tuple[Move, ...]:
    """The computer's moves up to the player's scored turns (derived, not stored)."""
    moves = record.computer_moves
    scored = sum(1 for move in record.moves if isinstance(move, Score))
    if sum(isinstance(move, Score) for move in moves) >= scored:
        return moves
    source = record.source(config.secret_key)
    bot = bots.find_bot(record.level or DEFAULT_LEVEL)
    return computer.catch_up(
        tables.computer_table(config, record), bot, source, record.id, moves, scored
    )


@dataclass(frozen=True, slots=True)
class Target:
    """The creator's game of a friend code, shown to a player of the code."""

    record: Record
    name: str | None
    state: GameState


@dataclass(frozen=True, slots=True)
class View:
    """A game as its player sees it: the record, the sheet to play and the other sides."""

    record: Record
    state: GameState
    party: Party | None = None
    computer: computer.Side | None = None
    computer_turns: int = 0
    target: Target | None = None
    rank: int | None = None  # on its friend code's board
    #: A counted daily: where it stands on its day's board now.
    place: results.DayPlace | None = None
    #: What the ledger kept of its count: the player's figures then, and its cheers.
    tally: ledger.Tally | None = None


def view(
    client: redis.Redis,
    config: Config,
    record: Record,
    state: GameState | None = None,
    heal: bool = False,
) -> View:
    """What the player of *record* sees now; *heal* counts a finished game a crash left
    uncounted (idempotent). *state* is the sheet to show if the caller has it already."""
    if heal and record.finished and not record.submitted:
        record = finish(client, config, record)
    secret = config.secret_key
    found = View(record, state or record.state(secret))
    if record.kind.is_party:
        found = dataclasses.replace(found, party=record.party(secret))
    if record.kind.is_computer:
        moves = computer_moves(record, config)
        source = record.source(secret)
        side = computer.replay_side(found.state.ruleset, source, moves)
        turns = sum(isinstance(move, Score) for move in moves)
        found = dataclasses.replace(found, computer=side, computer_turns=turns)
    if record.code and (record.target or record.finished):
        found = dataclasses.replace(found, target=target_of(client, config, record))
    if record.finished:
        place = results.place_of(client, record)
        rank = place.rank if place else results.rank_of(client, record)
        found = dataclasses.replace(found, rank=rank, place=place, tally=record.tally)
    return found


def target_of(client: redis.Redis, config: Config, record: Record) -> Target | None:
    """The creator's game of *record*'s code, unless *record* is that game."""
    # The creator's own game reads only its code: not itself again, on every move's answer.
    theirs = archive.code_and_game(client, config, record.code or "", unless=record.id)[1]
    if theirs is None:
        return None
    player = players.get(client, theirs.player_id)
    return Target(theirs, player.name if player else None, theirs.state(config.secret_key))


def hint_state(config: Config, record: Record) -> GameState:
    """The sheet a hint is asked for; refused in modes without hints and in finished games."""
    if not record.kind.hints:
        raise NotAllowedError(ErrorCode.HINTS_NOT_ALLOWED, f"no hints in {record.mode} games")
    if record.finished:
        raise ConflictError("the game is over")
    return record.state(config.secret_key)
