"""Daily games through the HTTP API under gunicorn (2 workers) and a real redis-server.

Beside it, a bare Flask endpoint doing one Redis GET and one SET on the same stack, so the
game API's rate reads as a fraction of the stack's (aim: at least half). Everything runs on
loopback, bounded in games and seconds.

Run: .venv/bin/python bench/bench_api.py [--games 40] [--threads 4] [--base DIR]

``--base DIR`` also plays the same games on another checkout of the project (say a
``git worktree`` of the merge base), alternating with this one, and prints this one's rate
as a fraction of that one's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from servers import free_port, redis_server

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TIME_LIMIT_S = 60.0


def bare_app() -> Any:
    """The yardstick: one JSON POST doing one Redis GET and one SET, nothing else."""
    import redis
    from flask import Flask, jsonify, request

    app = Flask("bare")
    client = redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)

    @app.post("/bare")
    def bare() -> Any:
        data = request.get_json()
        before = client.get("bench:bare")
        client.set("bench:bare", json.dumps(data))
        return jsonify({"before": before})

    return app


def wait_for(port: int, path: str) -> None:
    for _ in range(200):
        try:
            call(port, "GET", path)
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing answers on port {port}")


def call(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        payload = None if body is None else json.dumps(body)
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        connection.request(method, path, payload, all_headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def greedy(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Holds the most common face once, then scores the row worth most now."""
    face, count = Counter(state["dice"]).most_common(1)[0]
    if state["roll"] == 1 and state["rolls_left"] and count < len(state["dice"]):
        return "roll", {"hold": [i for i, d in enumerate(state["dice"]) if d == face]}
    potential = state["potential"]
    return "score", {"category": max(potential, key=potential.get)}


def new_game(port: int, number: int) -> tuple[dict[str, str], dict[str, Any]]:
    status, player = call(port, "POST", "/api/v1/players", {"name": f"bench {number}"})
    assert status == 201, player
    headers = {"Authorization": f"Bearer {player['token']}"}
    status, state = call(port, "POST", "/api/v1/games", {"mode": "daily"}, headers)
    assert status == 201, state
    return headers, state


def play(port: int, games: list[tuple[dict[str, str], dict[str, Any]]], moves: list[int]) -> None:
    deadline = time.monotonic() + TIME_LIMIT_S
    for headers, state in games:
        while not state["finished"] and time.monotonic() < deadline:
            action, body = greedy(state)
            body["move"] = len(state["moves"])
            status, state = call(port, "POST", f"/api/v1/games/{state['id']}/{action}", body,
                                 headers)  # fmt: skip
            assert status == 200, state
            moves.append(1)


def run_threads(threads: int, work: Any, shares: list[Any]) -> float:
    pool = [threading.Thread(target=work, args=(share,)) for share in shares[:threads]]
    start = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return time.perf_counter() - start


def gunicorn(
    port: int, app: str, chdir: Path, env: dict[str, str], quiet: bool = False
) -> subprocess.Popen[bytes]:
    command = [str(BIN / "gunicorn"), "-w", "2", "-b", f"127.0.0.1:{port}", "--chdir",
               str(chdir), "--log-level", "warning", app]  # fmt: skip
    # quiet: the app's JSON access log (one line a request) would drown the figures.
    quieted = subprocess.DEVNULL if quiet else None
    return subprocess.Popen(command, env=env, stdout=quieted, stderr=quieted)


def bench_games(
    redis_url: str, games_count: int, threads: int, root: Path = ROOT
) -> tuple[int, float]:
    port = free_port()
    # One client address plays every game: the rate limits would measure themselves.
    env = {**os.environ, "REDIS_URL": redis_url, "SECRET_KEY": "bench-" + "s" * 40,
           "DAILY_ENV": "development", "DAILY_NOW": "2026-12-03T12:00:00",
           "DAILY_LIMIT_PLAYERS": "off", "DAILY_LIMIT_MOVES": "off",
           "DAILY_LIMIT_PAGES": "off", "DAILY_LIMIT_DAILIES": "off",
           "PYTHONPATH": str(root)}  # fmt: skip
    server = gunicorn(port, "daily:create_app()", root, env, quiet=True)
    try:
        wait_for(port, "/api/v1/daily")
        games = [new_game(port, n) for n in range(games_count)]
        shares = [games[i::threads] for i in range(threads)]
        counted: list[int] = []
        seconds = run_threads(threads, lambda share: play(port, share, counted), shares)
        for headers, state in games:  # every game finished and verified
            status, final = call(port, "GET", f"/api/v1/games/{state['id']}", None, headers)
            assert status == 200 and (final["finished"] or seconds >= TIME_LIMIT_S)
        return len(counted), seconds
    finally:
        server.terminate()
        server.wait(10)


def bench_bare(redis_url: str, requests: int, threads: int) -> tuple[int, float]:
    port = free_port()
    server = gunicorn(port, "bench_api:bare_app()", ROOT / "bench", {**os.environ,
                      "REDIS_URL": redis_url})  # fmt: skip
    try:
        for _ in range(200):
            try:
                call(port, "POST", "/bare", {"warm": True})
                break
            except OSError:
                time.sleep(0.05)
        done: list[int] = []

        def hammer(count: int) -> None:
            deadline = time.monotonic() + TIME_LIMIT_S
            for _ in range(count):
                if time.monotonic() > deadline:
                    return
                status, _ = call(port, "POST", "/bare", {"hold": [0, 3, 4], "move": 7})
                assert status == 200
                done.append(1)

        seconds = run_threads(threads, hammer, [requests // threads] * threads)
        return len(done), seconds
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; best counts")
    parser.add_argument("--base", type=Path, help="another checkout to compare the games with")
    args = parser.parse_args()
    with redis_server() as url:
        # Alternate the two so that a busy spell on a shared machine hits both alike.
        game_runs, bare_runs, base_runs = [], [], []
        for _ in range(args.rounds):
            game_runs.append(bench_games(url, args.games, args.threads))
            bare_runs.append(bench_bare(url, game_runs[-1][0], args.threads))
            if args.base:
                base_runs.append(bench_games(url, args.games, args.threads, args.base))
    moves, seconds = min(game_runs, key=lambda run: run[1] / run[0])
    bare, bare_seconds = min(bare_runs, key=lambda run: run[1] / run[0])
    game_rate, bare_rate = moves / seconds, bare / bare_seconds
    print(f"gunicorn 2 workers, redis-server on loopback, {args.threads} client threads, "
          f"{os.cpu_count()} CPUs, best of {args.rounds} alternating rounds")  # fmt: skip
    print(
        f"  daily games: {args.games} games, {moves} moves in {seconds:.2f} s: "
        f"{game_rate:,.0f} moves/s ({1000 * seconds / moves * args.threads:.1f} ms each)"
    )
    print(
        f"  bare GET+SET endpoint: {bare} requests in {bare_seconds:.2f} s: "
        f"{bare_rate:,.0f} requests/s"
    )
    print(f"  ratio: {game_rate / bare_rate:.2f} (aim >= 0.5)")
    if base_runs:
        base_moves, base_seconds = min(base_runs, key=lambda run: run[1] / run[0])
        base_rate = base_moves / base_seconds
        print(f"  {args.base}: {base_rate:,.0f} moves/s; this checkout / that one: "
              f"{game_rate / base_rate:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
