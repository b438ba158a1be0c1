"""The account service: deleting a player, and telling a deleted one from a live one.

A deleted player leaves a tombstone (:func:`daily.store.players.delete`): their token and
any copy of their cookie are refused for good, so "delete, then play today again" under the
same identity never starts a second ranked game. Delete touches only the player's own keys
(never a scan of the keyspace), and the web layer rate limits it per address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from daily.config import Config
from daily.errors import StorageError
from daily.store import keys, players

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis


def delete(client: redis.Redis, config: Config, player_id: str) -> int:
    """Deletes *player_id*: name, history, streak and links; their games stay, anonymous.

    The player also leaves the boards with one entry per player (best day, streak); their
    games stay on the boards of their days and codes. Returns the number of keys removed.
    """
    personal = (keys.board_best_day(), keys.board_streak())
    return players.delete(client, player_id, config.now().timestamp(), personal)


def is_deleted(client: redis.Redis, player_id: str) -> bool:
    """Whether *player_id* was deleted; False when Redis cannot say (the view answers 503)."""
    try:
        return players.is_deleted(client, player_id)
    except StorageError:
        return False
