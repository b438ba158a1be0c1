"""Leagues over HTTP: made, joined and played across a week (a frozen clock per day), refusals
that change nothing, and the pages."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from daily.service import leagues
from tests.web.helpers import LIMITS_OFF

pytestmark = pytest.mark.redis

MONDAY = date(2026, 11, 30)
API = "/api/v1/leagues"


def at_noon(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def new_player(client: Any, name: str) -> tuple[str, dict[str, str]]:
    body = client.post("/api/v1/players", json={"name": name}).get_json()
    return body["player_id"], {"Authorization": f"Bearer {body['token']}"}


def finish_daily(client: Any, headers: dict[str, str], last: bool) -> dict[str, Any]:
    """Plays today's daily to the end (the first or last open row each turn): its last state."""
    state: dict[str, Any] = client.post("/api/v1/games", json={"mode": "daily"},
                                        headers=headers).get_json()  # fmt: skip
    while not state["finished"]:
        rows = list(state["potential"])
        state = client.post(f"/api/v1/games/{state['id']}/score",
                            json={"category": rows[-1] if last else rows[0]},
                            headers=headers).get_json()  # fmt: skip
    return state


def play_daily(client: Any, headers: dict[str, str], last: bool) -> int:
    """Plays today's daily to the end; its total."""
    return int(finish_daily(client, headers, last)["total"])


def invited(league: dict[str, Any], path: str = "") -> str:
    """The API URL of *league* (and *path* under it) with the token of its invite link."""
    return f"{API}/{league['id']}{path}?{league['invite'].split('?', 1)[1]}"


def rows(body: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(e["rank"], e["name"], e["score"]) for e in body["entries"]]


def ranked(scores: dict[str, int]) -> list[tuple[int, str, int]]:
    """Competition ranks of *scores* (no ties in these games)."""
    order = sorted(scores.items(), key=lambda item: -item[1])
    return [(n + 1, name, score) for n, (name, score) in enumerate(order)]


def test_a_league_across_a_week(make_app: Any) -> None:
    # A week of dailies played at a script's pace: the limits off.
    monday = make_app(now=at_noon(MONDAY), rate_limits=LIMITS_OFF).test_client()
    ana_id, ana = new_player(monday, "Ana")
    bo_id, bo = new_player(monday, "Bo")
    _, cy = new_player(monday, "Cy")
    made = monday.post(API, json={"name": "Family"}, headers=ana)
    assert made.status_code == 201
    league = made.get_json()
    assert (league["is_owner"], league["size"]) == (True, 1)
    assert re.fullmatch(rf"http://localhost/leagues/{league['id']}\?invite=[\w-]{{11}}",
                        league["invite"])  # fmt: skip
    seen = monday.get(invited(league), headers=bo).get_json()
    assert (seen["is_member"], seen["members"], seen["owner"]["name"]) == (False, [], "Ana")
    assert monday.get(f"{API}/{league['id']}", headers=bo).status_code == 404  # the id alone
    joined = monday.post(invited(league, "/members"), headers=bo).get_json()
    assert sorted(m["name"] for m in joined["members"]) == ["Ana", "Bo"]  # one frozen instant
    # Ana plays six days, Bo two, Cy (not in the league) every day.
    totals: dict[str, list[int]] = {"Ana": [], "Bo": []}
    for n in range(7):
        day = make_app(
            now=at_noon(MONDAY + timedelta(days=n)), rate_limits=LIMITS_OFF
        ).test_client()
        scores = {}
        if n < 6:
            scores["Ana"] = play_daily(day, ana, last=False)
        if n in (2, 4):
            scores["Bo"] = play_daily(day, bo, last=True)
        play_daily(day, cy, last=True)
        for name, total in scores.items():
            totals[name].append(total)
        board = day.get(f"{API}/{league['id']}/days/today", headers=bo).get_json()
        assert rows(board) == ranked(scores), n
    week = day.get(f"{API}/{league['id']}/weeks/today", headers=ana).get_json()
    best = {name: sum(sorted(found, reverse=True)[:5]) for name, found in totals.items()}
    assert (week["day"], rows(week)) == (MONDAY.isoformat(), ranked(best))
    assert week["me"]["player_id"] == ana_id and bo_id in {e["player_id"] for e in week["entries"]}
    assert day.get(f"{API}/{league['id']}/weeks/today", headers=cy).status_code == 404
    mine = day.get(API, headers=bo).get_json()
    assert [found["name"] for found in mine["leagues"]] == ["Family"]


@pytest.fixture
def club(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, dict[str, Any]]:
    """A league of two (full), owned by Ana with Bo in it; Cy is outside."""
    monkeypatch.setattr(leagues, "MAX_MEMBERS", 2)
    client = make_app(now=at_noon(MONDAY)).test_client()
    people = {name: new_player(client, name) for name in ("Ana", "Bo", "Cy")}
    league = client.post(API, json={"name": "Club"}, headers=people["Ana"][1]).get_json()
    client.post(invited(league, "/members"), headers=people["Bo"][1])
    return client, {"league": league["id"], "invite": league["invite"], **people}


