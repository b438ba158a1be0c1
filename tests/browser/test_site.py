"""The site around the game in a real browser: the player's pages, a sign-in on a second
browser, friends' sheets, the offline page, the dark theme, axe-core on every page, and no
page wider than a 320-px phone in any language."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from daily.web.i18n import LANGUAGES
from tests.browser.helpers import (
    AXE_JS,
    DECEMBER,
    DESKTOP,
    PHONE,
    SERIOUS,
    play_game,
    set_name,
)

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)


@pytest.fixture
def world(serve: Callable[..., str], new_context: Callable[..., Any]) -> dict[str, Any]:
    """A December server where Ana played the daily and Bo played Ana's code as his daily."""
    base = serve(now=DECEMBER)
    ana, bo = new_context(viewport=PHONE), new_context(viewport=PHONE)
    set_name(ana, base, "Ana")
    set_name(bo, base, "Bo")
    daily = play_game(ana, base, {"mode": "daily"})
    friend = play_game(bo, base, {"mode": "friend", "code": daily["share_code"]}, last=True)
    return {"base": base, "ana": ana, "bo": bo, "daily": daily, "friend": friend}


def _sign_in_url(page: Any, base: str) -> str:
    page.goto(base + "/me")
    page.get_by_role("button", name="Play on another device").click()
    page.wait_for_selector(".qr-box svg")
    return str(page.locator("#signin-url").input_value())


