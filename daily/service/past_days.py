"""Past puzzles: a month's calendar of dailies as one player sees it, their practice games,
and which of their games are held for review.

Every past puzzle can be played again as practice once its dice are revealed (an hour after
its day closes: :func:`daily.service.new_games.start_practice`); the calendar shows each
day's score, the practice score if the player replayed it, and what a tap does. Like
:mod:`daily.service.games` it is handed the Redis client and the configuration and returns
frozen values; a month costs three round trips whatever the player played.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from daily.core import dice
from daily.core.config import Config
from daily.core.errors import NotFoundError
from daily.service import archive, history, rankings
from daily.store import day_games
from daily.store.review_queue import HELD

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis


@dataclass(frozen=True, slots=True)
class PastDay:
    """One day of a month's calendar as its player sees it.

    *state* is ``none`` (before the first puzzle), ``future``, ``today``, ``closed`` (over,
    its dice not revealed yet: its board only) or ``open`` (revealed: it may be played as
    practice). *score* is the player's ranked daily of the day, *practice* their practice
    game's total once finished; *game_id* the game a tap opens (the daily, else the practice
    game); *held* says whether the daily is held for review.
    """

    day: date
    number: int
    state: str
    score: int | None = None
    practice: int | None = None
    game_id: str | None = None
    practice_id: str | None = None
    held: bool = False


@dataclass(frozen=True, slots=True)
class Month:
    """A month of past puzzles: its days, and the months before and after it (None: none)."""

    first: date
    days: tuple[PastDay, ...]
    previous: date | None
    next: date | None

    @property
    def lead(self) -> int:
        """The empty cells before the first day in a week that starts on Monday."""
        return self.first.weekday()

    @property
    def played(self) -> int:
        """How many of the month's dailies the player played (ranked)."""
        return sum(1 for d in self.days if d.score is not None)


def parse_month(text: str, today: date) -> date:
    """The first day of the month ``YYYY-MM`` (``latest``: today's); NotFoundError for a
    month out of the calendar's range (before the first puzzle, after today's).

    >>> parse_month("2026-12", date(2026, 12, 3))
    datetime.date(2026, 12, 1)
    >>> parse_month("latest", date(2026, 12, 3))
    datetime.date(2026, 12, 1)
    """
    if text == "latest":
        return today.replace(day=1)
    try:
        year, month = (int(part) for part in text.split("-"))
        first = date(year, month, 1) if len(text) == 7 else None
    except ValueError:
        first = None
    if first is None:
        raise NotFoundError(f"not a month (YYYY-MM): {text!r}")
    if first > today or first < rankings.DAY_EPOCH.replace(day=1):
        raise NotFoundError(f"no puzzles in {text}")
    return first


def month_of(client: redis.Redis, config: Config, player_id: str | None, first: date) -> Month:
    """The month from *first* as *player_id* sees it (None: nobody yet, no scores)."""
    today = history.today(config)
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    played: dict[date, history.Played] = {}
    practices: dict[date, tuple[str, int | None]] = {}
    held: set[str] = set()
    if player_id is not None:
        played = history.dailies_of(client, config, player_id, first, min(last, today))
        practices = practice_games(client, config, player_id, [d for d in days if d < today])
        held = held_ids(client, [p.game_id for p in played.values()])
    found = tuple(_day(config, today, d, played.get(d), practices.get(d), held) for d in days)
    previous = (first - timedelta(days=1)).replace(day=1)
    after = last + timedelta(days=1)
    return Month(
        first,
        found,
        previous if previous >= rankings.DAY_EPOCH.replace(day=1) else None,
        after if after <= today else None,
    )


def _day(
    config: Config,
    today: date,
    day: date,
    played: history.Played | None,
    practice: tuple[str, int | None] | None,
    held: set[str],
) -> PastDay:
    puzzle = dice.Day(day, config.timezone)
    if day < rankings.DAY_EPOCH:
        return PastDay(day, 0, "none")
    if day > today:
        return PastDay(day, puzzle.number, "future")
    state = "today" if day == today else "open" if puzzle.is_revealed(config.now()) else "closed"
    # A daily that left Redis has its day for an id: the play page opens it by its day.
    score, game_id = (played.total, played.game_id) if played else (None, None)
    practice_id, practice_score = practice if practice else (None, None)
    return PastDay(
        day,
        puzzle.number,
        state,
        score,
        practice_score,
        game_id or practice_id,
        practice_id,
        game_id in held,
    )


def practice_games(
    client: redis.Redis, config: Config, player_id: str, days: Sequence[date]
) -> dict[date, tuple[str, int | None]]:
    """*player_id*'s practice game of each of *days* that has one: its id, and its total once
    finished (None while under way)."""
    ids = day_games.practice_ids(client, player_id, days)
    records = archive.load_many(client, config, list(ids.values()))
    found: dict[date, tuple[str, int | None]] = {}
    for (day, game_id), record in zip(ids.items(), records, strict=True):
        if record is not None:
            found[day] = (game_id, record.total if record.finished else None)
    return found


def held_ids(client: redis.Redis, game_ids: Iterable[str]) -> set[str]:
    """Which of *game_ids* are held for review: their player sees them as under review."""
    reviews = day_games.reviews_of(client, list(game_ids))
    return {game_id for game_id, status in reviews.items() if status == HELD}
