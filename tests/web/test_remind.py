"""``daily remind`` end to end: players subscribe through the API with real key pairs, a push
service on loopback records what it receives, and the test opens each message with the
browser's private key (RFC 8291)."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY
from py_vapid import Vapid02

from daily import cli
from daily.core import metrics
from daily.core.config import load
from daily.service import backend, remind, reminders
from daily.service.pushing import Pusher
from daily.store import keys
from daily.web.context import current_redis
from tests.push_service import Browser, PushService, decrypt, push_service

from .helpers import LIMITS_OFF, SECRET, play_daily

pytestmark = pytest.mark.redis

PRIVATE, PUBLIC = reminders.new_keys()
SUBJECT = "mailto:ops@example.org"
#: The day the reminders are sent on (the puzzle closes at midnight UTC), and its due time:
#: 19:00 in Copenhagen, 18:00 UTC.
DAY = datetime(2026, 12, 3, tzinfo=UTC)
DUE = DAY + timedelta(hours=18)


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as found:
        yield found


def _settings(service: PushService) -> dict[str, Any]:
    # Many players subscribed from one address in a second: the limits off.
    return {"vapid_private_key": PRIVATE, "vapid_subject": SUBJECT,
            "push_services": (service.origin,), "rate_limits": LIMITS_OFF}  # fmt: skip


def _player(make_app: Any, service: PushService, name: str, streak: int = 0) -> dict[str, str]:
    """A player who played the *streak* days before :data:`DAY`; their bearer header."""
    setup = make_app(now=DAY, **_settings(service)).test_client()
    token = setup.post("/api/v1/players", json={"name": name}).get_json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    for back in range(streak, 0, -1):
        morning = DAY - timedelta(days=back) + timedelta(hours=9)
        earlier = make_app(now=morning, rate_limits=LIMITS_OFF).test_client()  # a script's pace
        earlier.environ_base["HTTP_AUTHORIZATION"] = headers["Authorization"]
        play_daily(earlier)
    return headers


def _subscribe(app: Any, headers: dict[str, str], browser: Browser, lang: str = "en") -> None:
    body = {"subscription": browser.to_json(), "at": "19:00", "zone": "Europe/Copenhagen"}
    answer = app.test_client().put("/api/v1/players/me/reminder", json=body,
                                   headers={**headers, "Accept-Language": lang})  # fmt: skip
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["on"] is True


Remind = Callable[[datetime], str]


def _counted(name: str, **labels: str) -> float:
    """The sample *name* of this process's metrics (0 before its first count)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def remind_at(monkeypatch: pytest.MonkeyPatch, redis_url: str, service: PushService,
              capsys: pytest.CaptureFixture[str]) -> Remind:  # fmt: skip
    """Runs ``daily remind`` once at a moment, as an operator would; gives its line."""

    def run(at: datetime) -> str:
        env = {"REDIS_URL": redis_url, "DAILY_NOW": at.isoformat(), "SECRET_KEY": SECRET,
               "DAILY_VAPID_PRIVATE_KEY": PRIVATE, "DAILY_VAPID_SUBJECT": SUBJECT,
               "DAILY_PUSH_SERVICES": service.origin, "DAILY_ENV": "testing"}  # fmt: skip
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert cli.main(["remind"]) == 0
        return capsys.readouterr().out

    return run


def test_daily_remind_delivers_one_encrypted_reminder_at_the_due_time(
    make_app: Any, service: PushService, remind_at: Remind
) -> None:
    headers = _player(make_app, service, "Ana", streak=11)
    browser = service.subscription("ana")
    _subscribe(make_app(now=DAY + timedelta(hours=9), **_settings(service)), headers, browser)
    sent_before = metrics.REMINDERS_SENT._value.get()
    lags_before = _counted("daily_reminder_lag_seconds_count")

    remind_at(DUE - timedelta(minutes=1))
    assert service.to(browser) == []  # not due yet
    line = remind_at(DUE)
    assert "1 sent" in line

    [message] = service.to(browser)
    found = decrypt(browser, message)
    assert found["body"] == "Day 12 of your streak: today's puzzle closes in 6 hours."
    assert found["title"] == "Daily Maxi Yatzy" and found["url"] == "/"
    assert found["offLabel"] == "Turn off reminders"
    assert message.headers["content-encoding"] == "aes128gcm"
    assert message.headers["ttl"] == str(6 * 3600)  # the day closes in six hours
    # Signed with the configured key (RFC 8292), for this push service.
    assert Vapid02.verify(message.headers["authorization"])
    assert message.headers["authorization"].endswith(f"k={PUBLIC}")
    assert metrics.REMINDERS_SENT._value.get() == sent_before + 1
    assert _counted("daily_reminder_lag_seconds_count") == lags_before + 1

    # Later that day, and by another pass: nothing more. The next day, the next one.
    remind_at(DUE + timedelta(minutes=30))
    assert len(service.to(browser)) == 1
    remind_at(DUE + timedelta(days=1))
    assert len(service.to(browser)) == 2
    assert "closes in 6 hours" in decrypt(browser, service.to(browser)[1])["body"]


