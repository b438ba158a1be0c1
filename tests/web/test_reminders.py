"""The streak reminder's routes: turning it on with a browser's subscription (checked against
the allowed push services, its size bounded), off from the settings and from a notification's
token, what the pages offer, and what is kept (under its player, expiring unless renewed)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from daily.service import reminders
from daily.store import keys
from daily.web.context import current_redis
from tests.push_service import Browser, PushService, push_service

from .helpers import play_daily

pytestmark = pytest.mark.redis

PRIVATE, PUBLIC = reminders.new_keys()
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
URL = "/api/v1/players/me/reminder"
FCM = "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b" + "x" * 140


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as found:
        yield found


def _app(make_app: Any, at: datetime = NOON, **more: Any) -> Any:
    settings = {"vapid_private_key": PRIVATE, "vapid_subject": "mailto:ops@example.org"}
    return make_app(now=at, **(settings | more))


def _local(make_app: Any, service: PushService, **more: Any) -> tuple[Any, Any, str]:
    """An app that allows the test's push service, a client and its new player's id."""
    app = _app(make_app, push_services=(service.origin,), **more)
    client = app.test_client()
    return app, client, _player(client)


def _body(browser: Browser, endpoint: str | None = None, **more: Any) -> dict[str, Any]:
    subscription = browser.to_json() | ({"endpoint": endpoint} if endpoint else {})
    return {"subscription": subscription, "at": "19:00", "zone": "Europe/Copenhagen"} | more


def _player(client: Any) -> str:
    """Makes the client's player (its token on every later call); its id."""
    answer = client.post("/api/v1/players", json={"name": "Ana"}).get_json()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {answer['token']}"
    return str(answer["player_id"])


def _played(make_app: Any, client: Any, *days_back: int) -> None:
    """Plays the daily of each day *days_back* days before NOON as the client's player."""
    for back in days_back:
        earlier = make_app(now=NOON - timedelta(days=back)).test_client()
        earlier.environ_base["HTTP_AUTHORIZATION"] = client.environ_base["HTTP_AUTHORIZATION"]
        play_daily(earlier)


def test_the_offer_comes_after_the_second_finished_daily(make_app: Any) -> None:
    client = _app(make_app).test_client()
    assert client.get(URL).get_json() == {"available": True, "on": False, "at": "19:00",
                                          "zone": None, "offer": False, "key": PUBLIC}  # fmt: skip
    _player(client)
    _played(make_app, client, 2)
    assert client.get(URL).get_json()["offer"] is False  # one daily: not yet
    _played(make_app, client, 1)
    assert client.get(URL).get_json()["offer"] is True


def test_turned_on_kept_under_its_player_with_a_lifetime_renewed_by_use(
    make_app: Any, service: PushService
) -> None:
    app, client, player_id = _local(make_app, service)
    browser = service.subscription("a")
    answer = client.put(URL, json=_body(browser), headers={"Accept-Language": "fr"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() | {"key": None} == {"available": True, "on": True, "at": "19:00",
        "zone": "Europe/Copenhagen", "offer": False, "key": None}  # fmt: skip
    with app.app_context():
        redis_client = current_redis()
        kept = redis_client.hgetall(keys.player_reminder(player_id))
        assert kept["endpoint"] == browser.endpoint and kept["lang"] == "fr"
        lifetime = 30 * 24 * 3600
        assert lifetime - 5 <= redis_client.ttl(keys.player_reminder(player_id)) <= lifetime
        # Due at 19:00 in Copenhagen: 18:00 UTC today.
        due = redis_client.zscore(keys.reminders_due(), player_id)
        assert due == (NOON + timedelta(hours=6)).timestamp()
        redis_client.expire(keys.player_reminder(player_id), 60)
        assert client.put(URL, json=_body(browser, at="07:30")).status_code == 200
        assert redis_client.ttl(keys.player_reminder(player_id)) > lifetime - 5  # renewed
        assert redis_client.zscore(keys.reminders_due(), player_id) == (
            NOON + timedelta(hours=18, minutes=30)).timestamp()  # 07:30 tomorrow  # fmt: skip
    off = client.delete(URL)
    assert off.status_code == 200 and off.get_json()["on"] is False
    with app.app_context():
        assert not current_redis().exists(keys.player_reminder(player_id))
        assert current_redis().zcard(keys.reminders_due()) == 0


@pytest.mark.parametrize(
    ("endpoint", "problem"),
    [
        ("http://127.0.0.1:6379/", "not on a push service"),
        ("https://fcm.googleapis.com.attacker.example/x", "not on a push service"),
        ("https://fcm.googleapis.com@169.254.169.254/latest", "not on a push service"),
        ("http://fcm.googleapis.com/fcm/send/x", "not on a push service"),
        ("https://fcm.googleapis.com:8443/fcm/send/x", "not on a push service"),
        ("file:///etc/passwd", "not on a push service"),
        ("https://fcm.googleapis.com/" + "x" * 1100, "at most 1024"),
        ("https://fcm.googleapis.com/fcm/send/x\nHost: 127.0.0.1", "not on a push service"),
    ],
    ids=[
        "loopback",
        "lookalike-host",
        "userinfo",
        "plain-http",
        "other-port",
        "file",
        "long",
        "line-break",
    ],
)
def test_an_endpoint_off_the_allowed_push_services_is_refused(
    make_app: Any, service: PushService, endpoint: str, problem: str
) -> None:
    app = _app(make_app)  # the browsers' push services only: not the test's local one
    client = app.test_client()
    player_id = _player(client)
    answer = client.put(URL, json=_body(service.subscription("x"), endpoint))
    assert answer.status_code == 400 and problem in answer.get_json()["error"]["message"]
    with app.app_context():
        assert not current_redis().exists(keys.player_reminder(player_id))


def test_the_browsers_push_services_are_allowed_by_default(
    make_app: Any, service: PushService
) -> None:
    client = _app(make_app).test_client()
    _player(client)
    for endpoint in (FCM, "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl",
                     "https://web.push.apple.com/QGS1b0cg",
                     "https://wns2-db5p.notify.windows.com/w/?token=BQY"):  # fmt: skip
        assert client.put(URL, json=_body(service.subscription("b"), endpoint)).status_code == 200


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"keys": {"p256dh": "AAAA", "auth": "c2VjcmV0c2VjcmV0c2VjcmV0"}}, "p256dh must be 65"),
        ({"keys": {"p256dh": "B" + "A" * 86, "auth": "AAAAAAAAAAAAAAAAAAAAAA"}}, "not a P-256"),
        ({"keys": {"p256dh": "", "auth": ""}}, "p256dh"),
        ({"keys": {"p256dh": "B" + "A" * 85 + "\n", "auth": "A" * 22}}, "p256dh must be 65"),
    ],
    ids=["short-key", "off-curve", "empty", "line-break"],
)
def test_keys_that_encrypt_nothing_are_refused(
    make_app: Any, service: PushService, change: dict[str, Any], problem: str
) -> None:
    _, client, _ = _local(make_app, service)
    body = _body(service.subscription("k"))
    body["subscription"] |= change
    answer = client.put(URL, json=body)
    assert answer.status_code == 400 and problem in answer.get_json()["error"]["message"]


