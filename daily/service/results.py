"""The rules of a game's result: which boards a finished game counts on, its rank there,
its review status as the player sees it, and when its seed may be published.

Handed the Redis client and the configuration, like :mod:`daily.service.games`; the store only
persists what these decide (:func:`daily.store.pending_results.submit` takes the results made here),
and the web layer's game answer (:mod:`daily.web.game_answers`) reads these and nothing of the
store.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from daily.core import dice
from daily.core.config import Config
from daily.core.errors import DailyError
from daily.core.modes import BoardKind
from daily.core.record import Record
from daily.service import archive
from daily.store import boards, review_queue

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The review statuses a player sees: held (kept off the rankings while an operator looks at
#: its luck) or removed (never ranked).
Review = Literal["held", "removed"]

#: When a seed that may still be played on a ranked board is published: never, for now.
_NEVER = datetime.max.replace(tzinfo=UTC)


def board_of(record: Record) -> boards.Board | None:
    """The board a game counts on: its date's or its friend code's; None for unranked games.

    >>> from datetime import date
    >>> daily = Record(id="g1", mode="daily", ruleset="maxi", options={}, player_id="p1",
    ...                seed_ref="daily:2026-12-01", created=0.0, day=date(2026, 12, 1))
    >>> board_of(daily).id
    'daily/2026-12-01'
    >>> board_of(dataclasses.replace(daily, mode="solo", day=None)) is None
    True
    """
    if record.practice:
        return None
    if record.kind.board is BoardKind.DAILY and record.day is not None:
        return boards.Board.daily(record.day)
    if record.kind.board is BoardKind.FRIEND and record.code is not None:
        return boards.Board.friend(record.code)
    return None


def board_id(record: Record) -> str | None:
    """The id of the board *record* counts on (``daily/2026-12-01``, ``friend/CODE``), if any."""
    board = board_of(record)
    return board.id if board else None


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


def rank_of(client: redis.Redis, record: Record) -> int | None:
    """The rank of a finished game's player on its board, once counted."""
    board = board_of(record)
    if board is None or not record.submitted:
        return None
    entry = boards.rank_of(client, board, record.player_id)
    return entry.rank if entry else None


def review_of(client: redis.Redis, game_id: str, record: Record | None = None) -> Review | None:
    """The review status of *game_id* as stored now, if the player is to see one (as its
    *record* says once it is archived)."""
    status = review_queue.shown_status_of(client, game_id, record)
    if status == review_queue.HELD:
        return "held"
    return "removed" if status == review_queue.REMOVED else None


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
        found = archive.load_code(client, config, code)
        return found.practice_at(config.timezone) if found else _NEVER
    if ref.kind == "friend" or shared:
        return _NEVER  # a code or share not made (yet): keep it
    return None  # a party's or a computer game's own random seed: nobody else plays it


def is_seed_public(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether *record*'s seed may be shown now: no ranked game can be played on it any more."""
    reveals = seed_reveals_at(client, config, record)
    return reveals is None or config.now() >= reveals
