"""What skill, luck and the Expert mean, a tap away on the result (issue 40.1), at 390x844
with touch and 1280x800: the legend opens by tap (or click) and by keyboard, and the figures
the page shows are the API's, and the shared text's, to the character.

A solo Yatzy game (its table is a small one): the result of a daily reads the same macro.
Screenshots: ``legend-*.png`` under artifacts/screenshots/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

pytestmark = [
    pytest.mark.parametrize("redis_server", ["embedded"], indirect=True),
    pytest.mark.usefixtures("small_tables"),
]

NOW = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
SIZES: dict[str, dict[str, Any]] = {
    "390": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "1280": {"viewport": {"width": 1280, "height": 800}},
}
#: A stand-in for the phone's share sheet: the shared text lands in window.sharedText.
SHARE_SHEET = "navigator.share = (d) => { window.sharedText = d.text; return Promise.resolve(); }"


def _solo(context: Any, base: str) -> dict[str, Any]:
    """A solo Yatzy game played through the API: every turn scored on its first roll, in the
    open row that scores least (decisions that give points away, so luck has a sign)."""

    def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
        response = context.request.post(url, data=json.dumps(body),
                                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert response.ok, response.text()
        found: dict[str, Any] = response.json()
        return found

    state = post(f"{base}/api/v1/games", {"mode": "solo", "ruleset": "yatzy"})
    while not state["finished"]:
        row = min(state["potential"], key=lambda r: state["potential"][r])
        state = post(f"{base}/api/v1/games/{state['id']}/score",
                     {"category": row, "move": state["move_count"]})  # fmt: skip
    return state


def _tab_to(page: Any, selector: str, most: int = 60) -> None:
    """Presses Tab until *selector* has the focus: it is reachable by keyboard."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement === document.querySelector(s)", selector):
            return
    raise AssertionError(f"{selector} is not reached by Tab")


@pytest.mark.parametrize("size", SIZES)
def test_the_legend_opens_by_tap_and_by_keyboard_and_the_figures_agree(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None],
    size: str,
) -> None:  # fmt: skip
    base = serve(now=NOW)
    context = new_context(**SIZES[size])
    context.add_init_script(SHARE_SHEET)
    final = _solo(context, base)
    page = context.new_page()
    page.goto(f"{base}/play/{final['id']}")
    page.wait_for_selector("#skill-line:not([hidden])")
    legend = page.locator("#skill-legend")
    assert legend.get_attribute("open") is None  # closed: one line under the figures
    meanings = legend.locator("dd")
    assert not meanings.first.is_visible()
    summary = legend.locator("summary")
    if SIZES[size].get("has_touch"):
        summary.tap()
    else:
        summary.click()
    meanings.first.wait_for()
    assert meanings.count() == 3 and all(t.strip() for t in meanings.all_inner_texts())
    # A solo game has no Expert beside it: its chip and its meaning stay hidden.
    assert not page.locator("#expert-chip").is_visible()
    assert [m.is_visible() for m in meanings.all()] == [True, True, False]
    box = legend.bounding_box()
    width = SIZES[size]["viewport"]["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shoot(page, f"legend-open-{size}", full_page=False)
    summary.click()  # closed again, then by keyboard: Tab to it, Enter opens, Enter closes
    assert legend.get_attribute("open") is None
    page.evaluate("document.activeElement && document.activeElement.blur()")
    _tab_to(page, "#skill-legend summary")
    page.keyboard.press("Enter")
    meanings.first.wait_for()
    assert legend.get_attribute("open") is not None
    page.keyboard.press("Enter")
    assert legend.get_attribute("open") is None
    # The figures: the page writes the API's as given, the shared text the page's.
    skill = page.request.get(f"{base}/api/v1/games/{final['id']}").json()["skill"]
    shown_skill, shown_luck = page.inner_text("#skill"), page.inner_text("#luck")
    luck = skill["luck"]
    assert shown_skill == f"{skill['skill']}%"
    assert shown_luck == (f"+{luck}" if luck > 0 else str(luck).replace("-", "\u2212"))
    assert skill["skill"] / 100 * skill["optimum"] + luck == pytest.approx(final["total"], abs=0.5)
    page.locator("#share-now").click()
    page.wait_for_function("window.sharedText !== undefined")
    head = page.evaluate("window.sharedText").split("\n")[0]
    assert f"skill {shown_skill}" in head and f"luck {shown_luck}" in head, head
    assert "-" not in head  # one minus sign: U+2212, never a hyphen


@pytest.mark.parametrize("size", SIZES)
def test_a_partys_podium_shows_each_players_skill_and_luck(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None],
    size: str,
) -> None:  # fmt: skip
    """Each player's own skill and luck under the podium (issue 40.5): when the last turn is
    scored on the page, and again when the finished party is opened."""
    base = serve(now=NOW)
    context = new_context(**SIZES[size])
    names = ["Ana", "Bo"]
    body = {"mode": "party", "ruleset": "yatzy", "players": names}
    state = context.request.post(f"{base}/api/v1/games", data=json.dumps(body),
                                 headers={"Content-Type": "application/json"}).json()  # fmt: skip
    for _ in range(2 * 15 - 1):  # every turn but the last, by the API
        row = next(iter(state["potential"]))
        response = context.request.post(
            f"{base}/api/v1/games/{state['id']}/score", data=json.dumps({"category": row}),
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        assert response.ok, response.text()
        state = {**state, **response.json()}
    page = context.new_page()
    page.goto(f"{base}/party/{state['id']}")
    page.wait_for_selector(f"body[data-moves='{2 * 15 - 1}']")  # the page has drawn the game
    if page.locator("#handover-go").is_visible():  # the hand-over screen, where it is on
        page.click("#handover-go")
    pick = page.locator("[data-cell='1'] button.pick").first
    pick.click()
    if page.locator("#confirm-yes").is_visible():
        page.click("#confirm-yes")
    page.wait_for_selector("#party-skill:not([hidden])")
    analysis = page.request.get(f"{base}/api/v1/games/{state['id']}/analysis").json()
    for _ in range(2):  # as drawn at the finish, then on the finished party opened again
        rows = page.locator("#party-skill li")
        assert rows.count() == 2
        for seat, player in enumerate(analysis["players"]):
            row = rows.nth(seat)
            assert row.locator(".name").inner_text() == names[seat]
            assert row.locator(".skill").inner_text() == f"{player['skill']['skill']}%"
            luck = player["skill"]["luck"]
            shown = f"+{luck}" if luck > 0 else str(luck).replace("-", "\u2212")
            assert row.locator(".luck").inner_text() == shown
            href = row.locator(".name").get_attribute("href")
            assert href == f"/play/{state['id']}/analysis?player={seat}"
        width = SIZES[size]["viewport"]["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.locator("#party-skill").scroll_into_view_if_needed()
        shoot(page, f"legend-party-{size}", full_page=False)
        page.reload()
        page.wait_for_selector("#party-skill:not([hidden])")
