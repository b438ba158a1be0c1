"""A strategy table that is missing, being built, cut short, altered, deleted or unreadable
never breaks play (issue 39): every daily finishes and reads back, no answer is a 5xx, the
finished game waits for its check, and the table is refused, reported and fetched again.

Two hosts share one store of tables (a folder, or a local S3 server); the daily's table is a
Maxi table with its last two levels solved (the rest zeros, half a second to make): a table
in place, which is all the plumbing needs.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from prometheus_client import REGISTRY

from daily.core.rules import find_ruleset
from daily.service import reviews, tables, upkeep
from daily.store import review_queue
from daily.strategy.model import Model, model_of
from daily.strategy.solver import fill
from daily.tables import background, digests
from daily.tables.files import holding, paths_of, table_path
from daily.tables.shelf import Shelf
from daily.web.context import config_of, current_config, current_redis
from tests.built_tables import SECRET, seal, site
from tests.tables import s3
from tests.web.helpers import play_daily

MAXI = find_ruleset("maxi")
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)


def _truncate(path: Path) -> None:
    path.chmod(0o644)  # as the owner would, to write it (a table is read-only)
    os.truncate(path, path.stat().st_size // 2)


def _alter(path: Path) -> None:
    # Every value halved, the size the same (the red team's case: the Expert's game of a day
    # then scored 308 instead of 397).
    path.chmod(0o644)
    values = np.load(path, mmap_mode="r+")
    values *= 0.5
    values.flush()
    del values


def _delete(path: Path) -> None:
    path.unlink()


def _unreadable(path: Path) -> None:
    path.unlink()
    path.mkdir()  # not a file anyone can read as a table, root included


def _forge(path: Path) -> None:
    # The table altered and its record rewritten to match: the record's signature fails.
    _alter(path)
    record = paths_of(model_of(MAXI), path.parent).digest
    body = json.loads(record.read_text())
    size, sha256 = digests.sha256_of(path)
    record.write_text(json.dumps(body | {"size": size, "sha256": sha256}))


BREAKS: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "altered": _alter,
    "deleted": _delete,
    "unreadable": _unreadable,
    "forged": _forge,
}


@pytest.fixture(scope="module")
def end_maxi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding a Maxi table with its last two levels solved, and its digest."""
    folder = tmp_path_factory.mktemp("end-maxi")
    model = model_of(MAXI)
    path = table_path(model_of(MAXI), folder)
    np.lib.format.open_memmap(path, mode="w+", dtype=model.dtype, shape=model.shape)
    fill(model, path, range(1, 3))
    seal(folder, MAXI)
    return folder