@pytest.mark.parametrize(
    ("who", "method", "path", "body", "status", "code"),
    [
        ("Cy", "post", "/members?{invite}", None, 409, "league_full"),
        ("Cy", "post", "/members", None, 404, "not_found"),
        ("Cy", "post", "/members?invite=AAAAAAAAAAA", None, 404, "not_found"),
        ("Cy", "get", "", None, 404, "not_found"),
        ("Bo", "post", "/invite", None, 403, "not_owner"),
        ("Ana", "post", "AAAAAAAAAAA/invite", None, 404, "not_found"),
        ("Bo", "patch", "", {"name": "Mine"}, 403, "not_owner"),
        ("Bo", "delete", "/members/{Ana}", None, 403, "not_owner"),
        ("Ana", "delete", "/members/{Cy}", None, 404, "not_found"),
        ("Cy", "delete", "/members/me", None, 404, "not_found"),
        ("Ana", "patch", "", {"name": ""}, 400, "bad_request"),
        ("Ana", "patch", "", {"name": "Club", "x": 1}, 400, "bad_request"),
        ("Cy", "get", "/days/today", None, 404, "not_found"),
        ("Cy", "post", "AAAAAAAAAAA/members", None, 404, "not_found"),
        ("Ana", "patch", "AAAAAAAAAAA", {"name": "Mine"}, 404, "not_found"),
        ("Ana", "delete", "AAAAAAAAAAA/members/{Bo}", None, 404, "not_found"),
        ("Ana", "delete", "AAAAAAAAAAA/members/me", None, 404, "not_found"),
        ("Cy", "patch", "", {"name": "Mine"}, 403, "not_owner"),
        ("Bo", "delete", "/removed/{Cy}", None, 403, "not_owner"),
        ("Ana", "delete", "/removed/{Cy}", None, 404, "not_found"),
        ("Ana", "delete", "AAAAAAAAAAA/removed/{Cy}", None, 404, "not_found"),
    ],
    ids=[
        "full",
        "join-without-invite",
        "join-old-invite",
        "see-without-invite",
        "renew-not-owner",
        "renew-unknown",
        "rename",
        "remove-owner",
        "remove-stranger",
        "leave-stranger",
        "bad-name",
        "extra-field",
        "stranger-board",
        "unknown",
        "rename-unknown",
        "remove-unknown",
        "leave-unknown",
        "rename-stranger",
        "readmit-not-owner",
        "readmit-never-removed",
        "readmit-unknown",
    ],  # fmt: skip
)
def test_refusals_answer_their_code_and_change_nothing(
    club: tuple[Any, dict[str, Any]], who: str, method: str, path: str, body: Any, status: int,
    code: str,
) -> None:  # fmt: skip
    client, found = club
    for name in ("Ana", "Bo", "Cy"):
        path = path.replace("{" + name + "}", found[name][0])
    path = path.replace("{invite}", found["invite"].split("?", 1)[1])
    url = f"{API}/{path}" if path.startswith("A") else f"{API}/{found['league']}{path}"
    before = client.get(f"{API}/{found['league']}", headers=found["Ana"][1]).get_json()
    answer = getattr(client, method)(url, json=body, headers=found[who][1])
    assert (answer.status_code, answer.get_json()["error"]["code"]) == (status, code)
    assert client.get(f"{API}/{found['league']}", headers=found["Ana"][1]).get_json() == before


def test_too_many_leagues(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leagues, "MAX_LEAGUES", 1)
    client = make_app(now=at_noon(MONDAY)).test_client()
    _, ana = new_player(client, "Ana")
    assert client.post(API, json={"name": "One"}, headers=ana).status_code == 201
    refused = client.post(API, json={"name": "Two"}, headers=ana)
    assert (refused.status_code, refused.get_json()["error"]) == (
        409,
        {"code": "too_many_leagues", "message": refused.get_json()["error"]["message"],
         "limit": 1},
    )  # fmt: skip
    assert len(client.get(API, headers=ana).get_json()["leagues"]) == 1


