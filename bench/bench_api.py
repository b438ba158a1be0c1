"""Daily games through the HTTP API under gunicorn (2 workers) and a real redis-server.

Beside it, a bare Flask endpoint doing one Redis GET and one SET on the same stack, so the
game API's rate reads as a fraction of the stack's (aim: 0.8), and the same bare view mounted
inside the service's own app, which pays every hook the service's answers pay (the access
log, the session, the metrics, the security headers and, with the limits on, Flask-Limiter's
count of a request that is not a move): what those hooks alone leave of the bare rate. Each
server is warmed first (untimed games or requests from every client thread), so what a worker
does once in its life is not counted. Everything runs on loopback, bounded in games and
seconds.

Run: .venv/bin/python bench/bench_api.py [--games 40] [--threads 4] [--base DIR] [--gthread]

``--gthread`` runs both sides as the shipped configuration does (gunicorn.conf.py: 2
gthread workers, here 8 threads each) with keep-alive clients (one connection a thread);
without it, 2 sync workers and a connection a request.

``--limits on`` counts every rate limit as production does, each at a million a minute so
that the one client address never meets them (default: off).

``--base DIR`` also plays the same games on another checkout of the project (say a
``git worktree`` of the merge base), alternating with this one, and prints this one's rate
as a fraction of that one's. Read that ratio as plus or minus 0.2: on a shared machine one
run of the same code did 192 moves/s and the next 520, and against a copy of this very
checkout the median of 4 to 6 rounds came out 0.75 to 0.89 (docs/api.md, Speed);
``bench_move.py`` compares two checkouts' moves more steadily.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
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
#: Whether the servers run gthread workers and the clients keep their connections alive.
THREADED = [False]


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


def hooked_app() -> Any:
    """The same bare view mounted inside the service's own app, so that it pays the hooks
    every answer of the service pays (the access log, the session, the metrics, the security
    headers; with the limits on, the per-address count every request but a move pays)."""
    from daily import create_app

    app = create_app()
    app.add_url_rule("/bench/bare", "bench_bare", bare_app().view_functions["bare"],
                     methods=["POST"])  # fmt: skip
    return app


def wait_for(port: int, path: str) -> None:
    for _ in range(200):
        try:
            call(port, "GET", path)
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing answers on port {port}")


#: Whether clients keep their connection open between requests (--gthread).
KEEP_ALIVE = threading.local()


def call(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    keep = getattr(KEEP_ALIVE, "on", False)
    connection = getattr(KEEP_ALIVE, "connection", None) if keep else None
    if connection is None or connection.port != port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        payload = None if body is None else json.dumps(body)
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        connection.request(method, path, payload, all_headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        if keep:
            KEEP_ALIVE.connection = connection
        else:
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
            # move_count: this checkout's answer; the log's length: a base from before it.
            body["move"] = state["move_count"] if "move_count" in state else len(state["moves"])
            status, state = call(port, "POST", f"/api/v1/games/{state['id']}/{action}", body,
                                 headers)  # fmt: skip
            assert status == 200, state
            moves.append(1)


def run_threads(threads: int, work: Any, shares: list[Any]) -> float:
    keep = THREADED[0]

    def run(share: Any) -> None:
        KEEP_ALIVE.on = keep
        work(share)

    pool = [threading.Thread(target=run, args=(share,)) for share in shares[:threads]]
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
    if THREADED[0]:  # as the shipped gunicorn.conf.py runs it, with fewer threads
        command[1:1] = ["-k", "gthread", "--threads", "8", "--keep-alive", "5"]
    # quiet: the app's JSON access log (one line a request) would drown the figures.
    quieted = subprocess.DEVNULL if quiet else None
    return subprocess.Popen(command, env=env, stdout=quieted, stderr=quieted)


#: What every rate limit is set to (--limits): one client address plays every game, so
#: on, the limits count as in production but are never met.
LIMIT = ["off"]


def add_limits_argument(parser: argparse.ArgumentParser) -> None:
    """``--limits off|on`` (this bench's and bench_move's)."""
    parser.add_argument("--limits", choices=("off", "on"), default="off",
                        help="count the rate limits (on: each at a million a minute)")  # fmt: skip


def limit_env(choice: str) -> dict[str, str]:
    """The service's rate-limit settings for ``--limits`` *choice*."""
    from daily.core.config import LIMIT_VARS

    limit = "off" if choice == "off" else "1000000 per minute"
    return dict.fromkeys(LIMIT_VARS.values(), limit)


def service_env(redis_url: str, root: Path) -> dict[str, str]:
    """The environment the service runs in here (the checkout *root*'s ``daily``)."""
    return {**os.environ, "REDIS_URL": redis_url, "SECRET_KEY": "bench-" + "s" * 40,
            "DAILY_ENV": "development", "DAILY_NOW": "2026-12-03T12:00:00",
            **limit_env(LIMIT[0]), "PYTHONPATH": str(root)}  # fmt: skip


