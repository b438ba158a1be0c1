"""What a game's answer shows beyond its sheet: the board it counts on, its review status,
whether its seed may be published.

Handed the Redis client and the configuration, like :mod:`daily.games`; the web layer's game
answer (:mod:`daily.web.render`) reads these and nothing of the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from daily.config import Config
from daily.record import Record
from daily.store import games, reviews

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The review statuses a player sees: held (kept off the rankings while an operator looks at
#: its luck) or removed (never ranked).
Review = Literal["held", "removed"]


def board_id(record: Record) -> str | None:
    """The id of the board *record* counts on (``daily/2026-12-01``, ``friend/CODE``), if any."""
    board = games.board_of(record)
    return board.id if board else None


def review_of(client: redis.Redis, game_id: str, record: Record | None = None) -> Review | None:
    """The review status of *game_id* as stored now, if the player is to see one (as its
    *record* says once it is archived)."""
    status = reviews.shown_status_of(client, game_id, record)
    if status == reviews.HELD:
        return "held"
    return "removed" if status == reviews.REMOVED else None


def is_seed_public(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether *record*'s seed may be shown now: no ranked game can be played on it any more."""
    return games.is_seed_public(client, config, record)
