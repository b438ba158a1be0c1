"""The game state machine: rolls and holds, scoring, the Yahtzee joker, errors and replay."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from daily.core.errors import IllegalMoveError, InvalidMoveError, ReplayError, RulesError
from daily.core.rules import (
    GameState,
    Move,
    Roll,
    Score,
    apply,
    find_ruleset,
    legal_moves,
    new_game,
    parse_move,
    replay,
)

from .scripted import Script, at, play_turns, reroll

YAHTZEE = find_ruleset("yahtzee")
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
YAHTZEE_LOWER = YAHTZEE.row_ids[6:]


def scores(state: GameState) -> list[str]:
    """The rows of the Score moves legal now."""
    return [m.row for m in legal_moves(state) if isinstance(m, Score)]


def rolls(state: GameState) -> list[Move]:
    return [m for m in legal_moves(state) if isinstance(m, Roll)]


# ---------------------------------------------------------------------------------------------
# A turn: the first roll, re-rolls with holds, scoring one row.


def test_a_new_game_deals_the_first_roll_of_turn_one() -> None:
    source = Script([(3, 1, 4, 1, 5, 6)])
    state = new_game(find_ruleset("maxi"), source)
    assert source.calls == [(1, (), 6)]
    assert state.dice == (3, 1, 4, 1, 5, 6)
    assert (state.turn, state.roll, state.rolls_left, state.holds) == (1, 1, 2, ())
    assert state.scores == (None,) * 20 and state.total == 0 and not state.is_finished
    assert state.scorecard() == dict.fromkeys(find_ruleset("maxi").row_ids)


def test_holding_keeps_those_dice_and_rerolls_the_others() -> None:
    # Seed 000: keep the three 5s of 5-2-5-3-5 and re-roll the 2 and the 3.
    source = Script([(5, 2, 5, 3, 5), (1, 6, 1, 4, 1), (2, 2, 3, 3, 3)])
    state = new_game(find_ruleset("yatzy"), source)
    state = apply(state, Roll((4, 0, 2)))
    assert state.dice == (5, 6, 5, 4, 5)
    assert source.calls[-1] == (1, ((0, 2, 4),), 5)  # holds are recorded sorted
    assert (state.roll, state.rolls_left, state.holds) == (2, 1, ((0, 2, 4),))
    # A held die may be released again: the third roll keeps positions 0 and 1 only.
    state = apply(state, Roll((0, 1)))
    assert state.dice == (5, 6, 3, 3, 3)
    # A new name: mypy would keep source.calls[-1] as narrowed by the first assert on it.
    calls = source.calls
    assert calls[-1] == (1, ((0, 2, 4), (0, 1)), 5)
    assert (state.roll, state.rolls_left) == (3, 0)


def test_three_rolls_at_most() -> None:
    state = new_game(find_ruleset("yatzy"), Script([(1, 2, 3, 4, 6)] * 3))
    assert len(rolls(state)) == 2**5 - 1  # every hold but holding all five
    state = reroll(reroll(state))
    assert rolls(state) == [] and len(scores(state)) == 15
    with pytest.raises(IllegalMoveError, match="no rolls left this turn"):
        reroll(state, 0)


def test_scoring_ends_the_turn_and_deals_the_next() -> None:
    source = Script([(1, 2, 3, 2, 6), (6, 6, 6, 2, 2), (4, 4, 4, 4, 4)])
    state = reroll(new_game(find_ruleset("yatzy"), source), 1, 3)
    assert state.dice == (6, 2, 6, 2, 2)
    state = apply(state, Score("full_house"))
    assert state.scorecard()["full_house"] == 18
    assert (state.turn, state.roll, state.rolls_left, state.holds) == (2, 1, 2, ())
    assert state.dice == (4, 4, 4, 4, 4)
    assert source.calls[-1] == (2, (), 5)
    assert "full_house" not in state.open_rows() and len(state.open_rows()) == 14


def test_stopping_after_the_first_roll_and_scratching_a_row() -> None:
    state = new_game(find_ruleset("yatzy"), Script([(1, 2, 3, 4, 6), (2, 2, 2, 2, 2)]))
    assert state.potential()["yatzy"] == 0
    state = apply(state, Score("yatzy"))  # scratched: 0, and closed
    assert state.scorecard()["yatzy"] == 0
    assert "yatzy" not in state.open_rows() and "yatzy" not in state.potential()
    with pytest.raises(IllegalMoveError, match="row already scored: 'yatzy'"):
        apply(state, Score("yatzy"))


def test_potential_shows_what_every_open_row_would_score() -> None:
    state = new_game(find_ruleset("yatzy"), Script([(6, 6, 4, 4, 3), (1, 1, 1, 1, 1)]))
    expected = dict(zip(state.ruleset.row_ids, state.ruleset.score(state.dice), strict=True))
    assert state.potential() == expected
    state = apply(state, Score("two_pairs"))
    assert "two_pairs" not in state.potential()


# ---------------------------------------------------------------------------------------------
# Errors: malformed moves are InvalidMoveError, moves not allowed now IllegalMoveError; a
# refused move changes nothing and deals no dice.

MAXI_ERRORS: list[tuple[Move | object, type[RulesError], str]] = [
    (Score("yatzy"), InvalidMoveError, "unknown row for maxi: 'yatzy'"),
    (Score(""), InvalidMoveError, "unknown row for maxi: ''"),
    (Score(3), InvalidMoveError, "unknown row for maxi: 3"),  # type: ignore[arg-type]
    (Roll((6,)), InvalidMoveError, r"hold positions must be 0 to 5, got \[6\]"),
    (Roll((-1,)), InvalidMoveError, r"hold positions must be 0 to 5, got \[-1\]"),
    (Roll((1, 1)), InvalidMoveError, r"hold positions repeated: \[1, 1\]"),
    (Roll(("0",)), InvalidMoveError, "hold must be a tuple of dice positions"),  # type: ignore[arg-type]
    (Roll((0.0,)), InvalidMoveError, "hold must be a tuple of dice positions"),  # type: ignore[arg-type]
    (Roll(([0],)), InvalidMoveError, "hold must be a tuple of dice positions"),  # type: ignore[arg-type]
    (Roll((0, 1, 2, 3, 4, 5)), IllegalMoveError, "every die is held: nothing to roll"),
    ({"score": "chance"}, InvalidMoveError, "not a move"),
]


@pytest.mark.parametrize(
    ("move", "error", "message"),
    MAXI_ERRORS,
    ids=["unknown-row", "empty-row", "int-row", "position-6", "position--1", "repeated",
         "str-position", "float-position", "list-position", "hold-all", "dict"],
)  # fmt: skip
def test_bad_moves_are_refused_with_a_clear_error(
    move: Move, error: type[RulesError], message: str
) -> None:
    source = Script([(1, 2, 3, 4, 5, 6), (6,) * 6])
    state = new_game(find_ruleset("maxi"), source)
    with pytest.raises(error, match=message):
        apply(state, move)
    assert repr(move) not in map(repr, legal_moves(state))  # Roll((0.0,)) == Roll((0,))
    assert len(source.calls) == 1  # no dice were dealt for the refused move
    assert apply(state, Score("chance")).scorecard()["chance"] == 21  # the state still plays


def test_a_finished_game_takes_no_move() -> None:
    state = play_turns(
        find_ruleset("yacht"), [((6,) * 5, row) for row in find_ruleset("yacht").row_ids]
    )
    assert state.is_finished and state.dice == () and legal_moves(state) == []
    assert state.open_rows() == [] and state.potential() == {}
    for move in (Score("chance"), Roll(())):
        with pytest.raises(IllegalMoveError, match="the game is over"):
            apply(state, move)


@pytest.mark.parametrize(
    ("data", "move"),
    [
        ({"hold": [0, 3]}, Roll((0, 3))),
        ({"hold": []}, Roll(())),
        ({"score": "chance"}, Score("chance")),
    ],
    ids=["hold", "hold-none", "score"],
)
def test_parse_move_reads_a_move_log_entry(data: dict[str, object], move: Move) -> None:
    assert parse_move(data) == move
    assert move.to_dict() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"hold": [True]}, "hold must be a list of dice positions, got [True]"),
        ({"hold": [1.0]}, "hold must be a list of dice positions, got [1.0]"),
        ({"hold": "01"}, "hold must be a list of dice positions, got '01'"),
        ({"hold": None}, "hold must be a list of dice positions, got None"),
        ({"score": 3}, "score must name a row, got 3"),
        ({"score": None}, "score must name a row, got None"),
        ({"hold": [], "score": "chance"}, "a move is"),
        ({}, "a move is"),
        ([], "a move is"),
        ("chance", "a move is"),
        (None, "a move is"),
    ],
    ids=["hold-bool", "hold-float", "hold-str", "hold-none", "score-int", "score-none", "both",
         "empty", "list", "str", "none"],
)  # fmt: skip
def test_parse_move_rejects_malformed_entries(data: object, message: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        parse_move(data)
    assert message in str(caught.value)


# ---------------------------------------------------------------------------------------------
# Replay: a fold of apply over the move log.


def _scripted_game() -> tuple[Script, list[dict[str, object]]]:
    rows = find_ruleset("yacht").row_ids
    dice = [(i % 6 + 1, 2, 3, 4, 5) for i in range(3 * len(rows))]
    log: list[dict[str, object]] = []
    for row in rows:
        log += [{"hold": [0]}, {"hold": [1, 2]}, {"score": row}]
    return Script(dice), log


def test_replay_is_a_fold_of_apply() -> None:
    source, log = _scripted_game()
    replayed = replay(find_ruleset("yacht"), source, log)
    source, log = _scripted_game()
    state = new_game(find_ruleset("yacht"), source)
    for entry in log:
        state = apply(state, parse_move(entry))
    assert replayed == state and replayed.is_finished
    assert replayed.total == sum(p or 0 for p in replayed.scores) + replayed.bonus
    source, log = _scripted_game()
    assert replay(find_ruleset("yacht"), source, [parse_move(e) for e in log]) == replayed


@pytest.mark.parametrize(
    ("index", "entry", "reason"),
    [
        (0, {"score": "yatzy"}, "unknown row for yacht: 'yatzy'"),
        (2, {"hold": [0]}, "no rolls left this turn"),
        (3, {"score": "ones"}, "row already scored: 'ones'"),
        (1, {"hold": [9]}, "hold positions must be 0 to 4, got [9]"),
        (4, {"roll": []}, "a move is"),
    ],
    ids=["unknown-row", "third-reroll", "row-used", "bad-hold", "malformed"],
)
def test_replay_names_the_first_bad_move(index: int, entry: dict[str, object], reason: str) -> None:
    log: list[object] = [{"hold": []}, {"hold": []}, {"score": "ones"}, {"hold": []}, {"hold": []}]
    log[index] = entry
    with pytest.raises(ReplayError) as caught:
        replay(find_ruleset("yacht"), Script([(1, 1, 2, 2, 3)] * 8), log)
    assert caught.value.index == index
    assert reason in caught.value.reason
    assert str(caught.value).startswith(f"move {index}: ")
    assert not isinstance(caught.value, RulesError)


# ---------------------------------------------------------------------------------------------
# The Yahtzee forced joker and extra bonus.


def yahtzee_at(dice: Sequence[int], **filled: int) -> GameState:
    """A yahtzee game on its last-but-some turn: *filled* rows scored, *dice* on the table."""
    return at(new_game(YAHTZEE, Script([(1, 2, 3, 4, 6)] * 2)), dice, **filled)


def test_no_joker_while_yahtzee_is_open() -> None:
    state = yahtzee_at((4, 4, 4, 4, 4))
    assert scores(state) == list(YAHTZEE.row_ids)
    assert state.potential()["full_house"] == 0 and state.potential()["small_straight"] == 0
    state = apply(state, Score("yahtzee"))
    assert state.scorecard()["yahtzee"] == 50 and state.extra_bonuses == 0


@pytest.mark.parametrize("yahtzee", [50, 0], ids=["yahtzee-50", "yahtzee-scratched"])
def test_joker_must_take_the_matching_upper_row_when_open(yahtzee: int) -> None:
    state = yahtzee_at((4, 4, 4, 4, 4), yahtzee=yahtzee)
    assert scores(state) == ["fours"]
    assert state.open_rows() == ["fours"] and state.potential() == {"fours": 20}
    assert len(rolls(state)) == 31  # re-rolling is still allowed
    for row in ("chance", "full_house", "ones"):
        with pytest.raises(IllegalMoveError, match=f"joker rule: '{row}' may not be scored"):
            apply(state, Score(row))
    state = apply(state, Score("fours"))
    assert state.scorecard()["fours"] == 20
    assert state.extra_bonuses == (1 if yahtzee else 0)
    assert state.total == 20 + yahtzee + (100 if yahtzee else 0)


JOKER_LOWER = {
    "three_of_a_kind": 20,
    "four_of_a_kind": 20,
    "full_house": 25,
    "small_straight": 30,
    "large_straight": 40,
    "chance": 20,
}


@pytest.mark.parametrize("yahtzee", [50, 0], ids=["yahtzee-50", "yahtzee-scratched"])
@pytest.mark.parametrize(("row", "points"), JOKER_LOWER.items(), ids=list(JOKER_LOWER))
def test_joker_with_its_upper_row_filled_takes_any_lower_row(
    row: str, points: int, yahtzee: int
) -> None:
    state = yahtzee_at((4, 4, 4, 4, 4), fours=12, yahtzee=yahtzee)
    assert scores(state) == list(JOKER_LOWER)  # never an open upper row
    assert state.potential() == JOKER_LOWER
    with pytest.raises(IllegalMoveError, match="joker rule: 'sixes'"):
        apply(state, Score("sixes"))
    state = apply(state, Score(row))
    assert state.scorecard()[row] == points
    assert state.extra_bonus == (100 if yahtzee else 0)
    assert state.total == 12 + yahtzee + points + state.extra_bonus


def test_joker_lower_rows_score_only_when_open() -> None:
    state = yahtzee_at((2, 2, 2, 2, 2), twos=4, yahtzee=50, full_house=25, chance=17)
    assert scores(state) == [
        "three_of_a_kind",
        "four_of_a_kind",
        "small_straight",
        "large_straight",
    ]


@pytest.mark.parametrize("yahtzee", [50, 0], ids=["yahtzee-50", "yahtzee-scratched"])
def test_joker_with_no_lower_row_open_takes_any_upper_row_for_zero(yahtzee: int) -> None:
    lower = dict.fromkeys(YAHTZEE_LOWER, 0) | {"yahtzee": yahtzee}
    state = yahtzee_at((5, 5, 5, 5, 5), fives=10, **lower)
    assert scores(state) == ["ones", "twos", "threes", "fours", "sixes"]
    assert state.potential() == dict.fromkeys(["ones", "twos", "threes", "fours", "sixes"], 0)
    state = apply(state, Score("sixes"))
    assert state.scorecard()["sixes"] == 0
    assert state.extra_bonuses == (1 if yahtzee else 0)


def test_an_ordinary_roll_after_yahtzee_is_no_joker() -> None:
    state = yahtzee_at((4, 4, 4, 4, 2), yahtzee=50)
    assert scores(state) == [r for r in YAHTZEE.row_ids if r != "yahtzee"]
    assert state.potential()["full_house"] == 0 and state.potential()["chance"] == 18
    assert apply(state, Score("chance")).extra_bonuses == 0


def test_extra_bonus_100_for_every_further_yahtzee() -> None:
    turns = [
        ((3, 3, 3, 3, 3), "yahtzee"),  # the first: 50, no bonus
        ((6, 6, 6, 6, 6), "sixes"),  # +100
        ((1, 2, 3, 4, 6), "ones"),
        ((2, 2, 2, 2, 2), "twos"),  # +100
        ((6, 6, 6, 6, 6), "chance"),  # sixes filled: any lower row, +100
    ] + [((1, 1, 2, 2, 3), row) for row in ("threes", "fours", "fives", "three_of_a_kind",
                                               "four_of_a_kind", "full_house", "small_straight",
                                               "large_straight")]  # fmt: skip
    state = play_turns(YAHTZEE, turns)
    assert state.is_finished and state.extra_bonuses == 3 and state.extra_bonus == 300
    sheet = sum(p or 0 for p in state.scores)
    assert sheet == 50 + 30 + 1 + 10 + 30 + 3  # threes 3; the other rows scratched
    assert state.total == sheet + 300


def test_no_extra_bonus_after_a_scratched_yahtzee() -> None:
    turns = [((1, 2, 3, 4, 6), "yahtzee"), ((6,) * 5, "sixes"), ((6,) * 5, "chance")]
    turns += [((5,) * 5, "fives"), ((5,) * 5, "full_house")]
    turns += [((1, 1, 2, 2, 3), row) for row in ("ones", "twos", "threes", "fours",
              "three_of_a_kind", "four_of_a_kind", "small_straight", "large_straight")]  # fmt: skip
    state = play_turns(YAHTZEE, turns)
    assert state.is_finished and state.extra_bonuses == 0 and state.extra_bonus == 0
    assert state.scorecard()["full_house"] == 25  # the joker still scores, only without bonus
    assert state.scorecard()["chance"] == 30
    assert (state.upper, state.bonus) == (64, 35)
    assert state.total == sum(p or 0 for p in state.scores) + 35 == 154


@pytest.mark.parametrize("ruleset_id", ["yatzy", "maxi", "yacht"])
def test_other_rulesets_have_no_joker_and_no_extra_bonus(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    all_equal = ruleset.row_ids[-1]
    state = at(new_game(ruleset, Script([(4,) * ruleset.dice] * 3)), (4,) * ruleset.dice)
    state = apply(state, Score(all_equal))
    assert scores(state) == list(ruleset.row_ids[:-1])  # a second one goes in any open row
    state = apply(state, Score("ones"))
    assert state.scorecard()["ones"] == 0 and state.extra_bonuses == 0


def test_forced_order_overrides_the_joker_placement() -> None:
    forced = find_ruleset("yahtzee", {"forced": True})
    filled = dict.fromkeys(forced.row_ids[:-1], 0) | {"yahtzee": 50}
    state = at(new_game(forced, Script([(1, 2, 3, 4, 6)])), (5,) * 5, **filled)
    assert scores(state) == ["chance"]
    state = apply(state, Score("chance"))
    assert state.is_finished and state.total == 50 + 25 + 100


# ---------------------------------------------------------------------------------------------
# The stated maximum totals, reached by explicit best games.

SIX = (6, 6, 6, 6, 6)
UPPER_FIVE: list[tuple[tuple[int, ...], str]] = [
    ((face,) * 5, row) for face, row in enumerate(UPPER, start=1)
]

BEST_GAMES: dict[str, list[tuple[tuple[int, ...], str]]] = {
    "yatzy": UPPER_FIVE
    + [
        ((6, 6, 1, 2, 3), "one_pair"),  # 12
        ((6, 6, 5, 5, 1), "two_pairs"),  # 22
        ((6, 6, 6, 1, 2), "three_of_a_kind"),  # 18
        ((6, 6, 6, 6, 1), "four_of_a_kind"),  # 24
        ((1, 2, 3, 4, 5), "small_straight"),  # 15
        ((2, 3, 4, 5, 6), "large_straight"),  # 20
        ((6, 6, 6, 5, 5), "full_house"),  # 28
        (SIX, "chance"),  # 30
        ((1, 1, 1, 1, 1), "yatzy"),  # 50
    ],
    "yacht": UPPER_FIVE
    + [
        (SIX, "choice"),
        (SIX, "four_of_a_kind"),
        (SIX, "full_house"),  # five equal count as a full house in yacht
        ((3, 4, 5, 6, 1), "small_straight"),
        ((2, 3, 4, 5, 6), "large_straight"),
        ((2, 2, 2, 2, 2), "yacht"),
    ],
    # Without the joker: yahtzee last, so earlier five-equal rolls are ordinary rolls.
    "yahtzee": UPPER_FIVE
    + [
        (SIX, "three_of_a_kind"),
        (SIX, "four_of_a_kind"),
        ((6, 6, 6, 5, 5), "full_house"),
        ((1, 2, 3, 4, 6), "small_straight"),
        ((2, 3, 4, 5, 6), "large_straight"),
        (SIX, "chance"),
        ((1, 1, 1, 1, 1), "yahtzee"),
    ],
    # Thirteen yahtzees: the first in its row, then the joker takes each matching upper row
    # (+100 each), then, with sixes filled, every lower row (+100 each): twelve extra bonuses.
    "yahtzee-1575": [(SIX, "yahtzee")]
    + UPPER_FIVE
    + [(SIX, row) for row in YAHTZEE_LOWER if row != "yahtzee"],
}


@pytest.mark.parametrize(
    ("game", "total", "bonus", "extra"),
    [("yatzy", 374, 50, 0), ("yacht", 325, 35, 0), ("yahtzee", 375, 35, 0),
     ("yahtzee-1575", 1575, 35, 1200)],
    ids=["yatzy-374", "yacht-325", "yahtzee-375", "yahtzee-1575"],
)  # fmt: skip
def test_best_game_reaches_the_stated_maximum(
    game: str, total: int, bonus: int, extra: int
) -> None:
    ruleset = find_ruleset(game.split("-")[0])
    turns = BEST_GAMES[game]
    assert sorted(row for _, row in turns) == sorted(ruleset.row_ids)
    state = play_turns(ruleset, turns)
    assert state.is_finished and state.turn == len(ruleset.rows)
    assert (state.bonus, state.extra_bonus) == (bonus, extra)
    assert state.total == total == sum(p or 0 for p in state.scores) + bonus + extra


MAXI_BEST = [
    ((1,) * 6, "ones"), ((2,) * 6, "twos"), ((3,) * 6, "threes"), ((4,) * 6, "fours"),
    ((5,) * 6, "fives"), ((6,) * 6, "sixes"),  # 126, bonus 100
    ((6, 6, 5, 4, 3, 2), "one_pair"),  # 12
    ((6, 6, 5, 5, 1, 2), "two_pairs"),  # 22
    ((6, 6, 5, 5, 4, 4), "three_pairs"),  # 30
    ((6, 6, 6, 1, 2, 3), "three_of_a_kind"),  # 18
    ((6, 6, 6, 6, 1, 2), "four_of_a_kind"),  # 24
    ((6, 6, 6, 6, 6, 1), "five_of_a_kind"),  # 30
    ((6, 6, 6, 5, 5, 1), "full_house"),  # 28
    ((6, 6, 6, 5, 5, 5), "villa"),  # 33
    ((6, 6, 6, 6, 5, 5), "tower"),  # 34
    ((1, 2, 3, 4, 5, 1), "small_straight"),  # 15
    ((2, 3, 4, 5, 6, 2), "large_straight"),  # 20
    ((1, 2, 3, 4, 5, 6), "full_straight"),  # 21
    ((6,) * 6, "chance"),  # 36
    ((2,) * 6, "maxi_yatzy"),  # 100
]  # fmt: skip


def test_best_maxi_game_reaches_649_with_every_turn_rolled_three_times() -> None:
    # Each turn: a first roll with one die wrong, that die re-rolled twice (a 1 then the
    # needed face) while the other five are held.
    maxi = find_ruleset("maxi")
    dice: list[tuple[int, ...]] = []
    for target, _ in MAXI_BEST:
        wrong = 1 if target[5] != 1 else 2
        dice += [target[:5] + (wrong,), (wrong,) * 6, (3,) * 5 + (target[5],)]
    source = Script(dice)
    state = new_game(maxi, source)
    for target, row in MAXI_BEST:
        state = reroll(reroll(state, 0, 1, 2, 3, 4), 4, 3, 2, 1, 0)
        assert state.dice == target and state.rolls_left == 0
        state = apply(state, Score(row))
    assert source.rolls == []
    assert state.is_finished and state.turn == 20
    assert (state.upper, state.bonus) == (126, 100)
    assert state.total == 649 == maxi.max_total
