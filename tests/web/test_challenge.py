"""A code's board answers with an ETag: an unchanged board costs a 304 with no body."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.helpers import play_daily

pytestmark = pytest.mark.redis


def test_an_unchanged_board_answers_304(make_app: Any) -> None:
    app = make_app()
    ana, bo = app.test_client(), app.test_client()
    code = play_daily(ana)["share_code"]
    url = f"/api/v1/leaderboards/friend/{code}"
    first = ana.get(url)
    etag = first.headers["ETag"]
    # A player's own request: kept out of shared caches; the page sends the ETag back itself.
    assert first.headers["Cache-Control"] == "private, no-store"
    assert len(first.get_json()["entries"]) == 1
    same = ana.get(url, headers={"If-None-Match": etag})
    assert (same.status_code, same.get_data()) == (304, b"")
    state = bo.post("/api/v1/games", json={"mode": "friend", "code": code}).get_json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        state = bo.post(f"/api/v1/games/{state['id']}/score", json={"category": row}).get_json()
    changed = ana.get(url, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and len(changed.get_json()["entries"]) == 2
    assert changed.headers["ETag"] != etag
