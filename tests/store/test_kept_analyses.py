"""Analyses kept: their keys pinned, the summary kept only beside a game still in Redis, and
nothing kept for ever. On a real Redis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from daily.core.record import Record
from daily.store import kept_analyses, keys, saved_games
from daily.store.connection import connect

pytestmark = pytest.mark.redis


def test_the_keys_are_pinned() -> None:
    assert keys.game_analysis("g1") == "daily:game:{g1}:analysis"
    assert keys.expert_game("2026-12-03", "v2") == "daily:expert:{2026-12-03}:v2"


@pytest.fixture
def client(redis_url: str) -> Any:
    found = connect(redis_url, Path("unused"))
    yield found
    found.close()


def _record(game_id: str) -> Record:
    return Record(id=game_id, mode="solo", ruleset="yacht", options={}, player_id="p1",
                  seed_ref="hex:" + "00" * 32, created=1.0)  # fmt: skip


def test_a_summary_goes_with_a_stored_game_and_the_decisions_expire(client: Any) -> None:
    record = _record("kept-g1")
    saved_games.start(client, record, 3600.0, [])
    kept_analyses.keep(client, record.id, "200.0000 10.0000 -", "body", 60.0)
    loaded = saved_games.load(client, record.id)
    assert loaded is not None and loaded.extra[kept_analyses.SUMMARY] == "200.0000 10.0000 -"
    assert kept_analyses.decisions_of(client, record.id) == "body"
    assert 0 < client.pttl(keys.game_analysis(record.id)) <= 60_000
    # The archive copies the decisions into the record's line.
    (folded,) = kept_analyses.fold(client, [loaded])
    assert folded.extra[kept_analyses.DECISIONS] == "body"
    assert kept_analyses.fold(client, [_record("kept-none")]) == [_record("kept-none")]


def test_a_game_out_of_redis_gets_no_hash_back(client: Any) -> None:
    # An archived game's hash is gone (or a marker): the summary must not bring it back.
    kept_analyses.keep(client, "kept-gone", "200.0000 10.0000 -", "body", 60.0)
    assert not client.exists(keys.game("kept-gone"))
    client.hset(keys.game("kept-marker"), "a", "2026-12-01")
    kept_analyses.keep(client, "kept-marker", "200.0000 10.0000 -", "body", 60.0)
    assert client.hgetall(keys.game("kept-marker")) == {"a": "2026-12-01"}


def test_the_experts_day_is_kept_for_a_while(client: Any) -> None:
    assert kept_analyses.expert_of(client, "2026-12-03", "v2") is None
    kept_analyses.keep_expert(client, "2026-12-03", "v2", "390 394.5 abc", 120.0)
    assert kept_analyses.expert_of(client, "2026-12-03", "v2") == "390 394.5 abc"
    assert 0 < client.pttl(keys.expert_game("2026-12-03", "v2")) <= 120_000
