"""What the browser tests share: the screens they take, the day they freeze, axe-core and
its query, and the API calls that set a game or a player up without the pages."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DECEMBER = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
#: axe-core, installed from npm by .ci/run (``npm install axe-core`` in this folder).
AXE = Path(__file__).resolve().parents[2] / ".cache" / "axe" / "node_modules" / "axe-core"
AXE_JS = AXE / "axe.min.js"


def play_game(context: Any, base: str, body: dict[str, Any], last: bool = False) -> dict[str, Any]:
    """Plays a whole game through the API (first or last open row each turn): the finished
    game as a GET gives it (a move's answer carries only what the move changed)."""
    response = context.request.post(f"{base}/api/v1/games", data=body)
    assert response.status == 201, response.text()
    state: dict[str, Any] = response.json()
    while not state["finished"]:
        rows = list(state["potential"])
        url = f"{base}/api/v1/games/{state['id']}/score"
        response = context.request.post(url, data={"category": rows[-1] if last else rows[0]})
        assert response.ok, response.text()
        state = response.json()
    game: dict[str, Any] = context.request.get(f"{base}/api/v1/games/{state['id']}").json()
    return game


def start_game(page: Any, base: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Starts a game of *spec* for *page*'s (or a context's) player: the game as started."""
    response = page.request.post(f"{base}/api/v1/games", data=json.dumps(spec),
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.ok, response.text()
    game: dict[str, Any] = response.json()
    return game


def set_name(context: Any, base: str, name: str) -> None:
    """Names the player of *context* (a page's or a browser context's) through the API."""
    response = context.request.patch(f"{base}/api/v1/players/me", data={"name": name})
    assert response.ok, response.text()


#: Runs axe on the page: its serious and critical findings, each with its first elements.
SERIOUS = """
axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations
  .filter((v) => ['serious', 'critical'].includes(v.impact))
  .map((v) => v.id + ': ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))
"""
