"""The challenger hears back: ``GET /players/me/challenges`` lists the codes a player made
lately with who played each (scores, count), answers 304 while nothing changed, and follows
only codes within their ranked life and a day."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from daily.service import friends
from daily.store import keys
from daily.web.context import current_redis
from tests.web.helpers import merged, start

pytestmark = pytest.mark.redis

URL = "/api/v1/players/me/challenges"
NOON = datetime(2026, 12, 5, 12, tzinfo=UTC)


def ticking(start: datetime) -> Callable[[], datetime]:
    """A clock that moves a second each time it is read: codes made one after the other."""
    ticks = itertools.count()
    return lambda: start + timedelta(seconds=next(ticks))


def play(client: Any, last: bool = False, **body: Any) -> dict[str, Any]:
    """Plays a game started with *body* to the end (first or last open row); its final state."""
    state = start(client, **body)
    while not state["finished"]:
        rows = list(state["potential"])
        url = f"/api/v1/games/{state['id']}/score"
        answer = client.post(url, json={"category": rows[-1] if last else rows[0]})
        state = merged(state, answer.get_json())
    return dict(client.get(f"/api/v1/games/{state['id']}").get_json())


def player(app: Any, name: str) -> Any:
    client = app.test_client()
    play(client, mode="solo", ruleset="yacht")  # a guest first: then the name
    assert client.patch("/api/v1/players/me", json={"name": name}).status_code == 200
    return client


def test_the_creator_hears_who_played_each_code(make_app: Any) -> None:
    app = make_app(clock=ticking(NOON))
    ana, bo, cy = (player(app, name) for name in ("Ana", "Bo", "Cy"))
    daily = play(ana, mode="daily")
    challenge = play(ana, mode="friend", ruleset="yatzy")
    code = challenge["share_code"]
    first = ana.get(URL)
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"].startswith("private")  # the asker's own news
    found = first.get_json()["challenges"]
    # Newest first: the challenge, the daily's code, then the yacht game's (solo) code.
    assert [c["code"] for c in found[:2]] == [code, daily["share_code"]]
    assert (found[0]["mine"], found[0]["players"], found[0]["plays"]) == (
        challenge["total"], 0, []
    )  # fmt: skip
    assert (found[1]["day"], found[1]["number"]) == ("2026-12-05", 339)
    assert (found[0]["day"], found[0]["ruleset"]) == (None, "yatzy")
    unchanged = ana.get(URL, headers={"If-None-Match": etag})
    assert (unchanged.status_code, unchanged.get_data()) == (304, b"")
    theirs = {
        "Bo": play(bo, mode="friend", code=code, last=True)["total"],
        "Cy": play(cy, mode="friend", code=code)["total"],
    }
    play(bo, mode="friend", code=daily["share_code"])  # Bo's daily, on Ana's code
    changed = ana.get(URL, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    found = changed.get_json()["challenges"]
    order = sorted(theirs, key=lambda name: -theirs[name])
    assert [(p["name"], p["score"]) for p in found[0]["plays"]] == [(n, theirs[n]) for n in order]
    assert found[0]["players"] == 2 and found[1]["players"] == 1
    assert [p["name"] for p in found[1]["plays"]] == ["Bo"]
    # Bo hears of his own codes only: nobody played them.
    assert all(c["players"] == 0 for c in bo.get(URL).get_json()["challenges"])


def test_no_player_no_codes(make_app: Any) -> None:
    answer = make_app(now=NOON).test_client().get(URL)
    assert (answer.status_code, answer.get_json()) == (200, {"challenges": []})


def test_only_recent_codes_are_followed(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(friends, "CODES_FOLLOWED", 2)
    app = make_app(clock=ticking(NOON))
    ana = app.test_client()
    made = [play(ana, mode="solo", ruleset="yacht")["share_code"] for _ in range(3)]
    listed = [c["code"] for c in ana.get(URL).get_json()["challenges"]]
    assert listed == made[:0:-1]  # the newest two
    # Nine days on (past the ranked week and a day): none is followed, the list forgets them.
    later = make_app(now=NOON + timedelta(days=9))
    with later.test_client() as client:
        with ana.session_transaction() as theirs, client.session_transaction() as session:
            session.update(theirs)
        assert client.get(URL).get_json() == {"challenges": []}
        play(client, mode="solo", ruleset="yacht")
        redis = current_redis()
        player_id = client.get("/api/v1/players/me").get_json()["player_id"]
        assert redis.zcard(keys.player_codes(player_id)) == 1
        assert 0 < redis.ttl(keys.player_codes(player_id)) <= 8 * 86400


def test_a_code_past_its_ranked_life_is_told_apart(make_app: Any) -> None:
    # The home page folds such codes away ("Older challenges"): the answer says which they are.
    ana = make_app(now=NOON).test_client()
    code = play(ana, mode="friend", ruleset="yacht")["share_code"]
    bo = make_app(now=NOON).test_client()
    play(bo, mode="friend", code=code)
    assert [(c["code"], c["open"]) for c in ana.get(URL).get_json()["challenges"]] == [(code, True)]
    later = make_app(now=NOON + timedelta(days=7, hours=12))  # the week over, within a day
    with later.test_client() as client:
        with ana.session_transaction() as theirs, client.session_transaction() as session:
            session.update(theirs)
        found = client.get(URL).get_json()["challenges"]
        assert [(c["code"], c["open"], c["players"]) for c in found] == [(code, False, 1)]
        home = client.get("/").get_data(as_text=True)
        assert '<details class="older" hidden><summary>Older challenges</summary>' in home
