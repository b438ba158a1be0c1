"""The game screen on a phone and a desktop: one screen a turn, columns, hand-over, lesson, result.

Screenshots of every game page at 390x844 and 1280x800 land in artifacts/screenshots/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"390": PHONE, "1280": DESKTOP}
#: The most the site's header may take on a phone; the game must fit under it.
HEADER = 56
LONG_NAMES = ["Anastasia", "Bartholomew", "Christoph", "Dorothea"]
STARTS: dict[str, dict[str, Any]] = {
    "daily": {"mode": "daily"},
    "friend": {"mode": "friend", "ruleset": "maxi"},
    "solo": {"mode": "solo", "ruleset": "maxi", "options": {}},
    "computer": {"mode": "computer", "ruleset": "maxi", "options": {}, "level": "easy"},
    "party": {"mode": "party", "ruleset": "maxi", "options": {}, "players": LONG_NAMES},
    "party-yacht": {"mode": "party", "ruleset": "yacht", "options": {}, "players": ["Ana", "Bo"]},
}


def _start(page: Any, base: str, mode: str) -> dict[str, Any]:
    """Starts a game of *mode* as the page's player and opens it: the game's JSON."""
    response = page.request.post(f"{base}/api/v1/games", data=json.dumps(STARTS[mode]),
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.ok, response.text()
    game: dict[str, Any] = response.json()
    page.goto(f"{base}/{'party' if mode.startswith('party') else 'play'}/{game['id']}")
    page.wait_for_selector("body[data-moves='0']")
    return game


def _seen(page: Any) -> None:
    """Marks the lesson as seen and dismisses any hand-over, as a returning player would."""
    page.evaluate("localStorage.setItem('daily.taught', 'yes')")
    page.reload()
    page.wait_for_selector("body[data-moves]")
    if page.locator("#handover:not([hidden])").count():
        page.click("#handover-go")


def _turn_box(page: Any) -> dict[str, float]:
    """The span from the game's title to the sheet's total, and the page's widths."""
    box: dict[str, float] = page.evaluate(
        """() => {
          const top = document.querySelector('#game').getBoundingClientRect().top;
          const rows = document.querySelectorAll('#sheet tbody tr:not([hidden])');
          const bottom = rows[rows.length - 1].getBoundingClientRect().bottom;
          const roll = document.querySelector('#roll').getBoundingClientRect();
          return {top, bottom, height: bottom - top, rollBottom: roll.bottom - top,
                  scroll: document.documentElement.scrollWidth, width: innerWidth};
        }"""
    )
    return box


def _fits(page: Any, viewport: dict[str, int]) -> None:
    box = _turn_box(page)
    picks = page.locator("button.pick").count()
    assert picks >= 1
    # Dice, Roll and every row with its points fit under a header of HEADER px.
    assert box["height"] <= viewport["height"] - HEADER, box
    assert box["scroll"] <= box["width"], box


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", ["daily", "friend", "solo", "computer", "party"])
def test_a_whole_turn_fits_one_screen(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    mode: str,
    size: str,
) -> None:
    base = serve(now=NOW)
    page = new_context(viewport=SIZES[size]).new_page()
    _start(page, base, mode)
    _seen(page)
    page.locator(".die-btn").first.click()
    shoot(page, f"screen-{mode}-{size}", full_page=False)
    _fits(page, SIZES[size])
    if size == "390":  # as it will look under a compact header of HEADER px
        page.evaluate(
            "h => Object.assign(document.querySelector('header').style,"
            " {height: h + 'px', overflow: 'hidden'})",
            HEADER,
        )
        assert (
            page.locator("#sheet tr[data-sum='total']").bounding_box()["y"] < PHONE["height"] - 24
        )
        shoot(page, f"screen-{mode}-{size}-header{HEADER}", full_page=False)
    columns = page.locator("#sheet thead th[data-player]")
    expected = {"computer": ["You", "Computer"], "party": LONG_NAMES}.get(mode, ["Points"])
    assert columns.all_inner_texts() == expected  # every column is labelled
    assert [c.is_visible() for c in columns.all()] == [True] * len(expected)
    # Whole labels: both of a computer game, the player to move in a party (the others
    # may shrink to a few letters while they wait; their full name is the column's title).
    shown = columns.evaluate_all(
        "hs => hs.map(h => h.querySelector('.who-col')).map(s => s.scrollWidth <= s.clientWidth)"
    )
    assert shown[0] if mode == "party" else all(shown), shown


