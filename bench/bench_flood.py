"""A bystander's moves while two addresses flood the expensive routes at their limits.

The service runs as in production (gunicorn with gunicorn.conf.py's gthread workers, a real
redis-server, the default rate limits on, a trusted proxy so that each client names its
address in ``X-Forwarded-For``). A bystander plays daily moves one after another and times
each (a brisk player's pace, a move every 0.15 s); two attackers, each from an address of
its own network with 8 threads, ask for what costs the server most at their limits (20
requests a second each: 2 analyses of a finished game, 5 hints, and the day's distribution,
their history and figures). Rounds alternate quiet (the bystander alone) and flooded, and
the bench prints each round's move p50 and p95 and the flooded / quiet ratio of the p50s
(aim: at most 2), with how many of the attackers' requests were served and refused (429).
``--beyond``: the attackers send as fast as they can instead, far past their limits.

Run: .venv/bin/python bench/bench_flood.py [--rounds 3] [--seconds 15] [--ruleset yatzy]
[--beyond] [--compare] [--nginx] [--pin] [--addresses 24 --threads 2]

``--addresses N``: the attackers are N addresses of one /24 (the issue's second flood: 24
addresses each within its budget), each with ``--threads`` threads.

``--compare``: a second gunicorn on the same Redis whose workers' admission control
(daily/web/admission.py) is lifted; each round runs on both servers in turn, and each
server's ratio is printed.

``--nginx``: the same server also behind deploy/nginx.conf (run as it ships, its marked lines
set: tests/ops/nginxsite.py, as tests/ops/test_nginx.py runs it), rounds alternating between
the server reached directly and through nginx. Through nginx each client connects from a
loopback address of its own (an address A.B.C.D becomes 127.B.C.D, so the networks stay
apart), which nginx's ``limit_req`` counts and forwards; its own 429s (no ``Retry-After``)
are counted apart from the app's.

The attackers run in a process of their own, started each flooded spell, so that their
threads do not hold the bystander's interpreter lock; they share the machine's cores with the
server and the bystander all the same.

``--nginx-rate '25r/s burst=50 delay=10'``: the rate and the burst of nginx's per-address
zone of the requests other than moves (``daily_other``) set so in the rendered copy (a
what-if: deploy/nginx.conf itself is not changed).

``--pin``: the server side (redis-server, gunicorn, the bystander) on core 1 and the flood's
side (its process, nginx) on core 0, so that the load generator does not take the server's
core (other work on the machine still shares both).

``--ruleset`` is the solo game the attackers finish and analyse (its table must be in
``$DAILY_CACHE``; ``yatzy`` builds in seconds, ``maxi`` takes minutes once).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from servers import free_port, redis_server, table_of

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.ops.nginxsite import available, nginx  # noqa: E402

BIN = Path(sys.executable).parent
SECRET = "bench-flood-" + "s" * 40
ATTACKERS = ("198.51.100.7", "203.0.113.9")
#: Requests a second an attacking address sends: its ``pages`` limit (20 a second).
ATTACKS_PER_SECOND = 20
BYSTANDER = "192.0.2.44"


class Target(NamedTuple):
    """Where the clients send: gunicorn's port (naming their address in ``X-Forwarded-For``,
    as a trusted proxy would), or nginx's (each connecting from its loopback address)."""

    port: int
    via_nginx: bool = False


def loopback(address: str) -> str:
    """The loopback address a client of *address* connects from through nginx: 127.B.C.D
    (Linux answers on all of 127.0.0.0/8), so that addresses of one /24 stay in one."""
    return "127." + address.split(".", 1)[1]


def ask(to: Target, method: str, path: str, address: str, body: Any = None,
        token: str | None = None) -> tuple[int, Any, bool]:  # fmt: skip
    """One request from *address*: its status, its JSON (None if not JSON), and whether a
    429 came from nginx (which sends no ``Retry-After``; the app always does)."""
    source = (loopback(address), 0) if to.via_nginx else None
    connection = http.client.HTTPConnection("127.0.0.1", to.port, timeout=30,
                                            source_address=source)  # fmt: skip
    headers = {"Content-Type": "application/json"}
    if not to.via_nginx:
        headers["X-Forwarded-For"] = address
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        raw = response.read()
        by_nginx = response.status == 429 and response.getheader("Retry-After") is None
        try:
            return response.status, json.loads(raw or b"null"), by_nginx
        except ValueError:
            return response.status, None, by_nginx
    finally:
        connection.close()


