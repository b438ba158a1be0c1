"""``daily remind``: sends the streak reminders that are due, once a player and day.

Each pass takes the due end of the schedule in batches (:func:`daily.store.subscriptions.claim_due`,
under a lease), claims the puzzle day on each player's reminder
(:func:`daily.store.subscriptions.take`: nothing for a player who finished today's daily, a
deleted player or a subscription gone), schedules each at its next due time, and hands the
messages to the :class:`~daily.service.pushing.Pusher`'s threads; while they post, the next
batch is read. A subscription the push service calls gone (404, 410) is removed at once.
Several senders may run at once on several hosts: the claim of the day is atomic, so none
sends a reminder twice.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING

from daily.core import dice, metrics, push
from daily.core.config import Config
from daily.service import reminders
from daily.service.pushing import Delivery, Pusher, is_retried
from daily.store import subscriptions
from daily.store.boards import day_number
from daily.store.subscriptions import Taken

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

log = logging.getLogger(__name__)

#: Players claimed at once (one script for the batch, one a player in one pipeline).
BATCH = 500
#: How long a claimed player is left to its sender before another may take it.
LEASE_S = 300.0
#: Where a tap on a reminder leads: today's puzzle.
URL = "/"


@dataclass
class Pass:
    """What one pass of ``daily remind`` did: reminders handed to the sender, and why others
    were not sent; *sent*, *failed* and *removed* once the sender is done."""

    handed: int = 0
    played: int = 0
    done: int = 0
    gone: int = 0
    sent: int = 0
    failed: int = 0
    removed: int = 0
    lag_s: float = 0.0  # the most any reminder waited past its due time when handed over
    pending: list[tuple[str, str, float, Future[Delivery]]] = field(default_factory=list)

    def line(self) -> str:
        """The pass in one line, for the log."""
        return (
            f"reminders: {self.sent} sent, {self.failed} failed, {self.removed} removed "
            f"(gone at the push service), {self.played} already played, {self.done} "
            f"already sent, {self.gone} without a subscription; lag up to "
            f"{self.lag_s:.1f} s"
        )


def pusher_for(config: Config, concurrency: int) -> Pusher:
    """The sender of *config*'s VAPID key (reminders on: :func:`reminders.off_reason`)."""
    return Pusher(config.vapid_private_key or "", config.vapid_subject or "", concurrency)


def hand_over(client: redis.Redis, config: Config, pusher: Pusher, batch: int = BATCH) -> Pass:
    """Claims every reminder due now and hands each to *pusher*; returns at once, the messages
    still posting (:func:`finish` waits for them)."""
    now = config.now()
    day = dice.today(now, config.timezone)
    left = day.closes_at - now
    done = Pass()
    while claimed := subscriptions.claim_due(client, now.timestamp(), LEASE_S, batch):
        ids = [player_id for player_id, _ in claimed]
        taken = subscriptions.take(client, ids, day.date, day_number(day.date) - 1)
        _reschedule(client, now, taken)
        for (_, due), found in zip(claimed, taken, strict=True):
            _hand(config, pusher, done, found, now.timestamp() - due, int(left.total_seconds()))
    return done


def _reschedule(client: redis.Redis, now: datetime, taken: Sequence[Taken]) -> None:
    upcoming: dict[tuple[str, str], float] = {}  # by (time, zone): a few thousand at most
    due = {}
    for found in taken:
        if found.kept is not None:
            when = (found.kept.at, found.kept.zone)
            if when not in upcoming:
                zone = push.parse_zone(found.kept.zone)
                upcoming[when] = push.next_due(now, time.fromisoformat(when[0]), zone).timestamp()
            due[found.player_id] = upcoming[when]
    subscriptions.reschedule(client, due)
    gone = [found.player_id for found in taken if found.outcome == "gone"]
    subscriptions.forget(client, gone)
    for _ in gone:
        metrics.subscription_removed("expired")


def _hand(
    config: Config, pusher: Pusher, done: Pass, found: Taken, lag_s: float, ttl_s: int
) -> None:
    if found.outcome != "send" or found.kept is None:
        setattr(done, found.outcome, getattr(done, found.outcome) + 1)
        if found.outcome in ("played", "done"):
            metrics.reminder_skipped(found.outcome)
        return
    kept = found.kept
    # The time left in whole minutes: the words of a pass are a few, each made once.
    title, text, off = reminders.words(kept.lang, found.run, timedelta(minutes=ttl_s // 60))
    token = reminders.off_token(config, found.player_id, kept.endpoint)
    body = {
        "title": title,
        "body": text,
        "url": URL,
        "off": token,
        "offLabel": off,
        "tag": "daily-reminder",
    }
    subscription = push.Subscription(kept.endpoint, kept.p256dh, kept.auth)
    future = pusher.submit(subscription, json.dumps(body).encode(), max(60, ttl_s))
    done.pending.append((found.player_id, kept.endpoint, lag_s, future))
    done.handed += 1
    done.lag_s = max(done.lag_s, lag_s)


def finish(client: redis.Redis, done: Pass) -> Pass:
    """Waits for the messages of *done*, counts them, and removes the subscriptions gone."""
    for player_id, endpoint, lag_s, future in done.pending:
        delivery = future.result()
        if delivery.is_sent:
            done.sent += 1
            metrics.reminder_sent(lag_s)
        elif delivery.is_gone:
            done.removed += subscriptions.drop(client, player_id, endpoint)
            metrics.subscription_removed("gone")
        else:
            done.failed += 1
            metrics.reminder_failed(delivery.status)
            log.warning(
                "reminder to %s failed after %d tries: %s%s",
                player_id,
                delivery.tries,
                delivery.status or "no answer",
                " (retried)" if is_retried(delivery.status) else "",
            )
    done.pending.clear()
    return done


def run_once(client: redis.Redis, config: Config, pusher: Pusher, batch: int = BATCH) -> Pass:
    """One pass: every reminder due now, sent; what it did."""
    return finish(client, hand_over(client, config, pusher, batch))
