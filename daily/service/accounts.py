"""The player service: guests and names, sign-in link generations, deletion.

Like :mod:`daily.service.games`, it is handed the Redis client and the configuration and never
imports Flask; the web layer parses, calls one function here and renders the result.

A deleted player leaves a tombstone (:func:`daily.store.players.delete`): their token and
any copy of their cookie are refused for good, so "delete, then play today again" under the
same identity never starts a second ranked game. Delete touches only the player's own keys
(never a scan of the keyspace), and the web layer rate limits it per address.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from daily.core import ledger, modes
from daily.core.config import Config
from daily.core.errors import DeletedTodayError, StorageError
from daily.service import history, leagues, reminders
from daily.store import keys, players
from daily.store.players import MAX_NAME as MAX_NAME
from daily.store.players import Player as Player
from daily.store.players import parse_name as parse_name

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis


def create(
    client: redis.Redis, name: str | None = None, expires_in: timedelta | None = None
) -> Player:
    """A new player named *name* (a guest when None; one that expires with *expires_in*)."""
    return players.create(client, name, expires_in)


def get(client: redis.Redis, player_id: str) -> Player | None:
    """The player *player_id*, or None if there is none (deleted, or an expired guest)."""
    return players.get(client, player_id)


@dataclass(frozen=True, slots=True)
class Profile:
    """A player, their figures today (the ledger's) and whether their dailies rank on the
    world boards."""

    player: Player
    figures: ledger.Figures
    established: bool


def profile(client: redis.Redis, config: Config, player_id: str) -> Profile | None:
    """*player_id*'s profile, or None if there is no such player."""
    player = players.get(client, player_id)
    if player is None:
        return None
    today = history.today(config)
    standing = history.standing_of(client, config, player_id, today)
    return Profile(player, standing.figures(today), standing.established)


def rename(client: redis.Redis, player_id: str, name: str) -> Player:
    """Gives *player_id* the name *name* (checked by :func:`parse_name`)."""
    return players.rename(client, player_id, name)


def keep(client: redis.Redis, player_id: str) -> None:
    """Keeps *player_id* for good: a player with a sign-in link is not a passing guest."""
    players.keep(client, player_id)


def link_generation(client: redis.Redis, player_id: str) -> int:
    """The generation of *player_id*'s current sign-in link (0: none made yet)."""
    return players.link_generation(client, player_id)


def next_link_generation(client: redis.Redis, player_id: str) -> int:
    """Starts a new sign-in link generation, revoking every link made before."""
    return players.next_link_generation(client, player_id)


def delete(client: redis.Redis, config: Config, player_id: str) -> int:
    """Deletes *player_id*: name, history, streak, links and reminder; their games stay,
    anonymous.

    The player first leaves their leagues, and also leaves the boards with one entry per
    player (best day, streak); their games stay on the boards of their days and codes.
    Returns the number of keys removed.
    """
    leagues.leave_all(client, config, player_id)
    personal = (keys.board_best_day(), keys.board_streak())
    removed = players.delete(client, player_id, config.now().timestamp(), personal)
    reminders.forget_player(client, player_id)  # its subscription went with the player
    return removed


def is_deleted(client: redis.Redis, player_id: str) -> bool:
    """Whether *player_id* was deleted; False when Redis cannot say (the view answers 503)."""
    try:
        return players.is_deleted(client, player_id)
    except StorageError:
        return False


def check_may_start(mode: modes.Mode, deleted_on: date | None, today: date) -> None:
    """Refuses a ranked game on a browser whose player was deleted *today*: its dice are
    known there, so a new player must not replay them for a better rank.

    >>> day = date(2026, 12, 1)
    >>> check_may_start(modes.DAILY, day, date(2026, 12, 2))
    >>> check_may_start(modes.SOLO, day, day)
    >>> check_may_start(modes.DAILY, day, day)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.DeletedTodayError: a player was deleted on this browser today: ...
    """
    if deleted_on == today and mode.is_ranked:
        raise DeletedTodayError(
            "a player was deleted on this browser today: ranked games start again tomorrow"
        )
