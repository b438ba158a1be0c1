"""Benchmark of the rankings at scale: boards of 1,000,000 players on a real redis-server.

Run as ``.venv/bin/python bench/bench_boards.py [--players N] [--ops N]``. It starts its own
redis-server on a free loopback port (no saving, killed at the end or after ``--deadline``
seconds), fills the date's, best-day, streak and advent boards with N players each, then
times, on the Redis side (SLOWLOG with every command logged, so the figure is the server's
execution time, without the network): every step of :func:`daily.store.board_counts.submit`, the
rank of a player, the top 50, the 50 around a player and the day's distribution. Memory per
entry is MEMORY USAGE of a board over its size, and the growth of ``used_memory`` (what the
allocator really gave) while the date's board filled.

Leagues (``--league-size``, default 10,000): one league's day boards of that many members for
each day of the week so far, and players in ``--leagues`` leagues (default 10, that one among
them) finishing a daily: the Redis time of a whole count on their leagues per submit (the
SMEMBERS of their leagues and one EVALSHA per league, in one pipeline), and the reads of the
big league's day board and week table.

Aims: each operation under 1 ms on the Redis side at 1M entries; under 100 bytes per entry.
"""

from __future__ import annotations

import argparse
import random
import secrets
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime

import redis
from servers import free_port

from daily.store import board_counts, boards, keys, league_boards, members
from daily.store.board_counts import Step
from daily.store.boards import Board, Result

DAY = date(2026, 12, 14)
LATENCY_AIM_US = 1000.0
MEMORY_AIM_BYTES = 100.0
BATCH = 2000


@contextmanager
def redis_server(deadline_s: float) -> Iterator[redis.Redis]:
    """A throwaway redis-server on loopback, killed on exit or after *deadline_s* seconds."""
    if not shutil.which("redis-server"):
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", folder],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        timer = threading.Timer(deadline_s, process.kill)  # the run is bounded in time
        timer.start()
        try:
            client = redis.Redis(port=port, decode_responses=True)
            for _ in range(100):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            yield client
        finally:
            timer.cancel()
            process.kill()
            process.wait(10)


def at(day: date, rng: random.Random) -> float:
    """A finish time during *day*."""
    start = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
    return start + rng.uniform(0, 86_400)


def fill(client: redis.Redis, key: str, ids: list[str], score: Callable[[], int]) -> None:
    """Puts every player of *ids* on the board *key* with a packed *score()*, in batches."""
    rng = random.Random(key)
    for i in range(0, len(ids), BATCH):
        chunk = {members.member(p): boards.pack(score(), at(DAY, rng)) for p in ids[i : i + BATCH]}
        client.zadd(key, chunk)  # type: ignore[arg-type]


@contextmanager
def slowlog(client: redis.Redis, found: dict[str, list[float]]) -> Iterator[None]:
    """Collects the server-side duration (µs) of every command run inside, by command name."""
    client.slowlog_reset()
    yield
    for entry in client.slowlog_get(1_000_000):
        command = entry["command"]
        text = command.decode() if isinstance(command, bytes) else str(command)
        name = text.split()[0].lower()
        if name not in ("slowlog", "multi", "script"):
            found.setdefault(name, []).append(float(entry["duration"]))


def summary(label: str, durations: list[float]) -> float:
    """Prints the mean, median, 99th percentile and max of *durations*; returns the mean."""
    mean = statistics.fmean(durations)
    p50 = statistics.median(durations)
    p99 = statistics.quantiles(durations, n=100)[98] if len(durations) > 1 else durations[0]
    verdict = "ok" if p99 < LATENCY_AIM_US else "OVER AIM"
    print(
        f"  {label:<34} mean {mean:7.1f} µs  p50 {p50:6.0f}  p99 {p99:6.0f}  "
        f"max {max(durations):6.0f}  ({len(durations)} calls)  {verdict}"
    )
    return mean


