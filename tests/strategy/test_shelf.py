"""The tables' store several hosts share (``DAILY_TABLES_URL``): a folder, or a local S3
server (moto); each host a cache folder of its own. A table is built once, under a lease
every host sees, and fetched by every other host, never built there."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from daily.core.errors import TableBuildingError, TableStoreError
from daily.core.rules import find_ruleset
from daily.service import tables
from daily.strategy import background, builder, shelf
from daily.strategy.shelf import Shelf, open_shelf
from daily.strategy.solver import load_table, table_for, table_path

YACHT = find_ruleset("yacht")
OPTIMUM = 191.7743692


def builds() -> float:
    """How many builds of yacht's table this process has started (the metric)."""
    found = REGISTRY.get_sample_value(
        "daily_strategy_table_builds_started_total", {"ruleset": "yacht"}
    )
    return found or 0.0


def wait_for(check: object, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_folder_store_is_mapped_in_place(tmp_path: Path) -> None:
    store, one, two = tmp_path / "store", tmp_path / "one", tmp_path / "two"
    assert builder.obtain(YACHT, one, store=str(store)) == "built"  # the release step
    key = table_path(YACHT, one).stem
    names = sorted(p.name for p in store.iterdir())
    assert names == [f"{key}.{suffix}" for suffix in ("json", "lock", "npy")]
    before = builds()
    assert builder.fetch(YACHT, two, Shelf(str(store)))
    mapped = table_path(YACHT, two)
    assert mapped.is_symlink() and mapped.resolve() == (store / f"{key}.npy").resolve()
    assert load_table(YACHT, two).optimum == pytest.approx(OPTIMUM, abs=1e-7)
    assert builder.status(YACHT, two).state == "ready"
    assert builder.obtain(YACHT, tmp_path / "three", store=str(store)) == "fetched"
    assert builds() == before  # fetched twice, built by nobody


def test_a_table_built_once_is_fetched_by_every_other_host(tmp_path: Path, s3_store: str) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert builder.obtain(YACHT, one, store=s3_store) == "built"
    store = Shelf(s3_store)
    meta = store.meta(YACHT)
    assert meta is not None and meta["size"] == table_path(YACHT, one).stat().st_size
    assert not store.fs.exists(store.path(YACHT, "lock"))  # the lease is let go
    before, seen = builds(), []
    fetched = builder.obtain(YACHT, two, store=s3_store, progress=lambda d, t: seen.append(d / t))
    assert fetched == "fetched" and builds() == before
    assert not table_path(YACHT, two).is_symlink()
    assert table_path(YACHT, two).read_bytes() == table_path(YACHT, one).read_bytes()
    assert seen[-1] == 1.0 and builder.temp_files(YACHT, two) == []
    assert load_table(YACHT, two).optimum == pytest.approx(OPTIMUM, abs=1e-7)


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_download_that_does_not_match_its_checksum_is_thrown_away(
    tmp_path: Path, s3_store: str
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    builder.obtain(YACHT, one, store=s3_store)
    store = Shelf(s3_store)
    meta = {**(store.meta(YACHT) or {}), "sha256": "0" * 64}
    store.fs.pipe_file(store.path(YACHT, "json"), json.dumps(meta).encode())
    with pytest.raises(TableStoreError, match="does not match its checksum"):
        builder.fetch(YACHT, two, store)
    assert not table_path(YACHT, two).exists() and builder.temp_files(YACHT, two) == []
    assert builder.status(YACHT, two).state == "missing"


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_host_waits_for_another_hosts_build_and_fetches_it(
    tmp_path: Path, s3_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shelf, "POLL", 0.05)
    one, two = tmp_path / "one", tmp_path / "two"
    store = Shelf(s3_store)
    # Another host holds the lease, half-way through its build.
    lease = {"host": "elsewhere", "pid": 1, "beat": time.time(), "share": 0.5}
    store.fs.pipe_file(store.path(YACHT, "lock"), json.dumps(lease).encode())
    outcome: list[str] = []
    waiting = threading.Thread(
        target=lambda: outcome.append(builder.obtain(YACHT, two, store=s3_store))
    )
    waiting.start()
    # It waits, and shows the other host's progress as its own.
    wait_for(lambda: builder.status(YACHT, two).percent == 50.0)
    assert builder.status(YACHT, two).state == "building" and outcome == []
    builder.obtain(YACHT, one)  # the other host's build ends: its table, then its lease goes
    store.upload(YACHT, table_path(YACHT, one), 1.0)
    store.fs.rm_file(store.path(YACHT, "lock"))
    waiting.join(60)
    assert outcome == ["fetched"]
    assert table_path(YACHT, two).read_bytes() == table_path(YACHT, one).read_bytes()


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_stale_lease_is_taken_over(tmp_path: Path, s3_store: str) -> None:
    store = Shelf(s3_store)
    dead = {"host": "gone", "pid": 1, "beat": time.time() - shelf.STALE - 1, "share": 0.3}
    store.fs.pipe_file(store.path(YACHT, "lock"), json.dumps(dead).encode())
    assert builder.obtain(YACHT, tmp_path, store=s3_store) == "built"
    assert store.has(YACHT) and not store.fs.exists(store.path(YACHT, "lock"))


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_table_built_before_there_was_a_store_is_uploaded(tmp_path: Path, s3_store: str) -> None:
    assert builder.obtain(YACHT, tmp_path) == "built"
    assert not Shelf(s3_store).has(YACHT)
    assert builder.obtain(YACHT, tmp_path, store=s3_store) == "found"  # `daily solve --missing`
    assert Shelf(s3_store).has(YACHT)


@pytest.mark.slow  # s3fs and botocore retry for about 25 s before they give up
def test_a_store_that_fails_stops_the_release_but_not_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")  # nothing listens there
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "test")
    url = "s3://nowhere/daily"
    with pytest.raises(TableStoreError, match="the tables' store s3://nowhere/daily failed"):
        builder.obtain(YACHT, tmp_path, store=url)
    assert builder.status(YACHT, tmp_path).state == "missing"
    # The background builder builds it here alone (and says why in the log).
    assert builder.obtain(YACHT, tmp_path, store=url, strict=False) == "built"


def test_no_store_is_no_url_or_the_cache_folder_itself(tmp_path: Path) -> None:
    assert open_shelf(None, tmp_path) is None and open_shelf("", tmp_path) is None
    assert open_shelf(str(tmp_path), tmp_path) is None  # never link a table onto itself
    assert open_shelf(f"file://{tmp_path}/", tmp_path) is None
    with pytest.raises(TableStoreError, match="cannot open the tables' store 'nosuch://x'"):
        open_shelf("nosuch://x", tmp_path)


def test_the_service_fetches_without_starting_a_builder(
    tmp_path: Path, s3_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder.obtain(YACHT, tmp_path / "release", store=s3_store)
    cache = tmp_path / "host"
    monkeypatch.setenv("DAILY_CACHE", str(cache))
    monkeypatch.setenv("DAILY_TABLES_URL", s3_store)
    monkeypatch.setattr(background, "start", _no_builder)
    try:
        table = tables.exact_table(YACHT)  # the download may finish at once
    except TableBuildingError:  # a download in a thread of this process
        wait_for(lambda: tables.status(YACHT).state == "ready")
        table = tables.exact_table(YACHT)
    assert table.optimum == pytest.approx(OPTIMUM, abs=1e-7)
    assert not (cache / "queue").exists() and background.running(cache) is None


def test_the_service_maps_a_folder_stores_table_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    builder.obtain(YACHT, tmp_path / "release", store=str(store))
    monkeypatch.setenv("DAILY_CACHE", str(tmp_path / "host"))
    monkeypatch.setenv("DAILY_TABLES_URL", str(store))
    monkeypatch.setattr(background, "start", _no_builder)
    assert tables.exact_table(YACHT) is table_for(YACHT, tmp_path / "host")


def _no_builder(*args: object, **kwargs: object) -> bool:
    raise AssertionError("a host that finds its table in the store starts no builder")


@pytest.mark.slow
def test_two_hosts_at_once_build_the_table_once(tmp_path: Path, s3_store: str) -> None:
    def host(name: str) -> subprocess.Popen[str]:
        command = [sys.executable, "-m", "daily.strategy.background", "--cache",
                   str(tmp_path / name), "--workers", "1", "--store", s3_store,
                   "yacht"]  # fmt: skip
        return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)

    first, second = host("one"), host("two")
    outputs = sorted(p.communicate(timeout=300)[0].strip() for p in (first, second))
    assert [p.returncode for p in (first, second)] == [0, 0]
    assert outputs[0].startswith("yacht: built in ")  # one built it...
    assert outputs[1].startswith("yacht: fetched in ")  # ...the other waited and fetched it
    one, two = (table_path(YACHT, tmp_path / name) for name in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()