@pytest.mark.parametrize(
    ("change", "problem"), [({"at": "24:00"}, "HH:MM"), ({"zone": "Mars/Olympus"}, "time zone")]
)
def test_a_time_or_zone_that_is_none_is_refused(
    make_app: Any, service: PushService, change: dict[str, str], problem: str
) -> None:
    _, client, _ = _local(make_app, service)
    answer = client.put(URL, json=_body(service.subscription("t"), **change))
    assert answer.status_code == 400 and problem in answer.get_json()["error"]["message"]


def test_without_a_key_the_server_offers_nothing_and_says_so_at_start(
    make_app: Any, service: PushService, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        app = make_app(now=NOON, push_services=(service.origin,))
    assert "streak reminders are off: DAILY_VAPID_PRIVATE_KEY is not set" in caplog.text
    client = app.test_client()
    _player(client)
    assert client.get(URL).get_json()["available"] is False
    assert client.put(URL, json=_body(service.subscription("n"))).status_code == 404
    assert client.get("/me").status_code == 200 and 'id="reminder"' not in client.get(
        "/me").get_data(as_text=True)  # fmt: skip


def test_a_notifications_token_turns_off_its_reminder_and_nothing_else(
    make_app: Any, service: PushService
) -> None:
    app, client, player_id = _local(make_app, service)
    old, new = service.subscription("old"), service.subscription("new")
    config = app.extensions["daily.config"]
    stale = reminders.off_token(config, player_id, old.endpoint)
    client.put(URL, json=_body(new))
    anyone = app.test_client()  # the service worker's call: no cookie, no token
    assert anyone.post("/api/v1/reminders/off", json={"token": stale}).status_code == 200
    assert client.get(URL).get_json()["on"] is True  # an older subscription's: nothing
    forged = anyone.post("/api/v1/reminders/off", json={"token": stale[:-2] + "xx"})
    assert forged.status_code == 400
    token = reminders.off_token(config, player_id, new.endpoint)
    assert anyone.post("/api/v1/reminders/off", json={"token": token}).status_code == 200
    assert client.get(URL).get_json()["on"] is False


def test_deleting_the_player_removes_the_reminder(make_app: Any, service: PushService) -> None:
    app, client, player_id = _local(make_app, service)
    client.put(URL, json=_body(service.subscription("d")))
    assert client.post("/me/delete", data={"confirm": "yes"}).status_code == 200
    with app.app_context():
        assert not current_redis().exists(keys.player_reminder(player_id))
        assert current_redis().zscore(keys.reminders_due(), player_id) is None


def test_reminder_changes_are_rate_limited(make_app: Any, service: PushService) -> None:
    limits = dict.fromkeys(("reminders",), "2 per hour")
    _, client, _ = _local(make_app, service, rate_limits=limits)
    statuses = [client.put(URL, json=_body(service.subscription("r"))).status_code
                for _ in range(3)]  # fmt: skip
    assert statuses == [200, 200, 429]