def test_party_hands_the_phone_over(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=NOW)
    context = new_context(viewport=PHONE)
    # The screen is off by default; the party's set-up form keeps it on this device. (The
    # lesson, at a phone's foot, is seen: the last row is picked under it.)
    context.add_init_script(
        "localStorage.setItem('daily.handoverScreen', 'yes');"
        " localStorage.setItem('daily.taught', 'yes')"
    )
    page = context.new_page()
    _start(page, base, "party")
    handover = page.locator("#handover")
    assert handover.is_visible() and "Anastasia" in page.inner_text("#handover-text")
    page.click("#handover-go")
    assert handover.is_hidden()
    assert "current" in (page.get_attribute("th[data-player='0']", "class") or "")
    assert "Anastasia" in page.inner_text("#status")
    page.locator("[data-cell='0'] button.pick").last.click()
    if page.locator("#confirm[open]").count():
        page.click("#confirm-yes")
    page.wait_for_selector("body[data-moves='1']")
    assert handover.is_visible()
    assert page.inner_text("#handover-text") == "Pass the phone to Bartholomew"
    shoot(page, "screen-party-handover-390", full_page=False)
    page.keyboard.press("1")  # the dice under the cover are not playable
    assert page.locator(".die-btn[aria-pressed='true']").count() == 0
    page.click("#handover-go")
    assert "current" in (page.get_attribute("th[data-player='1']", "class") or "")
    assert page.locator("[data-cell='1'] button.pick").count() >= 1
    assert page.locator("[data-cell='0'] button.pick").count() == 0
    page.reload()  # a reload does not ask again
    page.wait_for_selector("body[data-moves='1']")
    assert handover.is_hidden()


def test_the_first_game_teaches_holding_once(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=NOW)
    page = new_context(viewport=PHONE).new_page()
    _start(page, base, "solo")
    teach = page.locator("#teach")
    assert teach.is_visible()
    assert "Tap the dice you want to keep" in teach.inner_text()
    assert page.inner_text("#roll") == "Roll again (2 left)"
    shoot(page, "screen-first-game-390", full_page=False)
    page.locator(".die-btn").nth(2).click()  # doing it is the lesson
    assert teach.is_hidden()
    page.reload()
    page.wait_for_selector("body[data-moves='0']")
    assert teach.is_hidden()
    # Holds wait through a reload; Space on a focused die holds it rather than rolling.
    assert page.locator(".die-btn[aria-pressed='true']").evaluate_all(
        "b => b.map(x => x.dataset.index)"
    ) == ["2"]
    page.locator(".die-btn").nth(4).focus()
    page.keyboard.press(" ")
    assert page.get_attribute(".die-btn >> nth=4", "aria-pressed") == "true"
    assert page.get_attribute("body", "data-moves") == "0"
    page.click("#roll")
    page.wait_for_selector("body[data-moves='1']")
    assert page.evaluate("document.activeElement.id") == "roll"  # focus stays on Roll


def _square(points: int, row: str) -> str:
    """The square a Maxi turn that scored *points* in *row* shows, against the row's par."""
    text = (ROOT / "daily" / "static" / "js" / "par.js").read_text(encoding="utf-8")
    par = json.loads(text[text.index("{") : text.rindex("}") + 1])["maxi"]["rows"][row]
    if not points:
        return "⬛"
    if points >= par:
        return "🟩"
    return "🟨" if points >= 0.75 * par else "🟧" if points >= 0.5 * par else "🟥"


def _finish_by_api(
    page: Any, base: str, game: dict[str, Any], choose: Callable[..., Any] = max
) -> dict[str, Any]:
    """Scores every turn on the first roll: the row *choose* picks by its points."""
    state = game
    while not state["finished"]:
        row = choose(state["potential"], key=lambda r: state["potential"][r])
        response = page.request.post(
            f"{base}/api/v1/games/{state['id']}/score",
            data=json.dumps({"category": row, "move": state["move_count"]}),
            headers={"Content-Type": "application/json"},
        )
        assert response.ok, response.text()
        state = response.json()
    # A move's answer is the short one: the whole game (date, number, share code) is a GET.
    final: dict[str, Any] = page.request.get(f"{base}/api/v1/games/{game['id']}").json()
    return final


