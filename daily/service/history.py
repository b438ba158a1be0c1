"""A player's own games: one by its id, the dailies they finished, their streak, their game
of a given day, the doors of their advent calendar.

Handed the Redis client and the configuration, like :mod:`daily.service.games`; pages render what
these functions return and read nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from daily.core import dice, modes
from daily.core.config import Config
from daily.core.errors import NotFoundError
from daily.core.record import Record
from daily.service import archive
from daily.store import archived_games, boards, counters, keys, players, saved_games
from daily.store.counters import Count as Count  # a move's rate limits: the web layer
from daily.store.counters import Counter as Counter  # names them, the move's read counts

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: How many days of history a player's page reads (a year and more).
HISTORY_DAYS = 400
#: A longer game id is refused before it reaches the store.
MAX_GAME_ID = 64
#: The doors of an advent calendar.
ADVENT_DOORS = 24


@dataclass(frozen=True, slots=True)
class Played:
    """One finished daily puzzle in a player's history."""

    day: date
    number: int
    total: int
    bonus: bool
    game_id: str


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of a player's history."""

    days: int
    streak: int
    best_streak: int
    best: int | None
    mean: float | None
    bonus_rate: float | None  # 0 to 1


@dataclass(frozen=True, slots=True)
class History:
    """A player's finished dailies, newest first, and their figures."""

    played: tuple[Played, ...]
    summary: Summary


@dataclass(frozen=True, slots=True)
class Door:
    """One door of the advent calendar."""

    number: int
    state: str  # "today", "played", "missed" or "locked"
    score: int | None = None
    top: int | None = None  # the day's top score, once the door is open (None: nobody played)
    die: int | None = None  # the Christmas die behind a played door: see christmas_die

    @property
    def lit(self) -> bool:
        """Whether the player played this door's daily (the door lights up)."""
        return self.score is not None


@dataclass(frozen=True, slots=True)
class December:
    """A player's advent in one picture: each door's score against the day's top."""

    doors: tuple[Door, ...]
    played: int
    total: int

    @property
    def bars(self) -> tuple[int, ...]:
        """Each door's score in percent of the day's top (0 for a door not played)."""
        return tuple(
            round(100 * d.score / d.top) if d.score is not None and d.top else 0 for d in self.doors
        )