def measure_submit(client: redis.Redis, results: list[Result]) -> None:
    """Times each board step of submit on its own (a transaction's commands count apart)."""
    print(f"submit, by step, for {len(results)} new players (boards already at full size):")
    # Commands a script runs show in SLOWLOG too, inside their EVALSHA's time: count only
    # what the client sent (a transaction's commands show one by one, its EXEC not at all).
    sent: list[tuple[Step, tuple[str, ...]]] = [
        (board_counts.count_daily, ("zadd", "expireat")),
        (board_counts.count_best_day, ("zadd",)),
        (board_counts.count_streak, ("evalsha", "zadd")),
        (board_counts.count_advent, ("evalsha",)),
    ]
    total = 0.0
    for step, commands in sent:
        found: dict[str, list[float]] = {}
        with slowlog(client, found):
            for result in results:
                step(client, result, 400, UTC)
        for command in commands:
            total += summary(f"{step.__name__}: {command.upper()}", found[command])
    print(f"  {'whole submit (sum of the means)':<34} {total:7.1f} µs")


def measure_reads(
    client: redis.Redis, board: Board, ids: list[str], count: int, bands: bool = False
) -> None:
    """Times the rank of a player, the top 50 and the 50 around a player on *board*."""
    print(f"reads on {board.id} ({client.zcard(board.key):,} entries), one EVALSHA each:")
    rng = random.Random(7)
    cases: list[tuple[str, Callable[[str], object]]] = [
        ("rank of a player", lambda p: boards.rank_of(client, board, p)),
        ("top 50", lambda p: boards.page(client, board, limit=50)),
        ("50 around a player", lambda p: boards.page(client, board, me=p, around=True)),
    ]
    for label, read in cases:
        found: dict[str, list[float]] = {}
        sample = rng.sample(ids, count)
        with slowlog(client, found):
            for player_id in sample:
                read(player_id)
        summary(label, found["evalsha"])
        if "hget" in found:  # the names, read from the player records (a pipeline)
            summary(f"  + each name read (HGET x{len(found['hget']) // count})", found["hget"])
    if not bands:
        return
    found = {}
    with slowlog(client, found):
        for _ in range(count):
            boards.distribution(client, DAY)
    summary("distribution (13 bands)", found["evalsha"])


def measure_memory(client: redis.Redis, grown: int, players: int) -> None:
    """Prints bytes per entry of every board, and of one player's streak state."""
    print("memory:")
    print(
        f"  date's board, used_memory growth: {grown / players:6.1f} B/entry  "
        f"{'ok' if grown / players < MEMORY_AIM_BYTES else 'OVER AIM'}"
    )
    for board in (Board.daily(DAY), Board.best_day(), Board.streak(), Board.advent(DAY.year)):
        used = client.memory_usage(board.key, samples=0) or 0
        per = used / client.zcard(board.key)
        verdict = "ok" if per < MEMORY_AIM_BYTES else "OVER AIM"
        print(f"  {board.id:<34} MEMORY USAGE {per:6.1f} B/entry  {verdict}")
    streak_keys = list(client.scan_iter(match=keys.player_streak("*"), count=1000))[:100]
    days_keys = [k.replace(":streak", ":days") for k in streak_keys]
    per_player = sum((client.memory_usage(k, samples=0) or 0) for k in streak_keys + days_keys)
    print(f"  a player's streak state (bitmap + hash): {per_player / len(streak_keys):6.1f} B")


def fill_league(client: redis.Redis, league_id: str, ids: list[str]) -> None:
    """A league whose members are *ids*, with a day board for each day of DAY's week so far."""
    client.hset(keys.league(league_id), mapping={"name": "bench", "owner": members.member(ids[0]),
                                                 "created": 0})  # fmt: skip
    for i in range(0, len(ids), BATCH):
        client.zadd(
            keys.league_members(league_id),
            dict.fromkeys(map(members.member, ids[i : i + BATCH]), 0),
        )
    rng = random.Random(league_id)
    first = league_boards.monday(DAY)
    for n in range((DAY - first).days + 1):
        day = date.fromordinal(first.toordinal() + n)
        fill(client, keys.league_day(league_id, day.isoformat()), ids,
             lambda: int(rng.gauss(330, 60)) % 650)  # fmt: skip


