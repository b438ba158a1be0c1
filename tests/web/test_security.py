"""Security: headers and CSP, cross-site refusal, cookie flags, escaping, SECRET_KEY rotation."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import pytest

from daily.core import dice
from daily.core.errors import ConfigError
from daily.core.verify import verify
from daily.store import keys
from daily.store.connection import connect
from daily.web import security
from daily.web.context import current_redis

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
OLD = "old-key-" + "o" * 32
NEW = "new-key-" + "n" * 32
EVIL_NAME = "<img src=x onerror=a()>"  # 23 characters: a valid name


class Scripts(HTMLParser):
    """Collects the inline scripts and event-handler attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self.handlers: list[str] = []
        self.styles: list[str] = []
        self._in_script = False
        self._attrs: dict[str, str | None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        self.styles += [tag for name, _ in attrs if name == "style"]
        if tag == "style":
            self.styles.append("<style>")
        if tag == "script":
            self._in_script, self._attrs = True, dict(attrs)

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data: str) -> None:
        is_data_block = self._attrs.get("type") == "application/json"
        if self._in_script and data.strip() and not is_data_block and "src" not in self._attrs:
            self.inline.append(data[:60])


def play_daily(client: Any, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers)
    assert response.status_code == 201, response.get_json()
    state = response.get_json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        response = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row},
                               headers=headers)  # fmt: skip
        state = response.get_json()
    return dict(state)