def test_the_reminder_speaks_the_players_language(
    make_app: Any, service: PushService, remind_at: Remind
) -> None:
    headers = _player(make_app, service, "Bo", streak=2)
    browser = service.subscription("bo")
    _subscribe(make_app(now=DAY, **_settings(service)), headers, browser, lang="de")
    remind_at(DUE)
    found = decrypt(browser, service.to(browser)[0])
    assert found["body"] == "Tag 3 deiner Serie: Das heutige Rätsel schließt in 6 Stunden."
    assert found["title"] == "Tägliches Maxi Yatzy"


def test_nothing_for_a_player_who_played_today(
    make_app: Any, service: PushService, remind_at: Remind
) -> None:
    headers = _player(make_app, service, "Cy", streak=3)
    browser = service.subscription("cy")
    app = make_app(now=DAY + timedelta(hours=10), **_settings(service))
    _subscribe(app, headers, browser)
    today = app.test_client()
    today.environ_base["HTTP_AUTHORIZATION"] = headers["Authorization"]
    play_daily(today)
    skipped = _counted("daily_reminders_skipped_total", reason="played")
    line = remind_at(DUE)
    assert service.received == []
    assert "0 sent" in line and "1 already played" in line
    assert _counted("daily_reminders_skipped_total", reason="played") == skipped + 1


def test_nothing_twice_with_two_senders_at_once(
    make_app: Any, redis_url: str, service: PushService
) -> None:
    app = make_app(now=DAY, **_settings(service))
    browsers = [service.subscription(f"p{n}") for n in range(30)]
    for n, browser in enumerate(browsers):
        _subscribe(app, _player(make_app, service, f"P{n}"), browser)
    config = app.extensions["daily.config"].model_copy(update={"clock": lambda: DUE})
    done: list[remind.Pass] = []

    def sender() -> None:
        client, pusher = backend.connect(config), remind.pusher_for(config, 4)
        try:
            done.append(remind.run_once(client, config, pusher, batch=3))
        finally:
            pusher.close()
            client.close()

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [len(service.to(b)) for b in browsers] == [1] * len(browsers)
    assert sum(p.sent for p in done) == len(browsers)
    assert all(p.sent for p in done), "both senders took part"


def test_a_sender_that_stopped_after_claiming_leaves_no_second_reminder(
    make_app: Any, service: PushService
) -> None:
    browser = service.subscription("di")
    _subscribe(make_app(now=DAY, **_settings(service)), _player(make_app, service, "Di"), browser)
    app = make_app(now=DUE, **_settings(service))
    config = app.extensions["daily.config"]
    with app.app_context():
        client = current_redis()
        pusher = Pusher(PRIVATE, SUBJECT, 2, sleep=lambda s: None)
        handed = remind.hand_over(client, config, pusher)  # claimed and handed, then "crashed"
        pusher.close()
        assert handed.handed == 1
        later = make_app(now=DUE + timedelta(seconds=remind.LEASE_S + 1), **_settings(service))
        again = remind.run_once(client, later.extensions["daily.config"], pusher_for(later))
    assert again.handed == 0 and again.done == 0  # rescheduled for tomorrow: not even due
    assert len(service.to(browser)) == 1


def pusher_for(app: Any) -> Pusher:
    """A sender that does not wait between its tries."""
    return Pusher(PRIVATE, SUBJECT, 2, sleep=lambda s: None)


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_gone_at_the_push_service_is_removed_at_once(
    make_app: Any, service: PushService, status: int
) -> None:
    headers = _player(make_app, service, "Ed")
    browser = service.subscription("ed")
    _subscribe(make_app(now=DAY, **_settings(service)), headers, browser)
    app = make_app(now=DUE, **_settings(service))
    service.queued["/push/ed"] = [status]
    removed = _counted("daily_reminder_subscriptions_removed_total", reason="gone")
    with app.app_context():
        client = current_redis()
        done = remind.run_once(client, app.extensions["daily.config"], pusher_for(app))
        assert done.removed == 1 and done.sent == 0
        assert client.zscore(keys.reminders_due(), _id(headers)) is None
        assert not client.exists(keys.player_reminder(_id(headers)))
    assert _counted("daily_reminder_subscriptions_removed_total", reason="gone") == removed + 1
    assert app.test_client().get("/api/v1/players/me/reminder", headers=headers).get_json()[
        "on"] is False  # fmt: skip