def measure_leagues(client: redis.Redis, size: int, per_player: int, count: int) -> None:
    """Times a daily counted on *per_player* leagues, one of *size* members, and its reads."""
    big = "benchleague"
    crowd = [secrets.token_hex(8) for _ in range(size)]
    fill_league(client, big, crowd)
    small = [f"benchsmall{n}" for n in range(per_player - 1)]
    rng = random.Random(3)
    players = [secrets.token_hex(8) for _ in range(count)]
    for league_id in small:
        fill_league(client, league_id, crowd[:40])
    for player_id in players:
        for league_id in [big, *small]:
            league_boards.claim(client, player_id, league_id, per_player)
            league_boards.join(client, league_id, player_id, 0, size + count)
    print(f"leagues: {count} players, each in {per_player} leagues, one of {size:,} members:")
    found: dict[str, list[float]] = {}
    began = time.perf_counter()
    with slowlog(client, found):
        for player_id in players:
            result = Result(
                f"g-{player_id}", player_id, "daily", rng.randrange(650), at(DAY, rng), DAY
            )
            assert league_boards.count(client, result, zone=UTC) == per_player
    wall = (time.perf_counter() - began) / count * 1e6
    summary("SMEMBERS of the player's leagues", found["smembers"])
    summary("EVALSHA: a day and its week, per league", found["evalsha"])
    per_submit = (sum(found["smembers"]) + sum(found["evalsha"])) / count
    print(f"  {'a whole count, per submit':<34} {per_submit:7.1f} µs of Redis time "
          f"({wall:,.0f} µs wall, two round trips)")  # fmt: skip
    for board in (league_boards.day_board(big, DAY), league_boards.week_board(big, DAY)):
        found = {}
        with slowlog(client, found):
            for player_id in rng.sample(crowd, min(count, 500)):
                boards.page(client, board, limit=50, me=player_id)
        summary(f"top 50 and my line: {board.kind}", found["evalsha"])


def main() -> None:
    """Fills the boards, prints the figures and whether each aim is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--ops", type=int, default=2000, help="timed calls per operation")
    parser.add_argument("--deadline", type=float, default=600, help="kill Redis after this")
    parser.add_argument("--league-size", type=int, default=10_000, help="members of a league")
    parser.add_argument("--leagues", type=int, default=10, help="leagues of a player")
    args = parser.parse_args()
    rng = random.Random(1)
    ids = [secrets.token_hex(8) for _ in range(args.players)]
    with redis_server(args.deadline) as client:
        client.config_set("slowlog-log-slower-than", 0)
        client.config_set("slowlog-max-len", 1_000_000)
        began = time.perf_counter()
        before = int(client.info("memory")["used_memory"])
        fill(client, Board.daily(DAY).key, ids, lambda: int(rng.gauss(330, 60)) % 650)
        grown = int(client.info("memory")["used_memory"]) - before
        fill(client, Board.best_day().key, ids, lambda: min(649, int(rng.gauss(400, 50))))
        fill(client, Board.streak().key, ids, lambda: int(rng.expovariate(1 / 8)) + 1)
        fill(client, Board.advent(DAY.year).key, ids, lambda: int(rng.gauss(4000, 800)))
        print(f"filled 4 boards of {args.players:,} players in {time.perf_counter() - began:.0f} s")
        newcomers = [
            Result(f"g{i}", secrets.token_hex(8), "daily", rng.randrange(650), at(DAY, rng), DAY)
            for i in range(args.ops)
        ]
        measure_submit(client, newcomers)
        measure_reads(client, Board.daily(DAY), ids, args.ops, bands=True)
        measure_reads(client, Board.streak(), ids, min(args.ops, 500))
        measure_memory(client, grown, args.players)
        measure_leagues(client, args.league_size, args.leagues, min(args.ops, 1000))


if __name__ == "__main__":
    main()
