"""The player's own pages: sign-in links, history, deletion, settings; friends' sheets;
the installable shell (manifest, service worker, offline page)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from daily.service import history
from daily.store import keys, saved_games
from daily.web.context import current_config, current_redis
from tests.web.helpers import LIMITS_OFF, WINDOWS, play_daily, start

DECEMBER = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)


class Clock:
    """A settable reference clock for the app."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def _link(client: Any) -> str:
    page = client.post("/me/link").get_data(as_text=True)
    found = re.search(r'value="https?://[^/"]+(/signin/[^"]+)"', page)
    assert found, page
    assert "<svg" in page and 'class="qr"' in page  # the QR code, inline
    return found.group(1)


def _history_figures(client: Any) -> dict[str, str]:
    page = client.get("/me/history").get_data(as_text=True)
    return dict(re.findall(r'data-figure="([a-z-]+)">([^<]*)<', page))


@pytest.mark.redis
def test_a_sign_in_link_moves_the_player_to_another_browser(make_app: Any) -> None:
    app = make_app(now=DECEMBER)
    phone, laptop = app.test_client(), app.test_client()
    played = play_daily(phone)
    phone.patch("/api/v1/players/me", json={"name": "Ana"})
    path = _link(phone)
    ask = laptop.get(path)
    assert ask.status_code == 200 and "Ana" in ask.get_data(as_text=True)
    assert laptop.get("/api/v1/players/me").status_code in (401, 404)  # not moved by a GET
    moved = laptop.post(path)
    assert moved.status_code == 303
    assert laptop.get("/api/v1/players/me").get_json()["name"] == "Ana"
    figures = _history_figures(laptop)
    assert figures["days"] == "1" and figures["best"] == str(played["total"])


@pytest.mark.redis
def test_a_new_link_revokes_the_old_one(make_app: Any) -> None:
    app = make_app(now=DECEMBER)
    phone, other = app.test_client(), app.test_client()
    play_daily(phone)
    old = _link(phone)
    new = _link(phone)
    refused = other.post(old)
    assert refused.status_code == 403 and "no longer works" in refused.get_data(as_text=True)
    assert other.get(old).status_code == 403
    assert other.post(new).status_code == 303


@pytest.mark.redis
def test_a_tampered_link_is_refused(make_app: Any) -> None:
    app = make_app(now=DECEMBER)
    phone, other = app.test_client(), app.test_client()
    play_daily(phone)
    path = _link(phone)
    payload, _, signature = path.rpartition(".")
    forged = payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:]
    assert other.post(forged).status_code == 403
    assert other.post("/signin/not-a-token").status_code == 403
    # A link signed with another key is refused too.
    stranger = make_app(now=DECEMBER, secret_key="another-secret-" + "y" * 32).test_client()
    play_daily(stranger)
    assert other.post(_link(stranger)).status_code == 403
    with other.session_transaction() as session:
        assert "player_id" not in session


@pytest.mark.redis
def test_a_link_expires_after_a_day(make_app: Any) -> None:
    clock = Clock(DECEMBER)
    app = make_app(clock=clock)
    phone, other = app.test_client(), app.test_client()
    play_daily(phone)
    path = _link(phone)
    clock.at = DECEMBER + timedelta(hours=23)
    assert other.get(path).status_code == 200
    clock.at = DECEMBER + timedelta(days=1, minutes=1)
    assert other.post(path).status_code == 403
    assert "expired" in other.get(path).get_data(as_text=True)


@pytest.mark.redis
def test_history_figures(make_app: Any) -> None:
    clock = Clock(DECEMBER)
    app = make_app(clock=clock)
    client = app.test_client()
    assert _history_figures(client) == {
        "days": "0", "streak": "0", "best-streak": "0", "best": "–", "mean": "–", "bonus": "–"
    }  # fmt: skip
    totals = []
    for day in range(3):
        clock.at = DECEMBER + timedelta(days=day)
        totals.append(play_daily(client, policy="first" if day != 1 else "last")["total"])
    figures = _history_figures(client)
    assert figures["days"] == "3" and figures["streak"] == "3" and figures["best-streak"] == "3"
    assert figures["best"] == str(max(totals))
    assert float(figures["mean"]) == round(sum(totals) / 3, 1)
    page = client.get("/me/history").get_data(as_text=True)
    # The chart, drawn on the server: a bar a day.
    assert page.count('<rect class="') == 3 and 'role="img"' in page
    assert figures["bonus"].endswith(" %")


