"""The small ones of issue 40.7, each at 320, 390 (both touch) and 1280 px wide: the desktop
lesson leaves the keyboard line clear, and a guest's first finish asks for a name after the
result, not in the middle of it.

Screenshots: ``small-*.png`` under artifacts/screenshots/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.browser.helpers import AXE_JS, SERIOUS, start_game

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
SIZES: dict[str, dict[str, Any]] = {
    "320": {"viewport": {"width": 320, "height": 640}, "has_touch": True, "is_mobile": True},
    "390": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "1280": {"viewport": {"width": 1280, "height": 800}},
}


def _box(page: Any, selector: str) -> dict[str, float]:
    box: dict[str, float] | None = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def _apart(one: dict[str, float], other: dict[str, float]) -> bool:
    return (
        one["y"] + one["height"] <= other["y"]
        or other["y"] + other["height"] <= one["y"]
        or one["x"] + one["width"] <= other["x"]
        or other["x"] + other["width"] <= one["x"]
    )


def _play(context: Any, base: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Plays a whole game through the API, the first open row each turn: the finished game."""
    state = start_game(context, base, spec)
    while not state["finished"]:
        row = next(iter(state["potential"]))
        response = context.request.post(
            f"{base}/api/v1/games/{state['id']}/score",
            data=json.dumps({"category": row, "move": state["move_count"]}),
            headers={"Content-Type": "application/json"},
        )
        assert response.ok, response.text()
        state = response.json()
    game: dict[str, Any] = context.request.get(f"{base}/api/v1/games/{state['id']}").json()
    return game


@pytest.mark.parametrize("size", SIZES)
def test_the_lesson_leaves_the_keyboard_line_and_the_dice_clear(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=NOW)
    page = new_context(**SIZES[size]).new_page()
    game = start_game(page, base, {"mode": "solo", "ruleset": "maxi", "options": {}})
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("#teach:not([hidden])")
    lesson = _box(page, "#teach")
    # The keyboard line shows on a desktop (a phone hides it while playing): never under it.
    keys = page.locator(".kbd-help")
    assert keys.is_visible() == (size == "1280")
    if keys.is_visible():
        assert _apart(lesson, _box(page, ".kbd-help")), (lesson, _box(page, ".kbd-help"))
    for i in range(page.locator(".die-btn").count()):
        assert _apart(lesson, _box(page, f".die-btn >> nth={i}"))
    assert _apart(lesson, _box(page, "#roll"))
    shoot(page, f"small-lesson-{size}", full_page=False)


@pytest.mark.parametrize("size", SIZES)
def test_a_guests_first_finish_asks_for_a_name_after_the_result(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=NOW)
    page = new_context(**SIZES[size]).new_page()
    state = start_game(page, base, {"mode": "daily"})
    while not state["finished"]:
        row = max(state["potential"], key=lambda r: state["potential"][r])
        response = page.request.post(
            f"{base}/api/v1/games/{state['id']}/score",
            data=json.dumps({"category": row, "move": state["move_count"]}),
            headers={"Content-Type": "application/json"},
        )
        assert response.ok, response.text()
        state = response.json()
    page.goto(f"{base}/play/{state['id']}")
    page.wait_for_selector("#name-prompt:not([hidden])")
    form = _box(page, "#name-prompt")
    # The result's first screen is the score, the verdict and Share; the name comes last.
    for part in ("#final-total", "#final-rank", "#share-now", "#analysis-link"):
        below = _box(page, part)
        assert form["y"] >= below["y"] + below["height"], (part, form, below)
    shoot(page, f"small-name-after-result-{size}")


@pytest.mark.parametrize("size", SIZES)
def test_a_members_invite_says_our_league_and_the_owners_my_league(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=NOW)
    owner, member = new_context(**SIZES[size]), new_context(**SIZES[size])
    for context, name in ((owner, "Ana"), (member, "Bo")):
        named = context.request.patch(f"{base}/api/v1/players/me", data={"name": name})
        assert named.ok, named.text()
    made = owner.request.post(f"{base}/api/v1/leagues", data={"name": "Family"}).json()
    page = member.new_page()
    page.goto(made["invite"])
    page.get_by_role("button", name="Join the league").click()
    page.wait_for_selector("#invite")
    said = page.get_attribute("#invite", "data-share-text")
    assert said.startswith("Join our league Family") and "my league" not in said, said
    shoot(page, f"small-members-invite-{size}")
    mine = owner.new_page()
    mine.goto(f"{base}/leagues/{made['id']}")
    assert mine.get_attribute("#invite", "data-share-text").startswith("Join my league Family")


