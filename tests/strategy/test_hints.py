"""Hints: every legal action with its exact expected final score, checked by brute force."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from daily.core.dice import stream
from daily.core.errors import IllegalMoveError
from daily.core.rules import Roll, Ruleset, Score, apply, find_ruleset, legal_moves, new_game
from daily.strategy.hints import Advisor, hint, hold_positions
from daily.strategy.solver import Table
from tests.strategy.brute import Brute, outcomes, ruleset_of, sheet, state

# (ruleset, open rows, closed scores, dice, rolls left): decisions late in a game.
POSITIONS = [
    ("yatzy", ("sixes", "yatzy"), {"fives": 25}, (6, 6, 2, 2, 5), 2),
    ("yatzy", ("sixes", "yatzy"), {"fives": 25}, (6, 6, 6, 6, 5), 1),
    ("yatzy", ("small_straight", "large_straight"), {}, (1, 2, 3, 4, 4), 0),
    ("yatzy", ("small_straight", "large_straight"), {}, (2, 3, 4, 5, 5), 2),
    ("yahtzee", ("threes", "full_house"), {"yahtzee": 50}, (3, 3, 3, 3, 3), 2),
    ("yahtzee", ("fours", "sixes"), {"yahtzee": 50}, (5, 5, 5, 5, 5), 0),
    ("yahtzee:forced=true", ("yahtzee", "chance"), {}, (2, 2, 2, 6, 6), 1),
    ("yacht", ("full_house", "yacht"), {}, (4, 4, 4, 1, 1), 2),
    ("maxi", ("sixes", "maxi_yatzy"), {"fives": 20}, (6, 6, 6, 1, 2, 6), 2),
    ("maxi", ("villa",), {}, (5, 5, 5, 2, 2, 1), 1),
]


def tolerance(ruleset: Ruleset) -> float:
    return 2e-4 if ruleset.dice > 5 else 1e-9


@pytest.mark.parametrize(
    ("spec", "open_rows", "closed", "dice", "rolls_left"),
    POSITIONS,
    ids=[f"{p[0]}-{'+'.join(p[1])}-{''.join(map(str, p[3]))}-{p[4]}" for p in POSITIONS],
)
def test_hint_values_match_brute_force(
    end_table: Callable[[Ruleset], Table],
    spec: str,
    open_rows: tuple[str, ...],
    closed: dict[str, int],
    dice: tuple[int, ...],
    rolls_left: int,
) -> None:
    ruleset = ruleset_of(spec)
    scores = sheet(ruleset, open_rows, **closed)
    now = state(ruleset, scores, dice, rolls_left)
    expected = Brute(ruleset).actions(scores, 0, dice, rolls_left)
    actions = hint(end_table(ruleset), now)
    got: dict[tuple[str, object], float] = {
        ("score", a.row) if a.row else ("keep", a.keep): a.value for a in actions
    }
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=tolerance(ruleset)), key


def test_hint_ranks_best_first_with_losses(yatzy_table: Table) -> None:
    game = new_game(find_ruleset("yatzy"), stream(b"hint"))
    actions = hint(yatzy_table, game)
    values = [a.value for a in actions]
    assert values == sorted(values, reverse=True)
    assert actions[0].loss == 0
    for a in actions:
        assert a.loss == pytest.approx(values[0] - a.value)


def test_hint_lists_each_legal_action_once(yatzy_table: Table) -> None:
    game = new_game(find_ruleset("yatzy"), stream(b"legal"))
    actions = hint(yatzy_table, game)
    keeps = {
        tuple(sorted(game.dice[p] for p in m.hold))
        for m in legal_moves(game)
        if isinstance(m, Roll)
    }
    rows = {m.row for m in legal_moves(game) if isinstance(m, Score)}
    assert {a.keep for a in actions if a.keep is not None} == keeps
    assert {a.row for a in actions if a.row} == rows
    assert len(actions) == len(keeps) + len(rows)
    for action in actions:
        apply(game, action.move(game.dice))  # every action is a legal move


def test_hint_with_no_rolls_left_only_scores(yatzy_table: Table) -> None:
    game = new_game(find_ruleset("yatzy"), stream(b"last"))
    game = apply(apply(game, Roll(())), Roll(()))
    actions = hint(yatzy_table, game)
    assert all(a.row for a in actions) and len(actions) == 15


def test_best_first_actions_average_to_the_optimum(yatzy_table: Table) -> None:
    # The optimum is the mean, over every first roll, of the best action's value.
    game = new_game(find_ruleset("yatzy"), stream(b"line"))
    advisor = Advisor(yatzy_table, [game])
    mean = sum(
        p * advisor.options(0, dataclasses.replace(game, dice=roll))[0].max()
        for roll, p in outcomes(5)
    )
    assert mean == pytest.approx(yatzy_table.optimum, abs=1e-9)


def test_hint_refuses_a_finished_game(yatzy_table: Table) -> None:
    ruleset = find_ruleset("yatzy")
    finished = state(ruleset, sheet(ruleset, ()), (), 0)
    with pytest.raises(IllegalMoveError, match="over"):
        hint(yatzy_table, finished)


def test_hold_positions_pick_the_kept_values() -> None:
    assert hold_positions((6, 2, 6, 3, 2), (2, 6, 6)) == (0, 1, 2)
    assert hold_positions((1, 1, 1, 1, 1), ()) == ()