def test_the_owner_removes_and_members_leave(club: tuple[Any, dict[str, Any]]) -> None:
    client, found = club
    url = f"{API}/{found['league']}"
    after = client.delete(f"{url}/members/{found['Bo'][0]}", headers=found["Ana"][1]).get_json()
    assert [m["name"] for m in after["members"]] == ["Ana"]
    # Bo's link no longer joins, nor shows the league; the new one does.
    assert after["invite"] != found["invite"]
    old = {"league": {"id": found["league"], "invite": found["invite"]}}["league"]
    for call in (client.post, client.get):
        path = "/members" if call == client.post else ""
        refused = call(invited(old, path), headers=found["Bo"][1])
        assert (refused.status_code, refused.get_json()["error"]["code"]) == (404, "not_found")
    # Nor does the new one, nor any other: Bo is on the owner's list of the removed.
    refused = client.post(invited(after, "/members"), headers=found["Bo"][1])
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (
        403,
        "removed_from_league",
    )
    assert [m["name"] for m in after["removed"]] == ["Bo"]
    assert client.get(url, headers=found["Cy"][1]).status_code == 404  # not his to see
    assert client.post(invited(after, "/members"), headers=found["Cy"][1]).status_code == 200
    readmitted = client.delete(f"{url}/removed/{found['Bo'][0]}", headers=found["Ana"][1])
    assert readmitted.status_code == 200 and readmitted.get_json()["removed"] == []
    full = client.post(invited(readmitted.get_json(), "/members"), headers=found["Bo"][1])
    assert full.get_json()["error"]["code"] == "league_full"  # let in again, as anyone is
    assert client.delete(f"{url}/members/me", headers=found["Ana"][1]).status_code == 204
    left = client.get(url, headers=found["Cy"][1]).get_json()
    assert (left["owner"]["name"], left["is_owner"], left["size"]) == ("Cy", True, 1)


def test_the_pages_make_join_and_leave_a_league(make_app: Any) -> None:
    app = make_app(now=at_noon(MONDAY))
    ana, bo = app.test_client(), app.test_client()
    assert "Start a league" in ana.get("/leagues").get_data(as_text=True)
    made = ana.post("/leagues", data={"name": "Pals"})
    assert made.status_code == 303
    page = ana.get(made.headers["Location"]).get_data(as_text=True)
    assert "Invite friends" in page and "Week of" in page and "Nobody on this board" in page
    assert "data-invite-copy" in page and "data-invite-share hidden" in page
    invite = invite_of(page)
    stranger = bo.get(invite).get_data(as_text=True)
    assert "Join the league" in stranger and "Invite friends" not in stranger
    path = made.headers["Location"]
    assert bo.post(f"{path}/join").status_code == 404  # without the link's token
    assert bo.post(f"{path}/join", data=join_form(stranger)).status_code == 303
    assert "Leave the league" in bo.get(path).get_data(as_text=True)
    owner_view = ana.get(path).get_data(as_text=True)
    assert owner_view.count("Remove ") == 1 and "Rename" in owner_view
    assert bo.post(f"{path}/leave").headers["Location"].endswith("/leagues")
    assert "Pals" not in bo.get("/leagues").get_data(as_text=True)
    assert ana.get("/leagues/nope").status_code == 404


def invite_of(page: str) -> str:
    """The invite link a member's league page shows."""
    return html.unescape(page.split('class="invite" type="text" readonly value="')[1].split('"')[0])


def join_form(page: str) -> dict[str, str]:
    """The fields of the join form of a visitor's league page."""
    return {"invite": page.split('name="invite" value="')[1].split('"')[0]}


def test_a_removed_member_finds_the_link_no_longer_works(make_app: Any) -> None:
    app = make_app(now=at_noon(MONDAY))
    ana, bo, cy = app.test_client(), app.test_client(), app.test_client()
    path = ana.post("/leagues", data={"name": "Pals"}).headers["Location"]
    first = invite_of(ana.get(path).get_data(as_text=True))
    for guest in (bo, cy):
        guest.post(f"{path}/join", data=join_form(guest.get(first).get_data(as_text=True)))
    assert "Make a new link" in ana.get(path).get_data(as_text=True)
    assert "Make a new link" not in bo.get(path).get_data(as_text=True)  # the owner's only
    bo_id = bo.get("/api/v1/players/me").get_json()["player_id"]
    assert ana.post(f"{path}/remove", data={"player": bo_id}).status_code == 303
    stale = bo.get(first)
    assert stale.status_code == 404
    text = stale.get_data(as_text=True)
    assert "This invite link no longer works" in text and "Pals" not in text
    assert bo.post(f"{path}/join", data={"invite": first.split("invite=")[1]}).status_code == 404
    second = invite_of(ana.get(path).get_data(as_text=True))
    assert second != first and invite_of(cy.get(path).get_data(as_text=True)) == second
    assert ana.post(f"{path}/invite").status_code == 303  # the owner renews it
    third = invite_of(ana.get(path).get_data(as_text=True))
    assert third != second and bo.get(second).status_code == 404
    # The link of now shows Bo the league, and that its owner removed him: no way in.
    removed = bo.get(third).get_data(as_text=True)
    assert "owner removed you" in removed and "Join the league" not in removed
    assert bo.post(f"{path}/join", data=join_form_of(third)).status_code == 403
    assert cy.post(f"{path}/invite").status_code == 403  # a member is not the owner
    assert invite_of(ana.get(path).get_data(as_text=True)) == third
    # The owner sees whom they removed, and readmits him: the link lets him in again.
    owner_view = ana.get(path).get_data(as_text=True)
    assert "Removed members" in owner_view and owner_view.count("Readmit ") == 1
    assert cy.post(f"{path}/readmit", data={"player": bo_id}).status_code == 403
    assert ana.post(f"{path}/readmit", data={"player": bo_id}).status_code == 303
    assert "Removed members" not in ana.get(path).get_data(as_text=True)
    assert bo.post(f"{path}/join", data=join_form_of(third)).status_code == 303
    assert "Leave the league" in bo.get(path).get_data(as_text=True)