def bench_games(
    redis_url: str, games_count: int, threads: int, root: Path = ROOT
) -> tuple[int, float]:
    port = free_port()
    server = gunicorn(port, "daily:create_app()", root, service_env(redis_url, root), quiet=True)
    try:
        wait_for(port, "/api/v1/daily")
        # Untimed, from every thread at once so that each worker plays some: what a worker
        # does once in its life (the luck check's tables, the lazy imports) is not a move's.
        warm = [new_game(port, n) for n in range(2 * threads)]
        warm_shares = [warm[i::threads] for i in range(threads)]
        run_threads(threads, lambda share: play(port, share, []), warm_shares)
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


def bench_bare(
    redis_url: str, requests: int, threads: int, hooked: bool = False
) -> tuple[int, float]:
    """*requests* to the bare view: in the bare app, or (*hooked*) in the service's own."""
    port = free_port()
    if hooked:
        app, path, env = "bench_api:hooked_app()", "/bench/bare", service_env(redis_url, ROOT)
    else:
        app, path, env = "bench_api:bare_app()", "/bare", {**os.environ, "REDIS_URL": redis_url}
    server = gunicorn(port, app, ROOT / "bench", env, quiet=hooked)
    try:
        for _ in range(200):
            try:
                call(port, "POST", path, {"warm": True})
                break
            except OSError:
                time.sleep(0.05)
        done: list[int] = []

        def hammer(count: int) -> None:
            deadline = time.monotonic() + TIME_LIMIT_S
            for _ in range(count):
                if time.monotonic() > deadline:
                    return
                status, _ = call(port, "POST", path, {"hold": [0, 3, 4], "move": 7})
                assert status == 200
                done.append(1)

        run_threads(threads, hammer, [25] * threads)  # untimed: every worker warmed
        done.clear()
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
    parser.add_argument("--gthread", action="store_true", help="gthread workers, keep-alive")
    add_limits_argument(parser)
    args = parser.parse_args()
    THREADED[0] = args.gthread
    LIMIT[0] = args.limits
    with redis_server() as url:
        # Alternate the two so that a busy spell on a shared machine hits both alike.
        game_runs, bare_runs, hooked_runs, base_runs = [], [], [], []
        # Which of the two checkouts goes first changes with each round, so that neither
        # always follows the other's server.
        for n in range(args.rounds):
            if args.base and n % 2:
                base_runs.append(bench_games(url, args.games, args.threads, args.base))
            game_runs.append(bench_games(url, args.games, args.threads))
            bare_runs.append(bench_bare(url, game_runs[-1][0], args.threads))
            hooked_runs.append(bench_bare(url, game_runs[-1][0], args.threads, hooked=True))
            if args.base and not n % 2:
                base_runs.append(bench_games(url, args.games, args.threads, args.base))
    workers = "2 gthread workers x 8 threads, keep-alive" if args.gthread else "2 sync workers"
    print(f"gunicorn {workers}, redis-server on loopback, {args.threads} client threads, "
          f"{os.cpu_count()} CPUs, limits {args.limits}, {args.rounds} alternating rounds: "
          f"median / best")  # fmt: skip
    games, bare = rates(game_runs), rates(bare_runs)
    print(f"  daily games: {args.games} games, {game_runs[0][0]} moves a round: "
          f"{games[0]:,.0f} / {games[1]:,.0f} moves/s")  # fmt: skip
    print(f"  bare GET+SET endpoint: {bare[0]:,.0f} / {bare[1]:,.0f} requests/s")
    paired = sorted(g[0] / g[1] / (b[0] / b[1]) for g, b in zip(game_runs, bare_runs, strict=True))
    print(f"  moves / bare requests, round by round: median {statistics.median(paired):.2f}, "
          f"best {paired[-1]:.2f} (aim >= 0.8)")  # fmt: skip
    hooked = sorted(h[0] / h[1] / (b[0] / b[1]) for h, b in zip(hooked_runs, bare_runs,
                                                                     strict=True))  # fmt: skip
    print(f"  the bare view inside the service's app / bare requests (its hooks alone): median "
          f"{statistics.median(hooked):.2f}, best {hooked[-1]:.2f}")  # fmt: skip
    if base_runs:
        base = rates(base_runs)
        pairs = sorted(
            g[0] / g[1] / (b[0] / b[1]) for g, b in zip(game_runs, base_runs, strict=True)
        )
        print(
            f"  {args.base}: {base[0]:,.0f} / {base[1]:,.0f} moves/s; this checkout / that "
            f"one, round by round: median {statistics.median(pairs):.2f}, best {pairs[-1]:.2f}"
        )
        paired_base = sorted(
            b[0] / b[1] / (r[0] / r[1]) for b, r in zip(base_runs, bare_runs, strict=True)
        )
        print(f"  {args.base} moves / bare requests: median {statistics.median(paired_base):.2f}")


def rates(runs: list[tuple[int, float]]) -> tuple[float, float]:
    """The median and the best rate of *runs* (count, seconds)."""
    found = sorted(count / seconds for count, seconds in runs)
    return statistics.median(found), found[-1]


if __name__ == "__main__":
    main()
