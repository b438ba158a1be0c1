"""The game API over HTTP on a real Redis: players, the daily puzzle, daily/friend/solo games."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from redis.connection import AbstractConnection

from daily.core import dice
from daily.core.rules import find_ruleset, replay
from daily.core.verify import verify
from daily.store import keys
from daily.web.context import current_redis
from tests.web.helpers import merged

pytestmark = pytest.mark.redis

SECRET = "test-secret-" + "x" * 32
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DAY = NOON.date()


@pytest.fixture
def app(make_app: Any) -> Any:
    return make_app(now=NOON)


def new_player(client: Any, name: str = "Ana") -> dict[str, str]:
    response = client.post("/api/v1/players", json={"name": name})
    assert response.status_code == 201
    return {"Authorization": f"Bearer {response.get_json()['token']}"}


def greedy(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Holds the most common face once (unless all dice show it), then scores the best row."""
    face, count = Counter(state["dice"]).most_common(1)[0]
    if state["roll"] == 1 and state["rolls_left"] and count < len(state["dice"]):
        return "roll", {"hold": [i for i, d in enumerate(state["dice"]) if d == face]}
    potential = state["potential"]
    return "score", {"category": max(potential, key=potential.get)}


def hasty(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Never re-rolls; scores the last open row."""
    return "score", {"category": list(state["potential"])[-1]}


Policy = Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]


def play_out(
    client: Any, headers: dict[str, str], state: dict[str, Any], policy: Policy = greedy
) -> list[dict[str, Any]]:
    """Plays a game to its end; returns every state seen, the first included, each move's
    answer merged into the game as the play script does, and the last as a read of it."""
    seen = [state]
    while not state["finished"]:
        action, body = policy(state)
        response = client.post(f"/api/v1/games/{state['id']}/{action}", json=body, headers=headers)
        assert response.status_code == 200, response.get_json()
        state = merged(state, response.get_json())
        seen.append(state)
    final = client.get(f"/api/v1/games/{state['id']}", headers=headers).get_json()
    # The cheers come with the finishing move alone: a read of the game never has them.
    assert "cheers" not in final
    assert {k: final[k] for k in state if k != "cheers"} == {
        k: v for k, v in state.items() if k != "cheers"
    }
    return [*seen[:-1], final]


def start(client: Any, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/games", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def test_players_create_rename_and_me(app: Any) -> None:
    client = app.test_client()
    response = client.post("/api/v1/players", json={"name": "  Ana  "})
    body = response.get_json()
    assert response.status_code == 201 and body["name"] == "Ana"
    headers = {"Authorization": f"Bearer {body['token']}"}
    nothing_yet = {"days": 0, "best": None, "mean": None, "streak": 0, "longest": 0}
    assert client.get("/api/v1/players/me", headers=headers).get_json() == {
        "player_id": body["player_id"],
        "name": "Ana",
        "figures": nothing_yet,
        "established": False,
    }
    renamed = client.patch("/api/v1/players/me", json={"name": "Bo"}, headers=headers)
    assert renamed.get_json()["name"] == "Bo"
    with app.app_context():
        assert current_redis().hget(keys.player(body["player_id"]), "name") == "Bo"


def test_browser_gets_a_guest_player_in_its_session(app: Any) -> None:
    client = app.test_client()
    game = start(client, {}, mode="daily")
    me = client.get("/api/v1/players/me").get_json()
    assert me["name"].startswith("Guest ")
    assert client.get(f"/api/v1/games/{game['id']}").status_code == 200
    assert app.test_client().get(f"/api/v1/games/{game['id']}").status_code == 404
    cookie = client.get_cookie("session")
    assert cookie is not None and cookie.http_only and cookie.expires is not None
    assert cookie.expires > datetime.now(UTC) + timedelta(days=365)  # guests stay themselves


def test_daily_today_commitment_only(app: Any) -> None:
    body = app.test_client().get("/api/v1/daily").get_json()
    seed = dice.daily_seed(SECRET, DAY)
    assert body == {
        "date": "2026-12-03",
        "number": 337,
        "ruleset": "maxi",
        "commitment": hashlib.sha256(seed).hexdigest(),
        "closes_at": "2026-12-04T00:00:00+00:00",
        "reveals_at": "2026-12-04T01:00:00+00:00",
        "advent_door": 3,
        "seed": None,
        "game": None,
    }


def test_past_day_reveals_the_seed_matching_its_commitment(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    committed = client.get("/api/v1/daily/2026-12-03").get_json()
    later = make_app(now=NOON + timedelta(hours=13, minutes=1)).test_client()
    revealed = later.get("/api/v1/daily/2026-12-03").get_json()
    assert committed["seed"] is None
    assert revealed["commitment"] == committed["commitment"]
    assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == committed["commitment"]
    # Closed but still in the hour's grace: unfinished games may still be played.
    graced = make_app(now=NOON + timedelta(hours=12, minutes=30)).test_client()
    assert graced.get("/api/v1/daily/2026-12-03").get_json()["seed"] is None


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/v1/daily/2026-12-04", 404, "not_open"),
        ("/api/v1/daily/2031-01-01", 404, "not_open"),
        ("/api/v1/daily/2025-12-31", 404, "not_open"),
        ("/api/v1/daily/2026-13-01", 400, "bad_request"),
        ("/api/v1/daily/20261201", 400, "bad_request"),
        ("/api/v1/daily/yesterday", 400, "bad_request"),
    ],
    ids=["tomorrow", "future", "before-epoch", "month-13", "no-dashes", "word"],
)
def test_days_not_open(app: Any, path: str, status: int, code: str) -> None:
    response = app.test_client().get(path)
    assert response.status_code == status
    assert response.get_json()["error"]["code"] == code
    assert "seed" not in response.get_json() and "commitment" not in response.get_json()


def test_daily_game_state_shape(app: Any) -> None:
    client = app.test_client()
    state = start(client, new_player(client), mode="daily")
    assert set(state) == {
        "id", "mode", "ruleset", "options", "date", "number", "turn", "roll", "rolls_left",
        "dice", "scorecard", "potential", "upper", "bonus", "extra_bonus", "total",
        "finished", "moves", "move_count", "ranked", "practice",
    }  # fmt: skip
    assert (state["mode"], state["ruleset"], state["date"]) == ("daily", "maxi", "2026-12-03")
    assert (state["turn"], state["roll"], state["rolls_left"], state["moves"]) == (1, 1, 2, [])
    assert list(state["scorecard"]) == list(find_ruleset("maxi").row_ids)
    assert state["dice"] == list(dice.faces(dice.daily_seed(SECRET, DAY), 1, (), 6))


def test_second_daily_is_a_conflict_with_the_first_id(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    first = start(client, headers, mode="daily")
    again = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers)
    assert again.status_code == 409
    assert again.get_json()["error"]["game_id"] == first["id"]
    today = client.get("/api/v1/daily", headers=headers).get_json()
    assert today["game"] == {"id": first["id"], "finished": False, "total": None}


def test_two_players_see_the_same_dice(app: Any) -> None:
    client = app.test_client()
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    a, b = start(client, ana, mode="daily"), start(client, bo, mode="daily")
    assert a["dice"] == b["dice"]
    # The same holds give the same dice.
    a2 = client.post(f"/api/v1/games/{a['id']}/roll", json={"hold": [0, 2]}, headers=ana)
    b2 = client.post(f"/api/v1/games/{b['id']}/roll", json={"hold": [0, 2]}, headers=bo)
    assert a2.get_json()["dice"] == b2.get_json()["dice"]
    # Different holds and rows (Ana re-rolls, Bo scores at once, last row first):
    # every turn's first roll is still the same for both.
    ana_states = [a, *play_out(client, ana, merged(a, a2.get_json()))]
    bo_states = [b, *play_out(client, bo, merged(b, b2.get_json()), policy=hasty)]
    assert [s["moves"] for s in ana_states[-1:]] != [s["moves"] for s in bo_states[-1:]]
    first_rolls = [
        {s["turn"]: s["dice"] for s in states if s["roll"] == 1 and not s["finished"]}
        for states in (ana_states, bo_states)
    ]
    assert first_rolls[0] == first_rolls[1] and len(first_rolls[0]) == 20
    # Both are on the day's board: the higher total first, equal totals share place 1 (new
    # players on the shipped settings: listed and placed, not ranked yet).
    totals = ana_states[-1]["total"], bo_states[-1]["total"]
    places = ana_states[-1]["standing"]["place"], bo_states[-1]["standing"]["place"]
    assert places == tuple(1 + sum(t > mine for t in totals) for mine in totals)
    assert (bo_states[-1]["rank"], bo_states[-1]["standing"]["field"]) == (None, 2)


def test_no_response_carries_a_die_before_its_holds(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    states = play_out(client, headers, start(client, headers, mode="daily"))
    seed = dice.daily_seed(SECRET, DAY)
    moves = states[-1]["moves"]
    for before, after, move in zip(states, states[1:], moves, strict=False):
        # The dice a response shows are exactly those its moves decide, nothing more.
        text = repr(after)
        assert "seed" not in text.lower()
        if after["finished"]:
            assert after["dice"] == []
        elif after["roll"] == 1:
            assert after["dice"] == list(dice.faces(seed, after["turn"], (), 6))
        else:
            held = move["hold"]
            assert [after["dice"][i] for i in held] == [before["dice"][i] for i in held]
    assert all(set(s) >= {"dice"} and len(s["dice"]) in (0, 6) for s in states)


def test_finished_game_replays_to_its_recorded_total(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    final = play_out(client, headers, start(client, headers, mode="daily"))[-1]
    assert final["finished"]
    assert (final["board"], final["standing"]["place"]) == ("daily/2026-12-03", 1)
    replayed = replay(
        find_ruleset("maxi"), dice.stream(dice.daily_seed(SECRET, DAY), "v2"), final["moves"]
    )
    assert replayed.total == final["total"] == sum(final["scorecard"].values()) + final["bonus"]
    assert final["share_code"]
    after = client.post(f"/api/v1/games/{final['id']}/score", json={"category": "ones"},
                        headers=headers)  # fmt: skip
    assert after.status_code == 409
    assert client.get(f"/api/v1/games/{final['id']}", headers=headers).get_json() == final


def test_solo_game_with_options_and_its_record(app: Any, make_app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    state = start(client, headers, mode="solo", ruleset="yatzy", options={"forced": True})
    assert state["options"] == {"forced": True} and len(state["dice"]) == 5
    assert list(state["potential"]) == ["ones"]
    unfinished = client.get(f"/api/v1/games/{state['id']}/record", headers=headers)
    assert unfinished.status_code == 409
    final = play_out(client, headers, state)[-1]
    hidden = client.get(f"/api/v1/games/{state['id']}/record", headers=headers).get_json()
    assert "seed" not in hidden  # its share code is ranked for a week: the seed waits
    later = make_app(now=NOON + timedelta(days=8)).test_client()
    record = later.get(f"/api/v1/games/{state['id']}/record", headers=headers).get_json()
    source = dice.stream(bytes.fromhex(record["seed"]), record["stream"])
    rules = find_ruleset(record["ruleset"], record["options"])
    assert replay(rules, source, record["moves"]).total == record["total"] == final["total"]


def test_solo_games_get_fresh_dice(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    dice_seen = {tuple(start(client, headers, mode="solo")["dice"]) for _ in range(5)}
    assert len(dice_seen) > 1


def test_friend_challenge_same_dice_with_target(app: Any) -> None:
    client = app.test_client()
    ana, bo, cy = new_player(client, "Ana"), new_player(client, "Bo"), new_player(client, "Cy")
    mine = start(client, ana, mode="friend", ruleset="maxi")
    code = mine["code"]
    assert len(code) == 9 and code[4] == "-"
    ana_final = play_out(client, ana, mine)[-1]
    assert ana_final["share_code"] == code
    again = client.post("/api/v1/games", json={"mode": "friend", "code": code}, headers=ana)
    assert again.status_code == 409 and again.get_json()["error"]["game_id"] == mine["id"]

    theirs = start(client, bo, mode="friend", code=code.lower().replace("-", ""), target=True)
    assert theirs["dice"] == mine["dice"] and theirs["code"] == code
    assert theirs["target"]["name"] == "Ana" and theirs["target"]["total"] == ana_final["total"]
    blind = start(client, cy, mode="friend", code=code)
    assert "target" not in blind
    blind_final = play_out(client, cy, blind)[-1]
    assert blind_final["target"]["total"] == ana_final["total"]  # both sheets at the end
    assert blind_final["board"] == f"friend/{code.replace('-', '')}"
    assert blind_final["rank"] == 1 + (ana_final["total"] > blind_final["total"])


def test_a_deleted_creators_code_is_played_with_a_nameless_target(app: Any) -> None:
    # The creator's game stays on the code's board when they delete their account; their
    # name goes with them, so a friend's target has none (the screen says "a deleted player").
    creator, client = app.test_client(), app.test_client()
    assert creator.post("/api/v1/players", json={"name": "Ana"}).status_code == 201
    mine = start(creator, {}, mode="friend", ruleset="yatzy")
    ana_final = play_out(creator, {}, mine)[-1]
    assert creator.post("/me/delete", data={"confirm": "yes"}).status_code == 200
    bo = new_player(client, "Bo")
    theirs = start(client, bo, mode="friend", code=mine["code"], target=True)
    assert theirs["target"]["name"] is None
    assert theirs["target"]["total"] == ana_final["total"]
    assert play_out(client, bo, theirs)[-1]["target"]["name"] is None


def test_finished_daily_shares_its_dice_as_a_friend_code(app: Any) -> None:
    client = app.test_client()
    ana, bo = new_player(client, "Ana"), new_player(client, "Bo")
    daily = start(client, ana, mode="daily")
    final = play_out(client, ana, daily)[-1]
    # Bo has not played the day: the code is his daily, blind (no turn-by-turn target).
    as_daily = start(client, bo, mode="friend", code=final["share_code"], target=True)
    assert as_daily["dice"] == daily["dice"] and as_daily["mode"] == "daily"
    assert "target" not in as_daily
    # Cy has: his daily is his one game on the day's dice, not a second one on the code.
    cy = new_player(client, "Cy")
    his = play_out(client, cy, start(client, cy, mode="daily"))[-1]
    again = client.post("/api/v1/games", json={"mode": "friend", "code": final["share_code"]},
                        headers=cy)  # fmt: skip
    assert again.status_code == 409 and again.get_json()["error"]["game_id"] == his["id"]


def test_unknown_and_future_modes(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    for mode in ("party", "chess", 3):
        response = client.post("/api/v1/games", json={"mode": mode}, headers=headers)
        assert response.status_code == 400, mode
        assert response.get_json()["error"]["code"] == "bad_request"


def test_client_move_index_guards_against_repeats(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    state = start(client, headers, mode="daily")
    url = f"/api/v1/games/{state['id']}/roll"
    first = client.post(url, json={"hold": [0], "move": 0}, headers=headers)
    assert first.status_code == 200
    repeat = client.post(url, json={"hold": [0], "move": 0}, headers=headers)
    assert repeat.status_code == 409 and repeat.get_json()["error"]["moves"] == 1
    game = client.get(f"/api/v1/games/{state['id']}", headers=headers).get_json()
    assert game == merged(state, first.get_json()) | {"moves": [{"hold": [0]}]}


@pytest.mark.parametrize("limits", ["off", "production"])
def test_a_move_costs_two_round_trips_to_redis(
    make_app: Any, redis_url: str, limits: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The game, the player's deletion mark and, with the limits on, the move's two rate-limit
    # counters are read in one pipeline, the move appended by one script: two round trips
    # (on a cluster the pipeline's keys may sit on up to three nodes, written to all before
    # any is read). The limits' defaults are production's.
    app = make_app(rate_limits={} if limits == "production" else {"moves": "off", "pages": "off"})
    client = app.test_client()
    headers = new_player(client)
    state = start(client, headers, mode="daily")
    sent: list[Any] = []
    send = AbstractConnection.send_packed_command

    def counted(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        sent.append(command)
        send(self, command, check_health)  # type: ignore[no-untyped-call]  # untyped in redis-py

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    most = 2
    if redis_url.startswith("redis+cluster"):  # the game's, the player's, the address's nodes
        most = 4 if limits == "production" else 3
    for move in range(7):
        action, body = greedy(state)
        sent.clear()
        url = f"/api/v1/games/{state['id']}/{action}"
        response = client.post(url, json=body | {"move": move}, headers=headers)
        assert response.status_code == 200, response.get_json()
        # The first move on a fresh server also loads the append script (once a server).
        if move > 0:
            assert 2 <= len(sent) <= most, (action, sent)
        state = merged(state, response.get_json())
    if limits == "production":
        with app.app_context():  # the moves were counted on the player, not the address
            player = client.get("/api/v1/players/me", headers=headers).get_json()["player_id"]
            assert current_redis().get(keys.player_moves(player, 60)) == "7"
            assert current_redis().get(keys.address_moves("127.0.0.1", 60)) is None


def test_daily_started_before_midnight_finishes_after(make_app: Any) -> None:
    late = datetime(2026, 12, 3, 23, 59, tzinfo=UTC)
    client = make_app(now=late).test_client()
    headers = new_player(client)
    state = start(client, headers, mode="daily")
    after = make_app(now=late + timedelta(minutes=30)).test_client()
    final = play_out(after, headers, state)[-1]
    assert final["date"] == "2026-12-03" and final["finished"]
    assert after.get("/api/v1/daily", headers=headers).get_json()["date"] == str(date(2026, 12, 4))


def test_concurrent_starts_make_one_daily_game(app: Any) -> None:
    headers = new_player(app.test_client())
    barrier = threading.Barrier(6)
    answers: list[tuple[int, str]] = []

    def start_once() -> None:
        client = app.test_client()
        barrier.wait()
        response = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers)
        body = response.get_json()
        answers.append((response.status_code, body.get("id") or body["error"]["game_id"]))

    threads = [threading.Thread(target=start_once) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(status for status, _ in answers) == [201] + [409] * 5
    assert len({game_id for _, game_id in answers}) == 1
    with app.app_context():
        assert len(list(current_redis().scan_iter(keys.game("*")))) == 1  # every cluster node


def test_daily_record_names_its_date_until_the_seed_is_revealed(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    headers = new_player(client)
    final = play_out(client, headers, start(client, headers, mode="daily"))[-1]
    url = f"/api/v1/games/{final['id']}/record"
    hidden = client.get(url, headers=headers).get_json()
    assert "seed" not in hidden and hidden["date"] == "2026-12-03"
    assert verify(json.dumps(hidden), (SECRET,)).total == final["total"]
    later = make_app(now=NOON + timedelta(days=1)).test_client()
    shown = later.get(url, headers=headers).get_json()
    assert shown["seed"] == dice.daily_seed(SECRET, DAY).hex() and "date" not in shown
    assert verify(json.dumps(shown)).total == final["total"]


def test_friend_record_never_gives_the_seed(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    final = play_out(client, headers, start(client, headers, mode="friend", ruleset="yacht"))[-1]
    record = client.get(f"/api/v1/games/{final['id']}/record", headers=headers).get_json()
    assert "seed" not in record and record["code"] == final["code"].replace("-", "")
    assert verify(json.dumps(record), (SECRET,)).total == final["total"]


def _first_form(player_id: str, **result: str) -> Mapping[Any, Any]:
    """A daily's hash as the service wrote it before the compact record (long names).

    Typed for ``hset``: its mapping's key type is invariant, so a ``dict[str, str]`` misses it."""
    return {"mode": "daily", "ruleset": "maxi", "options": "{}", "player": player_id,
            "seed": f"daily:{DAY}", "created": repr(NOON.timestamp()), "target": "0",
            "finished": "0", "submitted": "0", "practice": "0", "date": DAY.isoformat(),
            "moved_at": "0", **result}  # fmt: skip


def test_a_game_of_the_first_form_verifies_plays_on_and_is_rewritten(app: Any) -> None:
    client = app.test_client()
    headers = new_player(client)
    player_id = client.get("/api/v1/players/me", headers=headers).get_json()["player_id"]
    done, under_way = "oldfinished00001", "oldunderway00001"
    source = dice.stream(dice.daily_seed(SECRET, DAY))
    log = [{"hold": [0, 1]}, *({"score": row} for row in find_ruleset("maxi").row_ids)]
    total = replay(find_ruleset("maxi"), source, log).total
    with app.app_context():
        redis = current_redis()
        ended = {"finished": "1", "submitted": "1", "total": str(total),
                 "finished_at": repr(NOON.timestamp() + 60), "luck": "0.5"}  # fmt: skip
        redis.hset(keys.game(done), mapping=_first_form(player_id, **ended))
        redis.rpush(keys.game_moves(done), *(json.dumps(m) for m in log))
        redis.hset(keys.game(under_way), mapping=_first_form(player_id))
        redis.rpush(keys.game_moves(under_way), *(json.dumps(m) for m in log[:2]))
        redis.expire(keys.game(under_way), 3600)
    record = client.get(f"/api/v1/games/{done}/record", headers=headers).get_json()
    assert record["moves"] == log and verify(json.dumps(record), (SECRET,)).total == total
    url = f"/api/v1/games/{under_way}"
    answer = client.post(f"{url}/score", json={"category": "twos", "move": 2}, headers=headers)
    assert answer.status_code == 200 and answer.get_json()["move_count"] == 3
    assert client.get(url, headers=headers).get_json()["moves"] == [*log[:2], {"score": "twos"}]
    with app.app_context():  # both rewritten in the compact form, expiring and extras kept
        redis = current_redis()
        assert not redis.exists(keys.game_moves(done), keys.game_moves(under_way))
        assert redis.hget(keys.game(done), "m") == "$" + "abcdefghijklmnopqrst"
        assert redis.hget(keys.game(done), "luck") == "0.5"
        assert redis.ttl(keys.game(under_way)) > 0 and redis.ttl(keys.game(done)) == -1
