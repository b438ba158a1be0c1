"""deploy/nginx.conf in front of gunicorn (gunicorn.conf.py) and redis-server: the static
files served by nginx, the forwarded address the app trusts (a client cannot spoof it), and
the flood limit that a class behind one address never meets."""

from __future__ import annotations

import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.ops.nginxsite import available, nginx
from tests.ops.slowclients import ROOT, SHIPPED, gunicorn, redis_server

pytestmark = [pytest.mark.slow, pytest.mark.redis]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[int]:
    """redis-server, gunicorn as the Procfile runs it, and nginx in front: nginx's port."""
    if not (shutil.which("redis-server") and available()):
        pytest.skip("redis-server and nginx are needed (.ci/run installs them)")
    env = {"SECRET_KEY": "ops-secret-" + "o" * 32, "DAILY_ENV": "development",
           "DAILY_TRUSTED_PROXIES": "127.0.0.1", "DAILY_LIMIT_PLAYERS": "1 per hour",
           "DAILY_TABLES": "", "WEB_CONCURRENCY": "1", "DAILY_THREADS": "8"}  # fmt: skip
    with redis_server(tmp_path) as url, gunicorn(SHIPPED, {**env, "REDIS_URL": url}) as (_, app):
        with nginx(app, tmp_path) as port:
            yield port


def get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    return call(port, "GET", path, None, headers)


def call(port: int, method: str, path: str, body: bytes | None,
         headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", body, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def test_static_files_come_from_nginx_and_pages_from_the_app(stack: int) -> None:
    status, headers, body = get(stack, "/static/site.css")
    assert status == 200 and body == (ROOT / "daily" / "static" / "site.css").read_bytes()
    assert headers["Cache-Control"].startswith("max-age=3600")  # nginx's expires, not the app's
    assert "Content-Security-Policy" not in headers  # the app never saw it
    status, headers, _ = get(stack, "/rules/maxi")
    assert status == 200 and "Content-Security-Policy" in headers
    assert "nginx/" not in headers.get("Server", "")  # server_tokens off


def test_the_app_counts_the_address_nginx_saw_not_one_a_client_wrote(stack: int) -> None:
    def new_player(forged: str) -> tuple[int, Any]:
        status, _, body = call(
            stack,
            "POST",
            "/api/v1/players",
            b'{"name": "Ana"}',
            {"Content-Type": "application/json", "X-Forwarded-For": forged},
        )
        return status, body

    assert new_player("198.51.100.1")[0] == 201
    status, body = new_player("198.51.100.2")  # a forged address gets no fresh allowance
    assert status == 429 and b'"altcha"' in body


def test_a_flood_meets_nginx_and_a_class_does_not(stack: int) -> None:
    # A class: 150 requests a second for two seconds (120 pupils at a move every 0.8 s).
    statuses: list[int] = []
    lock = threading.Lock()

    def paced(n: int) -> None:
        time.sleep(n / 150)
        status = get(stack, "/static/icon.svg")[0]
        with lock:
            statuses.append(status)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(paced, range(300)))
    assert statuses.count(200) == 300, sorted(set(statuses))
    time.sleep(2.5)  # the address's bucket drains
    # A flood: as fast as 16 connections can ask, far past the rate and its burst.
    with ThreadPoolExecutor(16) as pool:
        flood = list(pool.map(lambda n: get(stack, "/static/icon.svg")[0], range(2500)))
    assert set(flood) <= {200, 429} and flood.count(429) > 0, (flood.count(200), len(flood))


def test_requests_other_than_moves_are_held_to_a_pace_not_refused(stack: int) -> None:
    # deploy/nginx.conf's second zone: 40 requests a second an address, the first 200 over
    # it at once, the next 1,000 held in nginx. /healthz is under it and has no limit in the
    # app, so every answer here is nginx's doing.
    # A class pressing Play together: 240 requests at 60 a second, all served.
    def load(at: float) -> int:
        time.sleep(max(0.0, at - time.monotonic()))
        return get(stack, "/healthz")[0]

    with ThreadPoolExecutor(16) as pool:
        started = time.monotonic()
        loads = list(pool.map(load, [started + n / 60 for n in range(240)]))
    assert loads.count(200) == 240, sorted(set(loads))
    time.sleep(3)  # the address's bucket drains (80 over the rate, at 40 a second)
    # A flood: 16 connections as fast as they can for 3 seconds. Held, never refused, it
    # reaches the app at the zone's pace: the 200 let through at once and 40 a second.
    answered: list[int] = []
    until = time.monotonic() + 3

    waits: list[float] = []

    def flood() -> None:
        while time.monotonic() < until:
            asked = time.monotonic()
            status = get(stack, "/healthz")[0]
            with lock:
                answered.append(status)
                waits.append(time.monotonic() - asked)

    lock = threading.Lock()
    threads = [threading.Thread(target=flood) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(answered) == {200}, sorted(set(answered))
    assert 200 <= len(answered) <= 200 + 40 * 3 + 16 + 40, len(answered)
    # A move has its address's zone alone: sent while the flood's reads wait their turn in
    # nginx, it reaches the app at once (a 404: no such game).
    until, waits[:] = time.monotonic() + 1.5, []
    threads = [threading.Thread(target=flood) for _ in range(16)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    json_body = {"Content-Type": "application/json"}
    asked = time.monotonic()
    status, _, _ = call(stack, "POST", "/api/v1/games/none/roll", b'{"hold": []}', json_body)
    took = time.monotonic() - asked
    for thread in threads:
        thread.join()
    assert status == 404 and took < 1.0 and max(waits) > 0.25, (status, took, max(waits))
