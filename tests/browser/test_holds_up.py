"""Every game screen holds up: no cut number, whole labels, one turn on one screen, no frozen game.

One page load per page and language inspects every element that shows a number (its text
must fit its box and every clipping box around it), the labels that must read whole, the
header words and the game's buttons; screenshots land in artifacts/screenshots/ (`hold-*`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from daily.web.i18n import LANGUAGES
from tests.browser.test_screen import (
    HEADER,
    NOW,
    PHONE,
    STARTS,
    _finish_by_api,
    _seen,
    _start,
)

pytestmark = [
    pytest.mark.parametrize("redis_server", ["embedded"], indirect=True),
    pytest.mark.usefixtures("small_tables"),  # "Best move" on a yatzy game
]

STARTS.setdefault("solo-yatzy", {"mode": "solo", "ruleset": "yatzy", "options": {}})

#: What the page shows that is cut, broken or too wide: a list of problems, empty when it holds.
INSPECT = (Path(__file__).parent / "inspect.js").read_text()


#: Holds five dice (their tags show) where a game is being played; says whether it did.
HOLD = """() => {
  const dice = Array.from(document.querySelectorAll('.die-btn:not(:disabled)'));
  dice.slice(0, 5).forEach((d) => { if (d.getAttribute('aria-pressed') !== 'true') d.click(); });
  return dice.length > 0;
}"""


def _post(page: Any, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = page.request.post(
        url, data=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    assert response.ok, response.text()
    result: dict[str, Any] = response.json()
    return result


def _score_once(page: Any, base: str, game: dict[str, Any]) -> dict[str, Any]:
    """Scores the game's best row on its first roll: one move, so pace and totals show."""
    row = max(game["potential"], key=lambda r: game["potential"][r])
    return _post(
        page,
        f"{base}/api/v1/games/{game['id']}/score",
        {"category": row, "move": game["move_count"]},
    )


@pytest.fixture
def world(serve: Callable[..., str], new_context: Callable[..., Any]) -> Iterator[dict[str, Any]]:
    """One player's games in every mode, under way and finished, and a code three friends played."""
    base = serve(now=NOW)
    context = new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    page.evaluate("() => 0")
    games: dict[str, str] = {}
    for mode in ("daily", "solo", "computer", "party"):
        games[mode] = _score_once(page, base, _start(page, base, mode))["id"]
    games["party-done"] = _finish_by_api(page, base, _start(page, base, "party-yacht"))["id"]
    games["computer-done"] = _finish_by_api(page, base, _post(page, f"{base}/api/v1/games", {
        "mode": "computer", "ruleset": "yacht", "options": {}, "level": "easy"}))["id"]  # fmt: skip
    theirs = _finish_by_api(page, base, _start(page, base, "friend"))
    friends = []
    for name in ("Bartholomew Longname", "Christoph"):
        other = new_context(viewport=PHONE).new_page()
        other.request.patch(f"{base}/api/v1/players/me", data=json.dumps({"name": name}),
                            headers={"Content-Type": "application/json"})  # fmt: skip
        spec = {"mode": "friend", "code": theirs["share_code"], "target": True}
        friends.append(_finish_by_api(other, base, _post(other, f"{base}/api/v1/games", spec)))
    paths = [f"/play/{games[m]}" for m in ("daily", "solo", "computer", "computer-done")]
    paths += [f"/party/{games['party']}", f"/party/{games['party-done']}"]
    paths += [f"/f/{theirs['share_code']}", "/leaderboards/streak", "/me/history"]
    yield {"base": base, "context": context, "page": page, "paths": paths, "games": games}


def _problems_on(page: Any, base: str, path: str) -> list[str]:
    page.goto(base + path)
    if path.startswith(("/play/", "/party/")):  # the script has drawn the game
        page.wait_for_selector("body[data-moves]", state="attached")
    if path.startswith("/f/"):  # the script has filled the code's board
        page.wait_for_selector("#code-board:not([hidden])")
    if page.locator("#handover:not([hidden])").count():
        page.click("#handover-go")
    if page.evaluate(HOLD):
        page.wait_for_selector(".die-btn .tag:not(:empty)")
    found: list[str] = page.evaluate(INSPECT)
    return [f"{path}: {p}" for p in found]


def test_no_number_is_cut_in_any_language(
    world: dict[str, Any], shoot: Callable[..., None]
) -> None:
    """At 320 px, in all 13 languages, on every game page: numbers, labels, headers, buttons."""
    page, base = world["page"], world["base"]
    problems = []
    for language in LANGUAGES:
        switched = page.request.post(
            f"{base}/prefs/language", form={"language": language, "next": "/"}, max_redirects=0
        )
        assert switched.status == 303
        for path in world["paths"]:
            problems += [f"{language} {p}" for p in _problems_on(page, base, path)]
        if language in ("de", "ja", "pl"):
            page.goto(f"{base}/play/{world['games']['computer']}")
            page.wait_for_load_state("networkidle")
            page.evaluate(HOLD)
            shoot(page, f"hold-computer-320-{language}", full_page=False)
    # A phone and a desktop in the dark theme, in the languages of the longest words.
    for width, height, language in ((390, 844, "de"), (1280, 800, "fi")):
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme="dark")
        page.request.post(f"{base}/prefs/language", form={"language": language, "next": "/"})
        for path in world["paths"]:
            problems += [f"{width} dark {language} {p}" for p in _problems_on(page, base, path)]
            if path.startswith(("/f/", "/party/")):  # three friends' sheets; the party
                shoot(page, f"hold-{path.split('/')[1]}-{width}-dark-{language}")
        shoot(page, f"hold-history-{width}-dark-{language}", full_page=False)
    assert not problems, "\n".join(problems)


