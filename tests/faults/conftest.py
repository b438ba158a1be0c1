"""Fault fixtures: a redis-server we may kill and restart, and gunicorn whose workers we kill."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.ops.procs import wait_until
from tests.redis_servers import free_port

NOW = "2026-12-03T12:00:00+00:00"


@dataclass
class RedisProcess:
    """A redis-server with an append-only file fsynced on every write, on a fixed port."""

    folder: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "always",
             "--save", ""],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port)
        wait_until(lambda: client.ping(), "redis-server start")
        client.close()

    def kill(self) -> None:
        """Kills the server at once (SIGKILL): no shutdown save, only what the AOF holds."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(5)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(5)


@pytest.fixture
def redis_process(tmp_path: Path) -> Iterator[RedisProcess]:
    """A persistent redis-server of the test's own, killed at the end."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    server = RedisProcess(tmp_path)
    server.start()
    yield server
    server.stop()


@dataclass
class Gunicorn:
    """gunicorn serving the app with two workers on loopback."""

    process: subprocess.Popen[bytes]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def kill_workers(self) -> None:
        for pid in self.workers():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def wait_ready(self) -> None:
        wait_until(lambda: len(self.workers()) == 2 and self.call("GET", "/healthz")[0] == 200,
                   "two healthy gunicorn workers", timeout=60)  # fmt: skip

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


@pytest.fixture
def gunicorn(redis_process: RedisProcess, tmp_path: Path) -> Iterator[Gunicorn]:
    """gunicorn (2 workers, app preloaded so a killed worker comes back at once)."""
    port = free_port()
    env = {
        **os.environ,
        "DAILY_ENV": "testing",
        "SECRET_KEY": "fault-secret-" + "f" * 32,
        "REDIS_URL": redis_process.url,
        "DAILY_NOW": NOW,
        "DAILY_LIMIT_PAGES": "off",
        "DAILY_LIMIT_MOVES": "off",
        "DAILY_DATA": str(tmp_path / "data"),
    }
    gunicorn_bin = Path(sys.executable).parent / "gunicorn"
    process = subprocess.Popen(
        [str(gunicorn_bin), "--workers", "2", "--bind", f"127.0.0.1:{port}", "--preload",
         "--graceful-timeout", "1", "daily:create_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    server = Gunicorn(process, port)
    try:
        server.wait_ready()
        yield server
    finally:
        process.terminate()
        process.wait(10)