@pytest.mark.redis
def test_history_is_read_a_page_at_a_time_with_the_figures_of_all(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "HISTORY_PAGE", 2)
    clock = Clock(DECEMBER)
    app = make_app(clock=clock)
    client = app.test_client()
    totals = []
    for day in range(3):
        clock.at = DECEMBER + timedelta(days=day)
        totals.append(play_daily(client)["total"])
    with client.session_transaction() as session:
        player_id = session["player_id"]
    with app.app_context():
        redis, config = current_redis(), current_config()
        first = history.history_of(redis, config, player_id)
        assert [p.total for p in first.played] == totals[:0:-1]  # the newest two
        assert first.figures.days == 3 and first.figures.best == max(totals)  # of them all
        assert first.older == (DECEMBER + timedelta(days=1)).date()
        second = history.history_of(redis, config, player_id, before=first.older)
        assert [p.total for p in second.played] == totals[:1] and second.older is None
        assert second.figures == first.figures
    # The page links to the older days, and that page to none.
    page = client.get("/me/history").get_data(as_text=True)
    link = f'href="/me/history?before={first.older.isoformat()}" id="older"'
    assert link in page and page.count('<rect class="') == 2
    older = client.get(f"/me/history?before={first.older.isoformat()}").get_data(as_text=True)
    assert 'id="older"' not in older and older.count('<rect class="') == 1
    assert client.get("/me/history?before=yesterday").status_code == 400


