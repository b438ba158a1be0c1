"""A player's daily figures (the ledger's) and the spread of their scores.

Read from the player's counted ranked dailies (practice and held games left out).
Like :mod:`daily.service.games` it is handed the Redis client and the configuration and returns a
frozen value; the pages show it on ``/me`` and, once today's daily is finished, on the home
page, with today's score marked in the spread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from daily.core import dice, ledger
from daily.core.config import Config
from daily.service import history
from daily.store import boards

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: Points per band of the spread (the highest daily total is 649).
BAND = 50


@dataclass(frozen=True, slots=True)
class Band:
    """How many of the player's dailies scored from *low* to *high*; *today* marks today's."""

    low: int
    high: int
    games: int
    today: bool


@dataclass(frozen=True, slots=True)
class Stats:
    """A player's figures (the ledger's: :func:`daily.service.history.figures_of`), today's
    total once finished, and the spread of their scores."""

    figures: ledger.Figures
    today: int | None  # today's total, once finished
    spread: tuple[Band, ...]
    missed: dice.Day | None = None  # yesterday's puzzle, unplayed and open as practice

    @property
    def tallest(self) -> int:
        """The most games in one band (at least 1: the height of the spread's scale)."""
        return max([band.games for band in self.spread] + [1])


def spread_of(totals: Sequence[int], today: int | None, band: int = BAND) -> tuple[Band, ...]:
    """The bands of *band* points from 0 to the top, with how many *totals* fall in each.

    >>> [(b.low, b.games, b.today) for b in spread_of([10, 60, 70], 60)][:3]
    [(0, 1, False), (50, 2, True), (100, 0, False)]
    """
    top = boards.DAILY_TOP
    return tuple(
        Band(
            low,
            min(low + band - 1, top),
            sum(low <= t < low + band for t in totals),
            today is not None and low <= today < low + band,
        )
        for low in range(0, top + 1, band)
    )


def stats_of(client: redis.Redis, config: Config, player_id: str | None, today: date) -> Stats:
    """The figures of *player_id* on *today* (none for None: no player yet) and the spread
    of their counted dailies of the ledger's days, as their notes keep them, whatever the
    number of games they stored."""
    if player_id is None:
        return Stats(ledger.NO_FIGURES, None, spread_of([], None))
    standing = history.standing_of(client, config, player_id, today)
    figures = standing.figures(today)
    totals = [total for day, total in standing.totals.items() if day in standing.days]
    today_total = standing.totals.get(today)
    missed = _missed(config, standing, today)
    return Stats(figures, today_total, spread_of(totals, today_total), missed)


def _missed(config: Config, standing: ledger.Standing, today: date) -> dice.Day | None:
    """Yesterday's puzzle where a player who played before it let it pass and has not played
    today (their streak is then 0), once its dice are revealed, so it plays as practice; else
    None. A first daily misses nothing, and one played today starts the streak again."""
    yesterday = dice.Day(today - timedelta(days=1), config.timezone)
    if yesterday.date in standing.totals or today in standing.totals:
        return None
    if not any(day < yesterday.date for day in standing.days):
        return None
    return yesterday if yesterday.is_revealed(config.now()) else None


def own_totals(client: redis.Redis, config: Config, player_id: str | None, today: date,
               leave_out: date) -> list[int]:  # fmt: skip
    """*player_id*'s counted daily totals, by day, but *leave_out*'s (the game a page shows):
    their own history, drawn where that day has too few players for a chart of its own."""
    if player_id is None:
        return []
    standing = history.standing_of(client, config, player_id, today)
    return [total for day, total in sorted(standing.totals.items())
            if day in standing.days and day != leave_out]  # fmt: skip
