"""A computer game in a real browser: pick the level, ask for the best move, beat the Expert?"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

# One Redis flavour is enough here: the API tests cover both; a browser game is slow.
pytestmark = [
    pytest.mark.parametrize("redis_server", ["embedded"], indirect=True),
    pytest.mark.usefixtures("small_tables"),  # the Expert plays exactly from the start
]

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
YACHT_ROWS = 12


def _wait_moves(page: Any, count: int) -> None:
    page.wait_for_selector(f"body[data-moves='{count}']")


def test_a_computer_game_with_hints_to_the_analysis(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=NOW)
    page = new_context().new_page()
    page.goto(f"{base}/computer")
    form = page.locator("form[data-ruleset='yacht']")
    form.locator("select[data-level]").select_option("expert")
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{base}/play/*")
    _wait_moves(page, 0)
    assert page.locator("#opponent").is_hidden()  # the computer plays after your first turn
    # "Best move" lists the ranked options; picking the best keep holds its dice.
    page.click("#hint")
    page.wait_for_selector("#hints:not([hidden]) li")
    assert 1 <= page.locator("#hints li").count() <= 5
    shoot(page, "computer-hints", full_page=False)
    keep = page.locator("#hints li.pickable").first
    hold = keep.get_attribute("data-hold") or ""
    keep.click()
    pressed = page.locator(".die-btn[aria-pressed='true']").evaluate_all(
        "b => b.map(x => x.dataset.index).join(',')"
    )
    assert pressed == hold
    moves = 0
    for turn in range(1, YACHT_ROWS + 1):
        picks = page.locator("button.pick")
        best = max(picks.all_inner_texts(), key=int)
        picks.filter(has_text=best).first.click()
        if best == "0":
            page.click("#confirm-yes")
        moves += 1
        _wait_moves(page, moves)
        # The computer has played the same turn: its sheet and its last turn are shown.
        assert page.locator("#opponent").is_visible()
        filled = page.locator("tr[data-row] [data-cell='1']").evaluate_all(
            "c => c.filter(x => x.textContent).length"
        )
        assert filled == turn
        assert page.locator("#their-turn li").count() >= 1
        if turn < YACHT_ROWS:  # its last row in one line over the sheet, in sight on a phone
            scored = page.locator("#their-turn li").last.inner_text().split(" in ")[-1]
            assert page.inner_text("#versus").startswith("The computer scored ")
            assert page.inner_text("#versus").endswith(f" in {scored}")
    page.wait_for_selector("#results:not([hidden])")
    mine, theirs = (int(page.inner_text(f"tr[data-sum='total'] [data-cell='{p}']")) for p in (0, 1))
    winner = page.inner_text("#winner")  # who won, in words, with both scores
    assert str(mine) in winner and str(theirs) in winner, winner
    shoot(page, "computer-finished")
    page.click("#analysis-link")
    page.wait_for_url(f"{base}/play/*/analysis")
    assert page.locator("#decisions tbody tr").count() == moves
    assert page.inner_text(".score-big") == str(mine)
    assert str(theirs) in page.inner_text("#computer-lost")
    shoot(page, "computer-analysis")
    # The costliest decisions come first, at most three, the biggest loss first.
    lost = page.locator("#decisions tr.lost td.num:last-child").all_inner_texts()
    costly = page.locator("#costly .lost").all_inner_texts()
    assert len(costly) == min(3, len(lost))
    figures = [float(c.split()[0].replace(",", ".")) for c in costly]
    assert figures == sorted(figures, reverse=True)
    page.set_viewport_size({"width": 390, "height": 844})  # a card per decision on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(page, "computer-analysis-390", full_page=False)
