"""Game feel: a scored row flashes and the phone buzzes; under prefers-reduced-motion, neither."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.helpers import PHONE

#: Records navigator.vibrate's calls (headless chromium has no vibration motor to ask).
RECORD_BUZZ = (
    "window.buzzes = []; navigator.vibrate = (p) => { window.buzzes.push(p); return true; };"
)
#: Counts the rows that start to flash: the flash lasts 0.7 s, which a loaded machine can
#: spend between the move and a look at the page.
RECORD_FLASHES = """
window.flashes = 0;
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.classList.contains('just-scored') && !(r.oldValue || '').includes('just-scored'))
      window.flashes += 1;
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'],
                       attributeOldValue: true });
"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_scored_row_flashes_unless_motion_is_reduced(
    serve: Callable[..., str], new_context: Callable[..., Any], motion: str
) -> None:
    base = serve()
    context = new_context(viewport=PHONE, reduced_motion=motion)
    context.add_init_script(RECORD_BUZZ)
    context.add_init_script(RECORD_FLASHES)
    started = context.request.post(
        f"{base}/api/v1/games", data={"mode": "solo", "ruleset": "yatzy"}
    )
    page = context.new_page()
    page.goto(f"{base}/play/{started.json()['id']}")
    page.locator("button.pick").first.dispatch_event("click")  # past the first game's lesson
    page.wait_for_timeout(300)
    if page.locator("#confirm[open]").count():  # random dice: the first row may score 0
        page.locator("#confirm-yes").click()
    page.locator("body[data-moves='1']").wait_for(state="attached")
    flashed = page.evaluate("window.flashes")
    buzzes = page.evaluate("window.buzzes")
    if motion == "reduce":
        assert (flashed, buzzes) == (0, [])
    else:
        assert flashed == 1 and buzzes == [15]
        page.locator("tr.just-scored").wait_for(state="detached", timeout=2000)  # over in 0.7 s
