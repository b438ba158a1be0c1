"""Rankings in Redis sorted sets: today's dice, best day, streak, advent and friend boards.

(Interface agreed between the game store and the rankings; the rankings issue fills it in.)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import redis


@dataclass(frozen=True, slots=True)
class Result:
    """A finished, verified game as the rankings see it."""

    game_id: str
    player_id: str
    mode: str  # "daily" or "friend"; other modes are not ranked
    total: int
    finished_at: float  # unix seconds, for "the earlier finisher first" among equals
    day: date | None = None  # daily games: the date the game was started for
    code: str | None = None  # friend games: the normalized code, e.g. "K7P2QX9D"


def submit(client: redis.Redis, result: Result) -> None:
    """Counts *result* on every board it belongs to, atomically and exactly once."""
    raise NotImplementedError("rankings: issue 4")
