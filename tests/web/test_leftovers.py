"""Everything a request writes leaves (issue 39): after ``daily archive`` has moved the games
of a day out of Redis, every key left either expires or has an owner that still holds it
(:func:`daily.store.keys.owner_of`). The cost table's walk (test_costs.py) checks each
route's writes as they are made; this follows a day's games to their archive.

In round 5, every friend code's board (``daily:board:{friend:CODE}``) stayed after its code
and its games were archived: no expiry, nothing behind it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from daily.cli import main
from daily.store import keys, review_queue
from daily.web.context import current_redis
from tests.built_tables import SECRET
from tests.web.test_integrity import finished_daily, play_out, player, start

API = "/api/v1"
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
LATER = NOON + timedelta(days=10)  # every code closed, every game due


def _tag(key: str) -> str:
    return key.split("{", 1)[1].split("}", 1)[0]


def _held(client: Any, key: str, owner: str) -> bool:
    """Whether *owner* still holds *key*: the player, the league, or for a game's keys the
    game (a code's, its game; a friend board's, its code) still in Redis."""
    tag = _tag(key) if "{" in key else ""
    if owner == "player":
        return bool(client.exists(keys.player(tag)))
    if owner == "league":
        return bool(client.exists(keys.league(tag)))
    if owner == "board":  # the rankings' own boards: best day, streak (and their helpers)
        return True
    if key.startswith(keys.board_friend("")[:-1]):
        return bool(client.exists(keys.friend_code(tag.removeprefix("friend:"))))
    if re.match(r"daily:code:", key):
        return bool(client.exists(keys.game(client.hget(key, "game") or "")))
    if re.match(r"daily:game:", key):
        return bool(client.exists(keys.game(tag)))
    return True  # the lists of games and reviews, and the archive's index of random codes


def test_every_key_left_after_the_archive_expires_or_has_its_owner(
    make_app: Any, tmp_path: Path, small_tables: Path, redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    archive = tmp_path / "archive"
    app = make_app(now=NOON, archive_url=str(archive), archive_days=1)
    client = app.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    # Ana's daily and its share code, played by Bo; a yatzy friend code of Bo's, played by Ana.
    daily = finished_daily(client, ana)
    with app.app_context():  # its luck check, as the Maxi table would give it (never built)
        review_queue.save_verdict(current_redis(), daily["id"], 0.5, False, NOON.timestamp())
        review_queue.unlist_unchecked(current_redis(), daily["id"])
    shared = daily["share_code"]
    play_out(client, bo, start(client, bo, mode="friend", code=shared).get_json())
    fresh = start(client, bo, mode="friend", ruleset="yatzy").get_json()
    play_out(client, bo, fresh)
    play_out(client, ana, start(client, ana, mode="friend", code=fresh["code"]).get_json())
    made = client.post(f"{API}/leagues", json={"name": "Kept"}, headers=ana)
    assert made.status_code == 201
    boards = [keys.board_friend(code.replace("-", "")) for code in (shared, fresh["code"])]
    with app.app_context():
        assert all(current_redis().zcard(board) == 2 for board in boards)
    for name, value in {"REDIS_URL": redis_url, "DAILY_ARCHIVE": str(archive),
                        "DAILY_ARCHIVE_DAYS": "1", "DAILY_NOW": LATER.isoformat(),
                        "SECRET_KEY": SECRET, "DAILY_ENV": "testing"}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    assert main(["archive"]) == 0  # `daily archive`, as an operator runs it
    with app.app_context():
        redis = current_redis()
        left = {str(key): int(redis.ttl(key)) for key in redis.scan_iter(count=1000)}
        forever = {key: keys.owner_of(key) for key, ttl in left.items() if ttl < 0}
        orphans = {key: owner for key, owner in forever.items()
                   if owner is None or not _held(redis, key, owner)}  # fmt: skip
        assert orphans == {}
        assert not any(redis.exists(board) for board in boards)  # gone with their codes
    # Their standings went with them, to the archive: the boards read the same.
    later = make_app(now=LATER, archive_url=str(archive), archive_days=1).test_client()
    for code in (shared, fresh["code"]):
        page = later.get(f"{API}/leaderboards/friend/{code}", headers=ana).get_json()
        assert page["total"] == 2 and len(page["entries"]) == 2, page
        assert {e["name"] for e in page["entries"]} == {"Ana", "Bo"}
        assert page["me"]["name"] == "Ana"
