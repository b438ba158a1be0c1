"""The shipped gunicorn.conf.py: its settings, slow clients, and metrics over several workers."""

from __future__ import annotations

import logging
import os
import runpy
import shutil
import signal
import time
import types
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from gunicorn.config import Config
from prometheus_client.parser import text_string_to_metric_families

from tests.ops.procs import wait_until
from tests.ops.slowclients import (
    OLD,
    ROOT,
    SHIPPED,
    gunicorn,
    probe,
    probe_once,
    redis_server,
    slow_clients,
)

CONF = ROOT / "gunicorn.conf.py"
TOKEN = "metrics-token-" + "g" * 24
HEALTHZ = ("daily_http_requests_total", "health.healthz", "GET", "200")


def read_conf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> dict[str, Any]:
    """The settings gunicorn.conf.py gives under *env* (the process environment is restored)."""
    # Given, so that reading the file makes no folder and the variable goes away afterwards.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    for name in (
        "WEB_CONCURRENCY",
        "DAILY_THREADS",
        "DAILY_TRUSTED_PROXIES",
        "FORWARDED_ALLOW_IPS",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return {k: v for k, v in runpy.run_path(str(CONF)).items() if not k.startswith("_")}


def test_every_name_in_the_conf_is_a_gunicorn_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = read_conf(monkeypatch, tmp_path)
    config = Config()
    # gunicorn skips names that are not settings: a misspelt one would be lost silently.
    imported = types.ModuleType | type
    names = [n for n, value in settings.items() if not isinstance(value, imported)]
    names.remove("annotations")  # from __future__
    assert [name for name in names if name not in config.settings] == []
    assert {"on_starting", "child_exit"} <= set(names)
    for name, value in settings.items():
        if name in config.settings:
            config.set(name, value)  # gunicorn's own validation
    assert (config.workers, config.worker_class_str, config.threads) == (2, "gthread", 32)
    assert config.forwarded_allow_ips == []  # no proxy: nobody may claim https for a client
    assert config.accesslog is None  # the app writes the one access line


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"WEB_CONCURRENCY": "5", "DAILY_THREADS": "8"}, (5, 8, "")),
        ({"DAILY_TRUSTED_PROXIES": "10.0.0.2, 10.1.0.0/16"}, (2, 32, "10.0.0.2,10.1.0.0/16")),
        ({"DAILY_TRUSTED_PROXIES": ""}, (2, 32, "")),
        (
            {"DAILY_TRUSTED_PROXIES": "10.0.0.2", "FORWARDED_ALLOW_IPS": "10.0.0.0/8"},
            (2, 32, "10.0.0.0/8"),
        ),
    ],
    ids=["concurrency", "behind-a-proxy", "no-proxy", "explicit-addresses"],
)
def test_the_conf_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], expected: tuple[Any, ...]
) -> None:
    settings = read_conf(monkeypatch, tmp_path, **env)
    assert (settings["workers"], settings["threads"], settings["forwarded_allow_ips"]) == expected


@pytest.mark.parametrize("bad", ["0", "two", "-1"])
def test_a_bad_worker_count_stops_gunicorn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bad: str
) -> None:
    with pytest.raises(SystemExit, match="WEB_CONCURRENCY must be a positive whole number"):
        read_conf(monkeypatch, tmp_path, WEB_CONCURRENCY=bad)


@pytest.mark.parametrize("bad", ["1", "proxy.example", "10.0.0.300"])
def test_proxies_are_named_by_address(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      bad: str) -> None:  # fmt: skip
    with pytest.raises(SystemExit, match="names the proxies by address or CIDR"):
        read_conf(monkeypatch, tmp_path, DAILY_TRUSTED_PROXIES=bad)


