"""Celebrations beside the result, never over it (issue 40.3): the cheers sit at the foot of the
screen and the confetti falls in the band under the verdict, so no piece covers the site's
header, "Final score", the score or the rank line of a daily, nor a party winner's line, at
390x844 (touch) and 1280x800; sampled through the whole animation. Reduced motion: no confetti.

Screenshots: ``celebrate-*.png`` under artifacts/screenshots/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.browser.helpers import start_game

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
SIZES: dict[str, dict[str, Any]] = {
    "390": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "1280": {"viewport": {"width": 1280, "height": 800}},
}
#: What a celebration must never cover.
KEEP_CLEAR = "header.top, #results-title, #final-total, #final-rank, #winner"
#: Every piece of the celebration that shows (clipped to its band) against every box it keeps
#: clear: the pairs that overlap, and how many pieces showed.
OVERLAPS = """(keep) => {
  const box = document.querySelector('#celebrate');
  if (box.hidden) return null;
  const band = box.getBoundingClientRect();
  const clip = (r) => ({ left: Math.max(r.left, band.left), right: Math.min(r.right, band.right),
    top: Math.max(r.top, band.top), bottom: Math.min(r.bottom, band.bottom) });
  const pieces = [...box.children]
    .map((el) => [el.tagName + ':' + el.textContent, clip(el.getBoundingClientRect())])
    .filter(([, r]) => r.right > r.left && r.bottom > r.top);
  const kept = [...document.querySelectorAll(keep)]
    .filter((el) => el.getClientRects().length && !el.closest('[hidden]'))
    .map((el) => [el.id || el.tagName, el.getBoundingClientRect()]);
  const over = (r, k) => r.left < k.right && k.left < r.right
    && r.top < k.bottom && k.top < r.bottom;
  const found = [];
  for (const [name, r] of pieces) {
    for (const [what, k] of kept) if (over(r, k)) found.push(`${name} over ${what}`);
  }
  return { found, pieces: pieces.length, lines: box.querySelectorAll('p').length };
}"""


def _finish(page: Any, base: str, game: dict[str, Any]) -> None:
    """Scores every turn on its first roll, the row with the most points."""
    state = game
    while not state["finished"]:
        row = max(state["potential"], key=lambda r: state["potential"][r])
        response = page.request.post(
            f"{base}/api/v1/games/{state['id']}/score",
            data=json.dumps({"category": row, "move": state["move_count"]}),
            headers={"Content-Type": "application/json"},
        )
        assert response.ok, response.text()
        state = response.json()


def _watch(page: Any) -> list[dict[str, Any]]:
    """Samples the celebration every 200 ms until it has gone: what each sample saw."""
    seen = []
    for _ in range(30):
        found = page.evaluate(OVERLAPS, KEEP_CLEAR)
        if found is None:
            break
        seen.append(found)
        page.wait_for_timeout(200)
    return seen


@pytest.mark.parametrize("size", SIZES)
def test_a_daily_results_cheers_cover_no_figure(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
) -> None:
    base = serve(now=NOW)
    page = new_context(**SIZES[size], reduced_motion="no-preference").new_page()
    game = start_game(page, base, {"mode": "daily"})
    _finish(page, base, game)
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("#results:not([hidden])")
    page.locator("#final-rank", has_text="first").wait_for()
    # The cheers a finish with a bonus, a Maxi Yatzy and a new best day earns, as the result
    # calls them (the dice of a test day earn what they earn: the call is made here).
    page.evaluate(
        """() => import(document.querySelector('script[type=module]').src
          .replace('main.js', 'cheer.js'))
          .then((cheer) => cheer.celebrate(['Bonus made!', 'Maxi Yatzy!', 'A new best day!']))"""
    )
    page.wait_for_timeout(500)  # the lines have popped and the confetti is falling
    shoot(page, f"celebrate-daily-{size}", full_page=False)
    seen = _watch(page)
    assert len(seen) >= 5, seen  # watched through the animation, not one glance
    assert all(sample["lines"] == 3 for sample in seen)
    assert max(sample["pieces"] for sample in seen) > 3  # confetti showed
    assert [sample["found"] for sample in seen if sample["found"]] == []


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_a_party_winners_cheer_covers_neither_header_nor_winner(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    size: str,
    motion: str,
) -> None:
    base = serve(now=NOW)
    page = new_context(**SIZES[size], reduced_motion=motion).new_page()
    spec = {"mode": "party", "ruleset": "yacht", "options": {}, "players": ["Ada", "Bo"]}
    game = start_game(page, base, spec)
    _finish(page, base, game)
    page.goto(f"{base}/party/{game['id']}")  # the winner is cheered once, as the page opens
    page.wait_for_selector("#results:not([hidden])")
    seen = _watch(page)
    assert seen and all(sample["lines"] == 1 for sample in seen)
    pieces = max(sample["pieces"] for sample in seen)
    assert pieces == 1 if motion == "reduce" else pieces > 1  # confetti only with motion
    assert [sample["found"] for sample in seen if sample["found"]] == []
    if motion == "no-preference":
        page.reload()  # cheered once: the screenshot is of the result as it stays
        shoot(page, f"celebrate-party-{size}", full_page=False)
