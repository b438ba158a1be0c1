"""Helpers the web tests share: starting and playing games through the API, reading pages."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Any

from daily.core.config import LIMIT_DEFAULTS
from daily.store import keys

#: The SECRET_KEY ``make_app`` (tests/conftest.py) gives every app.
SECRET = "test-secret-" + "x" * 32
#: Every rate limit off, for a test that plays at a script's pace (hundreds of moves a
#: minute from one address): ``make_app(rate_limits=LIMITS_OFF)``. Apps are otherwise as
#: shipped, limits on; the limits themselves are tests/web/test_limits.py's subject.
LIMITS_OFF = dict.fromkeys(LIMIT_DEFAULTS, "off")


#: The rate limits' and budgets' windows: each expires, none is what a request stored.
WINDOWS = re.compile(
    rf"{re.escape(keys.rate_limits())}:|{keys.PREFIX}:quota:|{keys.PREFIX}:player:\{{[^}}]*\}}:(moves|quota):"
)


def kept_keys(client: Any) -> set[str]:
    """Every key in the test's Redis but the rate limits' and budgets' windows (each of which
    expires): what a request stored, as "bad input changes nothing" means it."""
    found = {str(name) for name in client.scan_iter(count=1000)}
    counted = {name for name in found if WINDOWS.match(name)}
    assert all(client.ttl(name) > 0 for name in counted), "a window without expiry"
    return found - counted


def start(client: Any, **body: Any) -> dict[str, Any]:
    """Starts a game through the API (``POST /games`` with *body*); its first state."""
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return dict(response.get_json())


def merged(game: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    """The game a client holds after a move's answer *changed*, as the play script keeps it:
    the answer carries what the move changed, of the scorecard only the row it scored (the
    log it leaves out: the game's read or its record gives it)."""
    kept = {k: v for k, v in game.items() if k != "moves"}
    return kept | changed | {"scorecard": game["scorecard"] | changed["scorecard"]}


def play_daily(client: Any, policy: str = "first") -> dict[str, Any]:
    """Plays a whole daily, scoring the first (or ``"last"``) open row; the final state."""
    state = start(client, mode="daily")
    while not state["finished"]:
        rows = list(state["potential"])
        row = rows[0] if policy == "first" else rows[-1]
        response = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row})
        assert response.status_code == 200, response.get_json()
        state = merged(state, response.get_json())
    return dict(client.get(f"/api/v1/games/{state['id']}").get_json())


class Visible(HTMLParser):
    """The text a reader meets: text nodes and the attributes shown or read aloud."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.attributes: list[str] = []
        self._skipped: list[str] = []  # the open elements whose text nobody reads

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # translate="no" marks what stays as it is: each language's own name, the
        # code's English error message under the translated one.
        if tag in ("script", "style", "svg") or ("translate", "no") in attrs:
            self._skipped.append(tag)
        for name, value in attrs:
            if name in ("aria-label", "title", "alt", "placeholder") and value:
                self.attributes.append(value)

    def handle_endtag(self, tag: str) -> None:
        if self._skipped and tag == self._skipped[-1]:
            self._skipped.pop()

    def handle_data(self, data: str) -> None:
        if not self._skipped and data.strip():
            self.texts.append(data)


def untranslated(text: str, data: Iterable[str] = ()) -> list[str]:
    """Latin words outside the ‹marks› of a marking catalogue, leaving out the *data* shown.

    >>> untranslated("‹Play ‹Maxi›› now K7P2", ["K7P2"])
    ['now']
    """
    outside, marked = text, ""
    while marked != outside:  # innermost marks first: a message may hold another
        marked, outside = outside, re.sub(r"‹[^‹›]*›", " ", outside)
    for value in data:
        outside = outside.replace(value, " ")
    return re.findall(r"[A-Za-z]{2,}", outside)


def leaks(page: str, data: Iterable[str] = ()) -> set[str]:
    """What a reader of *page* meets that went past the marking catalogue untranslated."""
    data = tuple(data)
    parser = Visible()
    parser.feed(page)
    found = {t.strip() for t in parser.attributes if untranslated(t, data)}
    # Text nodes in one run: a message may hold markup (<kbd>), splitting its text.
    return found | set(untranslated(" ".join(parser.texts), data))


def api_blueprints_app() -> Any:
    """A bare app with the blueprints the OpenAPI document covers (no Redis, no settings)."""
    from daily.web import api, board_views, health, league_views
    from daily.web.routes import App

    app = App("daily")  # a plain Flask would not know the routes' cost rows
    for blueprint in (api.bp, board_views.bp, health.bp, league_views.bp):
        app.register_blueprint(blueprint)
    return app