def test_every_response_carries_the_security_headers(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    for path in ["/", "/api/v1/daily", "/no-such-page", "/api/v1/games/nope"]:
        headers = client.get(path).headers
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert "Strict-Transport-Security" not in headers  # development runs on plain http


def test_no_page_has_inline_script_or_style(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    game = play_daily(client)
    paths = ["/", f"/play/{game['id']}", "/solo", "/rules/maxi", "/advent", "/leaderboards",
             "/leaderboards/streak", f"/f/{game['share_code']}", "/missing"]  # fmt: skip
    for path in paths:
        response = client.get(path)
        assert response.content_type.startswith("text/html"), path
        page = Scripts()
        page.feed(response.get_data(as_text=True))
        assert page.inline == [] and page.handlers == [] and page.styles == [], path


def test_session_cookie_flags(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    client.post("/api/v1/games", json={"mode": "daily"})  # a browser guest gets its cookie
    cookie = client.get_cookie("session")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Lax"
    assert not cookie.secure
    prod = make_app(now=NOON, env="production", secret_key=NEW).test_client()
    response = prod.post("/api/v1/games", json={"mode": "daily"})
    header = response.headers["Set-Cookie"]
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Secure" in header
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
     {"Sec-Fetch-Site": "same-site", "Origin": "http://localhost"}, {"Origin": "null"}],
    ids=["origin", "fetch-site", "same-site", "null-origin"],
)  # fmt: skip
def test_cross_site_posts_are_refused_and_change_nothing(make_app: Any, headers: Any) -> None:
    client = make_app(now=NOON).test_client()
    client.post("/api/v1/games", json={"mode": "daily"})  # a guest with a cookie
    form = client.post("/prefs/dice", data={"style": "x"}, headers=headers)
    assert form.status_code == 403 and "text/html" in form.content_type
    api = client.post("/api/v1/games", json={"mode": "solo"}, headers=headers)
    assert api.status_code == 403 and api.get_json()["error"]["code"] == "cross_site"
    with client.session_transaction() as session:
        assert "dice" not in session
    me = client.get("/api/v1/players/me").get_json()["player_id"]
    with make_app(now=NOON).app_context():
        assert current_redis().zcard(keys.player_games(me)) == 1  # the solo game never started


@pytest.mark.parametrize(
    "headers",
    [{}, {"Origin": "http://localhost"}, {"Sec-Fetch-Site": "same-origin"},
     {"Sec-Fetch-Site": "none"}],
    ids=["no-browser", "same-origin", "fetch-same-origin", "typed-by-user"],
)  # fmt: skip
def test_own_site_posts_pass(make_app: Any, headers: Any) -> None:
    client = make_app(now=NOON).test_client()
    response = client.post("/prefs/dice", data={"style": "x"}, headers=headers)
    assert response.status_code == 303
    with client.session_transaction() as session:
        assert session["dice"] == "x"


def test_a_bearer_token_call_from_another_origin_passes(make_app: Any) -> None:
    # A token is not ambient: another site cannot make a browser send it.
    client = make_app(now=NOON).test_client()
    token = client.post("/api/v1/players", json={"name": "Ana"}).get_json()["token"]
    headers = {"Authorization": f"Bearer {token}", "Origin": "https://app.example"}
    assert client.post("/api/v1/games", json={"mode": "daily"}, headers=headers).status_code == 201


def test_player_names_are_escaped_everywhere(make_app: Any) -> None:
    app = make_app(now=NOON)
    client = app.test_client()
    play_daily(client)
    assert client.patch("/api/v1/players/me", json={"name": EVIL_NAME}).status_code == 200
    for path in ["/", "/leaderboards", "/leaderboards/daily/2026-12-03", "/advent"]:
        text = client.get(path).get_data(as_text=True)
        assert EVIL_NAME not in text, path
    board = client.get("/leaderboards/daily/2026-12-03").get_data(as_text=True)
    assert "&lt;img src=x onerror=a()&gt;" in board  # shown, as text
    api = client.get("/api/v1/leaderboards/daily/2026-12-03")
    assert api.content_type == "application/json" and EVIL_NAME in json.dumps(api.get_json())


def test_the_session_serializer_is_made_once_for_the_apps_keys(make_app: Any) -> None:
    app = make_app()
    interface = app.session_interface
    first = interface.get_signing_serializer(app)
    assert first is not None and first is interface.get_signing_serializer(app)
    app.secret_key = "rotated-" + "k" * 40
    second = interface.get_signing_serializer(app)
    assert second is not first and second.secret_keys[-1] == app.secret_key.encode()


def test_rotation_keeps_tokens_cookies_and_dice(make_app: Any) -> None:
    before = make_app(now=NOON, secret_key=OLD)
    client = before.test_client()
    token = client.post("/api/v1/players", json={"name": "Ana"}).get_json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    started = client.post("/api/v1/games", json={"mode": "daily"}, headers=bearer).get_json()
    client.post("/api/v1/games", json={"mode": "daily"})  # a browser guest, by cookie
    guest = client.get("/api/v1/players/me").get_json()["player_id"]
    daily_before = client.get("/api/v1/daily").get_json()

    rotated = make_app(now=NOON, secret_key=f"{NEW}, {OLD}")
    after = rotated.test_client()
    after.set_cookie("session", client.get_cookie("session").value)
    assert after.get("/api/v1/players/me").get_json()["player_id"] == guest
    resumed = after.get(f"/api/v1/games/{started['id']}", headers=bearer).get_json()
    assert resumed["dice"] == started["dice"]  # the game already dealt keeps its dice
    daily_after = after.get("/api/v1/daily").get_json()
    assert daily_after["commitment"] == daily_before["commitment"]
    # New tokens are signed with the new key: the old key alone no longer accepts them.
    fresh = after.post("/api/v1/players", json={"name": "Bo"}).get_json()["token"]
    only_new = make_app(now=NOON, secret_key=NEW).test_client()
    assert only_new.get("/api/v1/players/me", headers=bearer).status_code == 401
    assert only_new.get("/api/v1/players/me", headers={"Authorization": f"Bearer {fresh}"}
                        ).status_code == 200  # fmt: skip
    old_only = make_app(now=NOON, secret_key=OLD).test_client()
    assert old_only.get("/api/v1/players/me", headers={"Authorization": f"Bearer {fresh}"}
                        ).status_code == 401  # fmt: skip


def test_verify_takes_the_dice_key_from_a_key_list(make_app: Any) -> None:
    client = make_app(now=NOON, secret_key=OLD).test_client()
    game = play_daily(client)
    record = client.get(f"/api/v1/games/{game['id']}/record").get_json()
    assert "seed" not in record  # the day is not revealed: verify derives the seed
    assert verify(json.dumps(record), (NEW, OLD)).total == game["total"]
    with pytest.raises(ValueError, match="commitment"):
        verify(json.dumps(record), (OLD, NEW))


def test_production_refuses_a_changed_dice_key(make_app: Any) -> None:
    make_app(now=NOON, env="production", secret_key=OLD)  # records the dice key
    make_app(now=NOON, env="production", secret_key=f"{NEW},{OLD}")  # a rotation: fine
    with pytest.raises(ConfigError, match="last key"):
        make_app(now=NOON, env="production", secret_key=f"{NEW}")
    with pytest.raises(ConfigError, match="last key"):
        make_app(now=NOON, env="production", secret_key=f"{OLD},{NEW}")


def test_the_dice_key_guard_waits_for_redis(make_app: Any, redis_url: str, tmp_path: Any) -> None:
    make_app(now=NOON, env="production", secret_key=OLD)  # records the dice key
    # Redis down at start: the app starts, and checks the key once Redis answers.
    down = "redis://127.0.0.1:1/0"
    app = make_app(now=NOON, env="production", secret_key=NEW, redis_url=down)
    assert app.test_client().get("/healthz").status_code == 503
    app.extensions["daily.redis"] = connect(redis_url, tmp_path)  # Redis is back
    response = app.test_client().get("/api/v1/daily")
    assert response.status_code == 500 and response.get_json()["error"]["code"] == "internal"


def test_production_checks_every_key() -> None:
    from daily.core.config import load

    with pytest.raises(ConfigError, match="SECRET_KEY"):
        load({}, env="production", secret_key=f"{NEW},short")
    assert load({}, env="production", secret_key=f" {NEW} , {OLD} ").signing_keys == (NEW, OLD)


def test_dice_of_a_day_derive_from_the_oldest_key() -> None:
    from daily.core.config import load

    config = load({}, secret_key=f"{NEW},{OLD}")
    day = datetime(2026, 12, 3).date()
    assert dice.daily_seed(config.secret_key, day) == dice.daily_seed(OLD, day)


def test_operations_keys_are_pinned() -> None:
    assert keys.dice_key() == "daily:dice-key"
    assert keys.rate_limits() == "daily:limits"
    assert security.dice_key_fingerprint(OLD) != security.dice_key_fingerprint(NEW)


@pytest.mark.parametrize(
    ("name", "value"),
    [("DAILY_BOARD_RETENTION_DAYS", "abc"), ("DAILY_BOARD_RETENTION_DAYS", "0"),
     ("DAILY_ARCHIVE_DAYS", "1.5"), ("DAILY_ARCHIVE_DAYS", "-3")],
)  # fmt: skip
def test_a_bad_number_of_days_is_refused_at_start(name: str, value: str) -> None:
    from daily.core import config

    with pytest.raises(ConfigError, match=name):
        config.load({name: value})