def call(to: Target, method: str, path: str, address: str, body: Any = None,
         token: str | None = None) -> tuple[int, Any]:  # fmt: skip
    """One request from *address*; its status and JSON."""
    status, answer, _ = ask(to, method, path, address, body, token)
    return status, answer


def player(port: Target, address: str) -> str:
    status, answer = call(port, "POST", "/api/v1/players", address, {"name": "Bench"})
    assert status == 201, answer
    return str(answer["token"])


def finish(port: Target, address: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    """Starts a game and plays it out, scoring the first open row each turn."""
    status, state = call(port, "POST", "/api/v1/games", address, body, token)
    assert status == 201, state
    while not state["finished"]:
        row = next(iter(state["potential"]))
        status, changed = call(port, "POST", f"/api/v1/games/{state['id']}/score", address,
                               {"category": row}, token)  # fmt: skip
        assert status == 200, changed
        status, state = call(port, "GET", f"/api/v1/games/{state['id']}", address, None, token)
    return dict(state)


class Attacker:
    """One address of its own with a finished game to analyse and one under way to hint."""

    def __init__(self, port: Target, address: str, ruleset: str) -> None:
        self.port, self.address = port, address
        self.token = player(port, address)
        self.done = finish(port, address, self.token, {"mode": "solo", "ruleset": ruleset})
        status, self.open = call(port, "POST", "/api/v1/games", address,
                                 {"mode": "solo", "ruleset": ruleset}, self.token)  # fmt: skip
        assert status == 201, self.open
        self.served = self.refused = self.stopped = self.shed = self.sent = 0
        self.lock = threading.Lock()

    def paths(self) -> list[str]:
        """A second's requests at the address's limits: 20 (``pages``), of which 2 analyses
        and 5 hints (their own limits), the rest the day's distribution and the player's
        history and figures."""
        done, under_way = self.done["id"], self.open["id"]
        return ([f"/api/v1/games/{done}/analysis"] * 2 + [f"/api/v1/games/{under_way}/hint"] * 5
                + ["/api/v1/daily/2026-12-03/distribution"] * 5 + ["/me/history"] * 4
                + ["/me"] * 4)  # fmt: skip

    def flood(self, until: float, interval: float) -> None:
        """Sends the :meth:`paths` in turn until *until*, one every *interval* seconds from
        this thread (0: as fast as it can)."""
        paths = self.paths()
        while time.monotonic() < until:
            started = time.monotonic()
            with self.lock:
                path = paths[self.sent % len(paths)]
                self.sent += 1
            status, _, by_nginx = ask(self.port, "GET", path, self.address, None, self.token)
            with self.lock:
                if by_nginx:  # deploy/nginx.conf's limit_req
                    self.stopped += 1
                elif status == 429:
                    self.refused += 1
                elif status == 503:  # shed by the admission control (daily.web.admission)
                    self.shed += 1
                else:
                    self.served += 1
            time.sleep(max(0.0, interval - (time.monotonic() - started)))


#: Seconds from one of the bystander's moves to the next: a brisk player, under its address's
#: budget of moves (20 a second, 600 a minute) over a quiet and a flooded round.
PACE = 0.15


def bystander(port: Target, seconds: float) -> list[float]:
    """Plays dailies move by move for *seconds*, each from a new player, a move every
    :data:`PACE` seconds; each move's seconds."""
    times: list[float] = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        token = player(port, BYSTANDER)
        status, state = call(port, "POST", "/api/v1/games", BYSTANDER, {"mode": "daily"}, token)
        assert status == 201, state
        while not state["finished"] and time.monotonic() < until:
            row = next(iter(state["potential"]))
            started = time.perf_counter()
            status, changed = call(port, "POST", f"/api/v1/games/{state['id']}/score",
                                   BYSTANDER, {"category": row}, token)  # fmt: skip
            times.append(time.perf_counter() - started)
            assert status == 200, changed
            time.sleep(max(0.0, PACE - times[-1]))
            state = {**state, **changed, "potential": changed.get("potential", {})}
            if not state["potential"] and not state["finished"]:
                status, state = call(port, "GET", f"/api/v1/games/{state['id']}", BYSTANDER,
                                     None, token)  # fmt: skip
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def serve(env: dict[str, str], config: Path) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn with *config* on a free port, answering; the process and its port."""
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "--config", str(config), "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT, env={**env, "PORT": str(port)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(200):
        try:
            call(Target(port), "GET", "/healthz", BYSTANDER)
            break
        except OSError:
            time.sleep(0.1)
    return server, port


def lifted() -> Path:
    """gunicorn.conf.py with each worker's admission control lifted (``--compare``)."""
    path = Path(tempfile.mkdtemp(prefix="bench-flood-")) / "lifted.conf.py"
    shipped = ROOT / "gunicorn.conf.py"
    path.write_text(
        f"exec(compile(open({str(shipped)!r}).read(), {str(shipped)!r}, 'exec'))\n"
        "def post_worker_init(worker):\n"
        "    from daily.web import admission\n"
        "    admission.RUNNING.update(dict.fromkeys(admission.Lane, 100_000))\n"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--threads", type=int, default=8, help="threads per attacker")
    parser.add_argument("--ruleset", default="yatzy")
    parser.add_argument("--beyond", action="store_true",
                        help="attackers send as fast as they can, far past their limits "
                        "(a flood for a proxy to stop), not at their limits")  # fmt: skip
    parser.add_argument("--addresses", type=int, default=0,
                        help="attackers from this many addresses of one /24 (default: 2 "
                        "addresses of two networks)")  # fmt: skip
    parser.add_argument("--nginx", action="store_true",
                        help="also through deploy/nginx.conf in front of the same server, "
                        "rounds alternating between the two")  # fmt: skip
    parser.add_argument("--nginx-rate", metavar="'25r/s burst=50 delay=10'",
                        help="with --nginx: this per-address limit_req instead of "
                        "deploy/nginx.conf's (a what-if; the file is not changed)")  # fmt: skip
    parser.add_argument("--pin", action="store_true",
                        help="redis-server, gunicorn and the bystander on core 1, the flood's "
                        "process and nginx on core 0 (a 2-core machine split in two)")  # fmt: skip
    parser.add_argument("--compare", action="store_true",
                        help="also a server whose admission control is lifted, rounds "
                        "alternating between the two")  # fmt: skip
    args = parser.parse_args()
    if args.nginx and not available():
        raise SystemExit("--nginx needs nginx (Debian's nginx package)")
    print(f"load before: {os.getloadavg()[0]:.1f}")
    if args.pin:  # redis-server, gunicorn and the bystander on the last core (inherited)
        os.sched_setaffinity(0, {SERVER_CORE})
    # The attackers' ruleset's table, signed with this bench's secret (yatzy: seconds).
    os.environ.setdefault("DAILY_CACHE", tempfile.mkdtemp(prefix="bench-flood-"))
    os.environ["SECRET_KEY"] = SECRET
    try:
        table_of(args.ruleset)
    except Exception:  # missing, or signed with another secret: build it here
        os.environ["DAILY_CACHE"] = tempfile.mkdtemp(prefix="bench-flood-")
        table_of(args.ruleset, build=True)
    with redis_server() as url:
        env = {**os.environ, "REDIS_URL": url, "SECRET_KEY": SECRET, "DAILY_ENV": "development",
               "DAILY_NOW": "2026-12-03T12:00:00", "DAILY_TRUSTED_PROXIES": "127.0.0.1",
               "DAILY_TABLES": ""}  # fmt: skip
        # Generous budgets for the bystander's own new players and dailies (one address).
        env |= {"DAILY_LIMIT_PLAYERS": "100000 per hour",
                "DAILY_LIMIT_NETWORK_PLAYERS": "100000 per hour",
                "DAILY_LIMIT_DAILIES": "100000 per day",
                "DAILY_LIMIT_NETWORK_DAILIES": "100000 per day"}  # fmt: skip
        configs = {"shipped": ROOT / "gunicorn.conf.py"}
        if args.compare:
            configs["gate lifted"] = lifted()
        with ExitStack() as stack:
            targets: dict[str, Target] = {}
            for name, config in configs.items():
                server, port = serve(env, config)
                stack.callback(server.wait, 30)
                stack.callback(server.terminate)
                targets[name] = Target(port)
                if args.nginx:
                    folder = Path(tempfile.mkdtemp(prefix="bench-flood-nginx-"))
                    targets[f"{name} through nginx"] = Target(
                        stack.enter_context(pinned(nginx(port, folder, args.nginx_rate), args)),
                        via_nginx=True,
                    )
            addresses = (
                ATTACKERS
                if not args.addresses
                else [f"198.51.100.{n}" for n in range(1, args.addresses + 1)]
            )  # one /24
            attackers = {name: [Attacker(to, a, args.ruleset) for a in addresses]
                         for name, to in targets.items()}  # fmt: skip
            for to in targets.values():
                bystander(to, 3.0)  # warm the workers (and nginx's connections to them)
            run_rounds(targets, attackers, args)
    print(f"load after: {os.getloadavg()[0]:.1f}")


def run_rounds(
    targets: dict[str, Target], attackers: dict[str, list[Attacker]], args: argparse.Namespace
) -> None:
    ratios: dict[str, list[float]] = {name: [] for name in targets}
    cpu = dict.fromkeys(targets, 0.0)
    for n in range(args.rounds):
        for name, to in targets.items():  # the servers alternate within each round
            ratio, spent = one_round(to, attackers[name], args)
            ratios[name].append(ratio)
            cpu[name] += spent
            print(f"round {n + 1}, {name}: ratio {ratio:.2f}", flush=True)
    for name, found in ratios.items():
        served = sum(a.served for a in attackers[name])
        refused = sum(a.refused for a in attackers[name])
        stopped = sum(a.stopped for a in attackers[name])
        shed = sum(a.shed for a in attackers[name])
        print(f"{name}: attackers' requests {served} served, {refused} refused by the app (429), "
              f"{stopped} by nginx (429), {shed} shed (503); flooded / quiet p50: median "
              f"{statistics.median(found):.2f} (rounds {min(found):.2f} to {max(found):.2f}; "
              "aim: at most 2)")  # fmt: skip
        flooding = args.rounds * args.seconds
        print(f"  the flood's own process: {cpu[name]:.1f} CPU seconds over {flooding:.0f} s "
              f"flooded ({cpu[name] / flooding:.2f} of the machine's {os.cpu_count()} "
              "cores)")  # fmt: skip


#: ``--pin``: the cores the server side (redis-server, gunicorn, the bystander) and the flood's
#: side (its process, nginx) run on.
SERVER_CORE, FLOOD_CORE = 1, 0


@contextmanager
def pinned(started: AbstractContextManager[int], args: argparse.Namespace) -> Iterator[int]:
    """Enters *started* (nginx) on the flood's core when ``--pin``, then comes back."""
    if args.pin:
        os.sched_setaffinity(0, {FLOOD_CORE})
    try:
        value = started.__enter__()
    finally:
        if args.pin:
            os.sched_setaffinity(0, {SERVER_CORE})
    try:
        yield value
    finally:
        started.__exit__(None, None, None)


def flood(attackers: list[Attacker], args: argparse.Namespace, until: float,
          counts: Any) -> None:  # fmt: skip
    """The attackers' threads until *until* (in a process of its own); puts each attacker's
    served, refused, stopped and shed counts on the queue *counts*, with the CPU seconds
    this process spent (the load generator's share of the cores the server also runs on)."""
    if args.pin:
        os.sched_setaffinity(0, {FLOOD_CORE})
    # At the limits: each address sends its 20 requests a second over its threads.
    interval = 0.0 if args.beyond else args.threads / ATTACKS_PER_SECOND
    for a in attackers:
        a.served = a.refused = a.stopped = a.shed = 0
    threads = [threading.Thread(target=a.flood, args=(until, interval))
               for a in attackers for _ in range(args.threads)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts.put((time.process_time(), [(a.served, a.refused, a.stopped, a.shed) for a in attackers]))


def one_round(
    to: Target, attackers: list[Attacker], args: argparse.Namespace
) -> tuple[float, float]:
    """A quiet spell and a flooded one; the flooded / quiet ratio of the move p50s, and the
    CPU seconds the flood's process spent."""
    quiet = bystander(to, args.seconds)
    until = time.monotonic() + args.seconds  # monotonic is system-wide: the child shares it
    context = multiprocessing.get_context("fork")
    counts = context.Queue()
    process = context.Process(target=flood, args=(attackers, args, until, counts))
    process.start()
    flooded = bystander(to, args.seconds)
    spent, found = counts.get(timeout=120)
    for a, (served, refused, stopped, shed) in zip(attackers, found, strict=True):
        a.served, a.refused, a.stopped, a.shed = (a.served + served, a.refused + refused,
                                                  a.stopped + stopped, a.shed + shed)  # fmt: skip
    process.join(30)
    print(
        f"  quiet p50 {1000 * statistics.median(quiet):.1f} ms "
        f"p95 {1000 * percentile(quiet, 0.95):.1f} ms ({len(quiet)} moves); flooded "
        f"p50 {1000 * statistics.median(flooded):.1f} ms p95 "
        f"{1000 * percentile(flooded, 0.95):.1f} ms ({len(flooded)} moves); the flood's "
        f"process {spent:.1f} CPU s",
        flush=True,
    )
    return statistics.median(flooded) / statistics.median(quiet), spent


if __name__ == "__main__":
    main()
