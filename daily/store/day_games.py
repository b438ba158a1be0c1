"""A player's games of given days, as the calendar of past puzzles reads them: which practice
game each day has, and the review status of games still in Redis.

Persistence only: the calendar (:mod:`daily.service.past_days`) decides what a day shows. Each
read is one round trip whatever the number of days or games: the index keys of one player
share their hash tag (one ``MGET``), and the games' fields are read in one pipeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import redis

from daily.store import keys
from daily.store.guard import guarded

#: The field of a game's hash that holds its review status (daily/store/review_queue.py).
_REVIEW = "review"


@guarded
def practice_ids(client: redis.Redis, player_id: str, days: Sequence[date]) -> dict[date, str]:
    """The id of *player_id*'s practice game of each of *days* that has one (still indexed)."""
    if not days:
        return {}
    found = client.mget([keys.player_practice(player_id, day.isoformat()) for day in days])
    return {day: str(game_id) for day, game_id in zip(days, found, strict=True) if game_id}


@guarded
def reviews_of(client: redis.Redis, game_ids: Sequence[str]) -> dict[str, str]:
    """The review status (held, released, removed) of each of *game_ids* in Redis that has
    one; a game no longer in Redis has none (a held game is never archived)."""
    if not game_ids:
        return {}
    pipe = client.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.hget(keys.game(game_id), _REVIEW)
    found = pipe.execute()
    return {game_id: str(status) for game_id, status in zip(game_ids, found, strict=True) if status}