def test_a_refused_reminder_is_counted_failed_and_the_subscription_kept(
    make_app: Any, service: PushService
) -> None:
    headers = _player(make_app, service, "Eve")
    browser = service.subscription("eve")
    _subscribe(make_app(now=DAY, **_settings(service)), headers, browser)
    app = make_app(now=DUE, **_settings(service))
    service.queued["/push/eve"] = [400]  # a refusal that another try would not change
    failed = _counted("daily_reminders_failed_total", status="4xx")
    with app.app_context():
        client = current_redis()
        done = remind.run_once(client, app.extensions["daily.config"], pusher_for(app))
        assert done.failed == 1 and done.sent == 0 and done.removed == 0
        assert client.exists(keys.player_reminder(_id(headers)))
    assert len(service.to(browser)) == 1  # tried once: a 400 is not retried
    assert _counted("daily_reminders_failed_total", status="4xx") == failed + 1
    assert app.test_client().get("/api/v1/players/me/reminder", headers=headers).get_json()[
        "on"] is True  # fmt: skip


def test_a_busy_push_service_is_tried_again(make_app: Any, service: PushService) -> None:
    browser = service.subscription("fay")
    _subscribe(make_app(now=DAY, **_settings(service)), _player(make_app, service, "Fay"), browser)
    app = make_app(now=DUE, **_settings(service))
    service.queued["/push/fay"] = [503, 429]
    with app.app_context():
        done = remind.run_once(current_redis(), app.extensions["daily.config"], pusher_for(app))
    assert done.sent == 1 and len(service.to(browser)) == 3


def test_nothing_for_a_deleted_player(
    make_app: Any, service: PushService, remind_at: Remind
) -> None:
    app = make_app(now=DAY, **_settings(service))
    headers = _player(make_app, service, "Gus")
    _subscribe(app, headers, service.subscription("gus"))
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = headers["Authorization"]
    assert client.post("/me/delete", data={"confirm": "yes"}).status_code == 200
    with app.app_context():
        assert current_redis().zcard(keys.reminders_due()) == 0
        assert not current_redis().exists(keys.player_reminder(_id(headers)))
    remind_at(DUE)
    assert service.received == []


def _id(headers: dict[str, str]) -> str:
    from daily.web.tokens import player_id_of

    return player_id_of(headers["Authorization"].split()[1])


def test_daily_keys_prints_a_pair_the_service_takes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["keys"]) == 0
    setting, comment = capsys.readouterr().out.splitlines()
    private = setting.removeprefix("DAILY_VAPID_PRIVATE_KEY=")
    assert comment.endswith(reminders.public_key_of(private))
    config = load(vapid_private_key=private, vapid_subject=SUBJECT)
    assert reminders.off_reason(config) is None
    assert reminders.public_key(config) == reminders.public_key_of(private) != PUBLIC


def test_daily_remind_without_a_key_says_so_and_stops(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DAILY_VAPID_PRIVATE_KEY", raising=False)
    assert cli.main(["remind"]) == 2
    assert "streak reminders are off: DAILY_VAPID_PRIVATE_KEY is not set" in capsys.readouterr().err
    monkeypatch.setenv("DAILY_VAPID_PRIVATE_KEY", "not-a-key")
    monkeypatch.setenv("DAILY_VAPID_SUBJECT", SUBJECT)
    assert cli.main(["remind"]) == 2
    assert "is not a key `daily keys` made" in capsys.readouterr().err


def test_the_clock_process_runs_a_pass_every_interval(
    redis_url: str, service: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    procfile = (Path(__file__).parents[2] / "Procfile").read_text().splitlines()
    clock = next(line for line in procfile if line.startswith("clock:")).split()[1:]
    assert clock[:3] == ["daily", "remind", "--every"]
    for name, value in {"REDIS_URL": redis_url, "DAILY_VAPID_PRIVATE_KEY": PRIVATE,
                        "DAILY_VAPID_SUBJECT": SUBJECT}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    out = io.StringIO()
    cli.remind(every=0.05, concurrency=2, metrics_port=None, out=out, passes=2)
    assert out.getvalue().count("reminders: 0 sent") == 2
