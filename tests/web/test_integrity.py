"""Ranking integrity: every attack a cheater tried, through the API on a real Redis.

Share codes (same-day, a solo game's seed, revealed days, expired codes), races between
real concurrent requests on a threaded server, second accounts and look-alike names,
storage that expires, and a header injection.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from werkzeug.serving import make_server

from daily.core import dice
from daily.core.record import Record
from daily.service import establishment, games
from daily.store import boards, friend_codes, game_fields, keys, saved_games
from daily.web import limits
from daily.web.context import current_redis

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DAY = NOON.date()
API = "/api/v1"


def player(client: Any, name: str = "Ana") -> dict[str, str]:
    """A named player's bearer header."""
    made = client.post(f"{API}/players", json={"name": name})
    assert made.status_code == 201, made.get_json()
    return {"Authorization": f"Bearer {made.get_json()['token']}"}


def start(client: Any, who: dict[str, str], **body: Any) -> Any:
    return client.post(f"{API}/games", json=body, headers=who)


def play_out(client: Any, who: dict[str, str], state: dict[str, Any], leave: int = 0) -> Any:
    """Scores the first open row until *leave* rows are open; the game as read then."""
    while len(state["potential"]) > leave and not state["finished"]:
        row = next(iter(state["potential"]))
        answer = client.post(f"{API}/games/{state['id']}/score", json={"category": row},
                             headers=who)  # fmt: skip
        assert answer.status_code == 200, answer.get_json()
        state = answer.get_json()
    return client.get(f"{API}/games/{state['id']}", headers=who).get_json()


def finished_daily(client: Any, who: dict[str, str]) -> dict[str, Any]:
    state = start(client, who, mode="daily").get_json()
    return dict(play_out(client, who, state))


def board_members(app: Any, board: boards.Board) -> int:
    with app.app_context():
        return int(current_redis().zcard(board.key))


# -- 1. one lifecycle for every seed ---------------------------------------------------------


