"""Ranking integrity, second round: each attack of the cheater's second try, through the API.

Deleted accounts that play again, delete as a load, aggregate boards after a withdrawal,
a review sweep that stalls, personal answers in shared caches and spoofed addresses.
Every test runs on real Redis (embedded, a server, and a cluster when one is given).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from daily.store import keys
from daily.web import current_redis, limits
from tests.web.test_integrity import API, final_player, play_out, player, start

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DAY = NOON.date()


def delete(client: Any, **kwargs: Any) -> Any:
    return client.post("/me/delete", data={"confirm": "yes"}, **kwargs)


# -- accounts that stay deleted ---------------------------------------------------------------


def test_a_deleted_token_is_refused_everywhere(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana = player(client, "Ana")
    held = play_out(client, ana, start(client, ana, mode="daily").get_json())
    code = start(client, ana, mode="friend", ruleset="yatzy").get_json()
    # Deleted from another client: this one has no cookie that remembers the deletion.
    assert delete(app.test_client(), headers=ana).status_code == 200
    # Before: the same token started a second ranked daily on the same dice.
    for answer in [
        start(client, ana, mode="daily"),
        start(client, ana, mode="friend", code=held["share_code"]),
        start(client, ana, mode="friend", code=code["code"]),
        client.get(f"{API}/players/me", headers=ana),
        client.get(f"{API}/games/{held['id']}", headers=ana),
        client.post(f"{API}/games/{code['id']}/roll", json={"hold": []}, headers=ana),
        delete(client, headers=ana),
    ]:
        assert answer.status_code == 401, answer.get_data(as_text=True)
        if answer.is_json:
            assert answer.get_json()["error"]["code"] == "unauthorized"


def test_a_copy_of_a_deleted_players_cookie_never_plays_again(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    play_out(client, {}, client.post(f"{API}/games", json={"mode": "daily"}).get_json())
    with client.session_transaction() as session:
        kept = dict(session)  # the cheater keeps a copy of the cookie
    assert delete(client).status_code == 200
    replay = app.test_client()
    with replay.session_transaction() as session:
        session.update(kept)
    refused = replay.post(f"{API}/games", json={"mode": "daily"})
    assert refused.status_code == 401
    # The browser starts over as a new guest, without today's ranked games.
    again = replay.post(f"{API}/games", json={"mode": "daily"})
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "deleted_today"
    assert replay.post(f"{API}/games", json={"mode": "solo"}).status_code == 201


def test_delete_touches_only_the_players_own_keys(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    for who in (ana, bo):
        done = play_out(client, who, start(client, who, mode="daily").get_json())
        start(client, who, mode="friend", code=done["share_code"])
        start(client, who, mode="friend", ruleset="yatzy")
    with app.app_context():
        redis = current_redis()
        ana_id, bo_id = final_player(ana), final_player(bo)
        before = {k: redis.type(k) for k in redis.scan_iter(keys.player(bo_id) + "*")}
        listed = redis.smembers(keys.player_keys(ana_id))
        assert len(listed) == 3 and keys.player_daily(ana_id, DAY.isoformat()) in listed
    assert delete(app.test_client(), headers=ana).status_code == 200
    with app.app_context():
        redis = current_redis()
        assert [str(k) for k in redis.scan_iter(keys.player(ana_id) + "*")] == [keys.player(ana_id)]
        assert {k: redis.type(k) for k in redis.scan_iter(keys.player(bo_id) + "*")} == before


def test_delete_is_rate_limited_per_address(make_app: Any) -> None:
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "deletes": "2 per hour"})  # fmt: skip
    answers = []
    for n in range(3):
        client = app.test_client()
        answers.append(delete(client, headers=player(client, f"P{n}")))
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert int(answers[-1].headers["Retry-After"]) >= 1
