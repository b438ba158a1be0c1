"""Scoring: every worked example of docs/rules.md and the rule pages, edge cases and options."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

from daily.core.errors import IllegalMoveError, RulesError
from daily.core.rules import (
    BASE_RULESETS,
    Roll,
    Ruleset,
    Score,
    apply,
    find_ruleset,
    legal_moves,
    new_game,
    parse_dice,
    parse_options,
    parse_spec,
)

from .scripted import Script, at, reroll

# (where it is written, ruleset, dice, row, points). "RULES" is docs/rules.md; the original
# rule pages the product comes from are 000 (Portuguese, Yatzy and Maxi Yatzy), 002
# (Portuguese, a 13-category game), 003 (Portuguese, Yahtzee) and 004 (Spanish, Yatzy and
# Maxi Yatzy).
WORKED_EXAMPLES: list[tuple[str, str, tuple[int, ...], str, int]] = [
    # docs/rules.md
    ("RULES", "yatzy", (6, 6, 5, 3, 2), "one_pair", 12),
    ("RULES", "yatzy", (6, 6, 4, 4, 3), "two_pairs", 20),
    ("RULES", "yatzy", (6, 6, 6, 3, 3), "full_house", 24),
    ("RULES", "maxi", (6, 6, 5, 3, 2, 1), "one_pair", 12),
    ("RULES", "maxi", (6, 6, 4, 4, 3, 1), "two_pairs", 20),
    ("RULES", "maxi", (6, 6, 5, 5, 2, 2), "three_pairs", 26),
    ("RULES", "maxi", (4, 4, 4, 4, 4, 2), "five_of_a_kind", 20),
    ("RULES", "maxi", (6, 6, 6, 3, 3, 1), "full_house", 24),
    ("RULES", "maxi", (5, 5, 5, 2, 2, 2), "villa", 21),
    ("RULES", "maxi", (6, 6, 6, 6, 2, 2), "tower", 28),
]
# Seeds 000 and 004 print the same tables ("X dá N" / "X da N").
for _seed in ("000", "004"):
    WORKED_EXAMPLES += [
        (_seed, "yatzy", (1, 1, 1, 4, 6), "ones", 3),
        (_seed, "yatzy", (2, 2, 3, 5, 6), "twos", 4),
        (_seed, "yatzy", (3, 3, 3, 3, 1), "threes", 12),
        (_seed, "yatzy", (4, 4, 4, 2, 6), "fours", 12),
        (_seed, "yatzy", (5, 5, 5, 1, 3), "fives", 15),
        (_seed, "yatzy", (6, 6, 6, 2, 4), "sixes", 18),
        (_seed, "yatzy", (6, 6, 5, 3, 2), "one_pair", 12),
        (_seed, "yatzy", (6, 6, 4, 4, 3), "two_pairs", 20),
        (_seed, "yatzy", (5, 5, 5, 3, 2), "three_of_a_kind", 15),
        (_seed, "yatzy", (5, 5, 5, 5, 2), "four_of_a_kind", 20),
        (_seed, "yatzy", (1, 2, 3, 4, 5), "small_straight", 15),
        (_seed, "yatzy", (2, 3, 4, 5, 6), "large_straight", 20),
        (_seed, "yatzy", (6, 6, 6, 3, 3), "full_house", 24),
        (_seed, "yatzy", (6, 6, 5, 4, 3), "chance", 24),
        (_seed, "yatzy", (4, 4, 4, 4, 4), "yatzy", 50),
        (_seed, "maxi", (6, 6, 5, 3, 2, 1), "one_pair", 12),
        (_seed, "maxi", (6, 6, 4, 4, 3, 1), "two_pairs", 20),
        (_seed, "maxi", (6, 6, 5, 5, 2, 2), "three_pairs", 26),
        (_seed, "maxi", (5, 5, 5, 3, 2, 1), "three_of_a_kind", 15),
        (_seed, "maxi", (5, 5, 5, 5, 2, 1), "four_of_a_kind", 20),
        (_seed, "maxi", (4, 4, 4, 4, 4, 2), "five_of_a_kind", 20),
        (_seed, "maxi", (6, 6, 6, 3, 3, 1), "full_house", 24),
        (_seed, "maxi", (5, 5, 5, 2, 2, 2), "villa", 21),
        (_seed, "maxi", (6, 6, 6, 6, 2, 2), "tower", 28),
        (_seed, "maxi", (1, 2, 3, 4, 5, 5), "small_straight", 15),
        (_seed, "maxi", (2, 3, 4, 5, 6, 6), "large_straight", 20),
        (_seed, "maxi", (1, 2, 3, 4, 5, 6), "full_straight", 21),
        (_seed, "maxi", (6, 6, 5, 4, 3, 2), "chance", 26),
        (_seed, "maxi", (4, 4, 4, 4, 4, 4), "maxi_yatzy", 100),
    ]
WORKED_EXAMPLES += [
    # 000, in the text: "4-4-4-6-1 dá 12 em Trinca".
    ("000", "yatzy", (4, 4, 4, 6, 1), "three_of_a_kind", 12),
    # 000/004 tips: three 6s in sixes are exactly on the bonus pace (18 = 3 x 6), four leave 6
    # points to spare; in maxi the pace is four of each (24), so five 6s are 6 ahead.
    ("000", "yatzy", (6, 6, 6, 2, 1), "sixes", 18),
    ("000", "yatzy", (6, 6, 6, 6, 1), "sixes", 24),
    ("004", "maxi", (6, 6, 6, 6, 6, 1), "sixes", 30),
    ("RULES", "maxi", (5, 5, 5, 5, 5, 5), "three_of_a_kind", 15),
    # 002: "(1, 1, 1, 3, 6) dá 3 em Uns e 6 em Seis"; a short straight's fifth die may repeat.
    ("002", "yahtzee", (1, 1, 1, 3, 6), "ones", 3),
    ("002", "yahtzee", (1, 1, 1, 3, 6), "sixes", 6),
    ("002", "yahtzee", (1, 2, 3, 4, 4), "small_straight", 30),
    ("002", "yahtzee", (5, 5, 5, 2, 2), "full_house", 25),
    ("002", "yahtzee", (5, 5, 5, 5, 5), "full_house", 0),
    ("002", "yahtzee", (3, 3, 3, 6, 1), "three_of_a_kind", 16),
    ("002", "yahtzee", (3, 3, 3, 3, 1), "four_of_a_kind", 13),
    ("002", "yahtzee", (2, 3, 4, 5, 6), "large_straight", 40),
    ("002", "yahtzee", (2, 2, 2, 2, 2), "yahtzee", 50),
    # 003: "três quatros na casa dos Quatros são 12"; five in a row hold four in a row (30);
    # a full house may go to three of a kind or chance, scoring the sum of the five.
    ("003", "yahtzee", (4, 4, 4, 1, 2), "fours", 12),
    ("003", "yahtzee", (1, 2, 3, 4, 5), "small_straight", 30),
    ("003", "yahtzee", (3, 3, 3, 5, 5), "three_of_a_kind", 19),
    ("003", "yahtzee", (3, 3, 3, 5, 5), "chance", 19),
    ("003", "yahtzee", (3, 3, 3, 5, 5), "threes", 9),
    ("003", "yahtzee", (3, 3, 3, 5, 5), "full_house", 25),
    # 001 (Yacht): four or more equal and full house sum all five; five equal are a full house.
    ("001", "yacht", (5, 5, 5, 5, 2), "four_of_a_kind", 22),
    ("001", "yacht", (5, 5, 5, 5, 5), "four_of_a_kind", 25),
    ("001", "yacht", (6, 6, 6, 3, 3), "full_house", 24),
    ("001", "yacht", (4, 4, 4, 4, 4), "full_house", 20),
    ("001", "yacht", (1, 2, 3, 4, 6), "small_straight", 15),
    ("001", "yacht", (2, 3, 4, 5, 2), "small_straight", 15),
    ("001", "yacht", (3, 4, 5, 6, 6), "small_straight", 15),
    ("001", "yacht", (1, 2, 3, 4, 5), "large_straight", 30),
    ("001", "yacht", (2, 3, 4, 5, 6), "large_straight", 30),
    ("001", "yacht", (6, 5, 4, 3, 3), "choice", 21),
    ("001", "yacht", (3, 3, 3, 3, 3), "yacht", 50),
    # 001 (Yatzy): the straights are exactly 1-2-3-4-5 and 2-3-4-5-6.
    ("001", "yatzy", (1, 2, 3, 4, 6), "small_straight", 0),
    ("001", "yatzy", (3, 4, 5, 6, 6), "large_straight", 0),
]


def row_points(ruleset: Ruleset, dice: tuple[int, ...], row: str) -> int:
    """The points of *row* for *dice* (the sheet's row of the score table)."""
    return ruleset.score(dice)[ruleset.index_of(row)]


def _example_id(example: tuple[str, str, tuple[int, ...], str, int]) -> str:
    source, ruleset, dice, row, points = example
    return f"{source}-{ruleset}-{row}-{''.join(map(str, dice))}={points}"


@pytest.mark.parametrize(
    ("source", "ruleset_id", "dice", "row", "points"),
    WORKED_EXAMPLES,
    ids=[_example_id(e) for e in WORKED_EXAMPLES],
)
def test_worked_example(
    source: str, ruleset_id: str, dice: tuple[int, ...], row: str, points: int
) -> None:
    assert row_points(find_ruleset(ruleset_id), dice, row) == points


# Seed 001 prints the points of its examples but not their dice: each must at least be a
# score the row can give (a fixed-value row scoring anything else would fail here).
SEED_001_POINTS = {
    "yacht": dict(ones=2, twos=6, threes=6, fours=12, fives=10, sixes=24, choice=20,
                  four_of_a_kind=18, full_house=19, small_straight=15, large_straight=30,
                  yacht=50),
    "yatzy": dict(ones=2, twos=6, threes=6, fours=12, fives=10, sixes=24, one_pair=4,
                  two_pairs=16, three_of_a_kind=12, four_of_a_kind=20, small_straight=15,
                  large_straight=20, full_house=19, chance=20, yatzy=50),
    "yahtzee": dict(ones=2, twos=6, threes=6, fours=12, fives=10, sixes=24, three_of_a_kind=20,
                    four_of_a_kind=22, full_house=25, small_straight=30, large_straight=40,
                    yahtzee=50, chance=20),
}  # fmt: skip


@pytest.mark.parametrize(
    ("ruleset_id", "row", "points"),
    [(r, row, p) for r, rows in SEED_001_POINTS.items() for row, p in rows.items()],
    ids=[f"001-{r}-{row}={p}" for r, rows in SEED_001_POINTS.items() for row, p in rows.items()],
)
def test_seed_001_example_points_are_reachable(ruleset_id: str, row: str, points: int) -> None:
    ruleset = find_ruleset(ruleset_id)
    reachable = {scores[ruleset.index_of(row)] for scores in ruleset.table.values()}
    assert points in reachable


def test_seed_001_lists_every_row_of_its_three_rulesets() -> None:
    for ruleset_id, rows in SEED_001_POINTS.items():
        assert tuple(rows) == find_ruleset(ruleset_id).row_ids


ROW_IDS = {
    "yatzy": "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind "
    "four_of_a_kind small_straight large_straight full_house chance yatzy",
    "maxi": "ones twos threes fours fives sixes one_pair two_pairs three_pairs three_of_a_kind "
    "four_of_a_kind five_of_a_kind full_house villa tower small_straight large_straight "
    "full_straight chance maxi_yatzy",
    "yacht": "ones twos threes fours fives sixes choice four_of_a_kind full_house "
    "small_straight large_straight yacht",
    "yahtzee": "ones twos threes fours fives sixes three_of_a_kind four_of_a_kind full_house "
    "small_straight large_straight yahtzee chance",
}


@pytest.mark.parametrize(
    ("ruleset_id", "dice", "rows", "bonus", "threshold", "max_total"),
    [
        ("yatzy", 5, 15, 50, 63, 374),
        ("maxi", 6, 20, 100, 84, 649),
        ("yacht", 5, 12, 35, 63, 325),
        ("yahtzee", 5, 13, 35, 63, 375),
    ],
    ids=["yatzy", "maxi", "yacht", "yahtzee"],
)
def test_ruleset_shape_and_stated_maximum(
    ruleset_id: str, dice: int, rows: int, bonus: int, threshold: int, max_total: int
) -> None:
    ruleset = find_ruleset(ruleset_id)
    assert ruleset.row_ids == tuple(ROW_IDS[ruleset_id].split())
    assert (ruleset.dice, len(ruleset.rows), ruleset.rerolls) == (dice, rows, 2)
    assert (ruleset.bonus, ruleset.bonus_threshold) == (bonus, threshold)
    assert ruleset.max_total == max_total


def test_upper_bonus_thresholds_are_three_or_four_of_each_face() -> None:
    # 000/004: 63 is three of each number; maxi's 84 is four of each.
    assert find_ruleset("yatzy").bonus_threshold == sum(3 * face for face in range(1, 7))
    assert find_ruleset("maxi").bonus_threshold == sum(4 * face for face in range(1, 7))


@pytest.mark.parametrize("ruleset_id", list(BASE_RULESETS))
def test_every_row_example_is_a_roll_that_scores_in_its_row(ruleset_id: str) -> None:
    # The rules page shows each row with its example: it must show the row scoring.
    ruleset = find_ruleset(ruleset_id)
    for row in ruleset.rows:
        assert len(row.example) == ruleset.dice, row.id
        assert row_points(ruleset, row.example, row.id) > 0, row.id


# Five or six equal never make a row that needs different faces; nor do near misses.
ZERO_CASES = [
    ("yatzy", (5, 5, 5, 5, 5), "two_pairs"),
    ("yatzy", (5, 5, 5, 5, 5), "full_house"),
    ("yatzy", (5, 5, 5, 5, 2), "two_pairs"),
    ("yatzy", (5, 5, 5, 5, 2), "full_house"),
    ("yatzy", (5, 5, 5, 5, 5), "small_straight"),
    ("yatzy", (1, 2, 3, 4, 6), "small_straight"),
    ("yatzy", (1, 2, 3, 4, 5), "large_straight"),
    ("maxi", (4, 4, 4, 4, 4, 2), "two_pairs"),
    ("maxi", (4, 4, 4, 4, 4, 2), "three_pairs"),
    ("maxi", (4, 4, 4, 4, 4, 2), "full_house"),
    ("maxi", (4, 4, 4, 4, 4, 2), "villa"),
    ("maxi", (4, 4, 4, 4, 4, 2), "tower"),
    ("maxi", (3, 3, 3, 3, 3, 3), "two_pairs"),
    ("maxi", (3, 3, 3, 3, 3, 3), "three_pairs"),
    ("maxi", (3, 3, 3, 3, 3, 3), "full_house"),
    ("maxi", (3, 3, 3, 3, 3, 3), "villa"),
    ("maxi", (3, 3, 3, 3, 3, 3), "tower"),
    ("maxi", (6, 6, 6, 6, 5, 5), "three_pairs"),
    ("maxi", (6, 6, 6, 6, 5, 4), "tower"),
    ("maxi", (6, 6, 6, 5, 5, 4), "villa"),
    ("maxi", (6, 6, 5, 5, 4, 3), "three_pairs"),
    ("maxi", (6, 6, 5, 5, 4, 3), "tower"),
    ("maxi", (1, 2, 3, 4, 4, 6), "small_straight"),
    ("maxi", (1, 2, 3, 4, 5, 5), "full_straight"),
    ("maxi", (3, 3, 3, 3, 3, 2), "maxi_yatzy"),
    ("yahtzee", (6, 6, 6, 6, 6), "full_house"),
    ("yahtzee", (1, 2, 3, 5, 6), "small_straight"),
    ("yahtzee", (1, 2, 3, 4, 6), "large_straight"),
    ("yahtzee", (3, 3, 2, 2, 1), "three_of_a_kind"),
    ("yacht", (3, 3, 3, 2, 2), "four_of_a_kind"),
    ("yacht", (1, 2, 4, 5, 6), "small_straight"),
]


@pytest.mark.parametrize(
    ("ruleset_id", "dice", "row"),
    ZERO_CASES,
    ids=[f"{r}-{row}-{''.join(map(str, d))}" for r, d, row in ZERO_CASES],
)
def test_dice_that_do_not_meet_the_row_score_zero(
    ruleset_id: str, dice: tuple[int, ...], row: str
) -> None:
    assert row_points(find_ruleset(ruleset_id), dice, row) == 0


# When the dice can be read several ways, the highest reading counts.
BEST_READINGS = [
    ("yatzy", (5, 5, 3, 3, 6), "one_pair", 10),
    ("yatzy", (6, 6, 6, 6, 6), "one_pair", 12),
    ("yatzy", (2, 2, 2, 6, 6), "three_of_a_kind", 6),
    ("maxi", (6, 6, 5, 5, 4, 4), "one_pair", 12),
    ("maxi", (6, 6, 5, 5, 4, 4), "two_pairs", 22),
    ("maxi", (4, 4, 4, 4, 6, 6), "two_pairs", 20),
    ("maxi", (2, 2, 2, 2, 2, 6), "one_pair", 4),
    ("maxi", (6, 6, 6, 5, 5, 5), "three_of_a_kind", 18),
    ("maxi", (6, 6, 6, 5, 5, 5), "full_house", 28),
    ("maxi", (4, 4, 4, 5, 5, 5), "full_house", 23),
    ("maxi", (6, 6, 6, 6, 5, 5), "full_house", 28),
    ("maxi", (1, 1, 1, 1, 6, 6), "full_house", 15),
    ("maxi", (6, 6, 6, 6, 5, 5), "two_pairs", 22),
    ("maxi", (6, 6, 6, 6, 5, 5), "tower", 34),
    ("maxi", (5, 5, 5, 5, 5, 5), "five_of_a_kind", 25),
    ("maxi", (5, 5, 5, 5, 5, 5), "four_of_a_kind", 20),
    ("maxi", (5, 5, 5, 5, 5, 5), "one_pair", 10),
    ("maxi", (5, 5, 5, 5, 5, 5), "chance", 30),
    ("maxi", (1, 2, 3, 4, 5, 6), "chance", 21),
    ("yacht", (6, 6, 6, 6, 6), "full_house", 30),
    ("yahtzee", (6, 6, 6, 6, 6), "three_of_a_kind", 30),
    ("yahtzee", (6, 6, 6, 6, 2), "three_of_a_kind", 26),
]


@pytest.mark.parametrize(
    ("ruleset_id", "dice", "row", "points"),
    BEST_READINGS,
    ids=[f"{r}-{row}-{''.join(map(str, d))}={p}" for r, d, row, p in BEST_READINGS],
)
def test_the_best_reading_counts(
    ruleset_id: str, dice: tuple[int, ...], row: str, points: int
) -> None:
    assert row_points(find_ruleset(ruleset_id), dice, row) == points


# Maxi straights need their faces among the dice: a repeated die is ignored.
MAXI_STRAIGHTS = [
    ((1, 2, 3, 4, 5, 5), (15, 0, 0)),
    ((1, 1, 2, 3, 4, 5), (15, 0, 0)),
    ((2, 3, 4, 5, 6, 2), (0, 20, 0)),
    ((6, 5, 4, 3, 2, 6), (0, 20, 0)),
    ((1, 2, 3, 4, 5, 6), (15, 20, 21)),
    ((6, 1, 5, 2, 4, 3), (15, 20, 21)),
    ((1, 2, 3, 4, 6, 6), (0, 0, 0)),
    ((2, 3, 4, 5, 5, 5), (0, 0, 0)),
]


@pytest.mark.parametrize(
    ("dice", "points"),
    MAXI_STRAIGHTS,
    ids=["".join(map(str, d)) for d, _ in MAXI_STRAIGHTS],
)
def test_maxi_straights_with_a_repeated_die(dice: tuple[int, ...], points: tuple[int, ...]) -> None:
    maxi = find_ruleset("maxi")
    rows = ("small_straight", "large_straight", "full_straight")
    assert tuple(row_points(maxi, dice, row) for row in rows) == points


@pytest.mark.parametrize(
    "row", ["one_pair", "three_of_a_kind", "four_of_a_kind", "chance", "fives"]
)
def test_five_equal_also_count_as_pair_three_four_chance_and_their_face(row: str) -> None:
    # 000/004 FAQ: five equal may go in one pair, three, four of a kind, chance or the face.
    assert row_points(find_ruleset("yatzy"), (5, 5, 5, 5, 5), row) > 0


def test_a_roll_is_scored_in_every_row_at_once_in_sheet_order() -> None:
    maxi = find_ruleset("maxi")
    dice = (6, 6, 6, 3, 3, 1)
    assert maxi.score(dice) == (1, 0, 6, 0, 0, 18, 12, 18, 0, 18, 0, 0, 24, 0, 0, 0, 0, 0, 25, 0)
    for permutation in itertools.permutations(dice):
        assert maxi.score(permutation) == maxi.score(dice)


@pytest.mark.parametrize(
    "dice",
    [(1, 2, 3, 4, 5), (1, 2, 3, 4, 5, 6, 6), (0, 1, 2, 3, 4, 5), (1, 2, 3, 4, 5, 7), ("1",) * 6],
    ids=["five-dice", "seven-dice", "face-0", "face-7", "strings"],
)
def test_scoring_impossible_dice_is_a_rules_error(dice: tuple[int, ...]) -> None:
    with pytest.raises(RulesError, match="maxi scores 6 dice from 1 to 6"):
        find_ruleset("maxi").score(dice)


# ---------------------------------------------------------------------------------------------
# An independent reading of docs/rules.md, by brute force over every subset of the dice: a row's
# points are the best over the subsets that form its combination ("only the dice that form the
# combination score ... the highest score counts"), or the sum of all dice where it says so.


def _shape(dice: Sequence[int]) -> list[int]:
    return sorted(Counter(dice).values())


def _best(dice: Sequence[int], size: int, shape: list[int], points: int | None = None) -> int:
    """Best points of a *size*-dice subset whose face counts are *shape*."""
    best = 0
    for subset in itertools.combinations(dice, size):
        if _shape(subset) == shape:
            best = max(best, points if points is not None else sum(subset))
    return best


def _among(faces: Sequence[int], points: int) -> Callable[[Sequence[int]], int]:
    return lambda d: points if set(faces) <= set(d) else 0


def _runs(length: int, points: int) -> Callable[[Sequence[int]], int]:
    starts = range(1, 8 - length)
    return lambda d: points if any(set(range(s, s + length)) <= set(d) for s in starts) else 0


def _at_least(n: int) -> Callable[[Sequence[int]], int]:
    return lambda d: sum(d) if max(Counter(d).values()) >= n else 0


def _all_equal(points: int) -> Callable[[Sequence[int]], int]:
    return lambda d: points if len(set(d)) == 1 else 0


def _oracle(ruleset_id: str, full_straight: int = 21) -> dict[str, Callable[[Sequence[int]], int]]:
    rows: dict[str, Callable[[Sequence[int]], int]] = {
        name: (lambda f: lambda d: f * d.count(f))(face)
        for face, name in enumerate(ROW_IDS["yatzy"].split()[:6], start=1)
    }
    if ruleset_id in ("yatzy", "maxi"):
        rows |= {
            "one_pair": lambda d: _best(d, 2, [2]),
            "two_pairs": lambda d: _best(d, 4, [2, 2]),
            "three_pairs": lambda d: _best(d, 6, [2, 2, 2]),
            "three_of_a_kind": lambda d: _best(d, 3, [3]),
            "four_of_a_kind": lambda d: _best(d, 4, [4]),
            "five_of_a_kind": lambda d: _best(d, 5, [5]),
            "full_house": lambda d: _best(d, 5, [2, 3]),
            "villa": lambda d: _best(d, 6, [3, 3]),
            "tower": lambda d: _best(d, 6, [2, 4]),
            "small_straight": _among((1, 2, 3, 4, 5), 15),
            "large_straight": _among((2, 3, 4, 5, 6), 20),
            "full_straight": _among((1, 2, 3, 4, 5, 6), full_straight),
            "chance": sum,
            "yatzy": _all_equal(50),
            "maxi_yatzy": _all_equal(100),
        }
    if ruleset_id == "yacht":
        rows |= {
            "choice": sum,
            "four_of_a_kind": _at_least(4),
            "full_house": lambda d: sum(d) if _shape(d) in ([2, 3], [5]) else 0,
            "small_straight": _runs(4, 15),
            "large_straight": _runs(5, 30),
            "yacht": _all_equal(50),
        }
    if ruleset_id == "yahtzee":
        rows |= {
            "three_of_a_kind": _at_least(3),
            "four_of_a_kind": _at_least(4),
            "full_house": lambda d: 25 if _shape(d) == [2, 3] else 0,
            "small_straight": _runs(4, 30),
            "large_straight": _runs(5, 40),
            "yahtzee": _all_equal(50),
            "chance": sum,
        }
    return rows


@pytest.mark.parametrize(
    ("ruleset_id", "options"),
    [
        ("yatzy", {}),
        ("maxi", {}),
        ("maxi", {"full_straight": 25}),
        ("maxi", {"full_straight": 30}),
        ("yacht", {}),
        ("yahtzee", {}),
    ],
    ids=["yatzy", "maxi", "maxi-fs25", "maxi-fs30", "yacht", "yahtzee"],
)
def test_every_roll_matches_a_brute_force_reading_of_the_rules(
    ruleset_id: str, options: dict[str, int]
) -> None:
    ruleset = find_ruleset(ruleset_id, options)
    oracle = _oracle(ruleset_id, **options)
    rolls = list(itertools.combinations_with_replacement(range(1, 7), ruleset.dice))
    assert len(rolls) == (462 if ruleset.dice == 6 else 252)
    for roll in rolls:
        expected = tuple(oracle[row](roll) for row in ruleset.row_ids)
        assert ruleset.score(roll) == expected, roll


# ---------------------------------------------------------------------------------------------
# Edition options.


@pytest.mark.parametrize("worth", [21, 25, 30])
def test_full_straight_option(worth: int) -> None:
    maxi = find_ruleset("maxi", {"full_straight": worth})
    assert row_points(maxi, (3, 1, 4, 6, 5, 2), "full_straight") == worth
    assert row_points(maxi, (3, 1, 4, 6, 5, 5), "full_straight") == 0
    assert maxi.max_total == 649 - 21 + worth


@pytest.mark.parametrize(
    ("bonus", "upper", "expected"),
    [
        (None, (4, 8, 12, 16, 20, 24), 100),  # 84: four of each face
        (None, (3, 8, 12, 16, 20, 24), 0),  # 83
        ("100@84", (5, 10, 15, 16, 20, 24), 100),  # 90
        ("50@75", (3, 6, 12, 16, 20, 18), 50),  # 75
        ("50@75", (3, 6, 12, 16, 20, 17), 0),  # 74
        ("50@75", (4, 8, 12, 16, 20, 24), 50),  # 84
        ("50@75", (0, 0, 0, 0, 0, 0), 0),
    ],
    ids=["default-84", "default-83", "100@84-90", "50@75-75", "50@75-74", "50@75-84", "empty"],
)
def test_bonus_option_and_its_exact_threshold(
    bonus: str | None, upper: tuple[int, ...], expected: int
) -> None:
    maxi = find_ruleset("maxi", {"bonus": bonus} if bonus else None)
    state = new_game(maxi, Script([(1,) * 6]))
    names = ROW_IDS["maxi"].split()[:6]
    state = at(state, state.dice, **dict(zip(names, upper, strict=True)), chance=20)
    assert state.upper == sum(upper)
    assert state.bonus == expected
    assert state.total == sum(upper) + 20 + expected


def test_bonus_option_decides_the_maximum() -> None:
    assert find_ruleset("maxi", {"bonus": "50@75"}).max_total == 599


def test_saved_rolls_are_banked_and_spent_across_turns() -> None:
    maxi = find_ruleset("maxi", {"saved_rolls": True})
    ones, twos = (1, 1, 1, 1, 1, 1), (2, 2, 2, 2, 2, 2)
    state = new_game(maxi, Script([ones, twos] + [ones] * 8))
    assert state.rolls_left == 2
    state = apply(state, Score("ones"))  # turn 1 used one roll of three: two banked
    assert (state.turn, state.roll, state.rolls_left) == (2, 1, 4)
    for expected_left in (3, 2, 1):  # a 2nd, 3rd and 4th roll
        state = reroll(state, 0)
        assert state.rolls_left == expected_left
    assert state.roll == 4
    state = apply(state, Score("twos"))  # one roll left over: turn 3 has three re-rolls
    assert (state.turn, state.rolls_left) == (3, 3)
    for _ in range(3):
        state = reroll(state)
    assert state.roll == 4 and state.rolls_left == 0
    assert not any(isinstance(m, Roll) for m in legal_moves(state))
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        reroll(state)
    state = apply(state, Score("threes"))
    assert state.rolls_left == 2  # nothing banked, the usual two re-rolls


def test_without_saved_rolls_unused_rolls_are_lost() -> None:
    state = new_game(find_ruleset("maxi"), Script([(1,) * 6, (2,) * 6]))
    state = apply(state, Score("ones"))
    assert (state.turn, state.rolls_left) == (2, 2)


@pytest.mark.parametrize("ruleset_id", list(BASE_RULESETS))
def test_forced_order_fills_rows_top_to_bottom(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id, {"forced": True})
    assert ruleset.forced
    rows = ruleset.row_ids
    state = new_game(ruleset, Script([(6,) * ruleset.dice] * len(rows)))
    for row in rows:
        assert [m for m in legal_moves(state) if isinstance(m, Score)] == [Score(row)]
        assert state.open_rows() == [row]
        later = rows[-1] if row != rows[-1] else None
        if later:
            with pytest.raises(IllegalMoveError, match=f"forced order: the next row is '{row}'"):
                apply(state, Score(later))
        state = apply(state, Score(row))
    assert state.is_finished


def test_forced_is_off_by_default() -> None:
    state = new_game(find_ruleset("yatzy"), Script([(6,) * 5, (1,) * 5]))
    state = apply(state, Score("yatzy"))
    assert state.scorecard()["yatzy"] == 50


@pytest.mark.parametrize(
    ("ruleset_id", "options", "message"),
    [
        ("maxi", {"bonus": "50@84"}, "bad value for option 'bonus': '50@84'"),
        ("maxi", {"full_straight": 20}, "bad value for option 'full_straight': 20"),
        ("maxi", {"full_straight": "25"}, "bad value for option 'full_straight': '25'"),
        ("maxi", {"full_straight": 25.0}, "bad value for option 'full_straight': 25.0"),
        ("maxi", {"saved_rolls": 1}, "bad value for option 'saved_rolls': 1"),
        ("maxi", {"forced": "yes"}, "bad value for option 'forced': 'yes'"),
        ("maxi", {"colour": "red"}, "unknown option for maxi: 'colour'"),
        ("yatzy", {"bonus": "50@75"}, "unknown option for yatzy: 'bonus'"),
        ("yahtzee", {"saved_rolls": True}, "unknown option for yahtzee: 'saved_rolls'"),
        ("yacht", {"full_straight": 21}, "unknown option for yacht: 'full_straight'"),
        ("farkle", {}, "unknown ruleset: 'farkle'"),
    ],
    ids=["bonus", "fs-20", "fs-str", "fs-float", "saved-int", "forced-str", "unknown",
         "yatzy-bonus", "yahtzee-saved", "yacht-fs", "ruleset"],
)  # fmt: skip
def test_bad_options_are_rules_errors(
    ruleset_id: str, options: dict[str, object], message: str
) -> None:
    with pytest.raises(RulesError, match=message.replace("(", r"\(")):
        find_ruleset(ruleset_id, options)


def test_options_default_to_the_daily_puzzle_edition() -> None:
    assert parse_options("maxi", None) == {
        "bonus": "100@84", "full_straight": 21, "saved_rolls": False, "forced": False,
    }  # fmt: skip
    assert find_ruleset("maxi") == find_ruleset("maxi", parse_options("maxi", {}))
    assert find_ruleset("maxi", {"bonus": "50@75"}) != find_ruleset("maxi")


@pytest.mark.parametrize(
    ("dice", "message"),
    [
        ([1, 2, 3, 4, 5], "maxi needs 6 dice, got 5"),
        ([1, 2, 3, 4, 5, 6, 1], "maxi needs 6 dice, got 7"),
        ([1, 2, 3, 4, 5, 0], "got 0"),
        ([1, 2, 3, 4, 5, 7], "got 7"),
        ([1, 2, 3, 4, 5, True], "got True"),
        ([1, 2, 3, 4, 5, 1.0], "got 1.0"),
        ([1, 2, 3, 4, 5, "3"], "got '3'"),
        ("123456", "dice must be a list"),
        (None, "dice must be a list"),
    ],
    ids=["five", "seven", "zero", "seven-face", "true", "float", "string", "str", "none"],
)
def test_parse_dice_rejects_bad_dice(dice: object, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_dice(find_ruleset("maxi"), dice)


# ---------------------------------------------------------------------------------------------
# Facts stated by the seeds 000 and 004, worked out exactly with the engine.


def _chance_of_all_equal(ruleset_id: str, row: str) -> Fraction:
    """Going for all-equal over three rolls, always keeping the most common face."""
    ruleset = find_ruleset(ruleset_id)
    n = ruleset.dice

    def outcomes(held: int) -> Counter[int]:
        """How often each largest group follows re-rolling all but *held* equal dice."""
        tally: Counter[int] = Counter()
        for fresh in itertools.product(range(1, 7), repeat=n - held):
            dice = (1,) * held + fresh
            tally[max(Counter(dice).values()) if held < n else n] += 1
        return tally

    groups = {held: Fraction(count, 6**n) for held, count in outcomes(0).items()}
    for _ in range(ruleset.rerolls):
        after: defaultdict[int, Fraction] = defaultdict(Fraction)  # a Counter is typed for ints
        for held, p in groups.items():
            for group, count in outcomes(held).items():
                after[group] += p * Fraction(count, 6 ** (n - held))
        groups = dict(after)
    top = row_points(ruleset, (6,) * n, row)
    assert top > 0 and row_points(ruleset, (6,) * (n - 1) + (5,), row) == 0
    return groups.get(n, Fraction(0))


@pytest.mark.parametrize(
    ("ruleset_id", "row", "percent", "one_in"),
    [("yatzy", "yatzy", 4.6, 22), ("maxi", "maxi_yatzy", 2.0, 49)],
    ids=["yatzy-4.6%", "maxi-2.0%"],
)
def test_chance_of_all_equal_in_a_turn(
    ruleset_id: str, row: str, percent: float, one_in: int
) -> None:
    p = _chance_of_all_equal(ruleset_id, row)
    assert round(float(p) * 100, 1) == percent
    assert round(1 / p) == one_in


@pytest.mark.parametrize(
    ("held", "percent"),
    [((2, 3, 4, 5), 56), ((1, 2, 3, 4), 31)],
    ids=["2345-56%", "1234-31%"],
)
def test_chance_of_completing_a_straight_with_two_rolls(
    held: tuple[int, ...], percent: int
) -> None:
    # Played through the engine: hold the four, re-roll the fifth die until a straight shows.
    yatzy = find_ruleset("yatzy")
    made = 0
    for first, second in itertools.product(range(1, 7), repeat=2):
        state = new_game(yatzy, Script([(*held, held[0]), (first,) * 5, (second,) * 5]))
        assert not _has_straight(state.potential())
        state = reroll(state, 0, 1, 2, 3)
        if not _has_straight(state.potential()):
            state = reroll(state, 0, 1, 2, 3)
        made += _has_straight(state.potential())
    assert round(made / 36 * 100) == percent


def _has_straight(potential: dict[str, int]) -> bool:
    return potential["small_straight"] > 0 or potential["large_straight"] > 0


def _every_variant() -> list[Ruleset]:
    return [
        find_ruleset(base.id, {o.name: v for o, v in zip(base.option_specs, values, strict=True)})
        for base in BASE_RULESETS.values()
        for values in itertools.product(*(o.values for o in base.option_specs))
    ]


@pytest.mark.parametrize("ruleset", _every_variant(), ids=lambda r: r.spec)
def test_a_spec_names_its_ruleset_and_reads_back_as_it(ruleset: Ruleset) -> None:
    # The spec is what `daily solve` and DAILY_TABLES take: every variant reads back as itself,
    # and names only the options that differ from the defaults.
    assert parse_spec(ruleset.spec) == ruleset
    defaults = find_ruleset(ruleset.id).options_dict()
    changed = {name for name, value in ruleset.options if defaults[name] != value}
    assert ruleset.spec.startswith(ruleset.id) and ruleset.spec.count("=") == len(changed)


@pytest.mark.parametrize("spec", ["chess", "maxi:bonus", "maxi:bonus=60@70", "yatzy:colour=red"])
def test_a_bad_spec_is_a_rules_error(spec: str) -> None:
    with pytest.raises(RulesError):
        parse_spec(spec)
