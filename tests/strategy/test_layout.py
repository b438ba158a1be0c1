"""The compact table layout: every state has its own entry and back, and the tables and hints
are those of the dense layout (the tables before it) on every state sampled."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from daily.core.dice import stream
from daily.core.errors import TableMissingError
from daily.core.rules import (
    GameState,
    Ruleset,
    apply,
    find_ruleset,
    legal_moves,
    new_game,
    parse_spec,
)
from daily.strategy.hints import hint
from daily.strategy.layout import compact, dense, kept
from daily.strategy.model import Model, level_states, model_of, with_layout
from daily.strategy.solver import Table, fill, state_of
from daily.tables import digests
from daily.tables.builder import write_table
from daily.tables.files import table_path
from daily.tables.loader import mapped_table, table_for
from tests.built_tables import site

SPECS = ["yatzy", "yatzy:forced=true", "yacht", "yahtzee", "yahtzee:forced=true", "maxi",
         "maxi:forced=true", "maxi:bonus=50@75"]  # fmt: skip
END = 3  # the end tables here solve the states with up to this many open rows


def every_state(model: Model, levels: range) -> np.ndarray:
    return np.concatenate([level_states(model, k) for k in levels])


def end_tables(ruleset: Ruleset, folder: Path) -> tuple[Table, Table]:
    """The compact and the dense table of *ruleset*, the same end-game levels solved in each."""
    made = []
    for kind in ("compact", "dense"):
        model = with_layout(model_of(ruleset), kind)
        path = folder / f"{model.key}.npy"
        np.lib.format.open_memmap(path, mode="w+", dtype=model.dtype, shape=model.shape)
        fill(model, path, range(1, END + 1))
        made.append(mapped_table(model, path))
    return made[0], made[1]


def positions(ruleset: Ruleset, seed: str, count: int, most_open: int = 99) -> list[GameState]:
    """*count* positions of games played at random, with at most *most_open* rows open."""
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        state = new_game(ruleset, stream(f"{seed}-{len(found)}".encode()))
        while not state.is_finished:
            if len(state.open_rows()) <= most_open:
                found.append(state)
            state = apply(state, rng.choice(legal_moves(state)))
    return found[:count]


def assert_same_hints(one: Table, other: Table, states: list[GameState]) -> None:
    for state in states:
        a, b = hint(one, state), hint(other, state)
        assert [(x.keep, x.row) for x in a] == [(x.keep, x.row) for x in b]
        assert max(abs(x.value - y.value) for x, y in zip(a, b, strict=True)) <= 1e-6


@pytest.mark.slow  # every state of each spec, both ways
@pytest.mark.parametrize("spec", SPECS)
def test_each_state_has_its_own_entry_and_back(spec: str) -> None:
    model = model_of(parse_spec(spec))
    states = every_state(model, range(0, model.rows + 1, 3))
    if len(states) > 400_000:  # maxi's 57 million: a sample of every third level
        states = states[np.random.default_rng(0).choice(len(states), 400_000, replace=False)]
    entries = model.entry(states[:, 0], states[:, 1], states[:, 2])
    assert entries.min() >= 0 and entries.max() < model.size
    assert np.unique(entries).size == entries.shape[0]  # no two states share a value
    mask, upper, flag = model.state_at(entries)
    assert np.array_equal(np.stack([mask, upper, flag], axis=1), states)


def test_dead_totals_read_upper_total_zero_in_both_layouts() -> None:
    model = model_of(find_ruleset("yatzy"))
    # With only sixes open, 30 more is the most it can add: 20 + 30 < 63, 40 + 30 >= 63.
    mask = np.array([1 << 5] * 3)
    for each in (model, with_layout(model, "dense")):
        entries = each.entry(mask, np.array([0, 20, 40]), np.zeros(3, np.int64))
        assert entries[0] == entries[1] != entries[2]


def test_the_maxi_table_is_at_most_150_mb() -> None:
    model = model_of(find_ruleset("maxi"))
    assert model.size * np.dtype(model.dtype).itemsize == 133_890_048
    assert with_layout(model, "dense").size * 4 == 356_515_840  # the table before
    # One slot for each state solved, and two for the finished game (0, or the bonus made).
    assert compact(6, 84).stride * 2**14 == 33_472_510 + 2
    assert kept(6, 84, 0).tolist() == [0, 84]


def test_a_table_without_a_bonus_tracks_no_total() -> None:
    assert compact(5, 0).stride == dense(5, 0).stride == 64


@pytest.mark.slow  # a dense and a compact end table of each spec, solved
@pytest.mark.parametrize("spec", SPECS)
def test_end_tables_and_hints_match_the_dense_layout(spec: str, tmp_path: Path) -> None:
    ruleset = parse_spec(spec)
    small, big = end_tables(ruleset, tmp_path)
    states = every_state(small.model, range(1, END + 1))
    got = small.values[small.model.entry(states[:, 0], states[:, 1], states[:, 2])]
    want = big.values[big.model.entry(states[:, 0], states[:, 1], states[:, 2])]
    assert np.all(want > 0) and np.array_equal(got, want)
    assert_same_hints(small, big, positions(ruleset, spec, 40, most_open=END + 1))


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["yatzy", "yahtzee"])
def test_whole_tables_and_hints_match_the_dense_layout(spec: str, tmp_path: Path) -> None:
    ruleset = parse_spec(spec)
    tables = []
    for kind in ("compact", "dense"):
        model = with_layout(model_of(ruleset), kind)
        write_table(model, tmp_path / f"{model.key}.npy")
        tables.append(mapped_table(model, tmp_path / f"{model.key}.npy"))
    small, big = tables
    assert small.values.size < big.values.size
    states = every_state(small.model, range(0, small.model.rows + 1))
    got = small.values[small.model.entry(states[:, 0], states[:, 1], states[:, 2])]
    want = big.values[big.model.entry(states[:, 0], states[:, 1], states[:, 2])]
    assert np.array_equal(got, want) and small.optimum == big.optimum
    sampled = positions(ruleset, spec, 300)
    assert_same_hints(small, big, sampled)
    for state in sampled[:50]:  # and each state's value, through the game's own sheet
        assert small.value_of(*state_of(small.model, state)) == big.value_of(
            *state_of(big.model, state)
        )


def test_a_table_of_another_layout_is_refused(tmp_path: Path) -> None:
    ruleset = find_ruleset("yatzy")
    dense_model = with_layout(model_of(ruleset), "dense")
    path = table_path(model_of(ruleset), tmp_path)
    np.lib.format.open_memmap(path, mode="w+", dtype=dense_model.dtype, shape=dense_model.shape)
    with pytest.raises(TableMissingError, match="delete it, and it is built again"):
        mapped_table(model_of(ruleset), path)


def test_each_layout_of_a_ruleset_is_a_table_of_its_own(tmp_path: Path) -> None:
    # The tables' files are named by the model handed to them, layout included: a host
    # that opens one layout's table never gets the other's from its cache of open tables.
    compact_model = model_of(find_ruleset("yacht"))
    dense_model = with_layout(compact_model, "dense")
    for model in (compact_model, dense_model):
        write_table(model, table_path(model, tmp_path))
        digests.seal_file(site(tmp_path), model, 0.0)
    small, big = (table_for(m, site(tmp_path)) for m in (compact_model, dense_model))
    assert small.model is compact_model and big.model is dense_model
    assert small.values.size < big.values.size and small.optimum == big.optimum


def test_the_heuristic_computer_reads_states_back() -> None:
    from daily.strategy.computer import heuristic_table

    table = heuristic_table(find_ruleset("maxi"))
    par: Any = table.values  # the par estimate, indexed as a table's values are
    model = table.model
    # The same estimate read through the dense layout: each state must come back the same.
    other = type(par)(with_layout(model, "dense"), par.pars)
    states = every_state(model, range(1, 4))
    states = states[np.random.default_rng(1).permutation(len(states))[:5000]]
    mine = par[model.entry(states[:, 0], states[:, 1], states[:, 2])]
    theirs = other[other.model.entry(states[:, 0], states[:, 1], states[:, 2])]
    assert np.all(mine > 0) and np.array_equal(mine, theirs)
    assert len(set(mine.tolist())) > 100  # the states are told apart, not read as one
