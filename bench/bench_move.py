"""A move's own cost in the app, each move paired with one request to the bare endpoint.

``bench_api.py`` measures moves through gunicorn and HTTP clients, where the connections,
the clients and a busy machine move a round's rate by a third. This bench calls the two
WSGI apps in one process on one redis-server, a move of the daily API and then a request to
``bench_api``'s bare endpoint (one Redis GET and one SET), in turn, so a busy spell slows
both alike: what is left is the app's own time per move as a fraction of the bare request's.
A third request, to the same bare view mounted in the service's own app, shows what that
app's per-request hooks alone cost (the limiter, the session, the access log, the metrics,
the security headers): the part of a move no move design can remove.

Run: .venv/bin/python bench/bench_move.py [--games 30] [--rounds 5] [--limits on] [--root DIR]

``--limits on`` counts every rate limit as production does (each at a million a minute, so
one client address never meets them): a move's counters are part of its cost.

``--root DIR`` measures another checkout of the project (its ``daily`` package) with this
bench; run it after this one's figures, or alternate the two by hand.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench_api import add_limits_argument, bare_app, greedy, limit_env
from servers import redis_server

ROOT = Path(__file__).resolve().parents[1]
Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def call(app: Wsgi, path: str, body: Any, headers: dict[str, str]) -> tuple[str, bytes]:
    """One POST of *body* as JSON straight into *app*: its status line and its body."""
    data = json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SERVER_NAME": "bench",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    status: list[str] = []
    answer = b"".join(app(environ, lambda s, h, e=None: status.append(s)))
    return status[0], answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="daily games a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    add_limits_argument(parser)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))

    with redis_server() as url:
        os.environ.update(
            {
                "REDIS_URL": url,
                "SECRET_KEY": "bench-" + "s" * 40,
                "DAILY_ENV": "development",
                "DAILY_NOW": "2026-12-03T12:00:00",
            }
        )
        os.environ.update(limit_env(args.limits))
        import daily
        from daily import create_app

        assert Path(daily.__file__).is_relative_to(args.root), daily.__file__

        app, bare = create_app(), bare_app()
        # The same bare view inside the service's own app: what its per-request hooks (the
        # limiter, the session, the access log, the metrics, the security headers) cost.
        app.add_url_rule("/bench/bare", "bench_bare", bare.view_functions["bare"],
                         methods=["POST"])  # fmt: skip
        # The access log's lines would measure the terminal: the bench drops them.
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the life of the bench)
        client = app.test_client()
        ratios, moves, bares, hooked = [], [], [], []
        for _ in range(args.rounds + 1):  # the first round warms up and is not counted
            games = []
            for number in range(args.games):
                made = client.post("/api/v1/players", json={"name": f"bench {number}"})
                headers = {"Authorization": f"Bearer {made.get_json()['token']}"}
                started = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers)
                games.append((headers, started.get_json()))
            move_s = bare_s = hooked_s = 0.0
            count = 0
            for headers, state in games:
                while not state["finished"]:
                    action, body = greedy(state)
                    body["move"] = state["move_count"]
                    began = time.perf_counter()
                    status, answer = call(app, f"/api/v1/games/{state['id']}/{action}", body,
                                          headers)  # fmt: skip
                    middle = time.perf_counter()
                    call(bare, "/bare", {"hold": [0, 3, 4], "move": 7}, {})
                    after = time.perf_counter()
                    call(app, "/bench/bare", {"hold": [0, 3, 4], "move": 7}, {})
                    hooked_s += time.perf_counter() - after
                    bare_s += after - middle
                    move_s += middle - began
                    assert status.startswith("200"), answer
                    state = {**state, **json.loads(answer)}
                    count += 1
            ratios.append(bare_s / move_s)
            moves.append(move_s / count * 1e6)
            bares.append(bare_s / count * 1e6)
            hooked.append(bare_s / hooked_s)
        ratios, moves, bares, hooked = ratios[1:], moves[1:], bares[1:], hooked[1:]
    print(f"{args.root}: {args.rounds} rounds of {args.games} daily games, each move paired with "
          f"a bare request, in one process on a loopback redis-server; "
          f"limits {args.limits}")  # fmt: skip
    print(f"  a move: {statistics.median(moves):,.0f} us (median of rounds); a bare request: "
          f"{statistics.median(bares):,.0f} us")  # fmt: skip
    print(f"  bare / move, round by round: median {statistics.median(ratios):.2f}, best "
          f"{max(ratios):.2f}")  # fmt: skip
    print(f"  bare / the bare view inside the service's app (its per-request hooks alone): "
          f"median {statistics.median(hooked):.2f}, best {max(hooked):.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
