"""The exact solver: published optima, end games against brute force, the cache and its errors."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from daily.core.errors import RulesError, TableMissingError
from daily.core.rules import Ruleset, find_ruleset, parse_spec
from daily.strategy.model import level_states, model_of, turn, turn_value
from daily.strategy.solver import Table, level_work, state_count, state_of, state_work
from daily.tables import builder
from daily.tables.files import table_path
from daily.tables.loader import load_table, table_for
from tests.built_tables import site
from tests.strategy.brute import Brute, ruleset_of, sheet, state

# (ruleset, open rows, closed rows' scores): end games with one or two rows to fill.
END_GAMES = [
    ("yatzy", ("sixes", "yatzy"), {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15}),
    ("yatzy", ("sixes", "yatzy"), {"ones": 3, "twos": 6, "threes": 9, "fours": 16, "fives": 25}),
    ("yatzy", ("small_straight", "large_straight"), {}),
    ("yatzy", ("ones",), {"twos": 8, "threes": 12, "fours": 16, "fives": 15, "sixes": 12}),
    ("yatzy:forced=true", ("chance", "yatzy"), {}),
    ("yacht", ("full_house", "yacht"), {}),
    ("yacht", ("fives", "small_straight"), {"sixes": 24}),
    ("yahtzee", ("threes", "full_house"), {"yahtzee": 50}),
    ("yahtzee", ("threes", "full_house"), {"yahtzee": 0}),
    ("yahtzee", ("yahtzee", "chance"), {}),
    ("yahtzee", ("fours", "sixes"), {"yahtzee": 50, "fives": 25}),
    ("yahtzee:forced=true", ("yahtzee", "chance"), {}),
    ("yahtzee:forced=true", ("chance",), {"yahtzee": 50}),
    (
        "maxi",
        ("sixes", "maxi_yatzy"),
        {"ones": 3, "twos": 8, "threes": 12, "fours": 16, "fives": 20},
    ),
    ("maxi", ("tower",), {}),
    ("maxi:full_straight=30", ("full_straight",), {}),
    ("maxi:bonus=50@75", ("fives",), {"sixes": 24, "fours": 16, "threes": 9}),
    ("maxi:forced=true", ("maxi_yatzy",), {}),
]
IDS = [f"{spec}-{'+'.join(rows)}" for spec, rows, _ in END_GAMES]


def tolerance(ruleset: Ruleset) -> float:
    # maxi's table is float32 (half the memory); the 5-dice tables are float64.
    return 2e-4 if ruleset.dice > 5 else 1e-9


@pytest.mark.slow
def test_yatzy_reaches_the_published_optimum(yatzy_table: Table) -> None:
    assert abs(yatzy_table.optimum - 248.4399894) < 1e-6


@pytest.mark.slow
def test_yahtzee_reaches_the_published_optima(tmp_path: Path) -> None:
    yahtzee = find_ruleset("yahtzee")
    assert abs(builder.solve(model_of(yahtzee), site(tmp_path)).optimum - 254.5877) < 5e-5
    plain = dataclasses.replace(yahtzee, extra_bonus=0, joker_row="")  # no extra bonus, no joker
    assert abs(builder.solve(model_of(plain), site(tmp_path)).optimum - 245.8708) < 5e-5


@pytest.mark.slow  # brute force; the quick loop keeps test_hints.py's brute-force checks
@pytest.mark.parametrize(("spec", "open_rows", "closed"), END_GAMES, ids=IDS)
def test_end_games_match_brute_force(
    end_table: Callable[[Ruleset], Table],
    spec: str,
    open_rows: tuple[str, ...],
    closed: dict[str, int],
) -> None:
    ruleset = ruleset_of(spec)
    table = end_table(ruleset)
    scores = sheet(ruleset, open_rows, **closed)
    now = state(ruleset, scores, (1,) * ruleset.dice, ruleset.rerolls)
    mask, upper, flag = state_of(table.model, now)
    expected = Brute(ruleset).sheet(scores)
    assert table.value_of(mask, upper, flag) + now.total == pytest.approx(
        expected, abs=tolerance(ruleset)
    )


def test_dead_upper_totals_share_one_entry() -> None:
    model = model_of(find_ruleset("yatzy"))
    # With only sixes open, 30 more is the most it can add: 20 + 30 < 63, 40 + 30 >= 63.
    mask = np.array([1 << 5] * 3)
    entries = model.entry(mask, np.array([0, 20, 40]), np.zeros(3, np.int64))
    assert entries[0] == entries[1] != entries[2]


def test_levels_list_only_reachable_upper_totals() -> None:
    model = model_of(find_ruleset("yatzy"))
    states = level_states(model, 14)  # one row closed
    only_ones_closed = states[states[:, 0] == (1 << 15) - 1 - 1]
    # ones alone makes 0 to 5: all dead (63 is out of reach without it? no: 5 + 100 >= 63)
    assert sorted(only_ones_closed[:, 1]) == [0, 1, 2, 3, 4, 5]


def test_maxi_state_count() -> None:
    # 57.5 million reachable states, 33.5 million once dead upper totals are merged.
    assert state_count(find_ruleset("maxi")) == 33_472_510


def test_table_is_memory_mapped_read_only(yatzy_table: Table, cache_dir: Path) -> None:
    table = load_table(model_of(find_ruleset("yatzy")), site(cache_dir))
    base: npt.NDArray[Any] | None = table.values  # walked down its chain of bases
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    assert isinstance(base, np.memmap) and base.mode == "r"
    with pytest.raises(ValueError, match="read-only"):
        table.values[0] = 1.0
    assert table.optimum == yatzy_table.optimum


def test_tables_build_only_when_asked(tmp_path: Path) -> None:
    yacht = find_ruleset("yacht")
    with pytest.raises(TableMissingError, match="no strategy table for yacht yet"):
        load_table(model_of(yacht), site(tmp_path))
    assert list(tmp_path.iterdir()) == []  # looking creates nothing
    assert builder.build(model_of(yacht), site(tmp_path))
    table = load_table(model_of(yacht), site(tmp_path))
    assert table_path(model_of(yacht), tmp_path).exists()
    assert 190 < table.optimum < 193  # 191.7743692: see docs/strategy.md


def test_maxi_is_not_built_on_a_request(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="daily solve maxi"):
        load_table(model_of(find_ruleset("maxi")), site(tmp_path))
    with pytest.raises(TableMissingError):
        table_for(model_of(find_ruleset("maxi")), site(tmp_path))
    assert list(tmp_path.iterdir()) == []


KERNEL_CASES = ["yatzy", "yatzy:forced=true", "yacht", "yahtzee", "yahtzee:forced=true", "maxi"]
KERNEL_CASES += ["maxi:forced=true", "maxi:bonus=50@75"]


@pytest.mark.parametrize("spec", KERNEL_CASES)
def test_the_compiled_kernel_matches_the_numpy_turn(
    spec: str, end_table: Callable[[Ruleset], Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The states with three open rows, valued on a table whose one- and two-row levels are
    # solved: every row kind, the bonus, and Yahtzee's joker and flag come into play.
    ruleset = parse_spec(spec)
    table = end_table(ruleset)
    states = level_states(table.model, 3)
    states = states[np.random.default_rng(0).permutation(len(states))[:3000]]
    compiled = turn_value(table.model, table.values, states)
    monkeypatch.setattr("daily.strategy.model.COMPILED", False)
    plain = turn(table.model, table.values, states).value
    assert compiled.dtype == plain.dtype == table.model.dtype
    assert np.all(plain > 0)
    np.testing.assert_allclose(compiled, plain, rtol=2e-6 if ruleset.dice > 5 else 1e-12)


def test_saved_rolls_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="saved_rolls"):
        builder.solve(model_of(find_ruleset("maxi", {"saved_rolls": True})), site(tmp_path))


def test_options_change_the_table_file(tmp_path: Path) -> None:
    paths = {
        table_path(model_of(find_ruleset("maxi", options)), tmp_path)
        for options in ({}, {"bonus": "50@75"}, {"full_straight": 25}, {"forced": True})
    }
    assert len(paths) == 4


def test_table_for_maps_each_table_once(yatzy_table: Table, cache_dir: Path) -> None:
    first = table_for(model_of(find_ruleset("yatzy")), site(cache_dir))
    assert table_for(model_of(find_ruleset("yatzy")), site(cache_dir)) is first
    assert first.optimum == yatzy_table.optimum


def test_forced_lower_rows_are_independent_turns(tmp_path: Path) -> None:
    # In forced order the lower rows come last, one turn each, and no bonus is left to
    # play for: their value is the sum of nine single-row turns, each brute-forced alone.
    ruleset = find_ruleset("yatzy", {"forced": True})
    table = builder.solve(model_of(ruleset), site(tmp_path))
    lower = tuple(row.id for row in ruleset.rows if not row.face)
    zeros = {row.id: 0 for row in ruleset.rows}
    brute = Brute(ruleset)
    singles = 0.0
    for row in lower:
        scores = sheet(ruleset, (row,), **zeros)
        singles += brute.sheet(scores) - state(ruleset, scores, (1,) * 5, 2).total
    now = state(ruleset, sheet(ruleset, lower, **zeros), (1,) * 5, 2)
    assert table.value_of(*state_of(table.model, now)) == pytest.approx(singles, abs=1e-9)
    assert 120 < table.optimum < 125  # 122.5585274: see docs/strategy.md


def test_progress_counts_work_evenly_to_the_end(tmp_path: Path) -> None:
    ruleset = find_ruleset("yacht")
    seen: list[tuple[float, float]] = []
    builder.solve(
        model_of(ruleset), site(tmp_path), progress=lambda done, total: seen.append((done, total))
    )
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == seen[-1][1]
    model = model_of(ruleset)
    # The work of the levels, not their state counts: a state with more open rows weighs more.
    total = sum(level_work(model, k) for k in range(1, model.rows + 1))
    assert seen[-1][1] == pytest.approx(total)
    assert state_work(model, 12) > state_work(model, 1)
