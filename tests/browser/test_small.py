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


def _start(page: Any, base: str, spec: dict[str, Any]) -> dict[str, Any]:
    response = page.request.post(f"{base}/api/v1/games", data=json.dumps(spec),
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.ok, response.text()
    game: dict[str, Any] = response.json()
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
    game = _start(page, base, {"mode": "solo", "ruleset": "maxi", "options": {}})
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
    state = _start(page, base, {"mode": "daily"})
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
