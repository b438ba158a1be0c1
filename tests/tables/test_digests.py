"""Every table is checked against its signed digest before it is mapped (issue 39): a table
cut short, altered, replaced, unreadable, or whose record is forged, missing or another
table's, is refused (never mapped), moved aside, reported as bad, and built again."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from prometheus_client import REGISTRY

from daily.core.errors import BadTableError, TableBuildingError, TableMissingError
from daily.core.rules import find_ruleset
from daily.strategy.model import model_of
from daily.tables import builder, digests, loader
from daily.tables.files import holding, paths_of, table_path
from tests.built_tables import SECRET, shared_table, site

YACHT = model_of(find_ruleset("yacht"))  # the yacht table's model
OPTIMUM = 191.7743692


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A cache folder holding yacht's table (a copy of the shared one) and its record."""
    found = shared_table("yacht")
    shutil.copyfile(found, table_path(YACHT, tmp_path))
    shutil.copyfile(found.with_suffix(".json"), paths_of(YACHT, tmp_path).digest)
    loader.forget()
    return tmp_path


def _writable(path: Path) -> None:
    path.chmod(0o644)  # a table is read-only: its owner makes it writable first


def _truncate(path: Path) -> None:
    _writable(path)
    os.truncate(path, path.stat().st_size - 8)


def _alter(path: Path) -> None:
    _writable(path)
    values = np.load(path, mmap_mode="r+")
    values *= 0.5  # every value halved, the size the same
    values.flush()
    del values


def _unreadable(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _forge(path: Path) -> None:
    _alter(path)
    record = paths_of(YACHT, path.parent).digest
    size, sha256 = digests.sha256_of(path)
    record.write_text(json.dumps(json.loads(record.read_text()) | {"sha256": sha256}))


def _unsigned(path: Path) -> None:
    paths_of(YACHT, path.parent).digest.unlink()


def _another_key(path: Path) -> None:
    record = paths_of(YACHT, path.parent).digest
    found = digests.unseal(json.loads(record.read_text()), SECRET, path.stem)
    record.write_text(json.dumps(digests.seal(found, "another service's key")))


def _another_table(path: Path) -> None:
    # Another table's file and its own record, both genuine, put in this one's place.
    other = find_ruleset("yacht", {"forced": True})
    builder.build(model_of(other), site(path.parent))
    for source, target in ((table_path(model_of(other), path.parent), path),
                           (paths_of(model_of(other), path.parent).digest,
                            paths_of(YACHT, path.parent).digest)):  # fmt: skip
        target.unlink()
        shutil.copyfile(source, target)


BREAKS: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated": (_truncate, "bytes, not"),
    "altered": (_alter, "SHA-256 does not match"),
    "unreadable": (_unreadable, "bytes, not"),
    "forged": (_forge, "not signed with this service's key"),
    "no-record": (_unsigned, "has no digest"),
    "another-key": (_another_key, "not signed with this service's key"),
    "another-table": (_another_table, "not yacht-"),
}


def refusals() -> float:
    found = REGISTRY.get_sample_value("daily_strategy_tables_refused_total", {"ruleset": "yacht"})
    return found or 0.0


def test_a_sound_table_is_hashed_once_per_file(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed: list[Path] = []
    real = digests.sha256_of

    def counted(path: Path) -> tuple[int, str]:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(digests, "sha256_of", counted)
    assert loader.load_table(YACHT, site(cache)).optimum == pytest.approx(OPTIMUM, abs=1e-7)
    assert len(hashed) == 1  # a copy: a file it has not seen
    assert loader.load_table(YACHT, site(cache)).optimum == pytest.approx(OPTIMUM, abs=1e-7)
    assert loader.table_for(YACHT, site(cache)) is loader.table_for(YACHT, site(cache))
    assert len(hashed) == 1  # the record remembers the file it checked
    monkeypatch.setattr(digests, "_boot", lambda: "after-a-crash")
    loader.forget()
    loader.load_table(YACHT, site(cache))
    assert len(hashed) == 2  # the host restarted: every table is hashed again, once


@pytest.mark.parametrize("way", list(BREAKS))
def test_a_bad_table_is_refused_reported_and_built_again(cache: Path, way: str) -> None:
    breaking, problem = BREAKS[way]
    path = table_path(YACHT, cache)
    loader.table_for(YACHT, site(cache))  # mapped, before it is broken
    before = refusals()
    breaking(path)
    with pytest.raises(TableMissingError, match="was refused"):
        loader.table_for(YACHT, site(cache))  # looked at again: it changed, or its record did
    assert not path.exists() and paths_of(YACHT, cache).refused.exists()  # kept for a look
    found = loader.status(YACHT, site(cache))
    assert found.state == "bad" and problem in (found.problem or ""), found
    assert refusals() == before + 1
    assert builder.obtain(YACHT, site(cache)) == "built"  # what the queue's builder does
    assert loader.status(YACHT, site(cache)).state == "ready"
    assert loader.status(YACHT, site(cache)).problem is None
    table = loader.table_for(YACHT, site(cache))
    assert table.optimum == pytest.approx(OPTIMUM, abs=1e-7)


def test_a_table_found_bad_by_its_builder_is_built_again(cache: Path) -> None:
    _alter(table_path(YACHT, cache))
    assert loader.status(YACHT, site(cache)).state == "ready"  # its size is right: not read
    assert builder.obtain(YACHT, site(cache)) == "built"  # read by the builder, refused
    assert loader.load_table(YACHT, site(cache)).optimum == pytest.approx(OPTIMUM, abs=1e-7)


def test_a_table_is_not_moved_aside_under_its_builder(cache: Path) -> None:
    _truncate(table_path(YACHT, cache))
    assert loader.status(YACHT, site(cache)).state == "bad"
    with holding(YACHT, cache):  # a build (or fetch) is putting a table in place
        assert loader.status(YACHT, site(cache)).state == "building"
        with pytest.raises(TableBuildingError):
            loader.load_table(YACHT, site(cache))
        assert table_path(YACHT, cache).exists()  # the builder's to replace, not ours


def test_a_record_is_signed_over_every_field() -> None:
    record = digests.seal(digests.Digest("yacht-1", 10, "ab" * 32, 1.5), SECRET)
    assert digests.unseal(record, SECRET, "yacht-1").seconds == 1.5
    for field, value in (("size", 11), ("sha256", "cd" * 32), ("key", "yacht-2"),
                         ("seconds", 0.1), ("signature", "x")):  # fmt: skip
        with pytest.raises(BadTableError):
            digests.unseal(record | {field: value}, SECRET, "yacht-1")
    with pytest.raises(BadTableError, match="not yacht-2's"):
        digests.unseal(record, SECRET, "yacht-2")