def test_a_solo_games_code_never_leaks_its_seed_while_ranked(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    solo = play_out(client, ana, start(client, ana, mode="solo").get_json())
    record = client.get(f"{API}/games/{solo['id']}/record", headers=ana).get_json()
    assert "seed" not in record  # before: the seed, so a third player knew every die
    friend = start(client, bo, mode="friend", code=solo["share_code"]).get_json()
    friend = play_out(client, bo, friend)
    assert friend["ranked"] and friend["rank"] is not None
    theirs = client.get(f"{API}/games/{friend['id']}/record", headers=bo).get_json()
    assert "seed" not in theirs and "seed" not in json.dumps(friend)
    # Once the code is over (7 days and the hour's grace), the seed is public.
    later = make_app(now=NOON + timedelta(days=7, hours=1)).test_client()
    shown = later.get(f"{API}/games/{solo['id']}/record", headers=ana).get_json()
    assert shown["commitment"] == dice.commitment(bytes.fromhex(shown["seed"]))
    assert friend["commitment"] == shown["commitment"]  # published from the code's first game


def test_a_code_closes_then_is_practice_on_no_board(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana = player(client, "Ana")
    made = start(client, ana, mode="friend", ruleset="yatzy").get_json()
    code = made["code"]
    play_out(client, ana, made)
    board = boards.Board.friend(code.replace("-", ""))
    closing = make_app(now=NOON + timedelta(days=7, minutes=30)).test_client()
    refused = start(closing, player(closing, "Bo"), mode="friend", code=code)
    assert refused.status_code == 409
    assert refused.get_json()["error"]["code"] == "code_closed"
    later = make_app(now=NOON + timedelta(days=8)).test_client()
    cy = player(later, "Cy")
    practice = start(later, cy, mode="friend", code=code).get_json()
    assert practice["practice"] and not practice["ranked"]
    final = play_out(later, cy, practice)
    assert final["rank"] is None and final["board"] is None
    assert board_members(app, board) == 1  # only the creator
    page = later.get(f"/play/{practice['id']}", headers=cy).get_data(as_text=True)
    assert 'id="practice"' in page


def test_a_revealed_days_code_is_practice(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana = player(client, "Ana")
    code = finished_daily(client, ana)["share_code"]
    with app.app_context():
        found = friend_codes.load_code(current_redis(), code.replace("-", ""))
    assert found is not None and found.window.closes_at == dice.Day(DAY, UTC).closes_at
    night = make_app(now=NOON + timedelta(hours=12, minutes=30)).test_client()
    refused = start(night, player(night, "Bo"), mode="friend", code=code)
    assert refused.get_json()["error"]["code"] == "code_closed"  # the day's seed is not out
    later = make_app(now=NOON + timedelta(days=1)).test_client()
    cy = player(later, "Cy")
    final = play_out(later, cy, start(later, cy, mode="friend", code=code).get_json())
    assert final["practice"] and final["rank"] is None  # before: 641, rank 1
    assert board_members(app, boards.Board.friend(code.replace("-", ""))) == 1


def test_a_dailys_code_closed_early_waits_for_the_days_reveal(make_app: Any) -> None:
    client = make_app(now=NOON, code_lifetime=timedelta(hours=1)).test_client()
    code = finished_daily(client, player(client, "Ana"))["share_code"]
    later = make_app(now=NOON + timedelta(hours=2), code_lifetime=timedelta(hours=1))
    refused = start(later.test_client(), player(later.test_client(), "Bo"), mode="friend",
                    code=code)  # fmt: skip
    # Practice now would show the day's dice while the day is still open.
    error = refused.get_json()["error"]
    assert refused.status_code == 409 and error["code"] == "code_closed"
    assert error["practice_at"] == dice.Day(DAY, UTC).reveals_at.isoformat()


# -- 2. a daily's code during its day --------------------------------------------------------


def test_a_dailys_code_is_played_as_the_daily(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    code = finished_daily(client, ana)["share_code"]
    page = client.get(f"/f/{code}", headers=bo).get_data(as_text=True)
    assert 'id="code-status"' in page and "your daily" in page
    game = start(client, bo, mode="friend", code=code).get_json()
    assert game["mode"] == "daily" and game["date"] == DAY.isoformat() and game["ranked"]
    # Playing the code first and then the daily: it IS the daily, no fresh ranked one.
    again = start(client, bo, mode="daily")
    assert again.status_code == 409 and again.get_json()["error"]["game_id"] == game["id"]
    final = play_out(client, bo, game)
    assert final["standing"]["field"] == 2
    assert board_members(app, boards.Board.daily(DAY)) == 2
    assert board_members(app, boards.Board.friend(code.replace("-", ""))) == 2
    with app.app_context():  # the day counts for Bo's own figures (a new player's: not ranked)
        days = current_redis().hkeys(keys.player_best_days(final_player(bo)))
        assert days == [DAY.isoformat()] and final["records"]["days"] == 1


def final_player(who: dict[str, str]) -> str:
    from daily.web.tokens import player_id_of

    with_app = who["Authorization"].split()[1]
    return player_id_of(with_app)


def test_a_daily_under_way_or_finished_is_given_back_not_a_new_game(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    ana, bo, cy = player(client, "Ana"), player(client, "Bo"), player(client, "Cy")
    code = finished_daily(client, ana)["share_code"]
    under_way = start(client, bo, mode="daily").get_json()
    refused = start(client, bo, mode="friend", code=code)
    assert refused.status_code == 409
    assert refused.get_json()["error"]["game_id"] == under_way["id"]
    mine = finished_daily(client, cy)
    again = start(client, cy, mode="friend", code=code, target=True)
    assert again.status_code == 409 and again.get_json()["error"]["game_id"] == mine["id"]
    # The code's page shows their daily beside the code's game, with nothing to start.
    page = client.get(f"/f/{code}", headers=cy).get_data(as_text=True)
    assert "data-start" not in page and f'data-total="{mine["total"]}"' in page
    assert board_members(app, boards.Board.daily(DAY)) == 2  # Ana and Cy, once each
    assert board_members(app, boards.Board.friend(code.replace("-", ""))) == 1


def test_scouting_a_day_through_friends_codes_sees_no_second_game(make_app: Any) -> None:
    # The attack of round two: 8 accounts from one address finish the daily, then each
    # opens the other 7 share codes to see the day's re-rolls under other holds.
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "dailies": "8 per day"})  # fmt: skip
    client = app.test_client()
    scouts = [player(client, f"Scout{n}") for n in range(8)]
    dailies = [finished_daily(client, who) for who in scouts]
    for n, who in enumerate(scouts):
        for other in dailies[:n] + dailies[n + 1 :]:
            answer = start(client, who, mode="friend", code=other["share_code"])
            assert answer.status_code == 409
            assert answer.get_json()["error"]["game_id"] == dailies[n]["id"]
    # A ninth account (issue 38: the day's puzzle is never refused): the code is its daily,
    # its one game on the day (the newcomers' budget: test_newcomers_dailies_that_count_...).
    fresh = start(client, player(client, "Scout8"), mode="friend", code=dailies[0]["share_code"])
    assert fresh.status_code == 201
    with app.app_context():
        dealt = [saved_games.games_of(current_redis(), final_player(who)) for who in scouts]
    assert dealt == [[daily["id"]] for daily in dailies]  # one game on the day each
    assert board_members(app, boards.Board.daily(DAY)) == 8


# -- 3. exactly once under real concurrent requests -------------------------------------------


@pytest.fixture
def served(make_app: Any) -> Iterator[tuple[Any, str]]:
    """The app on a threaded werkzeug server on a loopback port, and its base URL."""
    app = make_app(now=NOON)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)


#: A request for all_at_once: its method, URL, JSON body (or none) and headers.
Request = tuple[str, str, dict[str, Any] | None, dict[str, str]]


def all_at_once(requests: list[Request]) -> list[int]:
    """Sends every request from its own thread at the same moment; their statuses."""
    barrier = threading.Barrier(len(requests))
    statuses: list[int] = [0] * len(requests)

    def send(i: int) -> None:
        method, url, body, headers = requests[i]
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={
            **headers, "Content-Type": "application/json"})  # fmt: skip
        barrier.wait()
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                statuses[i] = answer.status
        except urllib.error.HTTPError as e:
            statuses[i] = e.code

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_a_retried_move_applies_once_and_a_repeated_hold_rolls_again(
    served: tuple[Any, str],
) -> None:
    app, base = served
    client = app.test_client()
    for _ in range(5):
        who = player(client)
        game = start(client, who, mode="solo", ruleset="yatzy").get_json()
        url = f"{base}{API}/games/{game['id']}/roll"
        # Three copies of one request (one Idempotency-Key) at once: applied once, and each
        # copy is answered with the game as it is.
        retried = {**who, "Idempotency-Key": "roll-1"}
        statuses = all_at_once([("POST", url, {"hold": [0]}, retried)] * 3)
        assert statuses == [200, 200, 200], statuses
        after = client.get(f"{API}/games/{game['id']}", headers=who).get_json()
        assert after["moves"] == [{"hold": [0]}]
    # The same hold again on purpose, fast, with a new key or none: each is a roll.
    again = client.post(f"{API}/games/{game['id']}/roll", json={"hold": [0]},
                        headers={**who, "Idempotency-Key": "roll-2"})  # fmt: skip
    assert again.status_code == 200 and again.get_json()["move_count"] == 2
    last = client.post(f"{API}/games/{game['id']}/roll", json={"hold": [0]}, headers=who)
    assert last.status_code == 409  # no rolls left in yatzy's turn: a third roll is refused
    moves = client.get(f"{API}/games/{game['id']}", headers=who).get_json()["moves"]
    assert moves == [{"hold": [0]}, {"hold": [0]}]


def test_a_retried_key_with_another_body_gets_the_answer_of_the_move_it_applied(
    served: tuple[Any, str],
) -> None:
    app, _ = served
    client = app.test_client()
    who = player(client)
    game = start(client, who, mode="solo", ruleset="yatzy").get_json()
    url = f"{API}/games/{game['id']}/score"
    first = client.post(url, json={"category": "chance"},
                        headers={**who, "Idempotency-Key": "score-1"})  # fmt: skip
    assert first.status_code == 200
    # The same key again with a row that does not exist (a client's bug, or a fuzzer):
    # the move stands as it was applied, and the answer names its row, not a 500.
    retried = client.post(url, json={"category": "E"},
                          headers={**who, "Idempotency-Key": "score-1"})  # fmt: skip
    assert retried.status_code == 200, retried.get_json()
    assert retried.get_json()["scorecard"] == first.get_json()["scorecard"]
    assert list(first.get_json()["scorecard"]) == ["chance"]
    moves = client.get(f"{API}/games/{game['id']}", headers=who).get_json()["moves"]
    assert moves == [{"score": "chance"}]


def test_a_finishing_move_racing_reads_makes_one_code_and_one_place(
    served: tuple[Any, str],
) -> None:
    app, base = served
    client = app.test_client()
    finishers = []
    for n in range(8):
        who = player(client, f"P{n}")
        state = play_out(client, who, start(client, who, mode="daily").get_json(), leave=1)
        row = next(iter(state["potential"]))
        game_url = f"{base}{API}/games/{state['id']}"
        requests: list[Request] = [("POST", f"{game_url}/score", {"category": row}, who)]
        requests += [("GET", game_url, None, who)] * 5
        statuses = all_at_once(requests)
        assert statuses[0] == 200 and set(statuses[1:]) == {200}, statuses
        finishers.append((who, state["id"]))
    with app.app_context():
        redis = current_redis()
        made: dict[str, int] = {}
        for key in redis.scan_iter(keys.friend_code("*")):
            game_id = str(redis.hget(key, "game"))
            made[game_id] = made.get(game_id, 0) + 1
        for _who, game_id in finishers:
            assert made[game_id] == 1  # before: two codes in 1 game of 10
            record = saved_games.load(redis, game_id)
            assert record is not None and record.share is not None
            share = record.share
            assert redis.zcard(keys.board_friend(share)) == 1
    assert board_members(app, boards.Board.daily(DAY)) == len(finishers)


# -- 4. second accounts and names ----------------------------------------------------------


def test_guests_count_against_the_new_player_limit(make_app: Any) -> None:
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "players": "5 per hour"})  # fmt: skip
    made = [app.test_client().post(f"{API}/games", json={"mode": "daily"}) for _ in range(7)]
    assert [r.status_code for r in made] == [201] * 5 + [429] * 2  # before: 60 in 0.8 s
    assert made[-1].get_json()["error"]["code"] == "too_many_requests"
    assert int(made[-1].headers["Retry-After"]) >= 1
    named = app.test_client().post(f"{API}/players", json={"name": "Ana"})
    assert named.status_code == 429  # one budget for guests and named players


