"""Starting a game of each mode: who may start what, on which dice, and how it is indexed.

A ranked game is one per player and day (a daily) or per player and code (a friend game):
its index keys are claimed with the game, all or none, so a double click starts one game.
A newcomer's daily counts on its address's and network's budget of newcomers' dailies (past
it, it is played and marked: :mod:`daily.service.establishment`). Playing,
finishing and viewing a game is :mod:`daily.service.games`'s.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING

from daily.core import dice, modes, party
from daily.core.codes import code_str
from daily.core.config import Config
from daily.core.errors import (
    BadInputError,
    CodeClosedError,
    NotFoundError,
    NotOpenError,
    RulesError,
)
from daily.core.record import ComputerPart, OnCode, PartyPart, Record
from daily.core.rules import Options, find_ruleset
from daily.service import archive, establishment, reviews, tables
from daily.service.games import expires_in
from daily.store import friend_codes, game_fields, keys, players, saved_games
from daily.store.friend_codes import FriendCode
from daily.strategy.model import model_of

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis


#: The one ruleset of a daily game.
_DAILY_RULES = modes.DAILY.ruleset or "maxi"


#: A budget of newcomers' daily games (per address and network, in the puzzle day's window,
#: :mod:`daily.service.establishment`): it counts one for a day before the start and returns
#: what gives that one back when the start makes nothing new (the player had that game
#: already), or None when it is spent: the daily starts all the same, marked as not counting
#: towards its player's being established.
Quota = Callable[[date], Callable[[], None] | None]


def _no_quota(day: date) -> Callable[[], None]:
    return lambda: None


_NO_QUOTA: Quota = _no_quota


def _new(
    player_id: str,
    config: Config,
    mode: str,
    ruleset: str,
    options: Options,
    seed_ref: dice.SeedRef,
    *,
    id: str | None = None,
    day: date | None = None,
    code: str | None = None,
    target: bool = False,
    practice: bool = False,
    closes_at: float | None = None,
    players: Sequence[str] = (),
    level: modes.Level | None = None,
    engine: modes.Engine = "exact",
) -> Record:
    # A practice game on a code is marked on its code; a past day replayed has no code.
    created = config.now().timestamp()
    return Record(
        id=id or game_fields.new_id(created),
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
    record = _new(
        player_id,
        config,
        modes.DAILY.id,
        _DAILY_RULES,
        {},
        dice.SeedRef.daily(puzzle.date),
        day=puzzle.date,
    )
    return _start_ranked_daily(client, config, record, quota)


def start_practice(
    client: redis.Redis, config: Config, player_id: str, day: date
) -> tuple[Record, bool]:
    """Starts a past day's daily as practice once its dice are revealed: unranked, on no board
    and in no streak (one per player and day); returns it and True, or the one there and False.
    """
    if day < dice.EPOCH:  # no puzzle was dealt before day 1
        raise NotFoundError(f"no puzzle before {dice.EPOCH.isoformat()}: {day.isoformat()}")
    puzzle = dice.Day(day, config.timezone)
    if not puzzle.is_revealed(config.now()):
        at = puzzle.reveals_at.isoformat()
        raise NotOpenError(
            f"the puzzle of {day} can be played as practice from {at}", practice_at=at
        )
    record = _new(
        player_id,
        config,
        modes.DAILY.id,
        _DAILY_RULES,
        {},
        dice.SeedRef.daily(day),
        day=day,
        practice=True,
    )
    index = [keys.player_practice(player_id, day.isoformat())]
    return saved_games.start(client, record, expires_in(record, config), index)


def _start_ranked_daily(
    client: redis.Redis, config: Config, record: Record, quota: Quota, *index_keys: str
) -> tuple[Record, bool]:
    """Starts a daily game (counted against the address's dailies a day, once it is new)."""
    assert record.day is not None
    index = [keys.player_daily(record.player_id, record.day.isoformat()), *index_keys]
    for key in index:  # the player's own game again costs no budget
        if (found := saved_games.index_lookup(client, key)) is not None:
            return found, False
    give_back = quota(record.day)
    if give_back is None:  # past the newcomers' budget: played, not counted towards ranking
        record, give_back = establishment.mark_over(record), lambda: None
    try:
        found, created = _start_indexed(client, config, record, index)
    except BaseException:
        give_back()
        raise
    if not created:
        give_back()
    return found, created


def _start_indexed(
    client: redis.Redis, config: Config, record: Record, index: Sequence[str]
) -> tuple[Record, bool]:
    """Starts a game under the player's *index* keys, listed first on their key set (so
    deleting the player finds them without a scan)."""
    lifetime_s = expires_in(record, config)
    players.note_keys(client, record.player_id, index, int(lifetime_s) + 1)
    return saved_games.start(client, record, lifetime_s, index)


def start_code(
    client: redis.Redis,
    config: Config,
    player_id: str,
    ruleset: str,
    options: Options,
) -> tuple[Record, bool]:
    """Makes a fresh friend code and starts its creator's game on it."""
    game_id = game_fields.new_id(config.now().timestamp())
    code = friend_codes.create_code(client, config, player_id, ruleset, options, None, game_id)
    found = archive.load_code(client, config, code)
    assert found is not None
    record = _new(
        player_id,
        config,
        modes.FRIEND.id,
        ruleset,
        options,
        dice.SeedRef.friend(code),
        id=game_id,
        code=code,
        closes_at=found.closes,
        practice=not _is_rankable(found),
    )
    return _start_indexed(client, config, record, [keys.player_friend(player_id, code)])


def _join_daily_code(
    client: redis.Redis,
    config: Config,
    player_id: str,
    code: str,
    found: FriendCode,
    day: date,
    quota: Quota,
    friend_key: str,
) -> tuple[Record, bool]:
    """Plays *code*, an open daily's (*found*): the player's daily of *day* (a new one, else
    the one they have, False)."""
    daily = saved_games.index_lookup(client, keys.player_daily(player_id, day.isoformat()))
    if daily is not None:
        # Under way: finish that one. Finished: it is their one game on these dice,
        # compared with the code's; a second would show a scout the day's re-rolls.
        return daily, False
    # Blind: the creator's turn-by-turn totals would tell the dice of a ranked daily.
    seed = dice.SeedRef.parse(found.seed_ref)
    record = _new(
        player_id,
        config,
        modes.DAILY.id,
        _DAILY_RULES,
        {},
        seed,
        day=day,
        code=found.code,
        closes_at=found.closes,
    )
    return _start_ranked_daily(client, config, record, quota, friend_key)


def join_code(
    client: redis.Redis,
    config: Config,
    player_id: str,
    code: str,
    target: bool,
    quota: Quota = _NO_QUOTA,
) -> tuple[Record, bool]:
    """Plays a code: ranked on its board while it is open, practice once its seed is public,
    else refused. While a daily's code is open it is the player's daily: a new one if they
    have none of that day, else the one they have (False), finished or not."""
    found = archive.load_code(client, config, code)
    if found is None:
        raise NotFoundError(f"no such friend code: {code_str(code)}")
    friend_key = keys.player_friend(player_id, code)
    mine = saved_games.index_lookup(client, friend_key, archive.reader(config))
    if mine is not None:
        return mine, False
    now = config.now()
    is_open = found.window.is_open(now)
    if not is_open and now < found.practice_at(config.timezone):
        raise code_closed(found, config)
    ranked = is_open and _is_rankable(found)
    if ranked and found.day is not None:
        return _join_daily_code(
            client, config, player_id, code, found, found.day, quota, friend_key
        )
    record = _new(
        player_id,
        config,
        modes.FRIEND.id,
        found.ruleset,
        dict(found.options),
        dice.SeedRef.parse(found.seed_ref),
        code=code,
        target=target,
        practice=not ranked,
        closes_at=found.closes,
    )
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
    return saved_games.start(client, record, expires_in(record, config))


def start_party(
    client: redis.Redis,
    config: Config,
    player_id: str,
    ruleset: str,
    options: Options,
    names: Sequence[str],
) -> tuple[Record, bool]:
    """Starts a party of *names* (checked: two to four different names) on one device."""
    low, high = party.MIN_PLAYERS, party.MAX_PLAYERS
    if not low <= len(names) <= high:
        raise BadInputError(f"players must be a list of {low} to {high} names, got {names!r}")
    folded = [name.casefold() for name in names]
    for name in names:
        if folded.count(name.casefold()) > 1:
            raise BadInputError(f"two players are named {name!r}: give each a different name")
    record = _new(
        player_id, config, modes.PARTY.id, ruleset, options, _random_seed(), players=tuple(names)
    )
    return saved_games.start(client, record, expires_in(record, config))


def start_computer(
    client: redis.Redis, config: Config, player_id: str, ruleset: str, options: Options, level: str
) -> tuple[Record, bool]:
    """Starts a game against the computer at *level*, on the engine ready now."""
    try:
        chosen = modes.level_of(level)
    except ValueError:
        known = ", ".join(modes.LEVELS)
        raise BadInputError(f"level must be one of {known}, got {level!r}") from None
    rules = find_ruleset(ruleset, options)
    try:
        model_of(rules)
    except RulesError as e:
        raise BadInputError(f"the computer cannot play this ruleset: {e}") from None
    record = _new(
        player_id,
        config,
        modes.COMPUTER.id,
        ruleset,
        options,
        _random_seed(),
        level=chosen,
        engine=tables.choose_engine(config, rules),
    )
    return saved_games.start(client, record, expires_in(record, config))
