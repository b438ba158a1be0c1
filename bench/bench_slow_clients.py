"""Slow clients: how long ``/healthz`` takes while 24 clients trickle their headers.

For each gunicorn configuration (the shipped ``gunicorn.conf.py``; the old Procfile's one
sync worker; 2 workers x 4 threads; the shipped file with gevent when it is installed),
starts gunicorn on loopback with a real redis-server, opens --clients connections that send
one header line every --every seconds, then times --probes ``GET /healthz`` (4 s time-out
each). Prints the median and the slowest probe, and how many timed out. Runs the rounds
alternately, --rounds times, because the machine is shared.

With --hints it measures instead what a table build does to ``/healthz``: two first hints
of ``yatzy`` games in an empty ``DAILY_CACHE``, while 8 probes run, for the shipped file and
the shipped file with gevent. A request never builds a table: the hints answer 503 at once
and the table is built by a background process, which takes the CPU meanwhile.

Run: .venv/bin/python bench/bench_slow_clients.py [--clients 24] [--rounds 2] [--hints]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ops.slowclients import OLD, SHIPPED, gunicorn, probe, redis_server, slow_clients  # noqa: E402

CONFIGS = {
    "shipped (gthread, 2 x 32)": SHIPPED,
    "old (1 sync worker)": OLD,
    "gthread 2 x 4": [*SHIPPED, "--threads", "4"],
}
if importlib.util.find_spec("gevent"):
    CONFIGS["gevent, 2 workers"] = [*SHIPPED, "--worker-class", "gevent"]
TIMEOUT_S = 4.0


def run(args: list[str], env: dict[str, str], options: argparse.Namespace) -> list[float | None]:
    with gunicorn(args, env) as (_, port):
        lasting = options.probes * 1.5 + 3
        with slow_clients(port, options.clients, options.every, lasting):
            time.sleep(1.0)  # let the server take them in
            return probe(port, options.probes, 1.5, TIMEOUT_S)


def call(port: int, method: str, path: str, body: object = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def hint_stall(args: list[str], env: dict[str, str]) -> tuple[list[float | None], list[str]]:
    """Probes /healthz while two first hints build yatzy's table; the hints' failures."""
    failures: list[str] = []

    def hint(port: int, token: str, game_id: str) -> None:
        try:
            call(port, "GET", f"/api/v1/games/{game_id}/hint", token=token)
        except OSError as e:  # an HTTP error, or the worker killed under the request
            failures.append(str(e))

    with tempfile.TemporaryDirectory() as cache:
        with gunicorn(args, {**env, "DAILY_CACHE": cache}) as (_, port):
            token = call(port, "POST", "/api/v1/players", {"name": "Bench"})["token"]
            body = {"mode": "solo", "ruleset": "yatzy"}
            games = [call(port, "POST", "/api/v1/games", body, token)["id"] for _ in range(2)]
            threads = [threading.Thread(target=hint, args=(port, token, g)) for g in games]
            for thread in threads:
                thread.start()
            time.sleep(0.3)
            results = probe(port, 8, 0.5, TIMEOUT_S)
            for thread in threads:
                thread.join()
    return results, failures


def line(name: str, results: list[float | None]) -> str:
    answered = [r for r in results if r is not None]
    failed = len(results) - len(answered)
    if not answered:
        return f"{name:<28} all {len(results)} probes timed out ({TIMEOUT_S:.0f} s)"
    return (f"{name:<28} median {statistics.median(answered) * 1000:7.1f} ms, slowest "
            f"{max(answered) * 1000:7.1f} ms, timed out {failed} of {len(results)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--every", type=float, default=3.0, help="seconds between header lines")
    parser.add_argument("--probes", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--hints", action="store_true", help="CPU-bound requests, not slow clients")
    options = parser.parse_args()
    what = f"{options.clients} slow clients (a header line every {options.every:g} s)"
    if options.hints:
        what = "two first hints"
    print(f"{what}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder, redis_server(Path(folder)) as url:
        env = {"REDIS_URL": url, "SECRET_KEY": "bench-slow-" + "s" * 40,
               "DAILY_ENV": "development", "DAILY_LIMIT_PAGES": "off",
               "DAILY_LIMIT_PLAYERS": "off", "DAILY_LIMIT_MOVES": "off"}  # fmt: skip
        for round_ in range(options.rounds):
            if options.hints:
                for name in ("shipped (gthread, 2 x 32)", "gevent, 2 workers"):
                    if name in CONFIGS:
                        results, failed = hint_stall(CONFIGS[name], env)
                        print(f"round {round_ + 1}, two first hints: {line(name, results)}; "
                              f"hints failed: {len(failed)} {failed[:1]}", flush=True)  # fmt: skip
                continue
            for name, args in CONFIGS.items():
                print(f"round {round_ + 1}: {line(name, run(args, env, options))}", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
