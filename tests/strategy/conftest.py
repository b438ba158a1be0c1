"""Strategy fixtures: a solved yatzy table and end-game tables for every ruleset."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from daily.core.rules import Ruleset, find_ruleset
from daily.strategy.model import model_of
from daily.strategy.solver import Table, fill
from daily.tables.loader import load_table
from tests.built_tables import link_table, shared_table, site

END_LEVELS = 2  # end-game tables solve the states with up to this many open rows


@pytest.fixture(scope="session")
def cache_dir(strategy_cache: Path) -> Path:
    """The session's ``DAILY_CACHE``: the web tests then find the tables solved here."""
    return strategy_cache


@pytest.fixture(scope="session")
def yatzy_table(cache_dir: Path) -> Table:
    """The full yatzy table (about 15 s to solve: once a version of the code, built_tables)."""
    link_table(shared_table("yatzy"), cache_dir)
    return load_table(model_of(find_ruleset("yatzy")), site(cache_dir))


@pytest.fixture(scope="session")
def end_table(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[Ruleset], Table]]:
    """Makes a table of *ruleset* with only its end-game states solved (any ruleset, maxi too)."""
    folder = tmp_path_factory.mktemp("end-tables")
    made: dict[Ruleset, Table] = {}

    def make(ruleset: Ruleset) -> Table:
        if ruleset not in made:
            model = model_of(ruleset)
            path = folder / f"{model.key}.npy"
            # A fresh .npy memmap is a sparse file of zeros: maxi's 356 MB cost nothing here.
            np.lib.format.open_memmap(path, mode="w+", dtype=model.dtype, shape=model.shape)
            fill(model, path, range(1, END_LEVELS + 1))
            made[ruleset] = Table(model, np.load(path, mmap_mode="r").reshape(-1))
        return made[ruleset]

    yield make
