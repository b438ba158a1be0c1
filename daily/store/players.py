"""Players in Redis: an id and a display name, nothing else about a person."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass

import redis

from daily.errors import DailyError
from daily.store import keys
from daily.store.guard import guarded

MAX_NAME = 24


class InvalidNameError(DailyError, ValueError):
    """A display name that is empty, too long or not printable."""


@dataclass(frozen=True, slots=True)
class Player:
    """A player: the id that signs their token and the name shown on boards."""

    id: str
    name: str


def parse_name(text: object) -> str:
    """Trims a display name and checks it is 1 to 24 printable characters.

    >>> parse_name("  Ana ")
    'Ana'
    """
    if not isinstance(text, str):
        raise InvalidNameError(f"name must be a string, got {text!r}")
    name = text.strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise InvalidNameError(f"name must be 1 to {MAX_NAME} characters, got {len(name)}")
    if not name.isprintable():
        raise InvalidNameError(f"name must be printable characters only, got {name!r}")
    return name


def guest_name(player_id: str) -> str:
    """The name of a player who never chose one.

    >>> guest_name("0123456789abcdef")
    'Guest 0123'
    """
    return f"Guest {player_id[:4]}"


@guarded
def create(client: redis.Redis, name: str | None = None) -> Player:
    """Stores a new player named *name* (checked by :func:`parse_name`), or a guest."""
    player_id = secrets.token_hex(8)
    player = Player(player_id, guest_name(player_id) if name is None else parse_name(name))
    client.hset(keys.player(player_id), mapping={"name": player.name, "created": time.time()})
    return player


@guarded
def get(client: redis.Redis, player_id: str) -> Player | None:
    """The player *player_id*, or None if there is none."""
    name = client.hget(keys.player(player_id), "name")
    return None if name is None else Player(player_id, str(name))


@guarded
def rename(client: redis.Redis, player_id: str, name: str) -> Player:
    """Changes a player's name; every board shows the new one at once."""
    player = Player(player_id, parse_name(name))
    client.hset(keys.player(player_id), "name", player.name)
    return player


@guarded
def names_of(client: redis.Redis, player_ids: Iterable[str]) -> dict[str, str]:
    """The names of the players that exist among *player_ids*."""
    ids = list(player_ids)
    pipe = client.pipeline(transaction=False)
    for player_id in ids:
        pipe.hget(keys.player(player_id), "name")
    return {i: str(n) for i, n in zip(ids, pipe.execute(), strict=True) if n is not None}
