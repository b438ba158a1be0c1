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
from daily.web import limits
from daily.web.context import current_redis
from tests.web.helpers import WINDOWS
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


def test_a_deleted_token_is_refused_a_move_with_the_limits_on(make_app: Any) -> None:
    # The moves limit counts the token's player without asking Redis about them; the move
    # reads the deletion mark with the game, and refuses.
    app = make_app(now=NOON, rate_limits={})
    client = app.test_client()
    ana = player(client, "Ana")
    game = start(client, ana, mode="daily").get_json()
    assert delete(app.test_client(), headers=ana).status_code == 200
    for action, body in (("roll", {"hold": [], "move": 0}), ("score", {"category": "chance"})):
        refused = client.post(f"{API}/games/{game['id']}/{action}", json=body, headers=ana)
        assert refused.status_code == 401, refused.get_json()
        assert refused.get_json()["error"]["code"] == "unauthorized"


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
    codes = []
    for who in (ana, bo):
        play_out(client, who, start(client, who, mode="daily").get_json())
        codes.append(start(client, who, mode="friend", ruleset="yatzy").get_json()["code"])
    # A game on another player's code (a daily's own code gives back the daily: no new key).
    assert start(client, ana, mode="friend", code=codes[1]).status_code == 201
    with app.app_context():
        redis = current_redis()
        ana_id, bo_id = final_player(ana), final_player(bo)
        before = {k: redis.type(k) for k in redis.scan_iter(keys.player(bo_id) + "*")}
        listed = redis.smembers(keys.player_keys(ana_id))
        assert len(listed) == 3 and keys.player_daily(ana_id, DAY.isoformat()) in listed
    assert delete(app.test_client(), headers=ana).status_code == 200
    with app.app_context():
        redis = current_redis()
        left = [str(k) for k in redis.scan_iter(keys.player(ana_id) + "*")]
        assert [k for k in left if not WINDOWS.match(k)] == [keys.player(ana_id)]  # and windows
        after = {k: redis.type(k) for k in redis.scan_iter(keys.player(bo_id) + "*")}
        assert {k: t for k, t in after.items() if not WINDOWS.match(k)} == {
            k: t for k, t in before.items() if not WINDOWS.match(k)
        }


def test_delete_is_rate_limited_per_address(make_app: Any) -> None:
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "deletes": "2 per hour"})  # fmt: skip
    answers = []
    for n in range(3):
        client = app.test_client()
        answers.append(delete(client, headers=player(client, f"P{n}")))
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert int(answers[-1].headers["Retry-After"]) >= 1


# -- every ranked game is checked, or not ranked ----------------------------------------------


