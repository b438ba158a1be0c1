"""Load: many simulated players play whole daily games at once against gunicorn and Redis.

gunicorn (2 workers, threaded) serves the app on loopback with a real redis-server; an
asyncio client keeps --players players busy for --seconds: each creates a player, starts
the daily game and plays it to the end (numbered moves), then a new player starts. The
rate limits stay on, set far above the load, so their cost is in the figures. Afterwards
every finished game is checked in Redis: its total equals the replay of its move log, and
it is on the day's board exactly once with that total.

Prints games per second and p50/p95/p99 latency per endpoint, and the CPU time the web
server (gunicorn's processes, from /proc) and Redis (``INFO cpu`` of every node) spent per
request and per game: what docs/operations.md's load model scales up. Exits 1 on any error.

With ``--redis URL`` it uses that Redis instead of starting one, for instance a throw-away
three-master cluster (``redis+cluster://127.0.0.1:PORT``, started as ``.ci/run`` starts
one): every node is flushed first.

Run: .venv/bin/python bench/bench_load.py [--players 32] [--seconds 20] [--threads 4]
     [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from servers import free_port

from daily.core.config import LIMIT_VARS

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SECRET = "bench-load-" + "s" * 40
DAY = date(2026, 12, 3)
#: Started games still finish after --seconds, within this grace.
GRACE_S = 60.0
HIGH = "10000000 per minute"  # the limits stay on, far above any load here


class Connection:
    """One keep-alive HTTP/1.1 connection to the server (a browser tab's worth)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.reconnects = 0

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                f"application/json\r\nContent-Length: {len(payload)}\r\n")  # fmt: skip
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        message = head.encode() + b"\r\n" + payload
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                return await self._exchange(message)
            except (ConnectionError, asyncio.IncompleteReadError):
                # The server closed an idle keep-alive connection as we sent: resend once
                # (moves are numbered, so a resent move cannot land twice).
                self.close()
                self.reconnects += 1
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _exchange(self, message: bytes) -> tuple[int, Any]:
        assert self.reader is not None and self.writer is not None
        self.writer.write(message)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("closed before answering")
        status = int(status_line.split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "connection" and value.strip().lower() == "close":
                close = True
        body = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, json.loads(body) if body else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Tally:
    """Latencies by endpoint, errors, and the games that finished."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    finished: list[tuple[str, str, int]] = field(default_factory=list)  # game, player, total
    reconnects: int = 0

    async def call(
        self, connection: Connection, name: str, expected: int, *args: Any, **kwargs: Any
    ) -> Any:
        start = time.perf_counter()
        try:
            status, body = await connection.request(*args, **kwargs)
        except (OSError, asyncio.IncompleteReadError) as e:
            self.errors[f"{name}: {type(e).__name__}"] += 1
            return None
        self.latencies[name].append(time.perf_counter() - start)
        if status != expected:
            self.errors[f"{name}: {status} {str(body)[:80]}"] += 1
            return None
        return body


def greedy(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Holds the most common face while re-rolls are left, then scores the best row now."""
    face, count = Counter(state["dice"]).most_common(1)[0]
    if state["rolls_left"] and count < len(state["dice"]):
        return "roll", {"hold": [i for i, d in enumerate(state["dice"]) if d == face]}
    potential = state["potential"]
    return "score", {"category": max(potential, key=potential.get)}


async def one_game(connection: Connection, tally: Tally, number: int) -> bool:
    player = await tally.call(connection, "POST /players", 201, "POST", "/api/v1/players",
                              {"name": f"load {number}"})  # fmt: skip
    if player is None:
        return False
    token = player["token"]
    state = await tally.call(connection, "POST /games", 201, "POST", "/api/v1/games",
                             {"mode": "daily"}, token)  # fmt: skip
    while state is not None and not state["finished"]:
        action, body = greedy(state)
        body["move"] = state["move_count"]
        state = await tally.call(connection, f"POST /games/{{id}}/{action}", 200, "POST",
                                 f"/api/v1/games/{state['id']}/{action}", body, token)  # fmt: skip
    if state is None:
        return False
    final = await tally.call(connection, "GET /games/{id}", 200, "GET",
                             f"/api/v1/games/{state['id']}", None, token)  # fmt: skip
    if final is None:
        return False
    tally.finished.append((state["id"], player["player_id"], final["total"]))
    return True


async def simulate(port: int, players: int, seconds: float) -> tuple[Tally, float]:
    tally = Tally()
    stop_at = time.monotonic() + seconds
    numbers = iter(range(10**9))

    async def player_loop() -> None:
        connection = Connection(port)
        while time.monotonic() < stop_at:
            if not await one_game(connection, tally, next(numbers)):
                break
        connection.close()
        tally.reconnects += connection.reconnects

    start = time.perf_counter()
    loops = [asyncio.create_task(player_loop()) for _ in range(players)]
    await asyncio.wait_for(asyncio.gather(*loops), seconds + GRACE_S)
    return tally, time.perf_counter() - start


def check_games(redis_url: str, finished: list[tuple[str, str, int]]) -> list[str]:
    """Every finished game replays to its total and is on the day's board exactly once."""
    from daily.store import boards, saved_games
    from daily.store.connection import connect

    client = connect(redis_url, Path("unused"))
    problems = []
    board = boards.Board.daily(DAY)
    for game_id, player_id, total in finished:
        record = saved_games.load(client, game_id)
        if record is None or record.total != total or record.state(SECRET).total != total:
            problems.append(f"game {game_id}: stored or replayed total differs from {total}")
            continue
        entry = boards.rank_of(client, board, player_id)
        if entry is None or entry.score != total:
            problems.append(f"game {game_id}: on the board as {entry}, not with {total}")
    on_board = boards.page(client, board, limit=1).total
    if on_board != len(finished):
        problems.append(f"the board holds {on_board} players for {len(finished)} finished games")
    return problems


def redis_nodes(redis_url: str) -> list[Any]:
    """A plain client on each node (each master of a cluster) behind *redis_url*."""
    import redis

    plain = redis_url.replace("redis+cluster://", "redis://")
    seed = redis.Redis.from_url(plain)
    if not redis_url.startswith("redis+cluster://"):
        return [seed]
    nodes = []
    found = seed.execute_command("CLUSTER NODES")  # type: ignore[no-untyped-call]
    for address, node in found.items():  # redis-py parses it: address -> its fields
        if "master" in node["flags"]:
            host, _, port = address.split("@")[0].rpartition(":")
            nodes.append(redis.Redis(host=host, port=int(port)))
    return nodes


def redis_cpu(nodes: list[Any]) -> float:
    """CPU seconds (user + system) every node has spent so far."""
    total = 0.0
    for node in nodes:
        info = node.info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


def process_cpu(root: int) -> float:
    """CPU seconds (user + system) of process *root* and its children, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        # After the name: state, ppid, ..., utime (11), stime (12), counted from state at 0.
        if int(entry.name) == root or int(fields[1]) == root:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def start_stack(
    folder: str, threads: int, limit: str = HIGH, redis_url: str | None = None
) -> tuple[list[subprocess.Popen[bytes]], int, str]:
    port = free_port()
    started = []
    if redis_url is None:
        redis_port = free_port()
        started.append(subprocess.Popen(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", folder],
            stdout=subprocess.DEVNULL,
        ))  # fmt: skip
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
    else:
        for node in redis_nodes(redis_url):
            node.flushall()
    env = {**os.environ, "REDIS_URL": redis_url, "SECRET_KEY": SECRET,
           "DAILY_ENV": "development", "DAILY_NOW": f"{DAY}T12:00:00",
           **dict.fromkeys(LIMIT_VARS.values(), limit)}  # fmt: skip
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "--workers", "2", "--worker-class", "gthread", "--threads",
         str(threads), "--bind", f"127.0.0.1:{port}", "--chdir", str(ROOT),
         "--log-level", "warning", "daily:create_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,  # the JSON access log
    )  # fmt: skip
    return [server, *started], port, redis_url


async def wait_ready(port: int) -> None:
    for _ in range(300):
        try:
            status, _ = await Connection(port).request("GET", "/healthz")
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.05)
    raise RuntimeError("the server did not become healthy")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


def report(
    tally: Tally, seconds: float, args: argparse.Namespace, web_s: float, redis_s: float
) -> None:
    games = len(tally.finished)
    requests = sum(len(v) for v in tally.latencies.values())
    where = args.redis or "redis-server (AOF everysec)"
    print(f"gunicorn 2 workers x {args.threads} threads, {where} on "
          f"loopback, {args.players} simulated players, {os.cpu_count()} CPUs, rate limits "
          f"{'off' if args.no_limits else 'on'}")  # fmt: skip
    print(f"{games} daily games finished in {seconds:.1f} s: {games / seconds:.1f} games/s, "
          f"{requests / seconds:.0f} requests/s")  # fmt: skip
    print(f"{'endpoint':<28}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for name, values in sorted(tally.latencies.items()):
        print(f"{name:<28}{len(values):>9}{percentile(values, 50):>9.1f}"
              f"{percentile(values, 95):>9.1f}{percentile(values, 99):>9.1f}")  # fmt: skip
    print(f"CPU: web {web_s:.1f} s, Redis {redis_s:.2f} s in all; per request web "
          f"{web_s / requests * 1000:.2f} ms, Redis {redis_s / requests * 1000:.3f} ms; per "
          f"game ({requests / max(games, 1):.1f} requests) web {web_s / max(games, 1) * 1000:.0f}"
          f" ms, Redis {redis_s / max(games, 1) * 1000:.1f} ms")  # fmt: skip
    print(f"errors: {sum(tally.errors.values())}; keep-alive resends: {tally.reconnects}")
    for error, count in tally.errors.most_common(5):
        print(f"  {count} x {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--no-limits", action="store_true", help="rate limits off (their cost)")
    parser.add_argument("--redis", help="a throw-away Redis (or cluster) URL to use: flushed")
    args = parser.parse_args()
    if not args.redis and not shutil.which("redis-server"):
        sys.exit("bench_load needs redis-server (.ci/run installs it)")
    folder = tempfile.mkdtemp(prefix="bench-load-")
    limit = "off" if args.no_limits else HIGH
    processes, port, redis_url = start_stack(folder, args.threads, limit, args.redis)
    try:
        asyncio.run(wait_ready(port))
        nodes = redis_nodes(redis_url)
        web_before, redis_before = process_cpu(processes[0].pid), redis_cpu(nodes)
        tally, seconds = asyncio.run(simulate(port, args.players, args.seconds))
        web_s = process_cpu(processes[0].pid) - web_before
        redis_s = redis_cpu(nodes) - redis_before
        report(tally, seconds, args, web_s, redis_s)
        problems = check_games(redis_url, tally.finished)
    finally:
        for process in processes:
            process.terminate()
            process.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"checked {len(tally.finished)} finished games: replayed totals and the board "
          f"{'agree' if not problems else 'DISAGREE'}")  # fmt: skip
    for problem in problems[:10]:
        print(f"  {problem}")
    if problems or tally.errors or not tally.finished:
        sys.exit(1)


if __name__ == "__main__":
    main()
