"""The challenger hears back: the creator's page of a code shows a friend's result, with who
won, a few seconds after the friend finishes, without a reload."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.test_site import DECEMBER, PHONE, _name, _play


def test_the_creators_page_shows_a_friends_result_without_a_reload(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=DECEMBER)
    ana, bo = new_context(viewport=PHONE), new_context(viewport=PHONE)
    _name(ana, base, "Ana")
    _name(bo, base, "Bo")
    mine = _play(ana, base, {"mode": "friend", "ruleset": "yatzy"})
    page = ana.new_page()
    requests: list[str] = []
    page.on(
        "request", lambda r: requests.append(r.url) if "/leaderboards/friend/" in r.url else None
    )
    page.goto(f"{base}/f/{mine['code']}")
    assert page.locator("#challengers-card").is_hidden()
    theirs = _play(bo, base, {"mode": "friend", "code": mine["code"]}, last=True)
    verdict = page.locator("#challengers li")
    verdict.wait_for(timeout=9000)  # the board is asked for every 4 s
    words = {"friendWins": "wins:", "creatorWins": "You win against", "friendTie": "A tie with"}
    key = "friendWins" if theirs["total"] > mine["total"] else "creatorWins"
    if theirs["total"] == mine["total"]:
        key = "friendTie"
    assert words[key] in verdict.inner_text() and "Bo" in verdict.inner_text()
    assert page.locator("#code-board tbody tr").count() == 2
    shoot(page, "challenge-heard-back-390")
    assert len(requests) >= 2
