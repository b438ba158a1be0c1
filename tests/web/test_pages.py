"""The HTML pages, server side: rules from the engine, today, play, friend, advent, prefs."""

from __future__ import annotations

import gettext as gettext_module
import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import flask_babel
import pytest

from daily import create_app
from daily.core.rules import BASE_RULESETS, find_ruleset
from daily.web import pages, sheets
from tests.web.helpers import leaks, play_daily

# On the embedded Redis only: a page renders what the services read, the same on every Redis
# (the app's every route runs on the cluster in tests/web/test_costs.py, its flows in
# test_api.py).
pytestmark = [pytest.mark.redis, pytest.mark.one_redis]

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
DECEMBER = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)
CSS = Path(pages.STATIC / "site.css").read_text()


@pytest.fixture
def client(make_app: Any) -> Any:
    return make_app(now=NOW).test_client()


def html(response: Any) -> str:
    assert response.content_type.startswith("text/html")
    return str(response.get_data(as_text=True))


def boot(text: str) -> dict[str, Any]:
    """The page's boot data for the script."""
    found = re.search(r'<script type="application/json" id="boot">(.*?)</script>', text, re.S)
    assert found, "the page has no boot data"
    return dict(json.loads(found[1]))


# -- rules ----------------------------------------------------------------------------------


def _rules_rows(text: str) -> dict[str, tuple[str, int, int]]:
    pattern = re.compile(
        r'data-row="(\w+)">.*?<span class="visually-hidden">([\d-]+)</span></td>\s*'
        r'<td class="num" data-points[^>]*>(\d+)</td>\s*<td class="num" data-best[^>]*>(\d+)</td>',
        re.S,
    )
    return {m[1]: (m[2], int(m[3]), int(m[4])) for m in pattern.finditer(text)}