def test_a_code_no_table_can_check_is_practice(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    banked = {"saved_rolls": True}
    made = start(client, ana, mode="friend", ruleset="maxi", options=banked).get_json()
    assert not made["ranked"] and made["practice"], made
    assert play_out(client, ana, made)["rank"] is None
    joined = start(client, bo, mode="friend", code=made["code"]).get_json()
    assert not joined["ranked"] and joined["practice"]  # before: 615, rank 1, never checked
    assert play_out(client, bo, joined)["board"] is None
    solo = play_out(client, ana, start(client, ana, mode="solo", options=banked,
                                       ruleset="maxi").get_json())  # fmt: skip
    shared = start(client, bo, mode="friend", code=solo["share_code"]).get_json()
    assert shared["practice"] and play_out(client, bo, shared)["rank"] is None
    with app.app_context():
        for code in (made["code"], solo["share_code"]):
            assert current_redis().zcard(keys.board_friend(code.replace("-", ""))) == 0


def test_a_withdrawn_daily_leaves_every_board_it_reached(make_app: Any) -> None:
    from daily.service import results, reviews
    from daily.store import review_queue, saved_games

    totals, ids = {}, {}
    who: dict[str, str] = {}
    for day in (1, 2, 3):  # advent doors 1 to 3, a three-day streak
        app = make_app(now=NOON.replace(day=day))
        client = app.test_client()
        who = who or player(client, "Ana")
        state = start(client, who, mode="daily").get_json()
        # Day 2 scores the last row first: three different totals.
        state = _play_last(client, who, state) if day == 2 else play_out(client, who, state)
        totals[day], ids[day] = state["total"], state["id"]
    with app.app_context():
        redis, config = current_redis(), app.extensions["daily.config"]
        me = final_player(who)
        record = saved_games.load(redis, ids[3])
        assert record is not None
        before = _aggregates(client, who)
        assert before == (max(totals.values()), 3, sum(totals.values()))
        # What the sweep does with a clairvoyant game counted before its table existed.
        review_queue.save_verdict(redis, record.id, 9.9, True, NOON.timestamp())
        results.withdraw(redis, config, record)
        results.withdraw(redis, config, record)  # a retried withdrawal takes nothing twice
    best = max(totals[1], totals[2])
    assert _aggregates(client, who) == (best, 2, totals[1] + totals[2])  # before: all three
    page = client.get(f"{API}/leaderboards/daily/{NOON.date()}", headers=who).get_json()
    assert page["me"] is None
    share = client.get(f"{API}/games/{ids[3]}", headers=who).get_json()["share_code"]
    assert client.get(f"{API}/leaderboards/friend/{share}").get_json()["total"] == 0
    with app.app_context():
        reviews.release(current_redis(), config, ids[3])  # the operator: counted again, once
        assert current_redis().hget(keys.player_best_days(me), NOON.date().isoformat())
    assert _aggregates(client, who) == before


def _play_last(client: Any, who: dict[str, str], state: dict[str, Any]) -> dict[str, Any]:
    while not state["finished"]:
        row = list(state["potential"])[-1]
        answer = client.post(f"{API}/games/{state['id']}/score", json={"category": row},
                             headers=who)  # fmt: skip
        state = answer.get_json()
    return state


def _aggregates(client: Any, who: dict[str, str]) -> tuple[int, int, int]:
    """The player's best day, streak and advent sum, as the boards show them."""
    found = []
    for board in ("best-day", "streak", "advent/2026"):
        page = client.get(f"{API}/leaderboards/{board}", headers=who).get_json()
        found.append(page["me"]["score"] if page["me"] else 0)
    return found[0], found[1], found[2]


# -- hygiene: logs, caches, addresses ---------------------------------------------------------


def test_no_sign_in_link_reaches_the_access_log(
    make_app: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    client = make_app(now=NOON).test_client()
    client.post(f"{API}/games", json={"mode": "solo"})
    link = client.post("/me/link").get_data(as_text=True)
    token = link.split("/signin/")[1].split('"')[0].split("<")[0]
    assert len(token) > 20
    capsys.readouterr()
    assert client.get(f"/signin/{token}").status_code == 200
    logged = capsys.readouterr().err
    assert '"path":"/signin/[redacted]"' in logged and token not in logged


PERSONAL = ["/api/v1/players/me", "/api/v1/games/{id}", "/me", "/me/history", "/play/{id}",
            "/api/v1/leaderboards/best-day"]  # fmt: skip


@pytest.mark.parametrize("path", PERSONAL)
def test_personal_answers_are_kept_out_of_shared_caches(make_app: Any, path: str) -> None:
    client = make_app(now=NOON).test_client()
    game = client.post(f"{API}/games", json={"mode": "solo"}).get_json()
    answer = client.get(path.format(id=game["id"]))
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "private, no-store"
    anonymous = make_app(now=NOON).test_client().get("/rules/maxi")
    assert "no-store" not in anonymous.headers.get("Cache-Control", "")


def test_a_client_reaching_the_app_directly_cannot_spoof_its_address(make_app: Any) -> None:
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "players": "1 per hour"},
                   trusted_proxies="10.0.0.2, 10.9.0.0/16")  # fmt: skip
    client = app.test_client()

    def new_player(peer: str, forwarded: str) -> int:
        headers = {"X-Forwarded-For": forwarded}
        answer = client.post(f"{API}/players", json={"name": "A"}, headers=headers,
                             environ_base={"REMOTE_ADDR": peer})  # fmt: skip
        return int(answer.status_code)

    # Directly, from 198.51.100.9: a forged header gets no fresh budget (before: it did).
    assert new_player("198.51.100.9", "203.0.113.1") == 201
    assert new_player("198.51.100.9", "203.0.113.2") == 429
    # Through the proxies: the first address from the right that is not theirs counts,
    # whatever the client wrote to its left.
    assert new_player("10.0.0.2", "203.0.113.5, 10.9.1.1") == 201
    assert new_player("10.0.0.2", "203.0.113.6") == 201
    assert new_player("10.9.4.4", "1.2.3.4, 203.0.113.5") == 429


def test_ipv6_addresses_are_limited_by_their_64(make_app: Any) -> None:
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "players": "2 per hour"})  # fmt: skip
    client = app.test_client()

    def new_player(address: str) -> int:
        answer = client.post(f"{API}/players", json={"name": "A"},
                             environ_base={"REMOTE_ADDR": address})  # fmt: skip
        return int(answer.status_code)

    block = [f"2001:db8:1:2:{n:x}::1" for n in range(3)]  # before: a fresh budget each
    assert [new_player(a) for a in block] == [201, 201, 429]
    assert new_player("2001:db8:1:3::1") == 201  # the next /64 is somebody else
