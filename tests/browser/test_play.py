"""Whole games in a real browser: by mouse, by keyboard, a friend on the same dice, advent."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

# One Redis flavour is enough here: the store tests cover both; a browser game is slow.
pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
MAXI_ROWS = 20
WORDS = ("one", "two", "three", "four", "five", "six")


def _moves(page: Any) -> int:
    return int(page.get_attribute("body", "data-moves") or -1)


def _wait_moves(page: Any, count: int) -> None:
    page.wait_for_selector(f"body[data-moves='{count}']")


def _faces(page: Any) -> list[int]:
    return [
        int(f) for f in page.locator(".die-btn").evaluate_all("b => b.map(x => x.dataset.face)")
    ]


def _hold_by_click(page: Any, positions: list[int]) -> None:
    for position in positions:
        die = page.locator(".die-btn").nth(position)
        if die.get_attribute("aria-pressed") != "true":
            die.click()
        assert die.get_attribute("aria-pressed") == "true"
        assert die.get_attribute("aria-label").endswith(", held")


def _pick_by_click(page: Any, row: str) -> None:
    button = page.locator(f"button.pick[data-row='{row}']")
    zero = button.inner_text().strip() == "0"
    button.click()
    if zero:
        page.locator("#confirm-yes").click()


def _best_row(page: Any) -> str:
    picks = page.locator("button.pick").evaluate_all(
        "bs => bs.map(b => [b.dataset.row, Number(b.innerText)])"
    )
    return str(max(picks, key=lambda p: p[1])[0])


def _play_by_clicking(page: Any) -> None:
    """Each turn: hold the most common face, roll once, score the best row."""
    for turn in range(MAXI_ROWS):
        moves = _moves(page)
        faces = _faces(page)
        face, _ = Counter(faces).most_common(1)[0]
        _hold_by_click(page, [i for i, f in enumerate(faces) if f == face])
        page.locator("#roll").click()
        _wait_moves(page, moves + 1)
        _pick_by_click(page, _best_row(page))
        _wait_moves(page, moves + 2)
        if turn == 3:
            assert "pace" in page.inner_text("#sheet") or "bonus" in page.inner_text("#sheet")
            assert _unnamed_controls(page) == []


def _unnamed_controls(page: Any) -> list[str]:
    """Buttons, links and fields the page shows without an accessible name."""
    names: list[str] = page.evaluate(
        """() => Array.from(document.querySelectorAll('button, a, input, select, textarea'))
          .filter(e => e.offsetParent !== null && e.type !== 'hidden')
          .filter(e => !(e.getAttribute('aria-label') || e.textContent.trim()
                         || (e.labels && e.labels.length)))
          .map(e => e.outerHTML.slice(0, 80))"""
    )
    return names


def _server_game(context: Any, base: str, game_id: str) -> dict[str, Any]:
    response = context.request.get(f"{base}/api/v1/games/{game_id}")
    assert response.ok, response.text()
    data: dict[str, Any] = response.json()
    return data


def _start_daily_by_click(page: Any, base: str) -> str:
    page.goto(base + "/")
    page.get_by_role("button", name="Play").click()
    page.wait_for_url("**/play/*")
    _wait_moves(page, 0)
    return str(page.url.rsplit("/", 1)[1])


def test_daily_by_mouse_then_a_friend_on_the_same_dice(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    base = serve(now=NOW)
    ana = new_context()
    page = ana.new_page()
    page.goto(base + "/")
    assert page.inner_text("h1") == "#334"
    shoot(page, "today-before")
    page.goto(base + "/me")  # the name lives on the player's page
    page.fill("#who-name", "Ana")
    page.get_by_role("button", name="Save name").click()
    page.wait_for_selector(".who-status:text('Saved')")
    page.goto(base + "/")

    game_id = _start_daily_by_click(page, base)
    assert len(_faces(page)) == 6
    shoot(page, "play-start")
    _play_by_clicking(page)
    page.wait_for_selector("#results:not([hidden])")
    shoot(page, "results")
    server = _server_game(ana, base, game_id)
    assert server["finished"] is True
    assert page.inner_text("#final-total") == str(server["total"])
    assert page.inner_text("tr[data-sum='total'] [data-cell='0']") == str(server["total"])
    code = server["share_code"]
    # The day's board counted it: alone on it, the first to finish (not "better than 100%").
    page.wait_for_selector("#final-rank:text('the first to finish today')")
    page.wait_for_function("document.querySelector('#share-text').value.includes('in a row')")
    summary = page.input_value("#share-text")
    # Spoiler-free: the puzzle number, the total and the streak, nothing about the dice.
    numbers = re.findall(r"\d+", summary.replace(f"{base}/f/{code}", ""))
    assert numbers == ["334", str(server["total"]), "1"], summary
    grid = page.inner_text("#share-grid")
    page.click("details.more summary")  # the code, link and text fold under "More"
    assert page.inner_text("[data-share-code]") == code
    assert page.input_value("#share-link") == f"{base}/f/{code}"

    page.goto(base + "/")
    assert page.inner_text("#my-total") == str(server["total"])
    # Alone on the day: no chart of the day (issue 40.4); the player's figures show their own.
    page.wait_for_selector("[data-scores][data-drawn='none']", state="attached")
    assert page.locator("#stats rect.today").count() == 1
    # The home page shares the same block: the grid, the Share button, the same text.
    assert page.inner_text("#share-grid") == grid
    page.wait_for_function("document.querySelector('#share-text').value.includes('in a row')")
    assert page.input_value("#share-text") == summary
    shoot(page, "today-after")
    page.goto(base + "/leaderboards")
    shoot(page, "leaderboards")

    # Bo opens the link in another browser the same day: told before the first roll that
    # it is his daily (blind), he plays Ana's moves on the same dice.
    bo = new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    friend = bo.new_page()
    friend.goto(f"{base}/f/{code}")
    assert "Ana challenges you" in friend.inner_text("main")
    assert "this game will be your daily" in friend.inner_text("#code-status")
    shoot(friend, "friend-invite-phone")
    friend.get_by_role("button", name="Play as your daily").click()
    friend.wait_for_url("**/play/*")
    _wait_moves(friend, 0)
    _replay_by_tapping(friend, server["moves"], shoot, versus=False)
    friend.wait_for_selector("#results:not([hidden])")
    bo_game = _server_game(bo, base, friend.url.rsplit("/", 1)[1])
    assert bo_game["mode"] == "daily" and bo_game["standing"]["field"] == 2
    assert bo_game["total"] == server["total"]
    assert bo_game["scorecard"] == server["scorecard"]
    assert friend.inner_text("#final-total") == str(server["total"])

    friend.goto(f"{base}/f/{code}")
    totals = friend.locator("table [data-total]").all_inner_texts()
    assert totals == [str(server["total"])] * 2
    shoot(friend, "friend-both-sheets-phone")


def _replay_by_tapping(
    page: Any, moves: list[dict[str, Any]], shoot: Any, versus: bool = True
) -> None:
    for index, move in enumerate(moves):
        if "hold" in move:
            for position in move["hold"]:
                page.locator(".die-btn").nth(position).tap()
            page.locator("#roll").tap()
        else:
            _pick_by_tap(page, move["score"])
        _wait_moves(page, index + 1)
        if index == len(moves) // 2:
            assert page.locator("#versus").is_visible() == versus
            shoot(page, "play-target-phone" if versus else "play-as-daily-phone")
            # Scrolled to the sheet's end, the dice and Roll stay in view on a phone.
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            assert page.locator("#roll").bounding_box()["y"] < 844
            shoot(page, "play-phone-scrolled", full_page=False)
            page.evaluate("window.scrollTo(0, 0)")


def _pick_by_tap(page: Any, row: str) -> None:
    button = page.locator(f"button.pick[data-row='{row}']")
    zero = button.inner_text().strip() == "0"
    button.tap()
    if zero:
        page.locator("#confirm-yes").tap()


def _press_until_focused(page: Any, key: str, element_id: str, limit: int = 30) -> None:
    for _ in range(limit):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == element_id:
            return
        page.keyboard.press(key)
    raise AssertionError(f"{key} never reached #{element_id}")


def test_a_whole_daily_by_keyboard_only(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    base = serve(now=NOW)
    context = new_context()
    page = context.new_page()
    page.goto(base + "/")
    _press_until_focused(page, "Tab", "play")
    page.keyboard.press("Enter")
    page.wait_for_url("**/play/*")
    _wait_moves(page, 0)
    scratched = 0
    for turn in range(MAXI_ROWS):
        moves = _moves(page)
        page.keyboard.press("1")
        page.keyboard.press("2")
        assert page.locator(".die-btn[aria-pressed='true']").count() == 2
        page.keyboard.press("r" if turn % 2 else " ")
        _wait_moves(page, moves + 1)
        faces = ", ".join(
            ["one", "two", "three", "four", "five", "six"][f - 1] for f in _faces(page)
        )
        assert page.inner_text("#announce") == f"Dice: {faces}. Rolls left: 1."
        assert page.locator(".die-btn[aria-pressed='true']").count() == 2  # held across rolls
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        if page.locator("#confirm[open]").count():
            scratched += 1
            if scratched == 1:
                shoot(page, "play-confirm-scratch")
            _press_until_focused(page, "Shift+Tab", "confirm-yes")
            page.keyboard.press("Enter")
        _wait_moves(page, moves + 2)
        if turn < MAXI_ROWS - 1:
            assert page.locator(".die-btn[aria-pressed='true']").count() == 0  # a new turn
    page.wait_for_selector("#results:not([hidden])")
    server = _server_game(context, base, page.url.rsplit("/", 1)[1])
    assert page.inner_text("#final-total") == str(server["total"])
    assert [m for m in server["moves"] if "hold" in m] == [{"hold": [0, 1]}] * MAXI_ROWS


def test_rules_page_in_the_browser(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    base = serve(now=NOW)
    page = new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(base + "/rules/maxi")
    assert page.inner_text("tr[data-row='villa'] [data-points]") == "21"
    assert page.locator("tr[data-row='villa'] svg[role='img']").count() == 6
    shoot(page, "rules-maxi-phone")


def test_a_solo_game_with_edition_options(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    base = serve(now=NOW)
    page = new_context().new_page()
    page.goto(base + "/solo")
    page.select_option("#yatzy-forced", label="on")
    page.get_by_role("button", name="Play Yatzy").click()
    page.wait_for_url("**/play/*")
    for move in range(15):
        _wait_moves(page, move)
        assert page.locator("button.pick").count() == 1  # forced order: one open row
        _pick_by_click(page, page.locator("button.pick").get_attribute("data-row"))
    page.wait_for_selector("#results:not([hidden])")
    server = _server_game(page.context, base, page.url.rsplit("/", 1)[1])
    assert server["options"] == {"forced": True}
    assert list(server["scorecard"]) == [m["score"] for m in server["moves"]]
    assert page.inner_text("#final-total") == str(server["total"])
    shoot(page, "solo-results")


def test_create_a_challenge_from_the_home_page(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> None:
    base = serve(now=NOW)
    page = new_context().new_page()
    page.goto(base + "/")
    page.select_option("#challenge-ruleset", label="Yatzy")
    page.get_by_role("button", name="Create a challenge").click()
    page.wait_for_url("**/play/*")
    _wait_moves(page, 0)
    assert page.inner_text("h1") == "Friend challenge: Yatzy"
    assert len(_faces(page)) == 5
    server = _server_game(page.context, base, page.url.rsplit("/", 1)[1])
    assert (server["mode"], server["ruleset"]) == ("friend", "yatzy")
    page.goto(f"{base}/f/{server['code']}")
    assert "This is your challenge on Yatzy" in page.inner_text("main")
