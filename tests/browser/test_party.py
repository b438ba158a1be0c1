"""A two-player party game played to the end in a real browser, on one device."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

# One Redis flavour is enough here: the store tests cover both; a browser game is slow.
pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
YATZY_ROWS = 15


def _wait_moves(page: Any, count: int) -> None:
    page.wait_for_selector(f"body[data-moves='{count}']")


def test_two_players_play_a_party_game_to_the_end(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=NOW)
    page = new_context().new_page()
    page.goto(f"{base}/party")
    page.fill("#party-name-0", "Ana")
    page.fill("#party-name-1", "Bo")
    page.select_option("#party-ruleset", "yatzy")
    page.click("#party-start")
    page.wait_for_url(f"{base}/party/*")
    _wait_moves(page, 0)
    headers = page.locator("#sheet th[data-player]")
    assert headers.all_inner_texts() == ["Ana", "Bo"]
    moves = 0
    for turn in range(1, YATZY_ROWS + 1):
        for player, name in enumerate(("Ana", "Bo")):
            # No hand-over screen between turns unless the device keeps it (test_taps.py):
            # every die is public, and the turn line says whose turn it is.
            assert page.locator("#handover").is_hidden()
            status = page.inner_text("#status")
            assert name in status and str(turn) in status
            assert "current" in (headers.nth(player).get_attribute("class") or "")
            # Hold the most common face and roll once, then score the best row.
            faces = page.locator(".die-btn").evaluate_all("b => b.map(x => +x.dataset.face)")
            face, _ = Counter(faces).most_common(1)[0]
            for i, f in enumerate(faces):
                if f == face:
                    page.locator(".die-btn").nth(i).click()
            if len([f for f in faces if f == face]) < len(faces):
                page.click("#roll")
                moves += 1
                _wait_moves(page, moves)
            # Only the player to move has rows to pick, in their own column.
            picks = page.locator(f"[data-cell='{player}'] button.pick")
            assert picks.count() >= 1
            assert page.locator(f"[data-cell='{1 - player}'] button.pick").count() == 0
            best = max(picks.all_inner_texts(), key=int)
            picks.filter(has_text=best).first.click()
            if best == "0":  # a zero asks first, as in every other mode
                page.click("#confirm-yes")
            moves += 1
            _wait_moves(page, moves)
    page.wait_for_selector("#results:not([hidden])")
    totals = [int(page.inner_text(f"tr[data-sum='total'] [data-cell='{p}']")) for p in range(2)]
    winner = page.inner_text("#winner")
    if totals[0] == totals[1]:
        assert "Ana" in winner and "Bo" in winner and str(totals[0]) in winner
    else:
        best = max(range(2), key=lambda p: totals[p])
        assert ("Ana", "Bo")[best] in winner and str(totals[best]) in winner
    assert page.locator("button.pick").count() == 0
    shoot(page, "party-finished")
