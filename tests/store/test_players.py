"""Players on a real Redis: names trimmed and checked, renames, guests."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from daily.core.errors import InvalidNameError, StorageError
from daily.core.record import Record
from daily.store import game_fields, keys, played_days, players, saved_games
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
    with pytest.raises(InvalidNameError):
        players.create(client, name)  # type: ignore[arg-type]
    assert client.dbsize() == 0


def test_longest_name() -> None:
    assert players.parse_name(" " + "é" * 24 + " ") == "é" * 24


def test_redis_down_is_a_storage_error() -> None:
    dead = redis.Redis(port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))
    with pytest.raises(StorageError):
        players.get(dead, "p1")


def test_delete_leaves_a_tombstone_and_nothing_else(client: redis.Redis) -> None:
    ana = players.create(client, "Ana")
    day = date(2026, 11, 30)
    record = Record(id=game_fields.new_id(), mode="daily", ruleset="maxi", options={},
                    player_id=ana.id, seed_ref=f"daily:{day}", created=time.time(), day=day,
                    replayed=True)  # fmt: skip
    practice = keys.player_practice(ana.id, day.isoformat())  # a past day replayed
    saved_games.start(client, record, 3600, [practice])
    played_days.note(client, ana.id, played_days.PlayedDay(day, 250, True), day)
    assert client.exists(practice, keys.player_dailies(ana.id)) == 2
    players.delete(client, ana.id, time.time())
    left = sorted(client.scan_iter(f"daily:player:{{{ana.id}}}*"))
    assert left == [keys.player(ana.id)]  # the tombstone: its token stays refused
    assert list(client.hgetall(keys.player(ana.id))) == [players.DELETED]
    assert client.exists(keys.game(record.id))  # the game stays (anonymous), till it expires
