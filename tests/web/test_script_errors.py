"""The script's words for API errors: one translated message for every code the API can send.

The API's own messages are English (for developers); the pages' script shows the player the
message its strings block holds for the error JSON's ``code`` instead.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from daily.core.errors import ErrorCode
from daily.web import i18n, limits
from daily.web.http_errors import HttpError
from tests.web.helpers import play_daily

pytestmark = pytest.mark.redis
# One Redis flavour is enough: the strings do not depend on the store.
EMBEDDED = pytest.mark.parametrize("redis_server", ["embedded"], indirect=True)

ROOT = Path(__file__).resolve().parents[2]
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
# HttpError(status, "code", ...) anywhere in the package, the status and code on any lines.
LITERAL = re.compile(r'HttpError\(\s*\d{3},\s*"(\w+)"')
JSON = "application/json"


def answered_codes(make_app: Any) -> set[str]:
    """The codes of errors werkzeug and the rate limiter raise, as the API answers them."""
    app = make_app(
        now=NOON, rate_limits={**dict.fromkeys(limits.DEFAULTS, "off"), "pages": "8 per minute"}
    )
    client = app.test_client()
    responses = [
        client.get("/api/v1/nothing"),
        client.delete("/api/v1/games/x"),
        client.post("/api/v1/players", data="[" * 5000 + "]" * 5000, content_type=JSON),
        client.post("/api/v1/players", data='{"name": "' + "x" * 20000 + '"}', content_type=JSON),
    ]
    # The ninth read meets ``pages`` (new players count on ``players``, not on it).
    responses += [client.get("/api/v1/daily") for _ in range(9)]
    statuses = {r.status_code for r in responses}
    assert {404, 405, 400, 413, 429} <= statuses, statuses
    return {r.get_json()["error"]["code"] for r in responses if r.status_code >= 400}


def test_every_code_is_named_by_the_error_code_enum() -> None:
    # A code written as a bare string would escape the enum, and with it the messages below.
    for path in (ROOT / "daily").rglob("*.py"):
        assert LITERAL.findall(path.read_text(encoding="utf-8")) == [], path
    assert HttpError(400, "bad_request", "x").code in set(ErrorCode)  # the pattern can match
    assert LITERAL.findall('HttpError(\n 409, "conflict", "m")') == ["conflict"]


@EMBEDDED
def test_every_code_the_api_can_send_has_a_message(make_app: Any) -> None:
    # Werkzeug's and the rate limiter's errors are answered with codes of the enum too.
    assert answered_codes(make_app) <= set(ErrorCode)
    assert "too_many_requests" in set(ErrorCode)
    # A message for every code, and none for a code nothing sends (a renamed one).
    assert set(i18n.ERROR_MESSAGES) == set(ErrorCode)


def _strings(client: Any, path: str, language: str) -> dict[str, str]:
    page = client.get(path, headers={"Accept-Language": language})
    assert page.status_code == 200
    found = re.search(r'id="strings">(.*?)</script>', page.get_data(as_text=True))
    assert found
    strings: dict[str, str] = json.loads(found[1])
    return strings


@EMBEDDED
def test_the_page_carries_every_error_message_translated(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    game = play_daily(client)
    english = _strings(client, f"/play/{game['id']}", "en")
    german = _strings(client, f"/play/{game['id']}", "de")
    keys = {f"error:{code}" for code in i18n.ERROR_MESSAGES} | {"errorOther", "errorNoAnswer"}
    assert keys <= set(german) and keys <= set(english)
    assert english["error:illegal_move"] == "That move is not allowed now. Reload and try again."
    assert german["error:illegal_move"] == (
        "Dieser Zug ist jetzt nicht erlaubt. Neu laden und erneut versuchen."
    )
    assert german["error:too_many_requests"].startswith("Zu viele Anfragen")
    untranslated = sorted(key for key in keys if german[key] == english[key])
    assert untranslated == []


def test_the_script_picks_the_message_by_code() -> None:
    script = (ROOT / "daily" / "static" / "js" / "page.js").read_text(encoding="utf-8")
    assert "S['error:' + error.code] || S.errorOther" in script
    # The API's English message never reaches the player.
    assert "error.message" not in script