def christmas_die(score: int, top: int) -> int:
    """The Christmas die behind a played door: 6 for the day's top score, else the sixths
    of the top score reached (at least 1).

    >>> christmas_die(350, 350), christmas_die(300, 350), christmas_die(349, 350)
    (6, 5, 5)
    >>> christmas_die(20, 350), christmas_die(0, 0)
    (1, 6)
    """
    if score >= top:
        return 6
    return max(1, 6 * score // top)


def summarize(played: Sequence[Played], streak: int = 0, best_streak: int = 0) -> Summary:
    """The figures of *played* (finished dailies) with the streak read from the store.

    >>> day = date(2026, 12, 1)
    >>> s = summarize([Played(day, 1, 300, True, "a"), Played(day, 2, 250, False, "b")])
    >>> s.days, s.best, s.mean, s.bonus_rate
    (2, 300, 275.0, 0.5)
    >>> summarize([]).mean is None
    True
    """
    if not played:
        return Summary(0, streak, best_streak, None, None, None)
    totals = [p.total for p in played]
    return Summary(
        days=len(played),
        streak=streak,
        best_streak=best_streak,
        best=max(totals),
        mean=sum(totals) / len(totals),
        bonus_rate=sum(1 for p in played if p.bonus) / len(played),
    )


def today(config: Config) -> date:
    """The date of today's puzzle in the configured zone."""
    return dice.today(config.now(), config.timezone).date


def history_of(client: redis.Redis, config: Config, player_id: str | None) -> History:
    """The finished daily puzzles of *player_id*, newest first, with their streak."""
    if player_id is None:
        return History((), summarize(()))
    # The games on the player's list: in Redis, or archived before month lists were kept (a
    # marker): those read from their files, each file once.
    live = saved_games.games_of(client, player_id, limit=HISTORY_DAYS * 2)
    found = {}
    for record in archive.load_many(client, config, live):
        if record is None or record.kind is not modes.DAILY or record.day is None:
            continue
        if not record.finished or record.total is None or record.practice:
            continue  # a past day replayed as practice is on no board and in no history
        bonus = record.state(config.secret_key).bonus > 0
        number = dice.Day(record.day, config.timezone).number
        found[record.id] = Played(record.day, number, record.total, bonus, record.id)
    # The archived dailies, as their month lists keep them: no file read.
    since = today(config) - timedelta(days=HISTORY_DAYS)
    for daily in archive.archived_dailies(client, config, player_id, since):
        number = dice.Day(daily.day, config.timezone).number
        found[daily.game_id] = Played(daily.day, number, daily.total, daily.bonus, daily.game_id)
    played = sorted(found.values(), key=lambda p: p.day, reverse=True)  # newest first
    streak, best_streak = boards.streak_of(client, player_id, today(config))
    return History(tuple(played), summarize(played, streak, best_streak))


#: What a caller does with a request's counts before anything else is said (a 429).
CountCheck = Callable[[tuple[Count, ...]], None]


def move_counters(
    player_id: str | None,
    address: str,
    per_player: Sequence[tuple[int, int]],
    per_address: Sequence[tuple[int, int]],
) -> tuple[Counter, ...]:
    """The counters a move counts on: ``moves``, the player's moves (the address's moves
    without a player), and ``pages``, the address's moves (every player's); each limit a
    list of windows, each (moves, window in seconds); an empty list: off."""
    found = []
    for amount, seconds in per_player:
        if player_id:
            key = keys.player_moves(player_id, seconds)
        else:
            key = keys.anonymous_moves(address, seconds)
        found.append(Counter("moves", key, seconds, amount))
    for amount, seconds in per_address:
        found.append(Counter("pages", keys.address_moves(address, seconds), seconds, amount))
    return tuple(found)


def count(client: redis.Redis, counting: Sequence[Counter]) -> tuple[Count, ...]:
    """Counts a request that reads no game on *counting*, in a round trip of its own."""
    return counters.count(client, counting)


def own_game(
    client: redis.Redis,
    game_id: str,
    player_id: str | None,
    config: Config | None = None,
    counting: Sequence[Counter] = (),
    check: CountCheck | None = None,
) -> Record:
    """*player_id*'s game *game_id*; NotFoundError if it is missing or another player's.

    With *config*, an archived game is read from the archive too. The request is counted on
    *counting* first (a round trip of its own) and *check* sees the counts.
    """
    if counting and check is not None:
        check(count(client, counting))
    found = None
    if len(game_id) <= MAX_GAME_ID:
        reader = archive.reader(config) if config is not None else None
        found = saved_games.load(client, game_id, reader)
    # Another player's game is as invisible as a missing one: its dice are private.
    if found is None or player_id is None or found.player_id != player_id:
        raise NotFoundError(f"no such game: {game_id!r}")
    return found


def own_game_unless_deleted(
    client: redis.Redis,
    game_id: str,
    player_id: str,
    config: Config | None = None,
    counting: Sequence[Counter] = (),
    check: CountCheck | None = None,
) -> Record | None:
    """*player_id*'s game *game_id*, as :func:`own_game` finds it, or None when *player_id*
    was deleted: both read in one round trip, for a move's request, which also counts the
    request on *counting*; *check* sees the counts before anything else is decided."""
    if len(game_id) > MAX_GAME_ID:
        if counting and check is not None:
            check(count(client, counting))
        if players.is_deleted(client, player_id):
            return None
        raise NotFoundError(f"no such game: {game_id!r}")
    reader = archive.reader(config) if config is not None else None
    found, deleted, counts = saved_games.load_for(client, game_id, player_id, reader, counting)
    if check is not None:
        check(counts)
    if deleted:
        return None
    if found is None or found.player_id != player_id:
        raise NotFoundError(f"no such game: {game_id!r}")
    return found


def daily_of(
    client: redis.Redis, player_id: str | None, day: date, config: Config | None = None
) -> Record | None:
    """*player_id*'s daily game of *day*, finished or not, or None; with *config*, an
    archived one too (its day's index left Redis with it)."""
    if player_id is None:
        return None
    found = saved_games.index_lookup(client, keys.player_daily(player_id, day.isoformat()))
    if found is None and config is not None:
        listed = _archived_dailies(client, config, player_id, day).get(day)
        found = archive.load(client, config, listed.game_id) if listed else None
    return found


def _archived_dailies(
    client: redis.Redis, config: Config, player_id: str, since: date
) -> dict[date, archived_games.ArchivedDaily]:
    # The player's archived ranked dailies of the months from *since*'s on, by day.
    return {d.day: d for d in archive.archived_dailies(client, config, player_id, since)}


def advent_doors(
    client: redis.Redis, today_: date, player_id: str | None, config: Config | None = None
) -> tuple[Door, ...]:
    """The 24 doors as *player_id* sees them on *today_* (none outside December): behind an
    open door the day's top score, and the player's score and Christmas die if they played;
    with *config*, the doors of dailies archived already too."""
    if today_.month != 12:
        return ()
    archived: dict[date, archived_games.ArchivedDaily] = {}
    if config is not None and player_id is not None:
        archived = _archived_dailies(client, config, player_id, today_.replace(day=1))
    doors = []
    for number in range(1, ADVENT_DOORS + 1):
        when = today_.replace(day=number)
        if when > today_:
            doors.append(Door(number, "locked"))
            continue
        game = daily_of(client, player_id, when)
        score = game.total if game is not None and game.finished else None
        if score is None and when in archived:
            score = archived[when].total  # archived: its month list says
        if when == today_ and score is None:
            doors.append(Door(number, "today"))  # not opened until played: no peeking
            continue
        top = boards.top_score(client, boards.Board.daily(when))
        die = christmas_die(score, top if top is not None else score) if score is not None else None
        state = "today" if when == today_ else "played" if score is not None else "missed"
        doors.append(Door(number, state, score, top, die))
    return tuple(doors)


def december_of(doors: Sequence[Door]) -> December | None:
    """The one-picture summary of *doors* once the last door is open (Christmas Eve on)."""
    if len(doors) != ADVENT_DOORS or doors[-1].state == "locked":
        return None
    scores = [d.score for d in doors if d.score is not None]
    return December(tuple(doors), len(scores), sum(scores))
