"""The rules of a game's result: which boards a finished game counts on, its rank there,
its review status as the player sees it, and when its seed may be published.

Handed the Redis client and the configuration, like :mod:`daily.service.games`; the store only
persists what these decide (:func:`daily.store.pending_results.submit` takes the results made here),
and the web layer's game answer (:mod:`daily.web.game_answers`) reads these and nothing of the
store.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
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


def result_of(record: Record, kind: BoardKind | None = None) -> boards.Result:
    """The rankings' view of a finished game on its mode's kind of board (or *kind*)."""
    if record.total is None or record.finished_at is None:
        raise DailyError(f"game {record.id} is not finished")
    kind = kind or record.kind.board
    if kind is None:
        raise DailyError(f"{record.mode} games reach no board")
    return boards.Result(
        game_id=record.id,
        player_id=record.player_id,
        mode=kind,
        total=record.total,
        finished_at=record.finished_at,
        day=record.day,
        code=record.code,
    )


def results_of(record: Record, established: bool = True) -> list[boards.Result]:
    """What a finished game puts on the boards: its day's or code's result, and the code
    boards it opens (the share code made from it, the code a daily was played on). A daily
    of a player not yet *established* reaches no world board (:func:`is_established`): it
    keeps their own best days and streak, and ranks on its codes' boards (and leagues)."""
    if record.practice or record.total is None:
        return []
    found = []
    if record.is_ranked:
        found.append(dataclasses.replace(result_of(record), world=established))
    # A daily played on a friend's code also counts on that code's board (ZADD NX: once).
    codes = [record.code] if record.kind.board is BoardKind.DAILY and record.code else []
    if record.kind.shares and record.share:
        codes.append(record.share)  # the creator's own game opens its code's board
    for code in codes:
        found.append(dataclasses.replace(result_of(record, BoardKind.FRIEND), day=None, code=code))
    return found


def is_established(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether the player of a ranked daily about to be counted is established: they have had
    ranked dailies counted on ``config.established_days`` different days, this one included
    (the days-played bitmap their streak reads). Until then their dailies rank on friend
    codes' and leagues' boards only, so a fresh account buys no place on a world board."""
    if record.kind.board is not BoardKind.DAILY or record.day is None:
        return True
    days = boards.days_played(client, record.player_id, record.day)
    return days >= config.established_days


@dataclass(frozen=True, slots=True)
class Newcomer:
    """A counted daily of a player not yet established: where it would rank on its day's
    board, and on how many more days its player must finish a ranked daily to rank there."""

    would_rank: int
    days_left: int


def newcomer_of(client: redis.Redis, config: Config, record: Record) -> Newcomer | None:
    """Where a counted daily of a player not yet established would rank on its day's board,
    and how many more days they need (what they see, marked as a new player's); None for any
    other game: on its board, unranked, held or removed."""
    board = board_of(record)
    if board is None or record.kind.board is not BoardKind.DAILY or not record.submitted:
        return None
    if record.day is None or record.total is None or review_of(client, record.id, record):
        return None
    days = boards.days_played(client, record.player_id, record.day)
    if days >= config.established_days:
        return None
    return Newcomer(boards.rank_of_score(client, board, record.total),
                    config.established_days - days)  # fmt: skip


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