def _two_players(
    serve: Callable[..., str], new_context: Callable[..., Any]
) -> tuple[str, Any, Any]:
    base = serve(now=NOW)
    return base, new_context(viewport=PHONE).new_page(), new_context(viewport=PHONE).new_page()


def _open(page: Any, base: str, game: dict[str, Any]) -> None:
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector(f"body[data-moves='{game['move_count']}']")
    _seen(page)


@pytest.mark.parametrize("mode", ["as-daily", "target", "solo-hints", "computer", "party"])
def test_one_turn_on_one_screen_in_every_mode(
    serve: Callable[..., str],
    new_context: Callable[..., Any],
    shoot: Callable[..., None],
    mode: str,
) -> None:
    """Dice, Roll and every row with the total in view at 390x844, banners and hints open."""
    base, page, friend = _two_players(serve, new_context)
    if mode == "as-daily":  # a friend's daily code, played as one's own daily
        code = _finish_by_api(friend, base, _start(friend, base, "daily"))["share_code"]
        spec = {"mode": "friend", "code": code, "target": False}
        _open(page, base, _post(page, f"{base}/api/v1/games", spec))
        assert page.locator("#as-daily summary").is_visible()
    elif mode == "target":  # with the friend's score as target, after a first row
        code = _finish_by_api(friend, base, _start(friend, base, "friend"))["share_code"]
        game = _post(page, f"{base}/api/v1/games", {"mode": "friend", "code": code, "target": True})
        _open(page, base, _score_once(page, base, game))
        assert page.locator("#versus").is_visible()
    elif mode == "solo-hints":
        _open(page, base, _start(page, base, "solo-yatzy"))
    elif mode == "computer":  # after a first turn the computer's card shows
        _open(page, base, _score_once(page, base, _start(page, base, "computer")))
        assert page.locator("#opponent").is_visible()
    else:
        _start(page, base, "party")
        _seen(page)
    page.locator(".die-btn").first.click()
    total = page.locator("#sheet tr[data-sum='total']").bounding_box()
    if mode == "solo-hints":  # "Best move" opens over the sheet: nothing under it moves
        page.click("#hint")
        page.wait_for_selector("#hints:not([hidden]) li")
        assert page.locator("#sheet tr[data-sum='total']").bounding_box() == total
    shoot(page, f"hold-turn-{mode}-390", full_page=False)
    # Everything from the game's title to the total fits under a header of HEADER px.
    top = page.locator("#game").bounding_box()["y"]
    assert total["y"] + total["height"] - top <= PHONE["height"] - HEADER, (top, total)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_move_without_the_network_waits_and_lands_once(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None]
) -> None:
    """Roll offline: a message, then the roll goes out when the network is back. A score whose
    answer is lost on the way goes again and counts once (its move number)."""
    base = serve(now=NOW)
    context = new_context(viewport=PHONE)
    page = context.new_page()
    game = _start(page, base, "solo")
    _seen(page)
    context.set_offline(True)
    page.click("#roll")
    message = page.locator("#message")
    message.filter(has_text="No connection").wait_for()
    assert message.inner_text() == (
        "No connection: your move is kept and goes out when the network is back."
    )
    assert page.get_attribute("body", "data-moves") == "0"
    shoot(page, "hold-offline-390", full_page=False)
    context.set_offline(False)
    page.wait_for_selector("body[data-moves='1']")  # it went out by itself
    assert message.inner_text() in ("Connected again.", "")
    # The score reaches the server, but its answer is lost: the page sends it again.
    lost: list[int] = []  # the status of each answer lost

    def lose_answer(route: Any) -> None:
        if lost:
            route.continue_()
            return
        lost.append(route.fetch().status)  # the server has it
        route.abort()

    page.route("**/api/v1/games/*/score", lose_answer)
    page.locator("button.pick").first.click()
    if page.locator("#confirm[open]").count():
        page.click("#confirm-yes")
    page.wait_for_selector("body[data-moves='2']")
    assert lost == [200]
    state = page.request.get(f"{base}/api/v1/games/{game['id']}").json()
    assert len(state["moves"]) == 2 and state["turn"] == 2  # once, not twice
    assert message.inner_text() in ("", "Connected again.")  # no error: it had landed
    page.click("#roll")  # the game goes on
    page.wait_for_selector("body[data-moves='3']")
    shoot(page, "hold-back-online-390", full_page=False)