def test_sign_in_on_a_second_browser(
    world: dict[str, Any], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = world["base"]
    page = world["ana"].new_page()
    page.goto(base + "/me")
    shoot(page, "me-390")
    url = _sign_in_url(page, base)
    assert url.startswith(base + "/signin/")
    shoot(page, "signin-link-390")
    laptop = new_context(viewport=PHONE)
    other = laptop.new_page()
    other.goto(url)
    shoot(other, "signin-390")
    other.locator("#signin-confirm").click()
    other.wait_for_url("**/me/history")
    assert other.locator('[data-figure="days"]').inner_text() == "1"
    assert other.locator("#days tbody tr").count() == 1
    shoot(other, "history-390")
    # A new link on the first browser revokes the one just used.
    _sign_in_url(page, base)
    third = new_context().new_page()
    response = third.goto(url)
    assert response is not None and response.status == 403
    assert third.locator("#link-error").is_visible()


def test_friends_see_each_others_sheets(world: dict[str, Any], shoot: Callable[..., None]) -> None:
    base, code = world["base"], world["daily"]["share_code"]
    page = world["bo"].new_page()
    page.goto(f"{base}/f/{code}")
    assert page.locator("#comparison thead th").all_inner_texts()[1:] == ["Ana", "You"]
    ours, theirs = world["friend"]["total"], world["daily"]["total"]
    verdict = "win" if ours > theirs else "lose" if ours < theirs else "tie"
    assert page.locator(f"#verdict.{verdict}").is_visible()
    shoot(page, "friends-verdict-390")
    creator = world["ana"].new_page()
    creator.goto(f"{base}/f/{code}")
    assert creator.locator("#comparison thead th").all_inner_texts()[1:] == ["You", "Bo"]
    creator.goto(f"{base}/f/hello")
    assert creator.locator("#friend-error").is_visible()
    shoot(creator, "friend-bad-code-390")


def test_the_site_opens_offline(serve: Callable[..., str], new_context: Callable[..., Any]) -> None:
    base = serve(now=DECEMBER)
    context = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(base + "/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    context.set_offline(True)
    page.goto(base + "/solo")
    assert page.locator("#offline").is_visible()
    context.set_offline(False)
    # The offline page reloads by itself once the network is back: the page asked for shows.
    page.wait_for_selector("body[data-page='solo']")


def test_the_dark_theme_follows_the_system(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=DECEMBER)
    background = "getComputedStyle(document.body).backgroundColor"
    light = new_context(viewport=PHONE, color_scheme="light").new_page()
    light.goto(base + "/me")
    dark = new_context(viewport=PHONE, color_scheme="dark").new_page()
    dark.goto(base + "/me")
    assert light.evaluate(background) == "rgb(247, 245, 240)"
    assert dark.evaluate(background) == "rgb(18, 20, 23)"
    shoot(dark, "me-dark-390")
    dark.goto(base + "/")
    shoot(dark, "today-dark-390")
    # The player's choice wins over the system's, and the form saves on select.
    dark.goto(base + "/me")
    dark.select_option("#theme", "light")
    dark.wait_for_selector('html[data-theme="light"]')
    assert dark.evaluate(background) == "rgb(247, 245, 240)"


def test_the_language_changes_on_select(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> None:
    base = serve(now=DECEMBER)
    page = new_context(viewport=PHONE).new_page()
    page.goto(base + "/me")
    assert not page.locator("#language ~ button").is_visible()  # the script submits on select
    page.select_option("#language", "de")
    page.wait_for_selector('html[lang="de"]')
    assert page.url.endswith("/me")


def _pages(world: dict[str, Any]) -> list[str]:
    """Every page of the site, as a player who has played sees it."""
    daily, friend = world["daily"], world["friend"]
    day = DECEMBER.date().isoformat()
    return [
        "/", "/me", "/me/history", "/me/delete", "/offline", "/solo", "/party", "/computer",
        "/rules/maxi", "/advent", "/leaderboards", f"/leaderboards/daily/{day}",
        f"/f/{daily['share_code']}", "/f/hello", f"/play/{friend['id']}", "/archive",
        "/archive/2026-11",
    ]  # fmt: skip


@pytest.fixture
def axe() -> Iterator[Path]:
    """The path of axe.min.js; the test is skipped, saying why, where it is not installed."""
    if not AXE_JS.exists():
        pytest.skip(f"{AXE_JS} is missing (.ci/run installs axe-core from npm)")
    yield AXE_JS


def test_axe_finds_nothing_serious(
    world: dict[str, Any], new_context: Callable[..., Any], axe: Path
) -> None:
    base = world["base"]
    found = {}
    errors: list[str] = []
    for scheme in ("light", "dark"):
        # axe is injected as a script: the test's own context bypasses the page's CSP.
        context = new_context(viewport=PHONE, color_scheme=scheme, bypass_csp=True)
        context.add_cookies(world["bo"].cookies())
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for path in _pages(world):
            response = page.goto(base + path)
            if response is not None and response.status >= 400:  # the error page's own status
                errors[:] = [e for e in errors if not e.startswith("Failed to load resource")]
            page.add_script_tag(path=str(axe))
            result = page.evaluate(SERIOUS)
            if result:
                found[f"{scheme} {path}"] = result
            if errors:  # a refused script or style, a failed request: the console says
                found[f"{scheme} {path} console"] = errors[:]
                errors.clear()
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_no_page_overflows_a_small_phone_in_any_language(
    world: dict[str, Any], new_context: Callable[..., Any]
) -> None:
    base = world["base"]
    context = new_context(viewport={"width": 320, "height": 700})
    context.add_cookies(world["bo"].cookies())
    page = context.new_page()
    wide = []
    # The game pages, a code's page and the history are looked at in every language, numbers
    # and all, by test_holds_up.py: here the rest of the site.
    seen = ("/play/", f"/f/{world['daily']['share_code']}", "/me/history")
    pages = [p for p in _pages(world) if not p.startswith(seen)]
    for language in LANGUAGES:
        context.set_extra_http_headers({"Accept-Language": language})
        for path in pages:
            page.goto(base + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 320:
                wide.append(f"{language} {path}: {width}px")
            header = page.evaluate("document.querySelector('header.top').offsetHeight")
            if header > 56:
                wide.append(f"{language} {path}: header {header}px high")
    assert not wide, "\n".join(wide)


@pytest.mark.parametrize("size", ["390", "1280"])
def test_screenshots(
    world: dict[str, Any], new_context: Callable[..., Any], shoot: Callable[..., None], size: str
) -> None:
    base = world["base"]
    context = new_context(viewport=PHONE if size == "390" else DESKTOP)
    context.add_cookies(world["ana"].cookies())
    page = context.new_page()
    for name, path in [
        ("today", "/"), ("me", "/me"), ("history", "/me/history"), ("delete", "/me/delete"),
        ("offline", "/offline"), ("friends", f"/f/{world['daily']['share_code']}"),
        ("bad-code", "/f/hello"),
    ]:  # fmt: skip
        page.goto(base + path)
        shoot(page, f"{name}-{size}")
    page.goto(base + "/me")
    page.get_by_role("button", name="Play on another device").click()
    shoot(page, f"signin-link-{size}")
    other = new_context(viewport=page.viewport_size).new_page()
    other.goto(page.locator("#signin-url").input_value())
    shoot(other, f"signin-{size}")
    dark = new_context(viewport=page.viewport_size, color_scheme="dark")
    dark.add_cookies(world["bo"].cookies())
    dark_page = dark.new_page()
    for name, path in [
        ("history", "/me/history"),
        ("friends", f"/f/{world['daily']['share_code']}"),
    ]:
        dark_page.goto(base + path)
        shoot(dark_page, f"{name}-dark-{size}")
    page.goto(base + "/me/delete")
    page.check("#confirm")
    page.locator("#delete").click()
    page.wait_for_selector("#deleted")
    shoot(page, f"deleted-{size}")
