"""Names when they matter: at a guest's first finish, or first share, the page asks for a name,
the guest name filled in; a look-alike name is refused with the usual message; "Not now" is
final."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.helpers import DECEMBER, PHONE, play_game
from tests.browser.test_challenge import _serious


def _almost(context: Any, base: str) -> str:
    """A daily played through the API up to its last row: the id of the game."""
    state = context.request.post(f"{base}/api/v1/games", data={"mode": "daily"}).json()
    while len(state["potential"]) > 1:  # every open row but one scored
        row = next(iter(state["potential"]))
        url = f"{base}/api/v1/games/{state['id']}/score"
        state = context.request.post(url, data={"category": row}).json()
    return str(state["id"])


def _refused_then_named(page: Any, look_alike: str, name: str) -> None:
    """Sends *look_alike* in the open name prompt and sees it refused, then sends *name* and
    sees the prompt close."""
    form = page.locator("#name-prompt")
    for text in (look_alike, name):
        page.locator("#name-prompt-input").fill(text)
        form.get_by_role("button", name="Save name").click()
        if text == look_alike:
            page.get_by_text("imitates another").wait_for()
    form.wait_for(state="hidden")


def _finish(page: Any, base: str, game_id: str) -> None:
    page.goto(f"{base}/play/{game_id}")
    page.locator("button.pick").first.dispatch_event("click")
    page.wait_for_timeout(300)
    if page.locator("#confirm[open]").count():  # the last row scores 0: it asks first
        page.locator("#confirm-yes").click()
    page.locator("#results").wait_for()


def test_the_first_finish_asks_a_guest_for_a_name(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=DECEMBER)
    context = new_context(viewport=PHONE)
    page = context.new_page()
    _finish(page, base, _almost(context, base))
    form = page.locator("#name-prompt")
    form.wait_for()
    assert page.locator("#name-prompt-input").input_value().startswith("Guest ")
    shoot(page, "name-prompt-390", full_page=False)
    _refused_then_named(page, "\u0410na", "Bo")  # a Cyrillic A: looks like "Ana"
    assert context.request.get(f"{base}/api/v1/players/me").json()["name"] == "Bo"


def test_not_now_is_final(serve: Callable[..., str], new_context: Callable[..., Any]) -> None:
    base = serve(now=DECEMBER)
    context = new_context(viewport=PHONE)
    page = context.new_page()
    game_id = _almost(context, base)
    _finish(page, base, game_id)
    page.locator("#name-skip").click()
    page.locator("#name-prompt").wait_for(state="hidden")
    page.reload()
    page.locator("#results").wait_for()
    page.wait_for_timeout(500)  # the prompt would have come with the results
    assert page.locator("#name-prompt").is_hidden()
    page.locator("#share-now").click()  # nor at a share
    page.wait_for_timeout(500)
    assert page.locator("#name-prompt").is_hidden()
    assert context.request.get(f"{base}/api/v1/players/me").json()["name"].startswith("Guest ")


def test_the_first_share_asks_a_guest_for_a_name(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    base = serve(now=DECEMBER)
    context = new_context(viewport=PHONE, bypass_csp=True)  # axe is injected as a script
    play_game(context, base, {"mode": "daily"})  # finished through the API: nothing asked yet
    page = context.new_page()
    page.goto(base + "/")
    form = page.locator("#name-prompt")
    assert form.is_hidden()
    page.get_by_role("button", name="Share your result").click()
    form.wait_for()
    assert page.locator("#name-prompt-input").input_value().startswith("Guest ")
    form.scroll_into_view_if_needed()
    shoot(page, "name-at-share-390", full_page=False)
    assert _serious(page) == []
    _refused_then_named(page, "Cyr\u0456l", "Cy")  # a Ukrainian i: refused, as everywhere
    assert context.request.get(f"{base}/api/v1/players/me").json()["name"] == "Cy"
