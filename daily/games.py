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
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from daily import archive, computer, dice, modes, results, reviews
from daily import party as parties
from daily.codes import code_str
from daily.config import Config
from daily.errors import (
    BadInputError,
    CodeClosedError,
    ConflictError,
    DailyError,
    ErrorCode,
    IllegalMoveError,
    NoStrategyError,
    NotAllowedError,
    NotFoundError,
    NotOpenError,
    RulesError,
    StorageError,
)
from daily.modes import OnePer
from daily.record import ComputerPart, OnCode, PartyPart, Record
from daily.rules import GameState, Move, Options, Ruleset, Score, apply, find_ruleset
from daily.store import games as store
from daily.store import keys, players
from daily.store.games import AlreadyApplied, FriendCode, MoveConflict
from daily.strategy import bots, builder
from daily.strategy.model import model_of
from daily.strategy.solver import (
    Table,
    TableBuildingError,
    TableMissingError,
    default_cache_dir,
    table_for,
)

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

log = logging.getLogger(__name__)

#: The one ruleset of a daily game.
_DAILY_RULES = modes.DAILY.ruleset or "maxi"
#: The level of a computer game that names none.
DEFAULT_LEVEL = "medium"
#: A pending game that is still unfinished after this long lost its finishing move.
PENDING_GRACE_S = 60.0
#: The pending results are swept at most this often (see :func:`sweep_pending`).
SWEEP_INTERVAL_S = 60.0


@dataclass(frozen=True, slots=True)
class Quota:
    """A limit on new daily games (per address): checked before a start, counted after."""

    check: Callable[[], None]
    count: Callable[[], None]


_NO_QUOTA = Quota(lambda: None, lambda: None)


# The strategy tables: the one place that chooses the computer's engine.


def exact_table(rules: Ruleset) -> Table:
    """The exact table of *rules*; starts building it in the background when it is missing.

    Raises :class:`NoStrategyError` for a ruleset the model cannot play,
    :class:`TableBuildingError` while it is built, :class:`TableMissingError` otherwise.
    """
    try:
        model_of(rules)
    except RulesError as e:
        raise NoStrategyError(str(e)) from None
    cache = default_cache_dir()
    try:
        return table_for(rules, cache)
    except TableBuildingError:
        raise
    except TableMissingError:
        if not builder.may_build(rules):
            raise
    builder.start([rules], cache)  # in the background: this request does not wait for it
    raise TableBuildingError(rules, builder.status(rules, cache))


def choose_engine(rules: Ruleset) -> str:
    """The engine of a new computer game: "exact" if its table is ready, else "heuristic".

    Chosen once per game: a table built later must not change the moves of a game under way.
    """
    if builder.status(rules, default_cache_dir()).state == "ready":
        return "exact"
    # The next game gets the exact one; a variant's table is built only where it is needed
    # (a ranked game's check, a hint or an analysis asked for), not for a computer game.
    if builder.may_build(rules) and builder.spec_str(rules) == rules.id:
        builder.start([rules], default_cache_dir())
    return "heuristic"


def computer_table(record: Record) -> Table:
    """The table the computer of *record* plays on (its engine, fixed at the start)."""
    if record.engine == "heuristic":
        return computer.heuristic_table(record.rules)
    return exact_table(record.rules)


# Starting each mode


def _new(player_id: str, config: Config, mode: str, ruleset: str, options: Options,
         seed_ref: dice.SeedRef, *, id: str | None = None, day: date | None = None,
         code: str | None = None, target: bool = False, practice: bool = False,
         closes_at: float | None = None, players: Sequence[str] = (),
         level: str | None = None, engine: str | None = None) -> Record:  # fmt: skip
    # A practice game on a code is marked on its code; a past day replayed has no code.
    created = config.now().timestamp()
    return Record(
        id=id or store.new_id(created),
        mode=mode,
        ruleset=ruleset,
        options=dict(options),
        player_id=player_id,
        seed_ref=str(seed_ref),
        created=created,
        day=day,
        on_code=OnCode(code, target, practice, closes_at) if code is not None else None,
        party_part=PartyPart(tuple(players)) if players else None,
        computer_part=ComputerPart(level, engine) if level is not None else None,
        replayed=practice and code is None,
        stream=dice.CURRENT,
    )


def _random_seed() -> dice.SeedRef:
    return dice.SeedRef.random(secrets.token_bytes(32))


def start_daily(
    client: redis.Redis, config: Config, player_id: str, quota: Quota = _NO_QUOTA
) -> tuple[Record, bool]:
    """Starts today's daily game; returns it and True, or the one under way and False."""
    puzzle = dice.today(config.now(), config.timezone)
    if not puzzle.is_open(config.now()):
        raise NotOpenError(f"the first puzzle is on {dice.EPOCH}")
    record = _new(player_id, config, modes.DAILY.id, _DAILY_RULES, {},
                  dice.SeedRef.daily(puzzle.date),
                  day=puzzle.date)  # fmt: skip
    return _start_ranked_daily(client, config, record, quota)


