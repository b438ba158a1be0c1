"""What each route costs: the app's CPU and the Redis bytes of one request, per endpoint.

Every endpoint is called the way tests/web/test_costs.py's walk calls it (one player with a
finished daily, a solo game, a finished yacht game, a party game, a league), a few times to
warm up and then ``--requests`` times, on the embedded Redis with the limits off (the limits
are the cost test's subject, not this one's). CPU is this process's (``time.process_time``:
Redis's own work is not in it), the median of the requests, so that other load on the machine
blurs it less than a wall clock; bytes are Redis's ``used_memory`` growth over the requests,
per request. A route that uses up what it calls (a roll, a score) gets a fresh solo game
before each request, made outside the timing.

With ``--write`` the figures go to bench/costs.json with the date and the machine, and the
cost table in docs/operations.md is printed again from them (``costs.markdown``); the test
``tests/web/test_costs.py::test_each_measured_cost_is_within_its_class`` then checks each
route's measured CPU against its class's ceiling (``costs.CEILING_MS``).

Run: .venv/bin/python bench/bench_costs.py [--requests 30] [--write]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import servers

from daily import create_app
from daily.web import costs, routes
from daily.web.limits import DEFAULTS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.web.test_costs import NOON, RECIPES, REMINDERS, World  # noqa: E402

#: Where --write keeps the figures (read by the cost table's test and docs/operations.md).
RESULTS = ROOT / "bench" / "costs.json"
DOCS = ROOT / "docs" / "operations.md"
#: The routes whose recipe uses up the game it calls: a fresh game before each request.
USES_UP = {"api.roll", "api.score"}
#: The routes that end what the others call (the owner leaving ends the league): last.
ENDS = ("leagues.leave_form",)
#: The routes that a player may call a few times only (at most 10 leagues): a fresh player
#: before each request, so that each is the success and not the refusal.
NEW_PLAYER = {"leagues.create_league", "leagues.create_form"}


def machine() -> str:
    """The machine the figures were taken on, in words."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def measure(app: Any, world: World, endpoint: str, requests: int) -> dict[str, Any]:
    """One endpoint's median CPU ms and bytes per request, and the statuses it answered."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.9.0.1"
    headers = dict(world.headers)
    redis_client = app.extensions["daily.redis"]
    cpu: list[float] = []
    statuses: set[int] = set()
    grown = 0
    for n in range(requests + 3):
        if endpoint in USES_UP:
            world.__dict__.pop("solo", None)
        if endpoint in NEW_PLAYER:
            made = world.setup.post("/api/v1/players", json={"name": "Cy"}).get_json()
            headers = {"Authorization": f"Bearer {made['token']}"}
        method, path, kwargs = RECIPES[endpoint](world)
        if "metrics" in path:
            headers = {"Authorization": "Bearer m"}
        before = int(redis_client.info("memory")["used_memory"])
        began = time.process_time()
        response = client.open(path, method=method, headers=headers, **kwargs)
        response.get_data()
        spent = (time.process_time() - began) * 1000
        response.close()
        if n >= 3:  # after the warm-up: the first calls fill caches and compile templates
            cpu.append(spent)
            statuses.add(response.status_code)
            grown += int(redis_client.info("memory")["used_memory"]) - before
    return {
        "cpu_ms": round(statistics.median(cpu), 2),
        "bytes": max(0, round(grown / requests)),
        "statuses": sorted(statuses),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="keep the figures and the docs")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    logging.getLogger("daily.access").setLevel(logging.WARNING)  # a line a request
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "cache"
        for ruleset in ("yatzy", "yacht"):  # hints and the analysis use them (seconds each)
            servers.table_of(ruleset, cache, build=True)
        app = create_app({
            "env": "testing", "data_dir": Path(folder) / "data", "cache_dir": cache,
            "clock": lambda: NOON, "metrics_token": "m", **REMINDERS, "table_specs": (),
            # One client calls each route dozens of times: the limits would refuse it.
            "rate_limits": dict.fromkeys(DEFAULTS, "off"),
        })  # fmt: skip
        world = World(app.test_client())
        for made in ("daily", "solo", "yacht", "party", "league"):  # before any measure
            getattr(world, made)
        order = sorted(routes.rows(app), key=lambda e: (e in ENDS, e))
        measured = {e: measure(app, world, e, args.requests) for e in order}
        table = costs.markdown(routes.rows(app), {e: m["cpu_ms"] for e, m in measured.items()})
        app.extensions["daily.redis"].shutdown(nosave=True)  # before its folder goes
    print(f"{len(measured)} endpoints, {args.requests} requests each; load {load:.1f} at start")
    rows = routes.rows(app)
    for endpoint, m in sorted(measured.items()):
        cpu, ceiling = rows[endpoint].cpu, costs.CEILING_MS[rows[endpoint].cpu]
        over = "  OVER its class" if m["cpu_ms"] > ceiling else ""
        print(
            f"  {endpoint:<32} {cpu:<6} {m['cpu_ms']:>7.2f} ms CPU (at most {ceiling:g})"
            f" {m['bytes']:>7,} B  {m['statuses']}{over}"
        )
    if args.write:
        taken = {"date": datetime.now(UTC).date().isoformat(), "machine": machine(),
                 "load": round(load, 1), "requests": args.requests, "routes": measured}  # fmt: skip
        RESULTS.write_text(json.dumps(taken, indent=1, sort_keys=True) + "\n")
        write_docs(table, taken)
        print(f"wrote {RESULTS.relative_to(ROOT)} and the table of {DOCS.relative_to(ROOT)}")


def write_docs(table: str, taken: dict[str, Any]) -> None:
    """Replaces the cost table in docs/operations.md (between its markers) with *table*."""
    page = DOCS.read_text()
    start = "<!-- cost table: bench/bench_costs.py --write -->"
    end = "<!-- end of the cost table -->"
    head, rest = page.split(start, 1)
    _, tail = rest.split(end, 1)
    said = (f"Measured on {taken['date']} ({taken['machine']}; load {taken['load']}), "
            f"the median of {taken['requests']} requests per route:")  # fmt: skip
    DOCS.write_text(f"{head}{start}\n{said}\n\n{table}\n{end}{tail}")


if __name__ == "__main__":
    main()
