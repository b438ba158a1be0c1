"""Property tests of the rules engine: scores, legal moves, whole random games and replay."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from daily.core.errors import IllegalMoveError, InvalidMoveError
from daily.core.rules import (
    GameState,
    Move,
    Roll,
    Ruleset,
    Score,
    apply,
    find_ruleset,
    legal_moves,
    new_game,
    replay,
)

from .scripted import at, seeded

EDITIONS: list[tuple[str, dict[str, Any]]] = [
    ("maxi", {}),
    ("maxi", {"bonus": "50@75", "full_straight": 30}),
    ("maxi", {"saved_rolls": True}),
    ("maxi", {"forced": True, "saved_rolls": True, "full_straight": 25}),
    ("yatzy", {}),
    ("yatzy", {"forced": True}),
    ("yacht", {}),
    ("yahtzee", {}),
    ("yahtzee", {"forced": True}),
]
rulesets = st.sampled_from([find_ruleset(r, o) for r, o in EDITIONS])
FAST = settings(max_examples=300, deadline=None)
# A failing whole game would shrink for minutes: report it as found (its draws replay it).
GAMES = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
# Rows of the other rulesets and names of no row: unknown here, so never legal.
STRANGERS = ["", "yatzy", "maxi_yatzy", "yacht", "yahtzee", "choice", "villa", "bogus", "Ones"]


def dice_for(ruleset: Ruleset) -> st.SearchStrategy[tuple[int, ...]]:
    faces = st.integers(1, 6)
    return st.lists(faces, min_size=ruleset.dice, max_size=ruleset.dice).map(tuple)


@st.composite
def sheets(draw: st.DrawFn, ruleset: Ruleset) -> dict[str, int]:
    """Some rows already scored, with points they can hold (the yahtzee row 0 or 50)."""
    filled = draw(st.lists(st.sampled_from(ruleset.row_ids), unique=True))
    column = {
        row: sorted({p[ruleset.index_of(row)] for p in ruleset.table.values()}) for row in filled
    }
    return {row: draw(st.sampled_from(points)) for row, points in column.items()}


@FAST
@given(st.data())
def test_no_score_is_negative_and_permuting_dice_changes_nothing(data: st.DataObject) -> None:
    ruleset = data.draw(rulesets)
    dice = data.draw(dice_for(ruleset))
    shuffled = data.draw(st.permutations(dice).map(tuple))  # score takes a tuple
    assert ruleset.score(shuffled) == ruleset.score(dice)
    assert min(ruleset.score(dice)) >= 0
    # The same through a game, where the joker may change the points and the open rows.
    sheet = data.draw(sheets(ruleset))
    if len(sheet) == len(ruleset.rows):
        return
    state = new_game(ruleset, seeded(0))
    potential = at(state, dice, **sheet).potential()
    assert at(state, shuffled, **sheet).potential() == potential
    assert potential and min(potential.values()) >= 0


def candidates(state: GameState) -> st.SearchStrategy[Move]:
    """Moves good and bad: positions out of range or repeated, holding all, any row name."""
    n = state.ruleset.dice
    holds = st.lists(st.integers(-2, n + 1), max_size=n + 2).map(tuple)
    return st.one_of(
        holds.map(Roll),
        st.permutations(range(n)).map(lambda p: Roll(tuple(p))),  # hold all: nothing to roll
        st.lists(st.integers(0, n - 1), unique=True).map(lambda p: Roll(tuple(p))),
        st.sampled_from([*state.ruleset.row_ids, *STRANGERS]).map(Score),
    )


def check_apply_accepts_exactly_legal_moves(
    state: GameState, legal_moves: set[Move], move: Move
) -> None:
    # legal_moves writes each hold sorted; apply takes the positions in any order.
    same = Roll(tuple(sorted(move.hold))) if isinstance(move, Roll) else move
    legal = same in legal_moves
    try:
        after = apply(state, move)
    except (InvalidMoveError, IllegalMoveError):
        assert not legal, f"{move} is listed as legal but apply refused it"
    else:
        assert legal, f"apply accepted {move}, which legal_moves does not list"
        assert after == apply(state, same)


def best_score(state: GameState) -> Move:
    """Scores the row worth most now, or re-rolls everything if nothing scores."""
    row, points = max(state.potential().items(), key=lambda item: item[1])
    return Roll(()) if points == 0 and state.rolls_left else Score(row)


@pytest.mark.slow  # 7 s; the quick loop keeps the two other properties
@GAMES
@given(rulesets, st.integers(0, 2**32), st.sampled_from([0.0, 0.3, 0.7]), st.booleans(), st.data())
def test_random_legal_games(
    ruleset: Ruleset, seed: int, equal_chance: float, greedy: bool, data: st.DataObject
) -> None:
    play_random_game(ruleset, seed, equal_chance, greedy, data)


@settings(GAMES, max_examples=30)
@given(st.integers(0, 2**32), st.booleans(), st.data())
def test_random_yahtzee_games_full_of_jokers(seed: int, greedy: bool, data: st.DataObject) -> None:
    play_random_game(find_ruleset("yahtzee"), seed, 0.7, greedy, data)


def play_random_game(
    ruleset: Ruleset, seed: int, equal_chance: float, greedy: bool, data: st.DataObject
) -> None:
    """Plays legal moves to the end, checking each state and the finished game."""
    source = seeded(seed, equal_chance)
    state = new_game(ruleset, source)
    states, log = [state], []
    extra = 0
    while not state.is_finished:
        assert state.rolls_left >= 0 and (ruleset.saved_rolls or state.roll <= 3)
        moves = legal_moves(state)
        legal = set(moves)
        assert len(legal) == len(moves)
        check_apply_accepts_exactly_legal_moves(state, legal, data.draw(candidates(state)))
        move = best_score(state) if greedy else data.draw(st.sampled_from(moves))
        if isinstance(move, Score):
            potential = state.potential()
            # docs/rules.md: each further five-of-a-kind scored after `yahtzee` holds 50 adds 100.
            yahtzee = ruleset.id == "yahtzee" and state.scorecard()["yahtzee"] == 50
            extra += yahtzee and len(set(state.dice)) == 1
        state = apply(state, move)
        if isinstance(move, Score):
            assert state.scorecard()[move.row] == potential[move.row]
        states.append(state)
        log.append(move)

    # The game ends after as many turns as rows, and its total adds up.
    assert sum(isinstance(m, Score) for m in log) == len(ruleset.rows) == state.turn
    sheet = state.scorecard()
    assert None not in sheet.values()
    upper = sum(
        points or 0 for row, points in sheet.items() if ruleset.rows[ruleset.index_of(row)].face
    )
    bonus = ruleset.bonus if upper >= ruleset.bonus_threshold else 0
    assert state.bonus == bonus and state.extra_bonuses == extra
    assert state.total == sum(points or 0 for points in sheet.values()) + bonus + 100 * extra
    assert legal_moves(state) == []
    event(f"{ruleset.id}: extra bonuses {min(extra, 2)}+, upper bonus {bonus > 0}")

    # Replaying the move log, or any prefix of it, gives the same state.
    assert replay(ruleset, source, [m.to_dict() for m in log]) == state
    cut = data.draw(st.integers(0, len(log)))
    assert replay(ruleset, seeded(seed, equal_chance), log[:cut]) == states[cut]
