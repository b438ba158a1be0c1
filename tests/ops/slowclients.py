"""Slow clients against a real gunicorn: the harness of tests/ops/test_gunicorn.py and its bench.

A slow client opens a connection, sends a request line, then one header line every few
seconds and never ends its headers: a server that gives it a worker (or a thread) for the
whole time runs out of them. While they trickle, :func:`probe` times ``GET /healthz`` on
fresh connections.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.ops.procs import wait_until
from tests.redis_servers import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
#: The shipped configuration; the old one was gunicorn's defaults (one sync worker).
SHIPPED = ["--config", str(ROOT / "gunicorn.conf.py")]
OLD = ["--config", "/dev/null", "daily:create_app()"]


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A throw-away redis-server on loopback; yields its URL."""
    import redis

    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        client = redis.Redis(port=port)
        wait_until(client.ping, "redis-server answering")
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def gunicorn(
    args: Sequence[str], env: dict[str, str]
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """gunicorn with *args* on a free loopback port, ready; yields the process and the port."""
    port = free_port()
    process = subprocess.Popen(
        [str(BIN / "gunicorn"), *args, "--bind", f"127.0.0.1:{port}", "--chdir", str(ROOT)],
        env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until(lambda: probe_once(port, 2.0) is not None, "gunicorn answering", timeout=60)
        yield process, port
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def probe_once(port: int, timeout: float) -> float | None:
    """Seconds one ``GET /healthz`` took on a new connection; None if it failed or timed out."""
    started = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(max(0.01, timeout - (time.perf_counter() - started)))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
    except OSError:
        return None
    if not answer.startswith(b"HTTP/1.1 200"):
        return None
    return time.perf_counter() - started


def probe(port: int, count: int, every: float, timeout: float) -> list[float | None]:
    """Times *count* probes, one every *every* seconds."""
    results = []
    for _ in range(count):
        started = time.monotonic()
        results.append(probe_once(port, timeout))
        time.sleep(max(0.0, every - (time.monotonic() - started)))
    return results


@contextmanager
def slow_clients(port: int, count: int, every: float, lasting: float) -> Iterator[int]:
    """*count* connections that each send a header line every *every* s for *lasting* s.

    Yields how many connected; every socket is closed when the block ends or time is up.
    """
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: slow\r\n")
        sockets.append(s)
    stop = threading.Event()

    def trickle() -> None:
        deadline = time.monotonic() + lasting
        line = 0
        while not stop.wait(every) and time.monotonic() < deadline:
            line += 1
            for s in sockets:
                try:
                    s.sendall(f"X-Slow-{line}: {line}\r\n".encode())
                except OSError:
                    pass  # the server gave up on it: fine

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        yield len(sockets)
    finally:
        stop.set()
        thread.join(every + 5)
        for s in sockets:
            s.close()
