"""The tables' store several hosts share (``DAILY_TABLES_URL``): a folder, or a local S3
server (moto); each host a cache folder of its own. A table is built once, under a lease
every host sees, and fetched by every other host, never built there."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from daily.core.config import Config, load
from daily.core.errors import TableBuildingError, TableStoreError
from daily.core.rules import find_ruleset
from daily.service import tables
from daily.strategy.model import model_of
from daily.tables import background, builder, digests, shelf
from daily.tables.files import table_path, temp_files
from daily.tables.loader import load_table, status, table_for
from daily.tables.shelf import Shelf, open_shelf
from tests.built_tables import SECRET, builder_process, site

YACHT = model_of(find_ruleset("yacht"))  # the yacht table's model
OPTIMUM = 191.7743692


def model_key() -> str:
    return table_path(YACHT, Path(".")).stem


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


def config_of(cache: Path, store: str | None) -> Config:
    """A host's settings: its cache folder and the store, read once, as the app reads them."""
    return load({}, secret_key=SECRET, cache_dir=cache, tables_url=store, table_specs=())


def test_a_folder_stores_table_is_copied_and_checked(tmp_path: Path) -> None:
    store, one, two = tmp_path / "store", tmp_path / "one", tmp_path / "two"
    assert builder.obtain(YACHT, site(one, str(store))) == "built"  # the release step
    key = table_path(YACHT, one).stem
    names = sorted(p.name for p in store.iterdir())
    assert names == [f"{key}.{suffix}" for suffix in ("json", "lock", "npy")]
    before = builds()
    assert builder.fetch(YACHT, site(two), Shelf(str(store), SECRET))
    copied = table_path(YACHT, two)
    # A copy of its own: a store's file changed in place never changes a table in use.
    assert not copied.is_symlink() and copied.stat().st_ino != (store / f"{key}.npy").stat().st_ino
    assert copied.read_bytes() == (store / f"{key}.npy").read_bytes()
    assert load_table(YACHT, site(two)).optimum == pytest.approx(OPTIMUM, abs=1e-7)
    assert status(YACHT, site(two)).state == "ready"
    assert builder.obtain(YACHT, site(tmp_path / "three", str(store))) == "fetched"
    assert builds() == before  # fetched twice, built by nobody


def test_a_table_built_once_is_fetched_by_every_other_host(tmp_path: Path, s3_store: str) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert builder.obtain(YACHT, site(one, s3_store)) == "built"
    store = Shelf(s3_store, SECRET)
    meta = store.meta(YACHT)
    assert meta is not None and meta.size == table_path(YACHT, one).stat().st_size
    assert not store.fs.exists(store.path(YACHT, "lock"))  # the lease is let go
    before, seen = builds(), []
    fetched = builder.obtain(YACHT, site(two, s3_store), progress=lambda d, t: seen.append(d / t))
    assert fetched == "fetched" and builds() == before
    assert not table_path(YACHT, two).is_symlink()
    assert table_path(YACHT, two).read_bytes() == table_path(YACHT, one).read_bytes()
    assert seen[-1] == 1.0 and temp_files(YACHT, two) == []
    assert load_table(YACHT, site(two)).optimum == pytest.approx(OPTIMUM, abs=1e-7)


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_download_that_does_not_match_its_digest_is_thrown_away(
    tmp_path: Path, s3_store: str
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    builder.obtain(YACHT, site(one, s3_store))
    store = Shelf(s3_store, SECRET)
    altered = bytearray(table_path(YACHT, one).read_bytes())
    altered[-8:] = bytes(8)  # one value changed, the size the same
    store.fs.pipe_file(store.path(YACHT, "npy"), bytes(altered))
    assert not builder.fetch(YACHT, site(two), store)
    assert not table_path(YACHT, two).exists() and temp_files(YACHT, two) == []
    found = status(YACHT, site(two))
    assert found.state == "bad" and "SHA-256 does not match" in (found.problem or "")
    assert not store.has(YACHT)  # its record is gone: the next host to need it builds it
    # A record altered with it is refused too: it is not signed with the service's key.
    record = digests.seal(digests.Digest(model_key(), len(altered), "0" * 64), "not-the-key")
    store.fs.pipe_file(store.path(YACHT, "json"), json.dumps(record).encode())
    assert store.meta(YACHT) is None


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_host_waits_for_another_hosts_build_and_fetches_it(
    tmp_path: Path, s3_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shelf, "POLL", 0.05)
    one, two = tmp_path / "one", tmp_path / "two"
    store = Shelf(s3_store, SECRET)
    # Another host holds the lease, half-way through its build.
    lease = {"host": "elsewhere", "pid": 1, "beat": time.time(), "share": 0.5}
    store.fs.pipe_file(store.path(YACHT, "lock"), json.dumps(lease).encode())
    outcome: list[str] = []
    waiting = threading.Thread(
        target=lambda: outcome.append(builder.obtain(YACHT, site(two, s3_store)))
    )
    waiting.start()
    # It waits, and shows the other host's progress as its own.
    wait_for(lambda: status(YACHT, site(two)).percent == 50.0)
    assert status(YACHT, site(two)).state == "building" and outcome == []
    builder.obtain(YACHT, site(one))  # the other host's build ends: its table, then its lease
    store.upload(YACHT, table_path(YACHT, one), digests.record_of(site(one), YACHT))
    store.fs.rm_file(store.path(YACHT, "lock"))
    waiting.join(60)
    assert outcome == ["fetched"]
    assert table_path(YACHT, two).read_bytes() == table_path(YACHT, one).read_bytes()


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_stale_lease_is_taken_over(tmp_path: Path, s3_store: str) -> None:
    store = Shelf(s3_store, SECRET)
    dead = {"host": "gone", "pid": 1, "beat": time.time() - shelf.STALE - 1, "share": 0.3}
    store.fs.pipe_file(store.path(YACHT, "lock"), json.dumps(dead).encode())
    assert builder.obtain(YACHT, site(tmp_path, s3_store)) == "built"
    assert store.has(YACHT) and not store.fs.exists(store.path(YACHT, "lock"))


@pytest.mark.slow  # a local S3 server: 2 to 3 s (the quick loop keeps two such tests)
def test_a_table_built_before_there_was_a_store_is_uploaded(tmp_path: Path, s3_store: str) -> None:
    assert builder.obtain(YACHT, site(tmp_path)) == "built"
    assert not Shelf(s3_store, SECRET).has(YACHT)
    assert builder.obtain(YACHT, site(tmp_path, s3_store)) == "found"  # `daily solve --missing`
    assert Shelf(s3_store, SECRET).has(YACHT)


@pytest.mark.slow  # s3fs and botocore retry for about 25 s before they give up
def test_a_store_that_fails_stops_the_release_but_not_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")  # nothing listens there
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "test")
    url = "s3://nowhere/daily"
    with pytest.raises(TableStoreError, match="the tables' store s3://nowhere/daily failed"):
        builder.obtain(YACHT, site(tmp_path, url))
    assert status(YACHT, site(tmp_path)).state == "missing"
    # The background builder builds it here alone (and says why in the log).
    assert builder.obtain(YACHT, site(tmp_path, url), strict=False) == "built"


