"""Players on a real Redis: names trimmed and checked, renames, guests."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from daily.core.errors import StorageError
from daily.store import keys, players
from daily.store.connection import connect

pytestmark = pytest.mark.redis


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return connect(redis_url, Path("unused"))  # a server or a cluster


def test_create_get_rename(client: redis.Redis) -> None:
    ana = players.create(client, "  Ana  ")
    assert ana.name == "Ana"
    assert players.get(client, ana.id) == ana
    assert client.hget(keys.player(ana.id), "name") == "Ana"
    assert players.rename(client, ana.id, "Ana B").name == "Ana B"
    assert players.names_of(client, [ana.id, "nobody"]) == {ana.id: "Ana B"}


def test_guests_get_a_name(client: redis.Redis) -> None:
    guest = players.create(client)
    assert guest.name == f"Guest {guest.id[:4]}"


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * 25, "tab\there", "new\nline", "\u200b", 7],
    ids=["empty", "blank", "long", "tab", "newline", "zero-width", "int"],
)
def test_bad_names_store_nothing(client: redis.Redis, name: object) -> None:
    with pytest.raises(players.InvalidNameError):
        players.create(client, name)  # type: ignore[arg-type]
    assert client.dbsize() == 0


def test_longest_name() -> None:
    assert players.parse_name(" " + "é" * 24 + " ") == "é" * 24


def test_redis_down_is_a_storage_error() -> None:
    dead = redis.Redis(port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))
    with pytest.raises(StorageError):
        players.get(dead, "p1")
