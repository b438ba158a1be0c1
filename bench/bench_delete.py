"""What deleting a player costs at 500,000 keys: its time, and what it scans (nothing).

Run as ``.venv/bin/python bench/bench_delete.py [--keys N] [--deletes N]``. It starts its
own redis-server on a free loopback port (no saving), fills it with N keys in the service's
shape (players with their games list, streak, days bitmap, their dailies' notes, two
daily index keys, a practice and a friend one each), then deletes players one at a time with
:func:`daily.store.players.delete` and prints the median and slowest delete, the Redis CPU
they used (``INFO commandstats``) and whether any ``SCAN`` ran. The player ids are listed
with their index keys the way a game start lists them (:mod:`daily.store.saved_games`).
"""

from __future__ import annotations

import argparse
import statistics
import time

import redis
from servers import redis_server

from daily.store import keys, players

#: Keys per filler player: record, games list, days bitmap, streak, dailies noted, key set,
#: 4 index keys.
KEYS_PER_PLAYER = 10


def fill(client: redis.Redis, total: int) -> list[str]:
    """Makes players until *total* keys exist; returns their ids."""
    ids = []
    pipe = client.pipeline(transaction=False)
    for n in range(total // KEYS_PER_PLAYER):
        player_id = f"{n:016x}"
        ids.append(player_id)
        pipe.hset(keys.player(player_id), mapping={"name": f"P{n}", "created": 0})
        pipe.zadd(keys.player_games(player_id), {f"g{n}a": 1, f"g{n}b": 2, f"g{n}c": 3})
        pipe.setbit(keys.player_days(player_id), 336, 1)
        pipe.hset(keys.player_streak(player_id), mapping={"last": 336, "run": 1, "best": 1})
        pipe.hset(keys.player_dailies(player_id), "2026-12a", bytes(6) + b"\xd1\xf4\x71")
        index = [
            keys.player_daily(player_id, "2026-12-01"),
            keys.player_daily(player_id, "2026-12-02"),
            keys.player_practice(player_id, "2026-11-30"),
            keys.player_friend(player_id, f"C{n:07X}"),
        ]
        pipe.sadd(keys.player_keys(player_id), *index)
        for key in index:
            pipe.set(key, f"g{n}")
        if len(pipe) >= 5000:
            pipe.execute()
    pipe.execute()
    return ids


def stat(client: redis.Redis, command: str) -> tuple[int, float]:
    """Calls of *command* and the microseconds of Redis CPU they used, so far."""
    found = client.info("commandstats").get(f"cmdstat_{command}", {})
    return int(found.get("calls", 0)), float(found.get("usec", 0.0))


def main() -> None:
    """Fills the server, deletes players, prints the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keys", type=int, default=500_000)
    parser.add_argument("--deletes", type=int, default=200)
    args = parser.parse_args()
    with redis_server() as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        ids = fill(client, args.keys)
        print(f"{client.dbsize()} keys in {len(ids)} players")
        client.config_resetstat()
        times = []
        for player_id in ids[:: max(1, len(ids) // args.deletes)][: args.deletes]:
            started = time.perf_counter()
            players.delete(client, player_id, time.time(), [keys.board_best_day()])
            times.append((time.perf_counter() - started) * 1000)
        commands = ("del", "smembers", "hset", "zrem", "multi", "exec")
        cpu = sum(stat(client, name)[1] for name in commands)
        scans = stat(client, "scan")[0]
        times.sort()
        print(f"{len(times)} deletes: median {statistics.median(times):.2f} ms, "
              f"99th percentile {times[int(len(times) * 0.99) - 1]:.2f} ms, slowest "
              f"{times[-1]:.2f} ms (round trips included); Redis CPU "
              f"{cpu / len(times):.0f} µs a delete; SCAN calls: {scans}")  # fmt: skip
        client.close()


if __name__ == "__main__":
    main()
