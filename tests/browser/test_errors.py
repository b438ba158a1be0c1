"""An API error in a real browser: the player reads it in their language, not the API's English."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)


def test_a_refused_move_is_explained_in_german(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[[Any, str], None]
) -> None:
    base = serve(now=NOW)
    context = new_context(locale="de-DE")
    page = context.new_page()
    page.goto(base + "/")
    assert page.get_attribute("html", "lang") == "de"
    started = context.request.post(f"{base}/api/v1/games", data={"mode": "daily"})
    assert started.ok, started.text()
    game_id = started.json()["id"]
    page.goto(f"{base}/play/{game_id}")
    page.wait_for_selector("body[data-moves='0']")
    # Meanwhile (another tab, say) the game moves on: the page's next move is refused.
    moved = context.request.post(
        f"{base}/api/v1/games/{game_id}/roll", data={"hold": [], "move": 0}
    )
    assert moved.ok, moved.text()

    with page.expect_response(lambda r: r.url.endswith(f"/games/{game_id}/roll")) as refused:
        page.locator("#roll").click()
    error = refused.value.json()["error"]
    assert refused.value.status == 409 and error["code"] == "conflict" and error["message"]
    expected = page.evaluate(
        "code => JSON.parse(document.getElementById('strings').textContent)['error:' + code]",
        error["code"],
    )
    assert expected, error["code"]
    page.wait_for_selector(f"#message:text-is('{expected}')")
    assert error["message"] not in page.inner_text("#message")
    shoot(page, "play-error-de")


def test_a_roll_without_network_says_so_and_the_game_goes_on(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> None:
    base = serve(now=NOW)
    context = new_context()
    page = context.new_page()
    page.goto(base + "/")
    started = context.request.post(f"{base}/api/v1/games", data={"mode": "daily"})
    assert started.ok, started.text()
    game_id = started.json()["id"]
    page.goto(f"{base}/play/{game_id}")
    page.wait_for_selector("body[data-moves='0']")
    roll = f"**/api/v1/games/{game_id}/roll"
    page.route(roll, lambda route: route.abort("internetdisconnected"))
    page.locator("#roll").click()
    waiting = page.evaluate(
        "JSON.parse(document.getElementById('strings').textContent).offlineWait"
    )
    page.wait_for_function("t => document.querySelector('#message').textContent === t", arg=waiting)
    # The move is kept and goes out again by itself once the network is back: it lands once
    # (its number makes a copy that had landed a refusal, never a second roll).
    page.unroute(roll)
    page.wait_for_selector("body[data-moves='1']")
    state = context.request.get(f"{base}/api/v1/games/{game_id}").json()
    assert state["move_count"] == 1 and state["roll"] == 2
    page.wait_for_function("!document.querySelector('#roll').disabled")
    page.locator("#roll").click()
    page.wait_for_selector("body[data-moves='2']")


#: The buttons that start a game through the script.
SELECTOR = "form.solo button[type=submit], #challenge button, #party-start"


@pytest.mark.parametrize("path", ["/solo", "/computer", "/party", "/"])
def test_a_start_button_waits_for_the_script(
    serve: Callable[..., str], new_context: Callable[..., Any], path: str
) -> None:
    """Without the script a start form would only reload its page: its button waits for it."""
    base = serve(now=NOW)
    page = new_context().new_page()
    starts = page.locator(SELECTOR)
    page.route("**/js/**", lambda route: route.abort())  # the script never comes
    page.goto(base + path)
    assert starts.count() >= 1 and all(b.is_disabled() for b in starts.all())
    page.unroute("**/js/**")
    page.reload()
    for button in starts.all():
        expect(button).to_be_enabled()


def test_the_share_button_waits_for_the_script(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> None:
    """A tap on "Share your result" before the script wires it would do nothing at all."""
    base = serve(now=NOW)
    context = new_context()
    state = context.request.post(f"{base}/api/v1/games", data={"mode": "daily"}).json()
    while not state["finished"]:  # finished through the API: the home page leads with sharing
        row = next(iter(state["potential"]))
        url = f"{base}/api/v1/games/{state['id']}/score"
        state = context.request.post(url, data={"category": row}).json()
    page = context.new_page()
    page.route("**/js/**", lambda route: route.abort())  # the script never comes
    page.goto(base + "/")
    assert page.locator("#share-now").is_disabled()
    page.unroute("**/js/**")
    page.reload()
    expect(page.locator("#share-now")).to_be_enabled()