def test_no_store_is_no_url_or_the_cache_folder_itself(tmp_path: Path) -> None:
    assert open_shelf(site(tmp_path)) is None and open_shelf(site(tmp_path, "")) is None
    assert open_shelf(site(tmp_path, str(tmp_path))) is None  # never copy a table onto itself
    assert open_shelf(site(tmp_path, f"file://{tmp_path}/")) is None
    with pytest.raises(TableStoreError, match="cannot open the tables' store 'nosuch://x'"):
        open_shelf(site(tmp_path, "nosuch://x"))


def test_the_service_fetches_without_starting_a_builder(
    tmp_path: Path, s3_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder.obtain(YACHT, site(tmp_path / "release", s3_store))
    cache = tmp_path / "host"
    config = config_of(cache, s3_store)
    monkeypatch.setattr(background, "start", _no_builder)
    try:
        table = tables.exact_table(config, YACHT.ruleset)  # the download may finish at once
    except TableBuildingError:  # a download in a thread of this process
        wait_for(lambda: tables.status(config, YACHT.ruleset).state == "ready")
        table = tables.exact_table(config, YACHT.ruleset)
    assert table.optimum == pytest.approx(OPTIMUM, abs=1e-7)
    assert not (cache / "queue").exists() and background.running(cache) is None


def test_the_service_copies_a_folder_stores_table_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    builder.obtain(YACHT, site(tmp_path / "release", str(store)))
    config = config_of(tmp_path / "host", str(store))
    monkeypatch.setattr(background, "start", _no_builder)
    assert tables.exact_table(config, YACHT.ruleset) is table_for(YACHT, tables.site_of(config))


def _no_builder(*args: object, **kwargs: object) -> bool:
    raise AssertionError("a host that finds its table in the store starts no builder")


@pytest.mark.slow
def test_two_hosts_at_once_build_the_table_once(tmp_path: Path, s3_store: str) -> None:
    first, second = (builder_process(tmp_path / name, "--store", s3_store, "yacht")
                     for name in ("one", "two"))  # fmt: skip
    outputs = sorted(p.communicate(timeout=300)[0].strip() for p in (first, second))
    assert [p.returncode for p in (first, second)] == [0, 0]
    assert outputs[0].startswith("yacht: built in ")  # one built it...
    assert outputs[1].startswith("yacht: fetched in ")  # ...the other waited and fetched it
    one, two = (table_path(YACHT, tmp_path / name) for name in ("one", "two"))
    assert one.read_bytes() == two.read_bytes()
