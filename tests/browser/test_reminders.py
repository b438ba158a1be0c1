"""Streak reminders in chromium: the result of a daily offers them after the player's second
finished daily and not before (390x844, screenshots under artifacts/), the tap turns them on
with the browser's time zone, ``daily remind`` encrypts one to the subscription, and the
service worker, handed that push through the DevTools protocol
(``ServiceWorker.deliverPushMessage``), shows it: its text and the link to today's puzzle.

The push service itself is the test's (tests/push_service.py): the sandbox reaches no
browser's own, so the page's ``pushManager.subscribe`` is given a subscription to it, with a
key pair made here; everything else is the browser's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from daily.core.config import load
from daily.service import backend, remind, reminders
from daily.service.pushing import Pusher
from tests.browser.helpers import PHONE
from tests.browser.test_name import _almost, _finish
from tests.push_service import PushService, decrypt, push_service
from tests.web.helpers import SECRET

PRIVATE, PUBLIC = reminders.new_keys()
SUBJECT = "mailto:ops@example.org"
DAY_1 = datetime(2026, 12, 1, 9, tzinfo=UTC)
#: The stand-in for the browser's push service: the page's subscribe() and getSubscription()
#: answer a subscription to the test's push service (ARGUMENT: its JSON).
_SUBSCRIBE = """
(made) => {
  let current = null;
  const fake = { endpoint: made.endpoint, toJSON: () => made,
                 unsubscribe: async () => { current = null; return true; } };
  PushManager.prototype.subscribe = async function (options) {
    window.askedKey = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)));
    current = fake;
    return fake;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
}
"""
_NOTIFICATIONS = """
async () => {
  const registration = await navigator.serviceWorker.ready;
  const shown = await registration.getNotifications();
  return shown.map((n) => ({ title: n.title, body: n.body, data: n.data,
                             actions: n.actions.map((a) => a.title) }));
}
"""


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as found:
        yield found


def _wait_for(found: Callable[[], Any], seconds: float = 10) -> Any:
    end = time.monotonic() + seconds
    while not (value := found()) and time.monotonic() < end:
        time.sleep(0.1)
    return value


def test_opt_in_after_the_second_daily_then_a_reminder_shown_by_the_service_worker(
    serve: Callable[..., str], new_context: Callable[..., Any], shoot: Callable[..., None],
    service: PushService, redis_url: str,
) -> None:  # fmt: skip
    moment = [DAY_1]
    settings: dict[str, Any] = {"vapid_private_key": PRIVATE, "vapid_subject": SUBJECT,
                                "push_services": (service.origin,)}  # fmt: skip
    base = serve(clock=lambda: moment[0], **settings)
    context = new_context(viewport=PHONE, timezone_id="Europe/Copenhagen")
    context.grant_permissions(["notifications"], origin=base)
    browser = service.subscription("phone")
    page = context.new_page()
    page.add_init_script(f"({_SUBSCRIBE})({json.dumps(browser.to_json())})")

    # The first daily's result offers nothing.
    _finish(page, base, _almost(context, base))
    page.wait_for_timeout(1500)  # the offer would come with the verdict
    assert page.locator("#reminder").is_hidden()
    shoot(page, "reminder-first-daily-390", full_page=False)

    # The second's offers it; the permission prompt comes with the tap (granted here).
    moment[0] = DAY_1 + timedelta(days=1)
    _finish(page, base, _almost(context, base))
    offer = page.locator("#reminder")
    offer.wait_for()
    offer.scroll_into_view_if_needed()
    shoot(page, "reminder-offer-390", full_page=False)
    assert page.locator("#reminder-at").input_value() == "19:00"
    page.get_by_role("button", name="Remind me before the day ends").click()
    page.get_by_text("Reminders on: at 19:00").wait_for()
    assert page.evaluate("window.askedKey").rstrip("=") == _standard(PUBLIC)
    shoot(page, "reminder-on-390", full_page=False)
    kept = context.request.get(f"{base}/api/v1/players/me/reminder").json()
    assert kept["on"] and kept["zone"] == "Europe/Copenhagen" and kept["at"] == "19:00"

    # The next day at 19:00 in Copenhagen, not played: one encrypted reminder.
    due = DAY_1 + timedelta(days=2, hours=9)  # 18:00 UTC
    config = load(env="testing", secret_key=SECRET, redis_url=redis_url,
                  clock=lambda: due, **settings)  # fmt: skip
    client = backend.connect(config)
    try:
        done = remind.run_once(client, config, Pusher(PRIVATE, SUBJECT, 2))
    finally:
        client.close()
    assert done.sent == 1
    [message] = service.to(browser)
    payload = decrypt(browser, message)
    assert payload["body"] == "Day 3 of your streak: today's puzzle closes in 6 hours."

    # Delivered to the service worker as the browser's push service would.
    moment[0] = due
    page.goto(f"{base}/me")
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: registrations.extend(event["registrations"]))  # fmt: skip
    cdp.send("ServiceWorker.enable")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    found = _wait_for(lambda: [r for r in registrations if not r.get("isDeleted")])
    assert found, "the service worker is registered"
    cdp.send("ServiceWorker.deliverPushMessage", {
        "origin": base, "registrationId": found[0]["registrationId"],
        "data": json.dumps(payload)})  # fmt: skip
    shown = _wait_for(lambda: page.evaluate(_NOTIFICATIONS))
    assert shown == [{"title": "Daily Maxi Yatzy", "body": payload["body"],
                      "data": {"url": "/", "off": payload["off"]},
                      "actions": ["Turn off reminders"]}]  # fmt: skip
    # Its tap opens the notification's link (sw.js; tests/js/sw.test.mjs clicks it): today's
    # puzzle, not played yet.
    page.goto(base + shown[0]["data"]["url"])
    page.locator("#puzzle-title").wait_for()
    assert page.locator("#play").is_visible()
    assert page.title().startswith("Puzzle #")

    # The settings show it on, and turn it off in one tap.
    page.goto(f"{base}/me")
    page.locator("#reminder").wait_for()
    page.locator("#reminder").scroll_into_view_if_needed()
    shoot(page, "reminder-settings-390", full_page=False)
    page.get_by_role("button", name="Turn off reminders").click()
    page.get_by_text("Reminders off.").wait_for()
    assert context.request.get(f"{base}/api/v1/players/me/reminder").json()["on"] is False


def _standard(key: str) -> str:
    """A base64url key in standard base64, as ``btoa`` writes it."""
    return key.replace("-", "+").replace("_", "/")
