"""Several hosts, one table: two app instances, each with a cache folder of its own, share
``maxi``'s table through one S3 server (moto).

The release step (``daily solve --missing``, as the Procfile runs it, on a disk that holds the
table) uploads it; each web host then finds it in the store from a cold cache, downloads it
and answers a Maxi hint within 20 s, and no build process ever starts on either. The table
is the run's one Maxi build (``maxi_table``, shared with the browser tests); a build under
the store's lease and its upload are tested on small tables in tests/tables/test_shelf.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from daily.core.rules import find_ruleset
from daily.service import upkeep
from daily.strategy.model import model_of
from daily.tables import background
from daily.tables.files import table_path
from daily.tables.loader import status
from daily.tables.shelf import Shelf
from daily.web.context import config_of
from tests.built_tables import SECRET, link_table, site
from tests.ops.test_builders import builders
from tests.tables import s3
from tests.web.helpers import start

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.one_redis]

MAXI = find_ruleset("maxi")
BIN = Path(sys.executable).parent
NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)


def hint(client: Any, game_id: str) -> Any:
    return client.get(f"/api/v1/games/{game_id}/hint")


def test_a_second_host_answers_a_maxi_hint_from_the_store_without_building(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, maxi_table: Path
) -> None:
    release, first, second = tmp_path / "release", tmp_path / "first", tmp_path / "second"
    release.mkdir()
    built = table_path(model_of(MAXI), maxi_table).resolve()  # the run's one Maxi build
    link_table(built, release)  # and its signed digest
    with s3.bucket(monkeypatch) as url:
        monkeypatch.setenv("DAILY_TABLES_URL", url)
        monkeypatch.setenv("DAILY_TABLES", "maxi")
        # The release step: the table is on its disk, not yet in the store; it uploads it.
        env = {**os.environ, "DAILY_CACHE": str(release), "SECRET_KEY": SECRET}
        done = subprocess.run([str(BIN / "daily"), "solve", "--missing"], env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert Shelf(url, SECRET).has(model_of(MAXI))
        hosts = []
        try:
            game: dict[str, Any] = {}
            cookie = None
            for cache in (first, second):
                monkeypatch.setenv("DAILY_CACHE", str(cache))
                app = make_app(now=NOW)
                upkeep.start(config_of(app))  # as a server starts (the factory starts nothing)
                client = app.test_client()
                if cookie is None:  # the same player's same game on both hosts (one Redis)
                    game = start(client, mode="solo", ruleset="maxi")
                    cookie = client.get_cookie("session").value
                client.set_cookie("session", cookie)
                hosts.append(_answers_a_hint_without_building(client, game["id"], cache))
        finally:
            for cache in (first, second):
                background.stop(cache)
    (took_one, answer_one), (took_two, answer_two) = hosts
    assert took_one < 20 and took_two < 20
    assert answer_one == answer_two and len(answer_two) > 1
    assert table_path(model_of(MAXI), second).read_bytes() == built.read_bytes()


def _answers_a_hint_without_building(client: Any, game_id: str, cache: Path) -> tuple[float, Any]:
    """A web host (*client*) on a cold *cache*: the seconds until its first Maxi hint for
    *game_id*, and the hint's actions; every builder process on it is watched for, and none
    may start."""
    seen: set[int] = set()
    watching = threading.Event()
    watcher = threading.Thread(target=_watch, args=(cache, seen, watching))
    watcher.start()
    started = time.monotonic()
    try:
        while (answer := hint(client, game_id)).status_code != 200:
            assert answer.status_code == 503, answer.get_json()
            assert time.monotonic() - started < 20, "no hint within 20 s"
            time.sleep(0.2)
    finally:
        watching.set()
        watcher.join()
    assert seen == set() and background.running(cache) is None
    assert not (cache / "queue").exists() and not (cache / "build.lock").exists()
    assert status(model_of(MAXI), site(cache)).state == "ready"
    return time.monotonic() - started, answer.get_json()["actions"]


def _watch(cache: Path, seen: set[int], done: threading.Event) -> None:
    while not done.is_set():
        seen.update(builders(cache))
        time.sleep(0.01)
