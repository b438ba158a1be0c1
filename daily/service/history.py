"""A player's own games: one by its id, the dailies they finished, their streak, their game
of a given day, the doors of their advent calendar.

Handed the Redis client and the configuration, like :mod:`daily.service.games`; pages render what
these functions return and read nothing else. A player's dailies are read from their notes
(:mod:`daily.store.played_days`: three bytes a day), so their history, figures
and advent doors cost the same whatever the number of games they stored: one round trip and
at most the few games still under way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from daily.core import dice, ledger
from daily.core.config import Config
from daily.core.errors import NotFoundError
from daily.core.record import Record
from daily.service import archive
from daily.service.quotas import CountCheck
from daily.store import (
    archived_games,
    boards,
    counters,
    keys,
    played_days,
    player_counts,
    players,
    saved_games,
)
from daily.store.counters import Counter

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: How many days of history a player's page reads (a year and more).
HISTORY_DAYS = 400
#: How many of them a page of their history lists (the chart draws as many).
HISTORY_PAGE = 14
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
    # The game's id; for a daily that left Redis, its day (YYYY-MM-DD), by which its player
    # opens it (own_game): its id is in the archive, not in Redis.
    game_id: str


@dataclass(frozen=True, slots=True)
class History:
    """A page of a player's finished dailies, newest first, their figures (the ledger's:
    :func:`figures_of`) and the share of them that reached the upper bonus over every day
    of the history (:data:`HISTORY_DAYS`)."""

    played: tuple[Played, ...]
    figures: ledger.Figures
    bonus_rate: float | None = None  # 0 to 1
    older: date | None = None  # the *before* of the next page, if there is one


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


def bonus_rate(played: Sequence[Played]) -> float | None:
    """The share of *played* that reached the upper bonus, 0 to 1; None for none.

    >>> day = date(2026, 12, 1)
    >>> bonus_rate([Played(day, 1, 300, True, "a"), Played(day, 2, 250, False, "b")])
    0.5
    """
    return sum(1 for p in played if p.bonus) / len(played) if played else None


def today(config: Config) -> date:
    """The date of today's puzzle in the configured zone."""
    return dice.today(config.now(), config.timezone).date


def history_of(
    client: redis.Redis, config: Config, player_id: str | None, before: date | None = None
) -> History:
    """A page of the finished daily puzzles of *player_id* of the last :data:`HISTORY_DAYS`
    days: the newest :data:`HISTORY_PAGE` before *before* (from today without it), with the
    player's figures and the bonus rate of their counted dailies. One read of the player's
    notes, whatever the number of games they stored, and a page the same size however long
    they played."""
    if player_id is None:
        return History((), ledger.NO_FIGURES)
    last = today(config)
    found = dailies_of(client, config, player_id, last - timedelta(days=HISTORY_DAYS), last)
    standing = _standing(client, config, player_id, found)
    played = sorted(found.values(), key=lambda p: p.day, reverse=True)  # newest first
    shown = [p for p in played if before is None or p.day < before]
    page = tuple(shown[:HISTORY_PAGE])
    older = page[-1].day if len(shown) > HISTORY_PAGE else None
    figures = standing.figures(last)
    counted = [p for p in played if p.day in standing.days]
    return History(page, figures, bonus_rate(counted), older)


def standing_of(client: redis.Redis, config: Config, player_id: str, last: date) -> ledger.Standing:
    """*player_id*'s standing as the ledger reads it on *last*: the days their dailies
    counted, the totals of their dailies of the ledger's days (:data:`ledger.MEAN_DAYS`),
    their best, whether they are established, their leagues."""
    first = last - timedelta(days=ledger.MEAN_DAYS - 1)
    return _standing(client, config, player_id, dailies_of(client, config, player_id, first, last))


def _standing(
    client: redis.Redis, config: Config, player_id: str, played: dict[date, Played]
) -> ledger.Standing:
    counted = player_counts.counted(client, player_id)
    established = ledger.is_established(
        counted.established, len(counted.days), config.established_days
    )
    return ledger.Standing(
        days=counted.days,
        totals={day: p.total for day, p in played.items()},
        best=counted.best,
        established=established,
        leagues=counted.leagues,
    )


def dailies_of(
    client: redis.Redis, config: Config, player_id: str, first: date, last: date
) -> dict[date, Played]:
    """*player_id*'s finished ranked dailies from *first* to *last*, by day: as their notes
    keep them, with the ids of those still in Redis (their day's index keys name them) and
    of those archived before dailies were noted (their month lists): one round trip, and a
    read of each game its day names that is not noted (under way, or finished before notes;
    such a finished one is noted then, as its finishing move would have)."""
    live_from = last - timedelta(days=config.archive_days + 2)  # older ones are archived
    found = archived_games.dailies_of(client, player_id, first, last, live_from)
    played = {d.day: _played(config, d.day, d.total, d.bonus, d.game_id) for d in found.listed}
    for note in found.noted:
        game_id = found.live.get(note.day) or _listed_id(played, note.day)
        played[note.day] = _played(config, note.day, note.total, note.bonus, game_id)
    unnoted = {day: game_id for day, game_id in found.live.items() if day not in played}
    for record in archive.load_many(client, config, list(unnoted.values())):
        if record is None or record.day is None or not played_days.is_noted(record):
            continue
        assert record.total is not None  # a noted game is finished
        bonus = record.state(config.secret_key).bonus > 0
        healed = played_days.of_record(record, bonus)
        if healed is not None:
            played_days.note(client, player_id, healed, today(config))
        played[record.day] = _played(config, record.day, record.total, bonus, record.id)
    return played


