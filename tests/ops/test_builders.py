"""The table builder as an operator meets it: one a host, at a lower CPU priority, its progress
in ``/healthz`` and ``/metrics``, and gone when ``daily serve`` or gunicorn stops.

Real processes throughout, each server building ``maxi`` (a minute or two of both cores) into
a cache folder of its own; every test stops the build within seconds of its start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.tables import background
from daily.tables.loader import status
from tests.built_tables import site
from tests.ops.procs import is_gone, wait_until
from tests.ops.slowclients import SHIPPED, gunicorn, redis_server
from tests.redis_servers import free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

DAILY = Path(sys.executable).parent / "daily"
MAXI = find_ruleset("maxi")
TOKEN = "metrics-token-" + "b" * 24


def builders(cache: Path) -> set[int]:
    """Every process running the background builder on *cache* now (its workers too)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"daily.tables.background" in command and str(cache).encode() in command:
            found.add(int(entry.name))
    return found


def family(pid: int) -> set[int]:
    """*pid* and every process below it."""
    found = {pid}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found |= family(int(child))
    return found


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[16])


def building(cache: Path) -> bool:
    """Whether maxi's build in *cache* is under way (the solver's workers then run), far
    enough to show in ``/healthz`` (a tenth of a percent)."""
    return (status(model_of(MAXI), site(cache)).percent or 0.0) >= 0.1


def get_json(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    """``daily serve`` on its embedded Redis, building maxi into a fresh cache folder."""
    if not DAILY.exists():
        pytest.skip("the daily command is not installed in this environment")
    port, cache = free_port(), tmp_path / "cache"
    env = {**os.environ, "DAILY_DATA": str(tmp_path / "data"), "DAILY_ENV": "development",
           "DAILY_CACHE": str(cache), "DAILY_TABLES": "maxi"}  # fmt: skip
    env.pop("REDIS_URL", None)
    env.pop("DAILY_TABLES_URL", None)
    process = subprocess.Popen([str(DAILY), "serve", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_until(lambda: get_json(port, "/healthz")["status"] == "ok", "serve", timeout=60)
        yield process, port, cache
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        background.stop(cache)  # a failed test must leave no build behind


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_stops_its_builder(
    served: tuple[subprocess.Popen[bytes], int, Path], signum: int
) -> None:
    process, port, cache = served
    wait_until(lambda: building(cache), "maxi's build under way", timeout=120)
    pid = background.running(cache)
    assert pid is not None and pid in builders(cache)
    everyone = family(pid)
    assert len(everyone) > 1  # the builder and the solver's workers
    assert all(niceness(p) == niceness(process.pid) + background.NICE for p in everyone)
    maxi = next(t for t in get_json(port, "/healthz")["tables"] if t["ruleset"] == "maxi")
    assert maxi["state"] == "building" and maxi["percent"] > 0
    process.send_signal(signum)
    process.wait(60)
    wait_until(lambda: all(is_gone(p) for p in everyone), "the builder stopping", timeout=15)
    assert builders(cache) == set() and background.running(cache) is None
    assert status(model_of(MAXI), site(cache)).state == "missing"  # the next start builds it again


def test_gunicorn_starts_one_builder_a_host_and_stops_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    seen: set[int] = set()
    stop = threading.Event()

    def watch() -> None:  # every builder process that ever runs on this cache
        while not stop.is_set():
            seen.update(builders(cache))
            time.sleep(0.01)

    env = {"SECRET_KEY": "ops-secret-" + "o" * 32, "DAILY_ENV": "development",
           "DAILY_CACHE": str(cache), "DAILY_TABLES": "maxi", "WEB_CONCURRENCY": "3",
           "DAILY_METRICS_TOKEN": TOKEN, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}  # fmt: skip
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with (
            redis_server(tmp_path) as url,
            gunicorn(SHIPPED, {**env, "REDIS_URL": url}) as (
                process,
                port,
            ),
        ):
            wait_until(lambda: building(cache), "maxi's build under way", timeout=120)
            time.sleep(2.0)  # every worker has booted and asked for the tables by now
            pid = background.running(cache)
            assert pid is not None
            assert {p for p in seen if p not in family(pid)} == set()  # one builder, ever
            assert niceness(pid) == niceness(process.pid) + background.NICE
            percent = _scraped_percent(port)
            assert 0 < percent < 100
            everyone = family(pid)
            process.terminate()
            process.wait(60)
            wait_until(lambda: all(is_gone(p) for p in everyone), "the builder stopping", 15)
    finally:
        stop.set()
        watcher.join()
        background.stop(cache)
    assert builders(cache) == set()


def _scraped_percent(port: int) -> float:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    request.add_header("Authorization", f"Bearer {TOKEN}")
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    return next(
        s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == "daily_strategy_table_build_percent" and s.labels["ruleset"] == "maxi"
    )
