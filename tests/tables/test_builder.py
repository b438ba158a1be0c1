"""Tables built by the service itself: once across processes, never half-read, crash-proof.

Real processes throughout: the builders are ``python -m daily.tables.background``
children, as ``daily serve`` and the web app start them, sharing one cache folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from daily.core.errors import TableBuildingError, TableMissingError
from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.tables import background
from daily.tables.files import table_path, temp_files
from daily.tables.loader import load_table, status
from tests.built_tables import builder_process, site

pytestmark = pytest.mark.slow

YACHT = model_of(find_ruleset("yacht"))  # the yacht table's model
YATZY = model_of(find_ruleset("yatzy"))


def spawn(cache: Path, *specs: str) -> subprocess.Popen[str]:
    return builder_process(cache, *specs)


def wait_for(check: object, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_two_builders_at_once_build_the_table_once(tmp_path: Path) -> None:
    first, second = spawn(tmp_path, "yacht"), spawn(tmp_path, "yacht")
    outputs = sorted(p.communicate(timeout=300)[0].strip() for p in (first, second))
    assert [p.returncode for p in (first, second)] == [0, 0]
    assert outputs[0] == "yacht: already built"  # the second waited for the first
    assert outputs[1].startswith("yacht: built in ")
    assert load_table(YACHT, site(tmp_path)).optimum == pytest.approx(191.7743692, abs=1e-7)
    assert temp_files(YACHT, tmp_path) == []
    assert status(YACHT, site(tmp_path)).state == "ready"


def test_a_builder_killed_midway_leaves_the_next_one_to_finish(tmp_path: Path) -> None:
    assert status(YATZY, site(tmp_path)).state == "missing"
    with pytest.raises(TableMissingError, match="no strategy table for yatzy yet"):
        load_table(YATZY, site(tmp_path))
    victim = spawn(tmp_path, "yatzy")
    wait_for(lambda: (status(YATZY, site(tmp_path)).percent or 0) > 5)
    # Half-way: loading says it is building (never reads the half-written file).
    with pytest.raises(TableBuildingError) as building:
        load_table(YATZY, site(tmp_path))
    assert building.value.status.state == "building"
    assert 5 < (building.value.status.percent or 0) < 100
    os.kill(victim.pid, signal.SIGKILL)
    victim.communicate(timeout=30)  # reaps it and closes its pipe
    # The kernel dropped its lock; its temporary file is still there until the next build.
    assert status(YATZY, site(tmp_path)).state == "missing"
    leftovers = temp_files(YATZY, tmp_path)
    assert any(p.name.endswith(f".{victim.pid}.tmp") for p in leftovers)
    assert not table_path(YATZY, tmp_path).exists()
    survivor = spawn(tmp_path, "yatzy")
    assert survivor.communicate(timeout=300)[0].startswith("yatzy: built in ")
    assert temp_files(YATZY, tmp_path) == []
    assert load_table(YATZY, site(tmp_path)).optimum == pytest.approx(248.4399894, abs=1e-7)


def test_the_build_is_estimated_from_its_start(tmp_path: Path) -> None:
    child = spawn(tmp_path, "yatzy")
    try:
        wait_for(lambda: (status(YATZY, site(tmp_path)).percent or 0) > 10)
        found = status(YATZY, site(tmp_path))
        assert found.state == "building"
        assert found.seconds is not None and found.seconds > 0
        assert found.eta is not None and found.eta > 0
        assert found.ruleset == "yatzy"
    finally:
        child.communicate(timeout=300)
    assert status(YATZY, site(tmp_path)).state == "ready"


def test_many_clients_asking_for_many_tables_start_one_build_at_a_time(tmp_path: Path) -> None:
    wanted = [YACHT, model_of(find_ruleset("yacht", {"forced": True})), YATZY,
              model_of(find_ruleset("yatzy", {"forced": True}))]  # fmt: skip
    barrier = threading.Barrier(8)

    def client(n: int) -> None:  # each asks for every table, in its own order
        barrier.wait()
        for ruleset in wanted[n % 4 :] + wanted[: n % 4]:
            background.start([ruleset], site(tmp_path))

    clients = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in clients:
        thread.start()
    most, seen = 0, set[str]()
    deadline = time.monotonic() + 300
    while any(status(r, site(tmp_path)).state != "ready" for r in wanted):
        assert time.monotonic() < deadline, "timed out"
        building = {r.ruleset.spec for r in wanted
                    if status(r, site(tmp_path)).state == "building"}  # fmt: skip
        most, seen = max(most, len(building)), seen | building
        background.start(wanted, site(tmp_path))  # clients keep asking while they get 503s
        time.sleep(0.02)
    for thread in clients:
        thread.join()
    assert most == 1 and len(seen) >= 2  # seen building, never two at once
    assert background.queued(site(tmp_path)) == []
    assert all(temp_files(r, tmp_path) == [] for r in wanted)