def _played(config: Config, day: date, total: int, bonus: bool, game_id: str) -> Played:
    return Played(day, dice.Day(day, config.timezone).number, total, bonus, game_id)


def _listed_id(played: dict[date, Played], day: date) -> str:
    # A noted daily whose game left Redis: its month list's id if it has one, else its day.
    return played[day].game_id if day in played else day.isoformat()


def day_of(game_id: str) -> date | None:
    """The day a history link names instead of a game id (a daily that left Redis is
    opened by its day, ``YYYY-MM-DD``), or None for a game id.

    >>> day_of("2026-12-03"), day_of("05OAbCdEfGhIjKlM"), day_of("2026-13-03")
    (datetime.date(2026, 12, 3), None, None)
    """
    if len(game_id) != 10:  # a game id is 16 characters, never a date's ten
        return None
    try:
        return date.fromisoformat(game_id)
    except ValueError:
        return None


def own_game(
    client: redis.Redis,
    game_id: str,
    player_id: str | None,
    config: Config | None = None,
    counting: Sequence[Counter] = (),
    check: CountCheck | None = None,
) -> Record:
    """*player_id*'s game *game_id*; NotFoundError if it is missing or another player's.

    With *config*, an archived game is read from the archive too. A day (``YYYY-MM-DD``,
    a history's link to a daily that left Redis) names the player's ranked daily of that
    day. The request is counted on *counting* first (a round trip of its own) and *check*
    sees the counts.
    """
    if counting and check is not None:
        check(counters.count(client, counting))
    found = None
    day = day_of(game_id)
    if day is not None:
        found = daily_of(client, player_id, day, config)
    elif len(game_id) <= MAX_GAME_ID:
        reader = archive.reader(config) if config is not None else None
        found = saved_games.load(client, game_id, reader)
    # Another player's game is as invisible as a missing one: its dice are private.
    if found is None or player_id is None or found.player_id != player_id:
        raise NotFoundError(f"no such game: {game_id!r}")
    return found


def own_game_unless_deleted(
    client: redis.Redis,
    game_id: str,
    player_id: str | None,
    config: Config | None = None,
    counting: Sequence[Counter] = (),
    check: CountCheck | None = None,
) -> Record | None:
    """*player_id*'s game *game_id*, as :func:`own_game` finds it, or None when *player_id*
    was deleted: both read in one round trip, which also counts the request on *counting*
    (a move's); *check* sees the counts before anything else is decided. No player (None)
    owns no game."""
    if player_id is None or len(game_id) > MAX_GAME_ID or day_of(game_id) is not None:
        if counting and check is not None:
            check(counters.count(client, counting))
        if player_id is not None and players.is_deleted(client, player_id):
            return None
        return own_game(client, game_id, player_id, config)
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
    archived one too (its day's index left Redis with it: its note names its file)."""
    if player_id is None:
        return None
    reader = archive.reader(config) if config is not None else None
    found = saved_games.index_lookup(client, keys.player_daily(player_id, day.isoformat()), reader)
    if found is not None or config is None:
        return found
    # Its day's index is gone: live_from after the day reads no index key again.
    left = archived_games.dailies_of(client, player_id, day, day, day + timedelta(days=1))
    if left.listed:  # archived before dailies were noted: its month list has its id
        return archive.load(client, config, left.listed[0].game_id)
    return archive.find_daily(client, config, player_id, left.noted[0]) if left.noted else None


def advent_doors(
    client: redis.Redis, today_: date, player_id: str | None, config: Config | None = None
) -> tuple[Door, ...]:
    """The 24 doors as *player_id* sees them on *today_* (none outside December): behind an
    open door the day's top score, and the player's score and Christmas die if they played;
    with *config*, the doors of dailies archived already too (their month read at once)."""
    if today_.month != 12:
        return ()
    played: dict[date, Played] = {}
    if config is not None and player_id is not None:
        played = dailies_of(client, config, player_id, today_.replace(day=1), today_)
    doors = []
    for number in range(1, ADVENT_DOORS + 1):
        when = today_.replace(day=number)
        if when > today_:
            doors.append(Door(number, "locked"))
            continue
        score = played[when].total if when in played else None
        if config is None:  # the store alone: the games still in Redis
            game = daily_of(client, player_id, when)
            score = game.total if game is not None and game.finished else None
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
