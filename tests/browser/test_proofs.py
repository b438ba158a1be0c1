"""A classmate's phone past the address's free new players: the page solves the proof of work
in a Web Worker, says how far it has come, and the game starts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from daily.web import limits

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)


def test_a_guest_past_the_free_allowance_solves_and_plays(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    chosen = {**dict.fromkeys(limits.DEFAULTS, "off"), "players": "1 per hour"}  # visibly small
    base = serve(now=NOW, rate_limits=chosen)
    first = new_context()
    assert first.request.post(f"{base}/api/v1/games", data={"mode": "daily"}).ok  # the free one
    context = new_context(locale="de-DE")
    page = context.new_page()
    said: list[str] = []
    page.on("console", lambda message: said.append(message.text))
    page.goto(base + "/")
    with page.expect_response(lambda r: r.url.endswith("/api/v1/games")) as asked:
        page.locator("#play").click()
    assert asked.value.status == 429 and "altcha" in asked.value.json()["error"]
    page.wait_for_url(f"{base}/play/*", timeout=60_000)
    page.wait_for_selector("body[data-moves='0']")
    shoot(page, "proof-solved")
    assert not [m for m in said if "Content Security Policy" in m], said
    progress = page.evaluate("document.querySelector('#strings').textContent")
    assert "Dein Spieler wird eingerichtet" in progress  # the line it showed while solving