def start_practice(
    client: redis.Redis, config: Config, player_id: str, day: date
) -> tuple[Record, bool]:
    """Starts a past day's daily as practice once its dice are revealed: unranked, on no board
    and in no streak (one per player and day); returns it and True, or the one there and False.
    """
    puzzle = dice.Day(day, config.timezone)
    if not puzzle.is_revealed(config.now()):
        at = puzzle.reveals_at.isoformat()
        raise NotOpenError(f"the puzzle of {day} can be played as practice from {at}",
                           practice_at=at)  # fmt: skip
    record = _new(player_id, config, modes.DAILY.id, _DAILY_RULES, {},
                  dice.SeedRef.daily(day), day=day, practice=True)  # fmt: skip
    index = [keys.player_practice(player_id, day.isoformat())]
    return store.start(client, record, expires_in(record, config), index)


def _start_ranked_daily(client: redis.Redis, config: Config, record: Record, quota: Quota,
                        *index_keys: str) -> tuple[Record, bool]:  # fmt: skip
    """Starts a daily game (counted against the address's dailies a day, once it is new)."""
    assert record.day is not None
    quota.check()
    index = [keys.player_daily(record.player_id, record.day.isoformat()), *index_keys]
    found, created = _start_indexed(client, config, record, index)
    if created:
        quota.count()
    return found, created


def _start_indexed(client: redis.Redis, config: Config, record: Record,
                   index: Sequence[str]) -> tuple[Record, bool]:  # fmt: skip
    """Starts a game under the player's *index* keys, listed first on their key set (so
    deleting the player finds them without a scan)."""
    lifetime_s = expires_in(record, config)
    players.note_keys(client, record.player_id, index, int(lifetime_s) + 1)
    return store.start(client, record, lifetime_s, index)


def start_code(
    client: redis.Redis,
    config: Config,
    player_id: str,
    ruleset: str,
    options: Options,
) -> tuple[Record, bool]:
    """Makes a fresh friend code and starts its creator's game on it."""
    game_id = store.new_id(config.now().timestamp())
    code = store.create_code(client, config, player_id, ruleset, options, None, game_id)
    found = archive.load_code(client, config, code)
    assert found is not None
    record = _new(player_id, config, modes.FRIEND.id, ruleset, options, dice.SeedRef.friend(code),
                  id=game_id, code=code, closes_at=found.closes,
                  practice=not _is_rankable(found))  # fmt: skip
    return _start_indexed(client, config, record, [keys.player_friend(player_id, code)])


def join_code(client: redis.Redis, config: Config, player_id: str, code: str, target: bool,
              quota: Quota = _NO_QUOTA) -> tuple[Record, bool]:  # fmt: skip
    """Plays a code: ranked on its board while it is open, practice once its seed is public,
    else refused. While a daily's code is open it is the player's daily: a new one if they
    have none of that day, else the one they have (False), finished or not."""
    found = archive.load_code(client, config, code)
    if found is None:
        raise NotFoundError(f"no such friend code: {code_str(code)}")
    friend_key = keys.player_friend(player_id, code)
    mine = store.index_lookup(client, friend_key, archive.reader(config))
    if mine is not None:
        return mine, False
    now = config.now()
    is_open = found.window.is_open(now)
    if not is_open and now < found.practice_at(config.timezone):
        raise code_closed(found, config)
    ranked = is_open and _is_rankable(found)
    if ranked and found.day is not None:
        daily = store.index_lookup(client, keys.player_daily(player_id, found.day.isoformat()))
        if daily is not None:
            # Under way: finish that one. Finished: it is their one game on these dice,
            # compared with the code's; a second would show a scout the day's re-rolls.
            return daily, False
        # Blind: the creator's turn-by-turn totals would tell the dice of a ranked daily.
        record = _new(player_id, config, modes.DAILY.id, _DAILY_RULES, {},
                      dice.SeedRef.parse(found.seed_ref), day=found.day, code=code,
                      closes_at=found.closes)  # fmt: skip
        return _start_ranked_daily(client, config, record, quota, friend_key)
    record = _new(player_id, config, modes.FRIEND.id, found.ruleset, dict(found.options),
                  dice.SeedRef.parse(found.seed_ref), code=code, target=target,
                  practice=not ranked, closes_at=found.closes)  # fmt: skip
    return _start_indexed(client, config, record, [friend_key])


def _is_rankable(found: FriendCode) -> bool:
    """Whether games on *found* may be ranked: only if a table can check them (every
    ranked game is checked; a code with ``saved_rolls`` is practice, see docs/integrity.md)."""
    return reviews.is_checkable(find_ruleset(found.ruleset, found.options))


def code_closed(found: FriendCode, config: Config) -> CodeClosedError:
    """The error of a code whose ranked games are over but whose dice are not public yet."""
    at = found.practice_at(config.timezone)
    return CodeClosedError(
        f"code {code_str(found.code)} is closed; it can be played as practice from "
        f"{at.isoformat()}",
        practice_at=at.isoformat(),
    )