@pytest.mark.parametrize("size", SIZES)
def test_the_result_shares_a_spoiler_free_grid(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=NOW)
    context = new_context(viewport=SIZES[size])
    context.add_init_script(
        "navigator.share = (data) => { window.sharedText = data.text; return Promise.resolve(); }"
    )
    page = context.new_page()
    game = _start(page, base, "daily")
    final = _finish_by_api(page, base, game)
    page.reload()
    page.wait_for_selector("#results:not([hidden])")
    assert page.inner_text("#final-total") == str(final["total"])
    page.wait_for_selector("#facts li >> nth=2")  # bonus, streak, best day
    # Skill and luck come where the session has the Maxi table (test_ritual.py builds it).
    page.wait_for_function(
        "() => !JSON.parse(document.getElementById('boot').textContent).skillReady"
        " || !document.querySelector('#skill-line').hidden"
    )
    facts = page.inner_text("#facts")
    assert "Days in a row: 1" in facts and f"Your best day: {final['total']}" in facts
    # Alone on the day's board: the first to finish, not "better than 100%" of nobody; a new
    # player on the shipped settings, told when their dailies rank.
    page.locator("#final-rank", has_text="first").wait_for()
    assert page.inner_text("#final-rank") == (
        "You are the first to finish today's puzzle, 2 more days to play before your dailies rank"
    )
    # Alone on the day, on a first daily: no chart at all (too few players for the day's, no
    # other day of the player's own; issue 40.4, tests/browser/test_scores.py).
    page.wait_for_selector("#dist[data-drawn='none']", state="attached")
    assert not page.locator("#dist").is_visible()
    assert page.inner_text("#pace") == ""  # the pace is for play, not a red verdict after it
    board = page.get_attribute("#day-board", "href")
    assert board == f"/leaderboards/daily/{final['date']}"
    grid = page.inner_text("#share-grid").strip().split("\n")
    # One square a turn in the order played, in lines of five: read back into the turns.
    squares = [line.split(" ")[0] for line in grid]
    assert [len(line) for line in squares] == [5, 5, 5, 5]
    turns = [move["score"] for move in final["moves"] if "score" in move]
    assert "".join(squares) == "".join(_square(final["scorecard"][row], row) for row in turns)
    assert set("".join(grid)) <= set("🟩🟨🟧🟥⬛⭐💥 ")
    page.click("#share-now")
    page.wait_for_function("window.sharedText !== undefined")
    text = page.evaluate("window.sharedText")
    link = f"{base}/f/{final['share_code']}"
    head = f"Daily Maxi Yatzy #{final['number']}: {final['total']}"
    skill = page.request.get(f"{base}/api/v1/games/{final['id']}").json().get("skill")
    if skill:
        luck = skill["luck"]  # as shown: whole points, the minus a true one
        head += (f" · skill {skill['skill']}% · luck {'+' if luck > 0 else ''}"
                 f"{str(luck).replace('-', '−')} · Expert {skill['expert']}")  # fmt: skip
    assert text == f"{head}\nDays in a row: 1\n" + "\n".join(grid) + f"\n{link}"
    shoot(page, f"screen-result-{size}")


