"""A player's history and figures pages with 1,100 stored games, against an empty account's.

Run as ``.venv/bin/python bench/bench_history.py [--dailies 60] [--games 1100] [--rounds 5]
[--requests 20] [--root DIR]``. It starts its own redis-server on a free loopback port and,
through the service (the Flask test client, rate limits off, no strategy table built or
read), makes two named players: one with no game, and one who finished the daily on each of
the last ``--dailies`` days (those past ``DAILY_ARCHIVE_DAYS`` archived, as the archiver
leaves them) and started solo games until they stored ``--games`` games in all, and a third
with the same dailies and nothing else. Then, a round at a time, it times ``--requests``
requests of ``/me/history`` and of ``/me`` for each in turn (so a busy spell slows all
alike) and prints each page's median time per account, the full account's over the empty
one's (aim: 1.5 at most) and over the one with its dailies alone (what the stored games
themselves cost: 1.0 if the pages read none of them).

``--root DIR`` measures another checkout of the project (its ``daily`` package) with this
bench, e.g. the last commit unpacked by ``git archive HEAD | tar -x -C DIR``.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from servers import redis_server

ROOT = Path(__file__).resolve().parents[1]
TODAY = datetime(2026, 12, 3, 12, tzinfo=UTC)
PAGES = ("/me/history", "/me")


class Clock:
    """The service's clock, moved by the bench."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def new_player(client: Any, name: str) -> dict[str, str]:
    """A named player's bearer header."""
    made = client.post("/api/v1/players", json={"name": name}).get_json()
    return {"Authorization": f"Bearer {made['token']}"}


def finish_daily(client: Any, who: dict[str, str]) -> None:
    """Plays today's daily, scoring the first open row each turn."""
    state = client.post("/api/v1/games", json={"mode": "daily"}, headers=who).get_json()
    while not state["finished"]:
        row = next(iter(state["potential"]))
        path = f"/api/v1/games/{state['id']}/score"
        state = client.post(path, json={"category": row}, headers=who).get_json()


def settle(url: str) -> None:
    """Gives every game waiting for its luck check an honest verdict, as the check does once
    the maxi table is built (the bench builds none): a game waiting is never archived."""
    from daily.store import keys, review_queue

    client = redis.Redis.from_url(url, decode_responses=True)
    for game_id in client.zrange(keys.reviews_unchecked(), 0, -1):
        review_queue.save_verdict(client, str(game_id), 0.5, False, TODAY.timestamp())
        review_queue.unlist_unchecked(client, str(game_id))


def fill(app: Any, clock: Clock, url: str, dailies: int, games: int) -> dict[str, str]:
    """An account with a daily on each of the last *dailies* days, the old ones archived,
    and solo games up to *games* in all; its bearer header."""
    from daily.service import archive

    client = app.test_client()
    who = new_player(client, f"Games {games}")
    for back in range(dailies - 1, -1, -1):
        clock.at = TODAY - timedelta(days=back)
        finish_daily(client, who)
    clock.at = TODAY
    settle(url)
    with app.app_context():
        done = archive.archive_old(app.extensions["daily.redis"], app.extensions["daily.config"])
    for _ in range(games - dailies):
        client.post("/api/v1/games", json={"mode": "solo"}, headers=who)
    print(f"an account of {dailies} dailies ({done.games if done else 0} archived), "
          f"{games - dailies} solo games")  # fmt: skip
    return who


def timed(client: Any, path: str, who: dict[str, str], requests: int) -> float:
    """The median time of *requests* requests of *path* by *who*, in ms."""
    found = []
    for _ in range(requests):
        start = time.perf_counter()
        answer = client.get(path, headers=who)
        found.append((time.perf_counter() - start) * 1000)
        assert answer.status_code == 200, (path, answer.status_code)
    return statistics.median(found)


def report(page: str, times: dict[tuple[str, str], list[float]]) -> None:
    """Prints *page*'s median time per account and the full account's ratios, by round."""
    medians = {name: statistics.median(ms) for (shown, name), ms in times.items() if shown == page}
    full = [f / e for f, e in zip(times[page, "full"], times[page, "empty"], strict=True)]
    same = [f / d for f, d in zip(times[page, "full"], times[page, "dailies"], strict=True)]
    print(f"{page:12} " + ", ".join(f"{name} {ms:6.2f} ms" for name, ms in medians.items())
          + f": full / empty {statistics.median(full):.2f} ({min(full):.2f} to {max(full):.2f}),"
          f" full / dailies alone {statistics.median(same):.2f} ({min(same):.2f} to "
          f"{max(same):.2f})")  # fmt: skip


def main() -> None:
    """Makes the two accounts, then times their pages in alternation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dailies", type=int, default=60)
    parser.add_argument("--games", type=int, default=1100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    os.environ["DAILY_TABLES"] = ""  # no strategy table is built, nor read
    os.environ["DAILY_CACHE"] = tempfile.mkdtemp(prefix="bench-cache-")
    import daily
    from daily import create_app

    assert Path(daily.__file__).is_relative_to(args.root), daily.__file__
    with open("/proc/loadavg") as f:
        print(f"{args.root}: load average {f.read().split()[0]}")
    with redis_server() as url, tempfile.TemporaryDirectory() as folder:
        clock = Clock(TODAY)
        names = ("players", "moves", "pages", "dailies", "deletes")
        app = create_app({"env": "testing", "secret_key": "bench-" + "x" * 32,
                          "redis_url": url, "rate_limits": dict.fromkeys(names, "off"),
                          "clock": clock, "archive_url": folder})  # fmt: skip
        logging.getLogger("daily.access").disabled = True
        client = app.test_client()
        accounts = {"empty": new_player(client, "Empty"),
                    "dailies": fill(app, clock, url, args.dailies, args.dailies),
                    "full": fill(app, clock, url, args.dailies, args.games)}  # fmt: skip
        times: dict[tuple[str, str], list[float]] = {}
        for n in range(args.rounds + 1):  # the first round warms up and is not counted
            for page in PAGES:
                for name, who in accounts.items():
                    ms = timed(client, page, who, args.requests)
                    if n:
                        times.setdefault((page, name), []).append(ms)
        for page in PAGES:
            report(page, times)
        app.extensions["daily.redis"].close()


if __name__ == "__main__":
    main()