@pytest.fixture(params=["folder", pytest.param("s3", marks=pytest.mark.slow)])
def store(
    request: pytest.FixtureRequest, tmp_path: Path, end_maxi: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A tables' store holding the daily's table, as the release step leaves it."""
    with _store_url(request.param, tmp_path, monkeypatch) as url:
        digest = digests.record_of(site(end_maxi), model_of(MAXI))
        Shelf(url, SECRET).upload(model_of(MAXI), table_path(model_of(MAXI), end_maxi), digest)
        yield url


def _store_url(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    return s3.bucket(monkeypatch) if kind == "s3" else nullcontext(str(tmp_path / "store"))


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The builds the hosts would start (Maxi: minutes of both cores), asked for, not run."""
    asked: list[str] = []

    def start(models: list[Model], where: Any) -> bool:
        asked.extend(m.ruleset.spec for m in models)
        return True

    monkeypatch.setattr(background, "start", start)
    return asked


def host(make_app: Any, cache: Path, store: str) -> Any:
    """A web host of its own (its cache folder) on the shared store and Redis, started as a
    server starts it: its upkeep fetches the tables it lacks (the factory starts nothing)."""
    app = make_app(now=NOON, cache_dir=cache, tables_url=store, table_specs=("maxi",))
    upkeep.start(config_of(app))
    return app


def wait_ready(app: Any) -> None:
    """Waits for the host's table to be fetched (a download runs in a thread of its own)."""
    with app.app_context():
        deadline = time.monotonic() + 60
        while tables.status(current_config(), MAXI).state != "ready":
            assert time.monotonic() < deadline, tables.status(current_config(), MAXI)
            time.sleep(0.05)


def sweep(app: Any) -> int:
    """Checks the finished games that waited for their table; how many wait still."""
    with app.app_context():
        reviews.check_unchecked(current_redis(), current_config())
        return review_queue.unchecked(current_redis())


def table_state(app: Any) -> dict[str, Any]:
    found = app.test_client().get("/healthz").get_json()["tables"]
    return dict(next(t for t in found if t["ruleset"] == "maxi"))


@pytest.mark.slow  # six Maxi tables copied and hashed, six dailies: 14 s (each way of breaking
# a table is tested on a small one in tests/tables/test_digests.py)
def test_a_broken_table_never_breaks_a_daily(
    make_app: Any, tmp_path: Path, store: str, builds: list[str]
) -> None:
    app = host(make_app, tmp_path / "host", store)
    wait_ready(app)  # fetched as the host started: the table it will map
    assert play_daily(app.test_client())["finished"] and sweep(app) == 0
    path = table_path(model_of(MAXI), tmp_path / "host")
    refused = _refusals()
    for way, breaking in BREAKS.items():
        breaking(path)
        game = play_daily(app.test_client())  # every move 200; the game reads back
        assert game["finished"] and game["total"] > 0, way
        # The finish found the table unfit, refused it (never mapped) and fetched it again;
        # the game waited for its check, and the next sweep checks it.
        wait_ready(app)
        assert table_state(app)["state"] == "ready", way
        assert sweep(app) == 0, way
        now = _refusals()
        assert now == refused + (way != "deleted"), way  # a deleted table is only missing
        refused = now
    assert builds == []  # fetched each time: nobody built


def test_a_bad_copy_in_the_store_is_never_used(
    make_app: Any, tmp_path: Path, store: str, builds: list[str]
) -> None:
    # The red team's case: the table altered in the store that every host fetches from.
    shelf = Shelf(store, SECRET)
    altered = tmp_path / "altered.npy"
    shelf.fs.get_file(shelf.path(model_of(MAXI), "npy"), str(altered))
    _alter(altered)
    shelf.fs.put_file(str(altered), shelf.path(model_of(MAXI), "npy"))
    app = host(make_app, tmp_path / "fresh", store)  # a host with a cold cache
    client = app.test_client()
    game = play_daily(client)
    assert game["finished"]
    deadline = time.monotonic() + 60
    while (found := table_state(app))["state"] != "bad":  # a download: in a thread
        assert time.monotonic() < deadline, found
        time.sleep(0.05)
    assert "SHA-256 does not match" in found["problem"]
    assert not table_path(model_of(MAXI), tmp_path / "fresh").exists()  # never mapped
    assert not shelf.has(model_of(MAXI))  # its record is gone from the store: it is built again
    assert sweep(app) == 1  # the game waits for its check
    hint = client.get(f"/api/v1/games/{game['id']}/analysis")
    assert hint.status_code == 503  # no numbers from that table, and no 500
    assert set(builds) == {"maxi"}  # this host asked for the build that replaces it


def test_a_finish_waits_while_its_table_is_missing_or_built(
    make_app: Any, tmp_path: Path, builds: list[str]
) -> None:
    empty = tmp_path / "empty"
    app = make_app(now=NOON, cache_dir=empty, table_specs=("maxi",))
    assert table_state(app)["state"] == "missing"
    assert play_daily(app.test_client())["finished"] and sweep(app) == 1
    with holding(model_of(MAXI), empty):  # a build under way
        assert table_state(app)["state"] == "building"
        assert play_daily(app.test_client())["finished"] and sweep(app) == 2


def _refusals() -> float:
    found = REGISTRY.get_sample_value("daily_strategy_tables_refused_total", {"ruleset": "maxi"})
    return found or 0.0