def join_form_of(link: str) -> dict[str, str]:
    """The join form's fields for an invite *link*."""
    return {"invite": link.split("invite=")[1]}


def test_joining_after_playing_today_puts_the_game_on_the_boards_at_once(make_app: Any) -> None:
    client = make_app(now=at_noon(MONDAY)).test_client()
    _, ana = new_player(client, "Ana")
    _, bo = new_player(client, "Bo")
    totals = {"Ana": play_daily(client, ana, last=False), "Bo": play_daily(client, bo, last=True)}
    league = client.post(API, json={"name": "Late"}, headers=ana).get_json()
    client.post(invited(league, "/members"), headers=bo)
    for board in ("days", "weeks"):
        found = client.get(f"{API}/{league['id']}/{board}/today", headers=ana).get_json()
        assert rows(found) == ranked(totals), board
    page = client.get(f"/leagues/{league['id']}", headers=bo).get_data(as_text=True)
    assert "Nobody on this board yet." not in page


@pytest.mark.parametrize(
    ("who", "action", "form", "status"),
    [
        ("Bo", "name", {"name": "Mine"}, 403),
        ("Bo", "remove", {"player": "{Ana}"}, 403),
        ("Ana", "remove", {"player": "{Cy}"}, 404),
        ("Ana", "remove", {}, 404),
        ("Ana", "name", {"name": " "}, 400),
        ("Cy", "leave", {}, 404),
        ("Bo", "invite", {}, 403),
        ("Cy", "join", {"invite": "AAAAAAAAAAA"}, 404),
    ],
    ids=[
        "rename",
        "remove-owner",
        "remove-stranger",
        "remove-nobody",
        "bad-name",
        "leave",
        "renew",
        "join-old-link",
    ],  # fmt: skip
)
def test_the_pages_forms_refuse_and_change_nothing(
    club: tuple[Any, dict[str, Any]], who: str, action: str, form: dict[str, str], status: int
) -> None:
    client, found = club
    data = {k: found[v[1:-1]][0] if v.startswith("{") else v for k, v in form.items()}
    url = f"{API}/{found['league']}"
    before = client.get(url, headers=found["Ana"][1]).get_json()
    answer = client.post(f"/leagues/{found['league']}/{action}", data=data, headers=found[who][1])
    assert answer.status_code == status
    assert client.get(url, headers=found["Ana"][1]).get_json() == before


def test_a_daily_held_for_review_leaves_the_league_and_comes_back_released(
    make_app: Any,
) -> None:
    from daily.service import results, reviews
    from daily.store import review_queue, saved_games
    from daily.web.context import current_redis

    app = make_app(now=at_noon(MONDAY))
    client = app.test_client()
    _, ana = new_player(client, "Ana")
    _, bo = new_player(client, "Bo")
    league = client.post(API, json={"name": "Club"}, headers=ana).get_json()
    client.post(invited(league, "/members"), headers=bo)
    game = finish_daily(client, bo, last=True)
    totals = {"Ana": play_daily(client, ana, last=False), "Bo": int(game["total"])}
    boards_of = [f"{API}/{league['id']}/{kind}/today" for kind in ("days", "weeks")]
    assert [rows(client.get(url, headers=ana).get_json()) for url in boards_of] == [
        ranked(totals)
    ] * 2
    with app.app_context():
        redis = current_redis()
        record = saved_games.load(redis, game["id"])
        assert record is not None
        # What the sweep does with a clairvoyant game counted before its table existed.
        review_queue.save_verdict(redis, record.id, 9.9, True, at_noon(MONDAY).timestamp())
        results.withdraw(redis, app.extensions["daily.config"], record)
    assert [rows(client.get(url, headers=ana).get_json()) for url in boards_of] == [
        ranked({"Ana": totals["Ana"]})
    ] * 2
    with app.app_context():
        reviews.release(current_redis(), app.extensions["daily.config"], record.id)
    assert [rows(client.get(url, headers=ana).get_json()) for url in boards_of] == [
        ranked(totals)
    ] * 2