def _play_target(page: Any, base: str, code: str) -> dict[str, Any]:
    """Starts a game on friend code *code* with its creator's score as the target: its JSON."""
    spec = {"mode": "friend", "code": code, "target": True}
    response = page.request.post(f"{base}/api/v1/games", data=json.dumps(spec),
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.ok, response.text()
    game: dict[str, Any] = response.json()
    return game


def _lose(page: Any, base: str, game: dict[str, Any]) -> tuple[int, str]:
    """Finishes *game* on the rows worth least and opens it: the total and the verdict."""
    final = _finish_by_api(page, base, game, choose=min)
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("#results:not([hidden])")
    return final["total"], page.inner_text("#final-rank")


def test_a_target_game_ends_with_win_lose_or_tie(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> None:
    base = serve(now=NOW)
    ana = new_context(viewport=PHONE).new_page()
    created = _start(ana, base, "friend")
    ana.request.patch(f"{base}/api/v1/players/me", data=json.dumps({"name": "Ana"}),
                      headers={"Content-Type": "application/json"})  # fmt: skip
    theirs = _finish_by_api(ana, base, created)
    bo = new_context(viewport=PHONE).new_page()
    you, verdict = _lose(bo, base, _play_target(bo, base, theirs["share_code"]))
    them = theirs["total"]
    assert you < them
    assert verdict == f"Ana wins: {them} to your {you}"


def test_a_deleted_creators_code_is_played_against_a_deleted_player(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    """The creator's name leaves with their account: the race and the verdict say "a deleted
    player", with its capital where it opens the sentence."""
    base = serve(now=NOW)
    ana = new_context(viewport=PHONE).new_page()
    theirs = _finish_by_api(ana, base, _start(ana, base, "friend"))
    ana.goto(f"{base}/me/delete")
    ana.check("#confirm")
    ana.locator("#delete").click()
    ana.wait_for_selector("#deleted")
    bo = new_context(viewport=PHONE).new_page()
    mine = _play_target(bo, base, theirs["share_code"])
    assert mine["target"]["name"] is None
    scored = bo.request.post(f"{base}/api/v1/games/{mine['id']}/score",
                             data=json.dumps({"category": "chance", "move": 0}),
                             headers={"Content-Type": "application/json"})  # fmt: skip
    assert scored.ok, scored.text()
    bo.goto(f"{base}/play/{mine['id']}")
    bo.wait_for_selector("#versus:not([hidden])")
    assert "a deleted player" in bo.inner_text("#versus")
    shoot(bo, "screen-target-deleted-390", full_page=False)
    you, verdict = _lose(bo, base, scored.json())
    them = theirs["total"]
    assert you < them
    assert verdict == f"A deleted player wins: {them} to your {you}"
    shoot(bo, "screen-target-deleted-result-390", full_page=False)


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_the_party_winner_is_celebrated_once(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    motion: str,
) -> None:
    base = serve(now=NOW)
    page = new_context(viewport=PHONE, reduced_motion=motion).new_page()
    final = _finish_by_api(page, base, _start(page, base, "party-yacht"))
    page.reload()
    page.wait_for_selector("#results:not([hidden])")
    cheer = page.locator("#celebrate")
    assert cheer.is_visible() and cheer.inner_text() == page.inner_text("#winner")
    totals = [p["total"] for p in final["players"]]
    assert str(max(totals)) in cheer.inner_text()
    # Confetti only for those who do not ask for reduced motion.
    assert page.locator("#celebrate i").count() == (0 if motion == "reduce" else 24)
    # The banner leaves the podium in sight, every line of it, at phone size.
    said = page.locator("#celebrate p")
    banner = [said.nth(i).bounding_box() for i in range(said.count())]
    lines = page.locator(".podium li")
    assert lines.count() == len(totals)
    for n in range(lines.count()):
        line = lines.nth(n).bounding_box()
        for box in banner:
            assert box is not None and line is not None
            apart = box["y"] + box["height"] <= line["y"] or line["y"] + line["height"] <= box["y"]
            assert apart, (n, box, line)
    if motion == "reduce":
        shoot(page, "screen-party-result-390", full_page=False)
    page.reload()  # once: a reload does not cheer again
    page.wait_for_selector("#results:not([hidden])")
    assert cheer.is_hidden()


def test_a_guest_is_named_in_the_readers_language(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    """The script words a guest's generic name as the server does: "Gast 1a2b" in German."""
    base = serve(now=NOW)
    ana = new_context(viewport=PHONE).new_page()  # a guest: she never picks a name
    theirs = _finish_by_api(ana, base, _start(ana, base, "friend"))
    guest = ana.request.get(f"{base}/api/v1/players/me").json()["name"]
    assert guest.startswith("Guest ")
    german = "Gast " + guest.removeprefix("Guest ")
    bo = new_context(viewport=PHONE, locale="de-DE").new_page()
    mine = _play_target(bo, base, theirs["share_code"])
    scored = bo.request.post(
        f"{base}/api/v1/games/{mine['id']}/score",
        data=json.dumps({"category": "chance", "move": 0}),
        headers={"Content-Type": "application/json"},
    )
    assert scored.ok, scored.text()
    bo.goto(f"{base}/play/{mine['id']}")
    bo.wait_for_selector("#versus:not([hidden])")
    assert bo.evaluate("document.documentElement.lang") == "de"
    versus = bo.inner_text("#versus")
    assert german in versus and "Guest" not in versus, versus  # the target, drawn by the script
    shoot(bo, "screen-target-guest-390-de", full_page=False)
    _finish_by_api(bo, base, scored.json())
    bo.goto(f"{base}/f/{theirs['share_code']}")
    bo.wait_for_selector("#code-board:not([hidden])")
    names = bo.locator("#code-board tbody th").all_inner_texts()  # the board the script fills
    assert german in names and not any("Guest" in n for n in names), names
