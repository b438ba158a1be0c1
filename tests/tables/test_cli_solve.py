"""``daily solve``: builds a table with a progress bar; bad input is one line and status 2."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from daily.cli import main, parse_option
from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.tables.files import holding, table_path, temp_files
from daily.tables.loader import load_table
from tests.built_tables import SECRET, site


def builds() -> float:
    """How many builds of yacht's table this process has started (the metric)."""
    found = REGISTRY.get_sample_value(
        "daily_strategy_table_builds_started_total", {"ruleset": "yacht"}
    )
    return found or 0.0


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's key, as production sets it: it signs the digests of the tables built."""
    monkeypatch.setenv("SECRET_KEY", SECRET)


def test_solve_builds_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "yacht", "--cache", str(tmp_path), "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert out == "yacht {'forced': False}: optimum 191.7743692\n"
    # The bar: percent of the work, the time spent and the time left.
    assert "solving yacht: 100.0%|" in err and " elapsed, " in err and " left" in err
    assert table_path(model_of(find_ruleset("yacht")), tmp_path).exists()
    # Nothing else is left in the folder but the locks (the table's, the folder's one build
    # at a time) and the build time.
    key = table_path(model_of(find_ruleset("yacht")), tmp_path).stem
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "build.lock",
        *(f"{key}.{e}" for e in ("json", "lock", "npy")),
    ]


def test_solve_missing_builds_the_configured_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DAILY_TABLES", "yacht,yacht:forced=true")
    assert main(["solve", "--missing", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    forced = load_table(model_of(find_ruleset("yacht", {"forced": True})), site(tmp_path)).optimum
    assert out.splitlines() == [
        "yacht {'forced': False}: optimum 191.7743692",
        f"yacht {{'forced': True}}: optimum {forced:.7f}",
    ]
    # A second run finds them built: nothing to do, the same answers.
    assert main(["solve", "--missing", "--cache", str(tmp_path)]) == 0
    assert capsys.readouterr().out == out


def test_solve_takes_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "yatzy", "--option", "forced=true", "--cache", str(tmp_path)]) == 0
    assert "yatzy {'forced': True}: optimum" in capsys.readouterr().out
    assert table_path(model_of(find_ruleset("yatzy", {"forced": True})), tmp_path).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["maxi", "--option", "saved_rolls=true"], "does not handle saved_rolls"),
        (["maxi", "--option", "bonus"], "an option is name=value, got 'bonus'"),
        (["maxi", "--option", "bonus=10@10"], "bad value for option 'bonus'"),
        (["chess"], "unknown ruleset: 'chess'"),
        ([], "name a ruleset to solve, or --missing"),
        (["yatzy", "--missing"], "--missing builds the configured tables: give no ruleset"),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["solve", *args, "--cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_parse_option_types() -> None:
    assert parse_option("full_straight=25") == ("full_straight", 25)
    assert parse_option("forced=true") == ("forced", True)
    assert parse_option("bonus=50@75") == ("bonus", "50@75")


def test_solve_waits_for_a_build_running_elsewhere(tmp_path: Path) -> None:
    yacht = find_ruleset("yacht")
    daily = Path(sys.executable).parent / "daily"
    command = [str(daily), "solve", "yacht", "--cache", str(tmp_path)]
    with holding(model_of(yacht), tmp_path):  # another builder has the lock
        solving = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        assert solving.poll() is None  # it follows that build instead of starting its own
        assert not table_path(model_of(yacht), tmp_path).exists()
    # That builder went away without a table: the lock is free, and `daily solve` builds it.
    out, _ = solving.communicate(timeout=120)
    assert solving.returncode == 0
    assert out == "yacht {'forced': False}: optimum 191.7743692\n"
    assert temp_files(model_of(yacht), tmp_path) == []


def test_the_release_step_builds_into_the_store_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Procfile's release step on a platform whose disk is discarded after it: the table
    # goes to the store, where the next release (another empty disk) finds it.
    store = tmp_path / "store"
    monkeypatch.setenv("DAILY_TABLES", "yacht")
    monkeypatch.setenv("DAILY_TABLES_URL", str(store))
    key = table_path(model_of(find_ruleset("yacht")), tmp_path).stem
    procfile = (Path(__file__).parents[2] / "Procfile").read_text().splitlines()
    command = next(line for line in procfile if line.startswith("release:")).split()[1:]
    assert command[:3] == ["daily", "solve", "--missing"]
    before = builds()
    for release in ("one", "two"):  # each on a disk of its own, thrown away after
        assert main([*command[1:], "--cache", str(tmp_path / release)]) == 0
        assert capsys.readouterr().out == "yacht {'forced': False}: optimum 191.7743692\n"
    assert {p.name for p in store.iterdir()} >= {f"{key}.npy", f"{key}.json"}
    fetched = tmp_path / "two" / f"{key}.npy"  # fetched, a copy of the store's: not built again
    assert not fetched.is_symlink() and fetched.read_bytes() == (store / f"{key}.npy").read_bytes()
    assert builds() == before + 1  # the first release built it, the second fetched it


def test_a_store_that_fails_fails_the_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "file"
    store.write_text("not a folder")
    assert main(["solve", "yacht", "--cache", str(tmp_path / "c"), "--store", str(store)]) == 2
    err = capsys.readouterr().err  # the progress bar, then one line
    assert err.splitlines()[-1].startswith(f"daily solve: the tables' store {store} failed: ")
    assert "Traceback" not in err
    assert not table_path(model_of(find_ruleset("yacht")), tmp_path / "c").exists()