@pytest.mark.redis
def test_history_figures_and_home_read_none_of_the_stored_games(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock(DECEMBER)
    client = make_app(clock=clock, rate_limits=LIMITS_OFF).test_client()  # pages at a script's pace
    totals = []
    for day in range(2):
        clock.at = DECEMBER + timedelta(days=day)
        totals.append(play_daily(client)["total"])
    for _ in range(30):  # on the player's list too, and no daily: no page of theirs reads them
        start(client, mode="solo")
    read: list[str] = []
    locate, load = saved_games.locate_many, saved_games.load

    def located(redis: Any, game_ids: Any) -> Any:
        read.extend(game_ids)
        return locate(redis, game_ids)

    def loaded(redis: Any, game_id: str, archive: Any = None) -> Any:
        read.append(game_id)
        return load(redis, game_id, archive)

    monkeypatch.setattr(saved_games, "locate_many", located)
    monkeypatch.setattr(saved_games, "load", loaded)
    figures = _history_figures(client)
    assert figures["days"] == "2" and figures["best"] == str(max(totals))
    assert client.get("/me").status_code == 200
    assert read == []  # the dailies as their player's notes keep them: no game read
    assert client.get("/").status_code == 200
    assert len(read) == 1  # today's game, its sheet shown


@pytest.mark.redis
def test_delete_erases_the_player_and_keeps_the_boards_honest(make_app: Any) -> None:
    app = make_app(now=DECEMBER)
    client = app.test_client()
    state = play_daily(client)
    client.patch("/api/v1/players/me", json={"name": "Ana"})
    with client.session_transaction() as session:
        player_id = session["player_id"]
    redis = app.extensions["daily.redis"]
    assert client.post("/me/delete").status_code == 400  # not confirmed: nothing happens
    assert redis.exists(keys.player(player_id))
    page = client.post("/me/delete", data={"confirm": "yes"})
    assert page.status_code == 200 and 'id="deleted"' in page.get_data(as_text=True)
    left = [k for k in redis.scan_iter(match=f"daily:player:{{{player_id}}}*")]
    # The tombstone (when), and nothing else but the budgets' windows, which expire.
    assert [k for k in left if not WINDOWS.match(k)] == [keys.player(player_id)]
    assert list(redis.hgetall(keys.player(player_id))) == ["deleted"]
    # The game stays on the day's board, without the name.
    board = client.get(f"/api/v1/leaderboards/daily/{DECEMBER.date().isoformat()}").get_json()
    names = [e["name"] for e in board["entries"]]
    assert "Ana" not in names and len(names) == 1
    assert redis.exists(keys.game(state["id"]))
    # This browser gets a new guest, but not a second ranked go at today's dice.
    again = client.post("/api/v1/games", json={"mode": "daily"})
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "deleted_today"
    assert client.post("/api/v1/games", json={"mode": "solo"}).status_code == 201
    tomorrow = make_app(now=DECEMBER + timedelta(days=1)).test_client()
    with client.session_transaction() as session:
        marker = dict(session)
    with tomorrow.session_transaction() as session:
        session.update(marker)
    assert tomorrow.post("/api/v1/games", json={"mode": "daily"}).status_code == 201


@pytest.mark.redis
def test_settings_live_on_the_players_page(make_app: Any) -> None:
    client = make_app(now=DECEMBER).test_client()
    page = client.get("/").get_data(as_text=True)
    assert 'id="who-name"' not in page and 'href="/me"' in page
    page = client.get("/me").get_data(as_text=True)
    assert 'id="who-name"' in page and 'name="language"' in page and 'name="theme"' in page
    assert client.post("/me/theme", data={"theme": "dark"}).status_code == 303
    assert 'data-theme="dark"' in client.get("/me").get_data(as_text=True)
    assert client.post("/me/theme", data={"theme": "pink"}).status_code == 400
    assert client.post("/me/name", data={"name": "Bo"}).status_code == 303
    assert client.get("/api/v1/players/me").get_json()["name"] == "Bo"


@pytest.mark.redis
def test_guest_names_are_translated(make_app: Any) -> None:
    client = make_app(now=DECEMBER).test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de"
    state = play_daily(client)
    name = client.get("/api/v1/players/me").get_json()["name"]
    assert name.startswith("Guest ")
    page = client.get(f"/f/{state['share_code']}").get_data(as_text=True)
    assert "Gast " + name[6:] in client.get("/me").get_data(as_text=True)
    assert page  # the code's page renders for its creator


@pytest.mark.redis
def test_a_code_page_lists_everyone_and_says_who_won(make_app: Any) -> None:
    app = make_app(now=DECEMBER)
    ana, bo = app.test_client(), app.test_client()
    ana.patch("/api/v1/players/me", json={"name": "Ana"})
    mine = play_daily(ana)
    code = mine["share_code"]
    bo.patch("/api/v1/players/me", json={"name": "Bo"})
    before = bo.get(f"/f/{code}").get_data(as_text=True)
    assert 'id="sheets-later"' in before and 'id="comparison"' not in before  # no spoilers
    # Bo's daily is his game on the code's dice: the page puts it beside Ana's.
    game = play_daily(bo, "last")
    page = bo.get(f"/f/{code}").get_data(as_text=True)
    assert 'id="comparison"' in page and "Ana" in page
    ours, theirs = game["total"], mine["total"]
    expected = "win" if ours > theirs else "lose" if ours < theirs else "tie"
    assert f'class="verdict {expected}"' in page
    # Bo played no game on the code, so Ana's page and the code's board do not list him.
    creator = ana.get(f"/f/{code}").get_data(as_text=True)
    assert ">Bo<" not in creator and creator.count("data-total>") == 1


@pytest.mark.redis
@pytest.mark.parametrize("path", ["/f/hello", "/f?code=hello", "/f/ZZZZ-ZZZZ"])
def test_a_bad_friend_code_gets_a_players_message(make_app: Any, path: str) -> None:
    client = make_app(now=DECEMBER).test_client()
    response = client.get(path, headers={"Accept-Language": "fr"})
    text = response.get_data(as_text=True)
    assert response.status_code in (400, 404) and 'id="friend-error"' in text
    assert "not a friend code" not in text
    # Headed in words, not "400", with the code box to try again.
    assert "<h1>400</h1>" not in text and "<h1>404</h1>" not in text
    assert 'id="code-again"' in text and 'name="code"' in text


@pytest.mark.redis
def test_the_shell_installs(make_app: Any) -> None:
    client = make_app(now=DECEMBER).test_client()
    manifest = client.get("/manifest.webmanifest")
    assert manifest.mimetype == "application/manifest+json"
    body = manifest.get_json(force=True)
    assert body["display"] == "standalone" and body["start_url"] == "/"
    for icon in body["icons"]:
        with client.get(icon["src"]) as response:
            assert response.status_code == 200, icon
    worker = client.get("/sw.js")
    assert worker.mimetype == "text/javascript" and "__VERSION__" not in worker.get_data(True)
    assert "/api/" in worker.get_data(as_text=True)  # it stays out of the API
    assert 'id="offline"' in client.get("/offline").get_data(as_text=True)


@pytest.mark.redis
def test_the_days_page_has_the_advent_calendar_in_december(make_app: Any) -> None:
    page = make_app(now=DECEMBER).test_client().get("/").get_data(as_text=True)
    assert page.count('class="door ') == 24 and "door today" in page
    november = make_app(now=DECEMBER - timedelta(days=10)).test_client()
    assert 'class="door ' not in november.get("/").get_data(as_text=True)


@pytest.mark.redis
@pytest.mark.parametrize("code", ["de", "ja", "pl"])
def test_the_players_pages_render_translated(
    code: str, make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flask_babel

    from tests.web.helpers import leaks
    from tests.web.test_i18n import _Marking

    client = make_app(now=DECEMBER).test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = code
    state = play_daily(client)
    link = _link(client)
    real = flask_babel.Domain.get_translations
    monkeypatch.setattr(flask_babel.Domain, "get_translations", lambda self: _Marking(real(self)))
    pages = {
        "/me": client.get("/me"),
        "/me/history": client.get("/me/history"),
        "/me/delete": client.get("/me/delete"),
        "/offline": client.get("/offline"),
        "/me/link": client.post("/me/link"),
        "signin": client.get(link),
        "/": client.get("/"),
        "/f/hello": client.get("/f/hello"),
        "friend": client.get(f"/f/{state['share_code']}"),
    }
    from babel.dates import format_date

    day = DECEMBER.date()
    dates = tuple(format_date(day, form, locale=code) for form in ("full", "long", "medium"))
    data = ("K7P2-QX9D", state["share_code"], "%", *dates)
    for name, response in pages.items():
        text = response.get_data(as_text=True)
        found = leaks(text, data)
        assert not found, f"{code} {name}: untranslated {sorted(found)}"


@pytest.mark.redis
@pytest.mark.parametrize("path", ["/me/delete", "/me/link", "/me/theme", "/me/name"])
def test_another_site_cannot_act_for_the_player(make_app: Any, path: str) -> None:
    app = make_app(now=DECEMBER)
    client = app.test_client()
    play_daily(client)
    with client.session_transaction() as session:
        player_id = session["player_id"]
    generation = app.extensions["daily.redis"].hget(keys.player(player_id), "link")
    data = {"confirm": "yes", "theme": "dark", "name": "Mallory"}
    response = client.post(path, data=data, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    redis = app.extensions["daily.redis"]
    assert redis.hget(keys.player(player_id), "name") != "Mallory"
    assert redis.hget(keys.player(player_id), "link") == generation
    assert 'data-theme="dark"' not in client.get("/me").get_data(as_text=True)


def _figures_on(client: Any, path: str, selector: str = "") -> dict[str, str]:
    """The figures a page shows (``data-figure`` values), of the block *selector* names."""
    page = client.get(path).get_data(as_text=True)
    if selector:
        page = page[page.index(selector) :]
        page = page[: page.index("</dl>")]
    return dict(re.findall(r'data-figure="([a-z-]+)">([^<]*)<', page))


@pytest.mark.redis
def test_every_place_shows_the_same_figures(make_app: Any) -> None:
    # Issue 37: home said a mean of 296 at the top and 295.5 under "Your figures".
    clock = Clock(DECEMBER)
    app = make_app(clock=clock)
    client = app.test_client()
    finals = []
    for day in range(3):
        clock.at = DECEMBER + timedelta(days=day)
        finals.append(play_daily(client, "first" if day != 1 else "last"))
    last = finals[-1]
    records = last["records"]  # what the ledger kept with today's game
    api = client.get("/api/v1/players/me").get_json()["figures"]
    assert api == records
    mean = f"{records['mean']:g}"
    want = {"streak": str(records["streak"]), "best": str(records["best"]), "mean": mean}
    home_top = _figures_on(client, "/", 'id="top-figures"')
    home_panel = _figures_on(client, "/", 'id="stats"')
    me = _figures_on(client, "/me", 'id="stats"')
    history_page = _figures_on(client, "/me/history", 'id="figures"')
    for name, shown in [("home", home_top), ("home's figures", home_panel), ("/me", me),
                        ("history", history_page)]:  # fmt: skip
        assert {k: shown[k] for k in want} == want, name
        assert shown.get("games", shown.get("days")) == str(records["days"]), name
    assert records["days"] == 3 and records["streak"] == 3
    assert records["best"] == max(f["total"] for f in finals)