def start_solo(
    client: redis.Redis,
    config: Config,
    player_id: str,
    ruleset: str,
    options: Options,
) -> tuple[Record, bool]:
    """Starts a solo game on fresh random dice."""
    record = _new(player_id, config, modes.SOLO.id, ruleset, options, _random_seed())
    return store.start(client, record, expires_in(record, config))


def start_party(client: redis.Redis, config: Config, player_id: str, ruleset: str,
                options: Options, names: Sequence[str]) -> tuple[Record, bool]:  # fmt: skip
    """Starts a party of *names* (checked: two to four different names) on one device."""
    low, high = parties.MIN_PLAYERS, parties.MAX_PLAYERS
    if not low <= len(names) <= high:
        raise BadInputError(f"players must be a list of {low} to {high} names, got {names!r}")
    folded = [name.casefold() for name in names]
    for name in names:
        if folded.count(name.casefold()) > 1:
            raise BadInputError(f"two players are named {name!r}: give each a different name")
    record = _new(player_id, config, modes.PARTY.id, ruleset, options, _random_seed(),
                  players=tuple(names))  # fmt: skip
    return store.start(client, record, expires_in(record, config))


def start_computer(client: redis.Redis, config: Config, player_id: str, ruleset: str,
                   options: Options, level: str) -> tuple[Record, bool]:  # fmt: skip
    """Starts a game against the computer at *level*, on the engine ready now."""
    if level not in bots.LEVELS:
        raise BadInputError(f"level must be one of {', '.join(bots.LEVELS)}, got {level!r}")
    rules = find_ruleset(ruleset, options)
    try:
        model_of(rules)
    except RulesError as e:
        raise BadInputError(f"the computer cannot play this ruleset: {e}") from None
    record = _new(player_id, config, modes.COMPUTER.id, ruleset, options, _random_seed(),
                  level=level, engine=choose_engine(rules))  # fmt: skip
    return store.start(client, record, expires_in(record, config))


# Playing


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
        raise MoveConflict(f"move {expected} was sent but the game is at move "
                           f"{len(record.moves)}", moves=len(record.moves))  # fmt: skip
    _check_open(record, config)
    state = _advance(record, move, config.secret_key)  # raises RulesError: nothing stored
    now, lifetime_s = config.now().timestamp(), expires_in(record, config)
    try:
        after = store.append(client, record, move, state, now=now, lifetime_s=lifetime_s,
                             key=digest)  # fmt: skip
    except AlreadyApplied:  # a copy of this request was stored since the game was read
        found = store.load(client, record.id)
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
    return record, state.state if isinstance(state, parties.Party) else state


def _as_is(record: Record, config: Config) -> tuple[Record, GameState]:
    return record, record.state(config.secret_key)


def _advance(record: Record, move: Move, secret: str) -> GameState | parties.Party:
    # A party's move goes to whoever's turn it is; the game ends when every sheet is full.
    if record.kind.is_party:
        return parties.play(record.party(secret), move)
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
    store.keep(client, record)  # with its index keys, and the set that lists them
    if record.kind.shares and record.share is None and not record.practice:
        record = dataclasses.replace(record, share=store.share_code(client, config, record))
    if not record.submitted:
        reviews.submit(client, config, record)
        record = dataclasses.replace(record, submitted=True)
    return record


def retry_pending(client: redis.Redis, config: Config, min_age_s: float = 0.0) -> int:
    """Counts every pending game listed at least *min_age_s* ago; returns how many."""
    counted = 0
    now = config.now().timestamp()
    for game_id, listed_at in store.pending(client, now - min_age_s):
        record = store.load(client, game_id)
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
            store.unlist_pending(client, game_id)
    return counted


def sweep_pending(client: redis.Redis, config: Config) -> int | None:
    """Runs :func:`retry_pending` if no process ran it in the last minute; None if skipped."""
    # Nothing is written while nothing is due; then one short-lived lock key makes it at
    # most once a minute over every worker and host.
    due = config.now().timestamp() - PENDING_GRACE_S
    if not store.pending(client, due) or not store.claim_sweep(client, SWEEP_INTERVAL_S):
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
    return store.set_computer(client, record, moves)


def computer_moves(record: Record, config: Config) -> tuple[Move, ...]:
    """The computer's moves up to the player's scored turns (derived, not stored)."""
    moves = record.computer_moves
    scored = sum(1 for move in record.moves if isinstance(move, Score))
    if sum(isinstance(move, Score) for move in moves) >= scored:
        return moves
    source = record.source(config.secret_key)
    bot = bots.find_bot(record.level or DEFAULT_LEVEL)
    return computer.catch_up(computer_table(record), bot, source, record.id, moves, scored)


# Viewing


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
    party: parties.Party | None = None
    computer: computer.Side | None = None
    computer_turns: int = 0
    target: Target | None = None
    rank: int | None = None


def view(client: redis.Redis, config: Config, record: Record, state: GameState | None = None,
         heal: bool = False) -> View:  # fmt: skip
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
        found = dataclasses.replace(found, rank=results.rank_of(client, record))
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
