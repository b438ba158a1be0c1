"""``daily remind`` at scale: 100,000 reminders due in one minute, found and handed to the
sender, then real sends against a push service on loopback.

Run as ``.venv/bin/python bench/bench_remind.py [--subscriptions N] [--played SHARE]
[--sends N] [--concurrency N]``. It starts its own redis-server (no saving), stores N
subscriptions under N players in the service's shape (a share of them played today's daily,
the others have a streak), all due at 19:00, and at 19:00:30 runs one pass:

1. found and handed: :func:`daily.service.remind.hand_over` with a sender that takes each
   message and does nothing with it. Reported: the CPU time of the pass (it runs on this
   thread: ``time.thread_time``), the redis-server's CPU (``INFO cpu``) and the wall time;
   the aim is under 10 s of the two together;
2. sent: a fresh schedule of ``--sends`` subscriptions through the real sender
   (:class:`daily.service.pushing.Pusher`: encryption, VAPID, HTTP) to the push service of
   ``tests/push_service.py``, each message decrypted there by its browser's key for a check.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from servers import redis_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daily.core.config import load  # noqa: E402 (after the path: tests.push_service below)
from daily.core.push import Subscription  # noqa: E402
from daily.service import remind, reminders  # noqa: E402
from daily.service.pushing import Delivery, Pusher  # noqa: E402
from daily.store import keys  # noqa: E402
from daily.store.boards import day_number  # noqa: E402
from daily.store.played_days import PlayedDay, field_of, offset_of  # noqa: E402
from tests.push_service import PushService, decrypt, push_service  # noqa: E402

DAY = datetime(2026, 12, 3, tzinfo=UTC)
DUE = DAY + timedelta(hours=18)  # 19:00 in Copenhagen
KEY_PAIRS = 200  # browsers' key pairs, shared round-robin (each player has an endpoint of its own)


class Taker:
    """A sender that takes every message and sends nothing: what handing over costs alone."""

    def __init__(self) -> None:
        self.taken = 0

    def submit(self, subscription: Subscription, payload: bytes, ttl_s: int) -> Future[Delivery]:
        """Takes the message; its delivery is done at once."""
        self.taken += 1
        future: Future[Delivery] = Future()
        future.set_result(Delivery(201, 1))
        return future


def fill(client: redis.Redis, service: PushService, count: int, played: float, prefix: str
         ) -> dict[str, Any]:  # fmt: skip
    """Stores *count* players with a reminder due at :data:`DUE`; a *played* share of them
    finished today's daily. Returns each player's browser."""
    browsers = [service.subscription(f"k{n}") for n in range(KEY_PAIRS)]
    cell = PlayedDay(DAY.date(), 250, False).cell().to_bytes(3, "big")
    notes = bytes(offset_of(DAY.date())) + cell
    found, pipe = {}, client.pipeline(transaction=False)
    for n in range(count):
        player_id = f"{prefix}{n:012x}"
        browser = browsers[n % KEY_PAIRS]
        found[player_id] = browser
        own = browser.to_json()
        pipe.hset(keys.player(player_id), mapping={"name": f"P{n}", "created": 0})
        pipe.hset(keys.player_reminder(player_id), mapping={
            "endpoint": f"{service.origin}/push/{player_id}", "p256dh": own["keys"]["p256dh"],
            "auth": own["keys"]["auth"], "at": "19:00", "zone": "Europe/Copenhagen",
            "lang": "de" if n % 3 else "en"})  # fmt: skip
        pipe.expire(keys.player_reminder(player_id), 30 * 86400)
        last = day_number(DAY.date()) - 1
        pipe.hset(keys.player_streak(player_id), mapping={"last": last, "run": n % 40 + 1})
        if n < count * played:
            pipe.hset(keys.player_dailies(player_id), field_of(DAY.date()), notes)
        pipe.zadd(keys.reminders_due(), {player_id: DUE.timestamp() - (n % 60)})
        if len(pipe) >= 5000:
            pipe.execute()
    pipe.execute()
    return found


def redis_cpu(client: redis.Redis) -> float:
    """The redis-server's CPU seconds so far."""
    info = client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def hand_all(client: redis.Redis, config: Any, count: int) -> None:
    """Phase 1: the pass with the sender that sends nothing."""
    taker = Taker()
    cpu, wall, server = time.thread_time(), time.perf_counter(), redis_cpu(client)
    done = remind.hand_over(client, config, taker)  # type: ignore[arg-type]
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    server = redis_cpu(client) - server
    each = 1e6 * (cpu + server) / count
    print(f"found and handed {done.handed:,} of {count:,} due ({done.played:,} played "
          f"today): {cpu:.2f} s CPU + {server:.2f} s Redis CPU = {cpu + server:.2f} s "
          f"(aim 10), {wall:.2f} s wall; {each:.0f} µs a reminder")  # fmt: skip


def send_all(client: redis.Redis, config: Any, service: PushService, count: int,
             concurrency: int) -> None:  # fmt: skip
    """Phase 2: *count* reminders through the real sender to the local push service."""
    browsers = fill(client, service, count, 0.0, "s")
    pusher = Pusher(config.vapid_private_key, config.vapid_subject, concurrency)
    wall = time.perf_counter()
    done = remind.run_once(client, config, pusher)
    wall = time.perf_counter() - wall
    pusher.close()
    sample = service.received[-1]
    player_id = sample.path.rsplit("/", 1)[1]
    opened = decrypt(browsers[player_id], sample)
    print(f"sent {done.sent:,} of {count:,} ({done.failed} failed) in {wall:.1f} s wall: "
          f"{done.sent / wall:,.0f} a second with {concurrency} threads; one opened by its "
          f"browser: {opened['body']!r}")  # fmt: skip


def main() -> None:
    """Runs both phases and prints their figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscriptions", type=int, default=100_000)
    parser.add_argument("--played", type=float, default=0.1, help="share who played today")
    parser.add_argument("--sends", type=int, default=2_000)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    private, _ = reminders.new_keys()
    with redis_server() as url, push_service() as service:
        client = redis.Redis.from_url(url, decode_responses=True)
        moment = DUE + timedelta(seconds=30)
        config = load(env="testing", redis_url=url, vapid_private_key=private,
                      vapid_subject="mailto:ops@example.org", push_services=(service.origin,),
                      clock=lambda: moment)  # fmt: skip
        started = time.perf_counter()
        fill(client, service, args.subscriptions, args.played, "p")
        print(f"stored {args.subscriptions:,} subscriptions in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
        hand_all(client, config, args.subscriptions)
        if args.sends:
            moment += timedelta(days=1)  # tomorrow's pass for the second set alone
            client.delete(keys.reminders_due())
            send_all(client, config, service, args.sends, args.concurrency)
        client.close()


if __name__ == "__main__":
    main()