def test_gunicorns_log_lines_carry_no_token(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = read_conf(monkeypatch, tmp_path)
    settings["on_starting"](None)
    # gunicorn's access line (--access-logfile): its format with a mapping of atoms.
    atoms = {"h": "198.51.100.7", "r": "GET /signin/eyJhIjoxfQ.ZmK9.abc HTTP/1.1", "s": "200"}
    with caplog.at_level(logging.INFO, logger="gunicorn.access"):
        logging.getLogger("gunicorn.access").info('%(h)s "%(r)s" %(s)s', atoms)
    assert caplog.messages == ['198.51.100.7 "GET /signin/[redacted] HTTP/1.1" 200']


@pytest.fixture
def redis_url(tmp_path: Path) -> Any:
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    with redis_server(tmp_path) as url:
        yield url


def app_env(redis_url: str, **more: str) -> dict[str, str]:
    return {"REDIS_URL": redis_url, "SECRET_KEY": "ops-secret-" + "o" * 32,
            "DAILY_ENV": "development", "DAILY_LIMIT_PAGES": "off", **more}  # fmt: skip


@pytest.mark.slow
@pytest.mark.redis
def test_healthz_answers_while_24_slow_clients_trickle(redis_url: str, tmp_path: Path) -> None:
    temp = tmp_path / "temp"  # where gunicorn.conf.py makes its metrics folder
    temp.mkdir()
    with gunicorn(SHIPPED, app_env(redis_url, TMPDIR=str(temp))) as (_, port):
        assert [p.name[:14] for p in temp.glob("daily-metrics-*")] == ["daily-metrics-"]
        with slow_clients(port, 24, every=2.0, lasting=12.0) as connected:
            assert connected == 24
            time.sleep(0.5)  # the server takes them in
            results = probe(port, count=4, every=1.0, timeout=3.0)
    assert None not in results, results
    assert max(r for r in results if r is not None) < 2.0
    assert list(temp.glob("daily-metrics-*")) == []  # removed when gunicorn stopped


@pytest.mark.slow
@pytest.mark.redis
def test_one_sync_worker_is_stopped_by_one_slow_client(redis_url: str) -> None:
    # The old Procfile's configuration, so the check above is known to catch a stall.
    with gunicorn(OLD, app_env(redis_url)) as (_, port):
        with slow_clients(port, 1, every=1.0, lasting=5.0):
            assert probe_once(port, timeout=2.0) is None


def scrape(port: int) -> dict[tuple[str, ...], float]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    request.add_header("Authorization", f"Bearer {TOKEN}")
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    keys = ("endpoint", "method", "status")
    return {
        (s.name, *(s.labels.get(key, "") for key in keys)): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def workers_of(process: Any) -> list[int]:
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    return [int(pid) for pid in children.read_text().split()]


@pytest.mark.slow
@pytest.mark.redis
def test_metrics_add_up_over_workers_and_outlive_a_killed_one(
    redis_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_1.db").write_bytes(b"stale")  # an earlier run's: wiped at the start
    env = app_env(redis_url, DAILY_METRICS_TOKEN=TOKEN, WEB_CONCURRENCY="2",
                  PROMETHEUS_MULTIPROC_DIR=str(folder))  # fmt: skip
    with gunicorn(SHIPPED, env) as (process, port):
        wait_until(lambda: len(workers_of(process)) == 2, "two workers")
        probes = []

        def both_counted() -> bool:  # each worker has written its file once it answered
            probes.append(probe_once(port, timeout=5.0))
            assert probes[-1] is not None
            pids = {int(f.stem.rpartition("_")[2]) for f in folder.glob("counter_*.db")}
            assert 1 not in pids
            return set(workers_of(process)) <= pids

        wait_until(both_counted, "requests answered by both workers", timeout=30)
        counts: set[float] = set()

        def steady() -> bool:  # whichever worker answers; a late probe may still land
            counts.clear()
            counts.update(scrape(port)[HEALTHZ] for _ in range(8))
            return len(counts) == 1

        wait_until(steady, "one count from whichever worker answers", timeout=30)
        # Both workers answered: only the sum over them counts every probe (and the first
        # one that found gunicorn ready).
        assert counts.pop() >= len(probes) + 1
        before = scrape(port)[HEALTHZ]
        victim = workers_of(process)[0]
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: victim not in workers_of(process) and len(workers_of(process)) == 2,
                   "a new worker")  # fmt: skip
        assert scrape(port)[HEALTHZ] >= before  # a dead worker's counts still count