@pytest.mark.parametrize("ruleset_id", list(BASE_RULESETS))
def test_rules_page_scores_every_example_with_the_engine(client: Any, ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    rows = _rules_rows(html(client.get(f"/rules/{ruleset_id}")))
    assert list(rows) == list(ruleset.row_ids)
    for index, (row_id, (shown, points, _)) in enumerate(rows.items()):
        example = tuple(int(d) for d in shown.split("-"))
        assert len(example) == ruleset.dice, row_id
        assert points == ruleset.score(example)[index], row_id
        assert points > 0, f"{row_id}: an example should show the row scoring"


@pytest.mark.parametrize(
    ("ruleset_id", "row_id", "points", "best"),
    [
        ("maxi", "villa", 21, 33),
        ("maxi", "tower", 28, 34),
        ("maxi", "full_straight", 21, 21),
        ("maxi", "maxi_yatzy", 100, 100),
        ("maxi", "two_pairs", 20, 22),
        ("yatzy", "small_straight", 15, 15),
        ("yahtzee", "full_house", 25, 25),
        ("yacht", "large_straight", 30, 30),
    ],
    ids=lambda v: str(v),
)
def test_rules_page_numbers_match_the_rules(
    client: Any, ruleset_id: str, row_id: str, points: int, best: int
) -> None:
    rows = _rules_rows(html(client.get(f"/rules/{ruleset_id}")))
    assert rows[row_id][1:] == (points, best)


def test_rules_page_states_bonus_pace_and_maximum(client: Any) -> None:
    text = html(client.get("/rules/maxi"))
    assert "100 points when the six upper rows total 84 or more" in text
    assert "That is 4 dice of each face" in text
    assert "5 sixes in Sixes score 30: +6 ahead of pace" in text
    assert "Best possible total: 649." in text
    yahtzee = html(client.get("/rules/yahtzee"))
    assert "adds 100 points" in yahtzee and "Best possible total: 375." in yahtzee


def test_unknown_ruleset_is_a_404_page(client: Any) -> None:
    response = client.get("/rules/poker")
    assert response.status_code == 404
    assert "no such ruleset: &#39;poker&#39;" in html(response)
    assert client.get("/rules").headers["Location"] == "/rules/maxi"


def test_pace_words() -> None:
    app = create_app({"env": "testing", "redis_url": "redis://127.0.0.1:1/0"})
    with app.test_request_context():
        assert sheets.pace_str(6) == "+6 ahead of pace"
        assert sheets.pace_str(-3) == "3 behind pace"
        assert sheets.pace_str(0) == "on pace"
        assert sheets.pace_example(find_ruleset("yatzy"))["text"] == "+6 ahead of pace"
        assert sheets.bonus_par(find_ruleset("maxi", {"bonus": "50@75"})) == pytest.approx(75 / 21)


# -- today and play -------------------------------------------------------------------------


def test_today_shows_number_date_countdown_and_then_your_score(client: Any) -> None:
    text = html(client.get("/"))
    assert '<h1 id="puzzle-title" class="puzzle-no">#334</h1>' in text
    assert "Monday, November 30, 2026" in text
    assert '"secondsLeft": 52200' in text  # 14h30m to midnight UTC, on the frozen clock
    assert 'id="play"' in text and 'id="my-total"' not in text
    state = play_daily(client)
    text = html(client.get("/"))
    assert f'<span class="score-big" id="my-total">{state["total"]}</span>' in text
    assert f"/play/{state['id']}" in text
    assert 'data-code="' + state["share_code"].replace("-", "") + '"' in text
    # The score leads: the share follows it in the same card, before the day's scores.
    assert text.index('id="my-total"') < text.index('id="share-now"') < text.index('id="chart"')
    assert boot(text)["skill"] is None  # not kept yet: the script asks (the first ask computes)


def _top_figure(text: str, name: str) -> str:
    found = re.search(rf'id="top-figures".*?data-figure="{name}">([^<]*)<', text, re.S)
    assert found, f"no top figure {name}"
    return found[1]


def test_a_returning_player_sees_their_streak_and_figures_before_playing(
    client: Any, make_app: Any
) -> None:
    assert 'id="top-figures"' not in html(client.get("/"))  # a newcomer: nothing to show yet
    state = play_daily(client)
    tomorrow = make_app(now=datetime(2026, 12, 1, 9, tzinfo=UTC)).test_client()
    tomorrow.set_cookie("session", client.get_cookie("session").value)
    text = html(tomorrow.get("/"))
    assert 'id="play"' in text  # not played today: Play, and the figures above it
    assert text.index('id="top-figures"') < text.index('id="play"')
    assert _top_figure(text, "streak") == "1"
    assert _top_figure(text, "best") == str(state["total"])
    assert _top_figure(text, "games") == "1"
    # Leagues are one tap from home: in the header, and under the figures.
    assert '<a href="/leagues">Leagues</a>' in text
    assert 'id="league-places"' not in text  # in no league yet


def test_a_missed_day_is_offered_only_while_the_streak_is_broken(make_app: Any) -> None:
    """Yesterday's puzzle is offered as practice to a player who played before it, let it
    pass and has not played today: never at a first daily, nor once today's is played."""

    def home(day: int, played: bool = False) -> str:
        client = make_app(now=datetime(2026, 12, day, 10, tzinfo=UTC)).test_client()
        client.set_cookie("session", session)
        if played:
            play_daily(client)
        return html(client.get("/"))

    first = make_app(now=datetime(2026, 12, 1, 10, tzinfo=UTC)).test_client()
    play_daily(first)
    session = first.get_cookie("session").value
    assert 'id="missed"' not in html(first.get("/"))  # a first daily: nothing was missed
    assert 'id="missed"' not in home(2)  # played yesterday: the streak holds
    broken = home(3)  # 2 December let pass, 3 December not played yet
    assert 'id="missed"' in broken and _top_figure(broken, "streak") == "0"
    assert 'action="/archive/2026-12-02"' in broken
    after = home(3, played=True)  # today's played: the streak starts again, nothing offered
    assert 'id="missed"' not in after and _top_figure(after, "streak") == "1"


def test_the_home_page_lists_the_players_place_in_each_league(client: Any) -> None:
    made = client.post("/api/v1/leagues", json={"name": "Office"})
    assert made.status_code == 201, made.get_json()
    league = made.get_json()["id"]
    text = html(client.get("/"))
    assert f'href="/leagues/{league}">Office: 0 of 1 have played</a>' in text
    play_daily(client)
    text = html(client.get("/"))
    assert f'href="/leagues/{league}">Office: rank 1 of 1</a>' in text


def test_play_page_is_its_players_only(client: Any, make_app: Any) -> None:
    state = play_daily(client)
    text = html(client.get(f"/play/{state['id']}"))
    assert "Puzzle #334" in text
    sheet = boot(text)["sheet"]
    assert (sheet["upperRows"], sheet["par"], sheet["threshold"], len(sheet["rows"])) == (
        6,
        4,
        84,
        20,
    )
    stranger = make_app(now=NOW).test_client()
    assert stranger.get(f"/play/{state['id']}").status_code == 404
    assert client.get("/play/nope").status_code == 404


# -- friend ---------------------------------------------------------------------------------


def test_friend_page_invites_then_compares_both_sheets(client: Any, make_app: Any) -> None:
    client.patch("/api/v1/players/me", json={"name": "Ana"})
    ana = client.post("/api/v1/games", json={"mode": "friend", "ruleset": "maxi"}).get_json()
    code = ana["code"]
    while not ana["finished"]:
        row = next(iter(ana["potential"]))
        ana = client.post(f"/api/v1/games/{ana['id']}/score", json={"category": row}).get_json()
    bo = make_app(now=NOW).test_client()
    text = html(bo.get(f"/f/{code.lower()}"))
    assert "Ana challenges you to Maxi Yatzy on the same dice." in text
    assert f"Their score: {ana['total']}." in text
    assert '"target": true' in text and '"target": false' in text
    response = bo.post("/api/v1/games", json={"mode": "friend", "code": code, "target": True})
    state = response.get_json()
    target = boot(html(bo.get(f"/play/{state['id']}")))["target"]
    assert target["name"] == "Ana" and target["finished"] is True
    assert len(target["byTurn"]) == 20 and target["byTurn"][-1] == ana["total"]
    while not state["finished"]:
        row = list(state["potential"])[-1]
        state = bo.post(f"/api/v1/games/{state['id']}/score", json={"category": row}).get_json()
    text = html(bo.get(f"/f/{code}"))
    totals = re.findall(r'<td class="num" data-total>(\d+)</td>', text)
    assert totals == [str(ana["total"]), str(state["total"])]
    assert '<th scope="col" class="num">Ana</th><th scope="col" class="num">You</th>' in text


def test_friend_codes_bad_and_unknown(client: Any) -> None:
    assert client.get("/f/not-a-code!").status_code == 400
    assert client.get("/f/K7P2-QX9D").status_code == 404
    response = client.get("/f?code=k7p2-qx9d")
    assert response.status_code == 303
    assert response.headers["Location"] == "/f/K7P2QX9D"


# -- advent and the Christmas dice -----------------------------------------------------------


def test_advent_is_closed_outside_december(client: Any) -> None:
    text = html(client.get("/advent"))
    assert "opens on 1 December" in text and 'class="doors"' not in text
    assert ">Advent</a>" not in text  # the header links it only in December


def test_advent_doors_in_december(make_app: Any) -> None:
    client = make_app(now=DECEMBER).test_client()
    text = html(client.get("/advent"))
    doors = re.findall(r'class="door (\w+)"', text)
    assert doors == ["missed"] * 4 + ["today"] + ["locked"] * 19
    total = play_daily(client)["total"]
    text = html(client.get("/advent"))
    assert re.findall(r'class="door (\w+)', text)[4] == "played"  # played today: lit
    assert f"Door 5: your {total}, the day's top {total}" in text
    assert 'href="#x6"' in text  # alone on the day's board: the top, a six


def test_an_opened_advent_door_shows_the_top_your_score_and_the_christmas_die(
    make_app: Any,
) -> None:
    moment = [datetime(2026, 12, 3, 10, tzinfo=UTC)]
    app = make_app(clock=lambda: moment[0])
    ana, bo = app.test_client(), app.test_client()
    mine = play_daily(ana, "last")["total"]
    top = max(mine, play_daily(bo, "first")["total"])
    moment[0] = datetime(2026, 12, 5, 10, tzinfo=UTC)
    text = html(ana.get("/advent"))
    assert re.findall(r'class="door (\w+)', text)[:6] == ["missed", "missed", "played"] + [
        "missed",
        "today",
        "locked",
    ]
    assert f"Door 3: your {mine}, the day's top {top}" in text
    # The die counts the sixths of the top reached: a six only for the top itself.
    die = 6 if mine == top else max(1, 6 * mine // top)
    assert re.findall(r'class="door-die"[^>]*><use href="#x(\d)"', text) == [str(die)]
    assert text.count(f">top {top}<") == 1  # door 3 only: nobody played doors 1, 2 and 4
    assert "Your December" not in text  # the picture waits for Christmas Eve
    moment[0] = datetime(2026, 12, 24, 10, tzinfo=UTC)
    text = html(ana.get("/advent"))
    assert "Your December" in text and f"1 of 24 doors played, {mine} points in all" in text
    bars = re.findall(r'<rect class="(\w+)" x="\d+" y="[\d.]+" width="8" height="(\d+)"', text)
    assert len(bars) == 24 and bars[2] == (
        "best" if die == 6 else "lit",
        str(round(100 * mine / top)),
    )
    assert all(bar == ("missed", "2") for i, bar in enumerate(bars) if i != 2)


def test_advent_after_christmas_eve_has_no_door_for_today(make_app: Any) -> None:
    client = make_app(now=datetime(2026, 12, 26, 9, tzinfo=UTC)).test_client()
    text = html(client.get("/advent"))
    assert re.findall(r'class="door (\w+)"', text) == ["missed"] * 24
    assert "Advent door" not in html(client.get("/"))


def test_christmas_dice_only_in_december(client: Any, make_app: Any) -> None:
    for elsewhere in ("//evil.example/", "/\\evil.example/", "https://evil.example/"):
        response = client.post("/prefs/dice", data={"style": "x", "next": elsewhere})
        assert response.status_code == 303 and response.headers["Location"] == "/advent"
    assert 'class="dice-f"' in html(client.get("/rules/maxi"))  # November: classic dice
    december = make_app(now=DECEMBER).test_client()
    december.post("/prefs/dice", data={"style": "x", "next": "/rules/maxi"})
    text = html(december.get("/rules/maxi"))
    assert 'class="dice-x"' in text and 'href="#x5"' in text
    assert december.post("/prefs/dice", data={"style": "gold"}).status_code == 400


# -- robustness and accessibility ------------------------------------------------------------


def test_pages_render_an_error_page_when_redis_is_down(tmp_path: Path) -> None:
    app = create_app({"env": "testing", "redis_url": "redis://127.0.0.1:1/0", "data_dir": tmp_path})
    response = app.test_client().get("/f/K7P2-QX9D")
    assert response.status_code == 503
    assert "the store is unavailable" in html(response)
    # Pages that read nothing from the store may still answer; none may fail with a 500.
    for path in ("/rules/maxi", "/", "/solo"):
        response = app.test_client().get(path)
        assert response.status_code in (200, 503) and "<main" in html(response), path


class _Controls(HTMLParser):
    """Collects buttons, links, inputs and the labels of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.labels: set[str] = set()
        self.unnamed: list[str] = []
        self._open: list[tuple[str, dict[str, str | None], list[str]]] = []
        self.inputs: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "label" and a.get("for"):
            self.labels.add(str(a["for"]))
        if tag in ("input", "select", "textarea") and a.get("type") != "hidden":
            self.inputs.append(a)
        if tag in ("button", "a"):
            self._open.append((tag, a, []))

    def handle_data(self, data: str) -> None:
        for _, _, text in self._open:
            text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("button", "a") and self._open:
            name, a, text = self._open.pop()
            if not "".join(text).strip() and not a.get("aria-label"):
                self.unnamed.append(f"<{name} {a}>")


def _check_names(text: str) -> None:
    parser = _Controls()
    parser.feed(text)
    assert parser.unnamed == []
    for control in parser.inputs:
        named = control.get("id") in parser.labels or control.get("aria-label")
        assert named, f"unlabelled control: {control}"


def test_every_control_has_a_name(client: Any, make_app: Any) -> None:
    for path in ("/", "/rules/maxi", "/advent"):
        _check_names(html(client.get(path)))
    state = play_daily(client)
    for path in ("/", f"/play/{state['id']}", f"/f/{state['share_code']}"):
        _check_names(html(client.get(path)))
    _check_names(html(make_app(now=DECEMBER).test_client().get("/advent")))


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two colours."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(
    ("text", "background"),
    [
        ("--ink", "--paper"),
        ("--muted", "--paper"),
        ("--muted", "--card"),
        ("--accent", "--paper"),
        ("--accent", "--card"),
        ("--accent-dark", "#e8f0f8"),
        ("--held", "--card"),
        ("--held", "#fbeee6"),
        ("--good", "--card"),
        ("--bad", "--card"),
        ("#ffffff", "--accent"),
        ("#ffffff", "--brand"),
        ("#ffffff", "#a61b1b"),  # advent doors
        ("#ffffff", "#1e6b34"),  # today's door
        ("#ffffff", "#6d1414"),  # locked doors
        ("#3d4045", "#d5d7da"),  # disabled buttons
        ("--muted", "#eceae5"),  # missed doors
    ],
)
def test_colours_meet_wcag_aa(text: str, background: str) -> None:
    """Text against its background: 4.5:1 (WCAG 1.4.3)."""
    assert contrast(_colour(text), _colour(background)) >= 4.5


@pytest.mark.parametrize(
    ("shape", "background"),
    [
        ("--line", "--card"),  # field and row-button outlines
        ("#5b7fa3", "--card"),  # chart bars
        ("--held", "--card"),  # your bar, a held die's frame
        ("--focus", "--brand"),  # the focus ring on the header
        ("--ink", "--focus"),  # the focus ring's inner line
    ],
)
def test_shapes_meet_wcag_non_text_contrast(shape: str, background: str) -> None:
    """Outlines, bars and focus rings against what is around them: 3:1 (WCAG 1.4.11)."""
    assert contrast(_colour(shape), _colour(background)) >= 3


def _colour(name: str) -> str:
    variables = dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", CSS))
    return variables[name] if name.startswith("--") else name


# -- every string a player reads goes through gettext ----------------------------------------


class _Bracketing(gettext_module.NullTranslations):
    """A catalogue that marks every message it translates: ‹message›."""

    def gettext(self, message: str) -> str:
        return f"‹{message}›"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"‹{singular if n == 1 else plural}›"

    ugettext = gettext
    ungettext = ngettext


# Not messages: a date Babel writes from the locale's CLDR data, a sample code, and an error
# message from the code (lowercase, showing the value, as STYLE.md has them).
NOT_MESSAGES = ("Monday, November 30, 2026", "K7P2-QX9D", "no such game: 'missing'")


def test_every_visible_string_goes_through_gettext(
    client: Any, make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = play_daily(client)  # before the marks: the guest's name is data, not a message
    client.patch("/api/v1/players/me", json={"name": "4711"})
    monkeypatch.setattr(flask_babel.Domain, "get_translations", lambda self: _Bracketing())
    december = make_app(now=DECEMBER).test_client()
    pages_seen = [
        client.get(path)
        for path in (
            "/", f"/play/{state['id']}", f"/f/{state['share_code']}", "/rules/maxi",
            "/rules/yahtzee", "/solo", "/advent", "/play/missing",
        )
    ] + [december.get("/advent")]  # fmt: skip
    for response in pages_seen:
        found = leaks(html(response), NOT_MESSAGES)
        assert not found, f"{response.request.path}: {found}"
        strings = json.loads(re.findall(r'id="strings">(.*?)</script>', html(response))[0])
        assert all(v.startswith("‹") and v.endswith("›") for v in strings.values())


def test_a_forged_cookie_gets_an_error_page_then_a_clean_start(client: Any) -> None:
    client.get("/api/v1/players/me")  # a guest with a signed cookie
    client.set_cookie("session", "eyJwbGF5ZXJfaWQiOiJ4In0.forged.signature")
    response = client.get("/")
    assert response.status_code == 401 and "<main" in html(response)
    assert client.get("/").status_code == 200
