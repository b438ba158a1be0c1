"""What the benches share: a free loopback port and a throw-away redis-server.

The benches run as scripts (``python bench/bench_x.py``), so this folder is on their path
and they import it as ``servers``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis


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