def test_a_read_never_makes_a_player(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    answer = client.get(f"{API}/players/me")
    assert answer.status_code == 401 and answer.get_json()["error"]["code"] == "unauthorized"
    with app.app_context():
        assert list(current_redis().scan_iter(keys.player("*"))) == []


def test_newcomers_dailies_that_count_are_limited_per_address(make_app: Any) -> None:
    # Issue 38: played, never refused; past the budget a newcomer's daily is marked.
    app = make_app(now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"),
                                          "dailies": "3 per day"}, established_days=3)  # fmt: skip
    client = app.test_client()
    starts = [start(client, player(client, f"P{n}"), mode="daily") for n in range(4)]
    assert [r.status_code for r in starts] == [201, 201, 201, 201]
    other = {"REMOTE_ADDR": "10.0.0.9"}
    elsewhere = client.post(f"{API}/games", json={"mode": "daily"}, environ_base=other)
    with app.app_context():
        marks = [current_redis().hget(keys.game(r.get_json()["id"]), establishment.OVER)
                 for r in [*starts, elsewhere]]  # fmt: skip
    assert marks == [None, None, None, DAY.isoformat(), None]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("\u3164", "bad_request"),  # Hangul filler
        ("\u2800\u2800", "bad_request"),  # blank Braille
        ("\u3164 \u200b", "bad_request"),
        ("\u0410n\u0430", "confusable_name"),  # Cyrillic A, a around a Latin n: "Ana"
        ("\u0410\u0412\u0421", "confusable_name"),  # Cyrillic АВС reads as ABC
    ],
    ids=["filler", "braille", "blanks", "mixed-cyrillic", "whole-cyrillic"],
)
def test_blank_and_look_alike_names_are_refused(make_app: Any, name: str, code: str) -> None:
    client = make_app(now=NOON).test_client()
    answer = client.post(f"{API}/players", json={"name": name})
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == code


