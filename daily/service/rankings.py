"""The rankings service: which boards exist, a page of one, a day's score distribution.

Handed the Redis client and the configuration, like :mod:`daily.service.games`; the web layer names
a board with the constructors of :class:`Board` and renders the frozen :class:`Page`.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import TYPE_CHECKING

from daily.core.codes import code_str
from daily.core.config import Config
from daily.core.errors import NotFoundError
from daily.service import archive
from daily.store import boards, friend_codes, player_counts
from daily.store.boards import Band as Band
from daily.store.boards import Board as Board
from daily.store.boards import Entry as Entry
from daily.store.boards import Page as Page

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The first day any board holds.
DAY_EPOCH = boards.DAY_EPOCH
#: The most entries one page of a board holds.
MAX_LIMIT = boards.MAX_LIMIT
#: The furthest a page may start from the top (a query beyond it is refused).
MAX_OFFSET = 10**9
#: The highest daily total the distribution counts apart (a band is at most this wide + 1).
DAILY_TOP = boards.DAILY_TOP


def check_day(day: date) -> date:
    """*day*, if a board can hold it; NotFoundError before :data:`DAY_EPOCH`.

    >>> check_day(date(2026, 12, 1))
    datetime.date(2026, 12, 1)
    """
    if day < DAY_EPOCH:
        raise NotFoundError(f"no rankings before {DAY_EPOCH.isoformat()}: {day.isoformat()}")
    return day


def check_year(year: int) -> int:
    """*year*, if its advent calendar can have a board; NotFoundError if not.

    >>> check_year(1999)
    Traceback (most recent call last):
    ...
    daily.core.errors.NotFoundError: no advent calendar in 1999
    """
    if not DAY_EPOCH.year <= year <= 9999:
        raise NotFoundError(f"no advent calendar in {year}")
    return year


def check_code(client: redis.Redis, config: Config, code: str) -> str:
    """The normalized friend *code*, if it exists (in Redis, or archived); NotFoundError if
    not."""
    if friend_codes.code_exists(client, code) or archive.standing_of(config, code) is not None:
        return code
    raise NotFoundError(f"no friend challenge with code {code_str(code)}")


def page(
    client: redis.Redis,
    config: Config,
    board: Board,
    offset: int,
    limit: int,
    me: str | None = None,
    around: bool = False,
) -> Page:
    """*limit* entries of *board* from *offset* (or around *me*), its size and *me*'s entry;
    a new player's line on a day's board says how many days they must still play to rank;
    an archived friend code's board is read from its line in the archive."""
    kept = (
        _archived(client, config, board.id.removeprefix("friend/"))
        if board.kind == "friend"
        else None
    )
    if kept is not None:
        return boards.page_of(client, board, kept, offset=offset, limit=limit, me=me, around=around)
    today = config.now().date()
    found = boards.page(
        client, board, offset=offset, limit=limit, me=me, around=around, today=today
    )
    lines = [*found.entries, *([found.me] if found.me else [])]
    fresh = [e.player_id for e in lines if e.new]
    if not fresh:
        return found
    counts = player_counts.days_counted(client, fresh)

    def marked(entry: Entry) -> Entry:
        if not entry.new:
            return entry
        days, established = counts[entry.player_id]
        left = 0 if established else max(0, config.established_days - days)
        return dataclasses.replace(entry, days_left=left)

    me_ = marked(found.me) if found.me else None
    return dataclasses.replace(found, entries=tuple(map(marked, found.entries)), me=me_)


def _archived(client: redis.Redis, config: Config, code: str) -> dict[str, int] | None:
    """The standing of friend *code*'s board if the code was archived (its board left Redis
    with it); None while the code is in Redis, or nowhere."""
    return None if friend_codes.code_exists(client, code) else archive.standing_of(config, code)


def top_players(client: redis.Redis, config: Config, code: str, count: int) -> list[str]:
    """The ids of the first *count* players of friend *code*'s board, in Redis or archived."""
    kept = _archived(client, config, code)
    if kept is None:
        return boards.top_players(client, Board.friend(code), count)
    page = boards.page_of(client, Board.friend(code), kept, limit=min(count, MAX_LIMIT))
    return [entry.player_id for entry in page.entries]


def distribution(client: redis.Redis, day: date, band: int) -> tuple[Band, ...]:
    """How many players reached each *band* points of scores on *day*, lowest first."""
    return boards.distribution(client, day, band)
