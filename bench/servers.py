"""What the benches share: a free loopback port, a throw-away redis-server, and the strategy
tables of the cache folder that this environment's settings name.

The benches run as scripts (``python bench/bench_x.py``), so this folder is on their path
and they import it as ``servers``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from daily.core.config import load
from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.strategy.solver import Table
from daily.tables import builder
from daily.tables.files import Site
from daily.tables.loader import load_table


def site(cache: Path | None = None) -> Site:
    """Where this environment keeps its tables (``DAILY_CACHE``, ``SECRET_KEY``: as ``daily
    solve`` built them), or the folder *cache*."""
    return Site.of(load(cache_dir=cache) if cache else load())


def table_of(ruleset_id: str, cache: Path | None = None, *, build: bool = False) -> Table:
    """The table of *ruleset_id* in :func:`site`, checked; built first when *build* and it
    is missing (a few seconds for 5 dice; ``daily solve maxi`` builds Maxi's)."""
    model, where = model_of(find_ruleset(ruleset_id)), site(cache)
    if build:
        builder.build(model, where, workers=os.cpu_count() or 1)
    return load_table(model, where)


def free_port() -> int:
    """A TCP port free on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def redis_server(*options: str) -> Iterator[str]:
    """A redis-server on loopback that saves nothing (plus *options*), answering; its URL."""
    if not shutil.which("redis-server"):
        raise SystemExit("the bench needs redis-server (.ci/run installs it)")
    folder = tempfile.mkdtemp(prefix="bench-redis-")
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", folder, *options],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
