"""The challenger hears back: the creator's page of a code, their home page and the result of
the game that made the code show a friend's result, with who won, a few seconds after the
friend finishes, without a reload."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.helpers import AXE_JS, DECEMBER, PHONE, SERIOUS, play_game, set_name


def _serious(page: Any) -> list[str]:
    """What axe-core finds serious on *page* (nothing where axe is not installed)."""
    if not AXE_JS.exists():
        return []
    page.add_script_tag(path=str(Path(AXE_JS)))
    found: list[str] = page.evaluate(SERIOUS)
    return found


def test_the_creators_page_shows_a_friends_result_without_a_reload(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=DECEMBER)
    ana, bo = new_context(viewport=PHONE), new_context(viewport=PHONE)
    set_name(ana, base, "Ana")
    set_name(bo, base, "Bo")
    mine = play_game(ana, base, {"mode": "friend", "ruleset": "yatzy"})
    page = ana.new_page()
    requests: list[str] = []
    page.on(
        "request", lambda r: requests.append(r.url) if "/leaderboards/friend/" in r.url else None
    )
    page.goto(f"{base}/f/{mine['code']}")
    assert page.locator("#challengers-card").is_hidden()
    theirs = play_game(bo, base, {"mode": "friend", "code": mine["code"]}, last=True)
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


def test_the_home_page_and_the_result_hear_who_played(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=DECEMBER)
    ana = new_context(viewport=PHONE, bypass_csp=True)  # axe is injected as a script
    bo = new_context(viewport=PHONE)
    set_name(ana, base, "Ana")
    set_name(bo, base, "Bo")
    daily = play_game(ana, base, {"mode": "daily"})
    page = ana.new_page()
    page.goto(base + "/")
    card = page.locator("#heard-back")
    assert card.is_hidden()  # nobody has played Ana's code yet
    theirs = play_game(bo, base, {"mode": "friend", "code": daily["share_code"]}, last=True)
    line = card.locator(".challengers li")
    line.wait_for(timeout=9000)  # asked for every 4 s, without a reload
    key = "wins:" if theirs["total"] > daily["total"] else "You win against"
    if theirs["total"] == daily["total"]:
        key = "A tie with"
    assert key in line.inner_text() and "Bo" in line.inner_text()
    code = daily["share_code"]
    assert card.get_by_role("link").inner_text() == f"Challenge {code}"
    assert card.get_by_role("link").get_attribute("href") == f"/f/{code.replace('-', '')}"
    assert card.locator(".count").inner_text() == "1 player"
    shoot(page, "home-heard-back-390")
    assert _serious(page) == []
    # The result of the game that made the code lists who played it too.
    page.goto(f"{base}/play/{daily['id']}")
    page.locator("#heard-back .challengers li").wait_for()
    assert page.locator("#heard-back .challengers li").inner_text() == line_text(theirs, daily)
    page.locator("#heard-back").scroll_into_view_if_needed()
    shoot(page, "result-heard-back-390", full_page=False)
    assert _serious(page) == []


def line_text(theirs: dict[str, Any], mine: dict[str, Any]) -> str:
    """The creator's verdict on a friend named Bo, in English."""
    if theirs["total"] > mine["total"]:
        return f"Bo wins: {theirs['total']} to your {mine['total']}."
    if theirs["total"] < mine["total"]:
        return f"You win against Bo: {mine['total']} to {theirs['total']}."
    return f"A tie with Bo: {mine['total']} each."