def test_names_are_normalized_and_real_scripts_pass(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    for given, kept in [
        ("\uff21\uff4e\uff41", "Ana"),
        ("Мария", "Мария"),
        ("山田たろう", "山田たろう"),
    ]:
        answer = client.post(f"{API}/players", json={"name": given})
        assert answer.status_code == 201 and answer.get_json()["name"] == kept


# -- 6. storage that expires ----------------------------------------------------------------


def test_guests_and_unfinished_games_expire_finished_ones_stay(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    idle = client.post(f"{API}/games", json={"mode": "solo"}).get_json()
    finisher = app.test_client()
    done = play_out(finisher, {}, finisher.post(f"{API}/games", json={"mode": "daily"}).get_json())
    with app.app_context():
        redis = current_redis()
        idle_game = saved_games.load(redis, idle["id"])
        done_game = saved_games.load(redis, done["id"])
        assert idle_game is not None and done_game is not None
        assert 0 < redis.ttl(keys.game(idle["id"])) <= 30 * 86400
        assert 0 < redis.ttl(keys.player(idle_game.player_id)) <= 30 * 86400 + 1
        assert redis.ttl(keys.game(done["id"])) == -1
        assert redis.ttl(keys.player(done_game.player_id)) == -1
        assert redis.ttl(keys.player_daily(done_game.player_id, DAY.isoformat())) == -1
        assert redis.ttl(keys.player_keys(done_game.player_id)) == -1  # the set listing those
    starter = app.test_client()
    daily = starter.post(f"{API}/games", json={"mode": "daily"}).get_json()
    with app.app_context():
        redis = current_redis()
        game = saved_games.load(redis, daily["id"])
        assert game is not None
        for key in (keys.game(daily["id"]), keys.player_daily(game.player_id, str(DAY))):
            assert 12 * 3600 < redis.ttl(key) <= 13 * 3600 + 1, key  # the day's reveal
        assert 0 < redis.ttl(keys.player(game.player_id)) <= 86400  # a guest's first day
        redis.delete(keys.player(game.player_id))  # the guest's time is up
    again = starter.post(f"{API}/games", json={"mode": "solo"}).get_json()
    with app.app_context():
        fresh = saved_games.load(current_redis(), again["id"])
    assert fresh is not None and fresh.player_id != game.player_id  # a new guest, not a ghost


# -- 7. header injection -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/prefs/dice", "/prefs/language"])
@pytest.mark.parametrize("bad", ["/\r\nSet-Cookie: x=1", "/a\nb", "/a\x00b", "/a\x7fb"])
def test_a_control_character_in_next_is_a_400_page(make_app: Any, path: str, bad: str) -> None:
    client = make_app(now=NOON).test_client()
    value = {"style": "x"} if path == "/prefs/dice" else {"language": "de"}
    answer = client.post(path, data={**value, "next": bad})
    assert answer.status_code == 400 and answer.mimetype == "text/html"


def test_a_dailys_code_is_revealed_with_its_day_not_before() -> None:
    day = dice.Day(DAY, UTC)
    window = dice.code_window(NOON, timedelta(days=7), day)
    assert window.reveals_at == day.reveals_at
    short = dice.code_window(NOON, timedelta(hours=1), day)
    assert short.reveals_at < day.reveals_at  # closed early; practice still waits for the day


# -- 5. dice stream versions: new games v2, stored v1 games go on as v1 -----------------------


def test_new_games_deal_v2_and_a_stored_v1_game_plays_and_verifies_as_v1(make_app: Any) -> None:
    from daily.core.rules import GameState
    from daily.core.verify import verify
    from daily.web.context import current_config

    app = make_app(now=NOON)
    client = app.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    state = start(client, ana, mode="daily").get_json()
    for _ in range(3):  # a re-roll of every die each turn, so the re-rolls decide the sheet
        state = client.post(f"{API}/games/{state['id']}/roll", json={"hold": []},
                            headers=ana).get_json()  # fmt: skip
        state = play_out(client, ana, state, leave=len(state["potential"]) - 1)
    state = play_out(client, ana, state)
    record = client.get(f"{API}/games/{state['id']}/record", headers=ana).get_json()
    with app.app_context():
        config = current_config()
    secret = config.secret_key
    assert record["stream"] == "v2" and record["date"] == DAY.isoformat()
    assert verify(json.dumps(record), (secret,)).total == state["total"]
    as_v1 = verify(json.dumps({**record, "stream": "v1", "total": None}), (secret,))
    as_v2 = verify(json.dumps(record), (secret,))
    assert isinstance(as_v1, GameState) and isinstance(as_v2, GameState)  # one player's sheet
    assert as_v1.scorecard() != as_v2.scorecard()  # other re-rolls
    # A daily stored before v2 (no "stream" field) goes on dealing v1's re-rolls.
    with app.app_context():
        old = Record(id=game_fields.new_id(), mode="daily", ruleset="maxi", options={},
                           player_id=final_player(bo), seed_ref=f"daily:{DAY.isoformat()}",
                           created=NOON.timestamp(), day=DAY)  # fmt: skip
        assert "v" not in game_fields.to_fields(old)  # the compact record's stream field: none, v1
        index = [keys.player_daily(old.player_id, str(DAY))]
        saved_games.start(current_redis(), old, games.expires_in(old, config), index)
    seed = dice.daily_seed(secret, DAY)
    first, fresh = dice.faces(seed, 1, (), 6), dice.faces(seed, 1, ((0, 3),), 6)
    rolled = client.post(f"{API}/games/{old.id}/roll", json={"hold": [0, 3]}, headers=bo)
    assert rolled.get_json()["dice"] == [first[i] if i in (0, 3) else fresh[i] for i in range(6)]
    finished = play_out(client, bo, rolled.get_json())
    old_record = client.get(f"{API}/games/{old.id}/record", headers=bo).get_json()
    assert "stream" not in old_record
    assert verify(json.dumps(old_record), (secret,)).total == finished["total"]