@pytest.mark.parametrize("size", SIZES)
def test_christmas_day_says_merry_christmas_on_the_home_page(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=datetime(2026, 12, 25, 10, tzinfo=UTC))
    page = new_context(**SIZES[size], bypass_csp=True).new_page()  # axe is injected
    page.goto(base + "/")
    word = page.locator("#christmas")
    assert word.is_visible() and "Merry Christmas!" in word.inner_text()
    assert page.get_by_role("link", name="See your advent calendar").is_visible()
    # On the page's width: nothing runs off a phone's screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["viewport"]["width"]
    shoot(page, f"small-christmas-{size}", full_page=False)
    for scheme in ("light", "dark"):  # readable in both: axe finds nothing serious
        if AXE_JS.exists():
            page.emulate_media(color_scheme=scheme)
            page.add_script_tag(path=str(AXE_JS))
            assert page.evaluate(SERIOUS.replace("document", "'#christmas'", 1)) == [], scheme
    page.goto(serve(now=datetime(2026, 12, 24, 10, tzinfo=UTC)) + "/")
    assert page.locator("#christmas").count() == 0  # Christmas Eve has its advent door


@pytest.mark.parametrize("size", SIZES)
def test_a_codes_three_sheets_fit_the_screen(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=NOW)
    players = [new_context(**SIZES[size]) for _ in range(3)]
    for context, name in zip(players, ("Anastasia", "Bartholomew", "Christoph"), strict=True):
        named = context.request.patch(f"{base}/api/v1/players/me", data={"name": name})
        assert named.ok, named.text()
    made = _play(players[0], base, {"mode": "friend", "ruleset": "maxi"})
    for context in players[1:]:
        _play(context, base, {"mode": "friend", "code": made["share_code"]})
    page = players[2].new_page()
    page.goto(f"{base}/f/{made['share_code']}")
    table = page.locator("#comparison")
    heads = table.locator("thead th")
    assert heads.count() == 4  # the rows' names and three sheets
    # Every sheet's column whole on the screen, with no sideways scroll to find the third.
    scroll = _box(page, ".table-scroll")
    for i in range(heads.count()):
        head = heads.nth(i).bounding_box()
        assert head is not None
        assert head["x"] >= scroll["x"] - 0.5, (i, head, scroll)
        assert head["x"] + head["width"] <= scroll["x"] + scroll["width"] + 0.5, (i, head, scroll)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= SIZES[size]["viewport"]["width"]
    shoot(page, f"small-three-sheets-{size}")


@pytest.mark.parametrize("size", SIZES)
def test_a_missed_day_offers_yesterday_as_practice(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    context = new_context(**SIZES[size])
    played = serve(now=datetime(2026, 11, 28, 10, tzinfo=UTC))
    _play(context, played, {"mode": "daily"})
    page = context.new_page()
    page.goto(serve(now=datetime(2026, 11, 29, 10, tzinfo=UTC)) + "/")  # played yesterday
    assert page.locator("#missed").count() == 0
    base = serve(now=datetime(2026, 11, 30, 10, tzinfo=UTC))  # 29 November let pass
    page.goto(base + "/")
    assert page.inner_text("[data-figure='streak']") == "0"
    missed = page.locator("#missed")
    assert missed.is_visible() and "#333" in missed.inner_text(), missed.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["viewport"]["width"]
    shoot(page, f"small-missed-day-{size}", full_page=False)
    missed.get_by_role("button", name="Play this day as practice").click()
    page.wait_for_url(f"{base}/play/*")
    page.wait_for_selector("body[data-moves='0']")
    assert page.locator("#practice").is_visible()  # "Practice: not ranked"
