"""Small pure functions that score one row from the dice.

Every scorer takes *counts*, a 7-tuple where ``counts[face]`` is how many dice
show *face* (``counts[0]`` is unused), and returns the row's points. Factories
such as :func:`of_a_kind` build the scorer for a row from its parameters, so a
ruleset is a list of rows, each naming its scorer: data, not code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

Dice = tuple[int, ...]
Counts = tuple[int, ...]
Scorer = Callable[[Counts], int]

FACES = (1, 2, 3, 4, 5, 6)
_HIGH_FIRST = (6, 5, 4, 3, 2, 1)


def counts_of(dice: Iterable[int]) -> Counts:
    """Returns how many dice show each face, indexed by face.

    >>> counts_of([6, 6, 5, 3, 2])
    (0, 0, 1, 1, 0, 1, 2)
    """
    counts = [0] * 7
    for die in dice:
        counts[die] += 1
    return tuple(counts)


def upper(face: int) -> Scorer:
    """Scores the sum of the dice showing *face* (the rows ones to sixes).

    >>> upper(3)(counts_of([3, 3, 3, 3, 1]))
    12
    """

    def score(counts: Counts) -> int:
        return counts[face] * face

    return score


def of_a_kind(n: int, *, sum_all: bool = False) -> Scorer:
    """Scores *n* equal dice of the highest face that has them.

    With *sum_all* (Yacht, Yahtzee), *n* or more equal score the sum of all dice.

    >>> of_a_kind(2)(counts_of([6, 6, 5, 3, 2]))
    12
    >>> of_a_kind(3)(counts_of([4, 4, 4, 6, 1]))
    12
    >>> of_a_kind(3, sum_all=True)(counts_of([4, 4, 4, 6, 1]))
    19
    >>> of_a_kind(5)(counts_of([4, 4, 4, 4, 4, 2]))
    20
    """

    def score(counts: Counts) -> int:
        for face in _HIGH_FIRST:
            if counts[face] >= n:
                return dice_sum(counts) if sum_all else n * face
        return 0

    return score


def pairs(n: int) -> Scorer:
    """Scores *n* pairs of different faces, the highest ones, as the sum of those dice.

    >>> pairs(2)(counts_of([6, 6, 4, 4, 3]))
    20
    >>> pairs(2)(counts_of([6, 6, 4, 4, 3, 3]))
    20
    >>> pairs(3)(counts_of([6, 6, 5, 5, 2, 2]))
    26
    >>> pairs(2)(counts_of([5, 5, 5, 5, 2]))
    0
    """

    def score(counts: Counts) -> int:
        faces = [face for face in _HIGH_FIRST if counts[face] >= 2][:n]
        return 2 * sum(faces) if len(faces) == n else 0

    return score


def house(big: int, small: int, *, fixed: int | None = None) -> Scorer:
    """Scores *big* of one face plus *small* of another, the best such choice.

    Full house is ``house(3, 2)``, villa ``house(3, 3)`` and tower ``house(4, 2)``;
    the dice of the combination are summed unless the row is worth *fixed* points.

    >>> house(3, 2)(counts_of([6, 6, 6, 3, 3]))
    24
    >>> house(3, 2)(counts_of([6, 6, 6, 5, 5, 5]))
    28
    >>> house(3, 3)(counts_of([5, 5, 5, 2, 2, 2]))
    21
    >>> house(4, 2)(counts_of([6, 6, 6, 6, 2, 2]))
    28
    >>> house(3, 2, fixed=25)(counts_of([2, 2, 3, 3, 3]))
    25
    >>> house(3, 2)(counts_of([4, 4, 4, 4, 4]))
    0
    """

    def score(counts: Counts) -> int:
        best = 0
        for a in FACES:
            if counts[a] < big:
                continue
            for b in FACES:
                if b != a and counts[b] >= small:
                    best = max(best, fixed if fixed is not None else big * a + small * b)
        return best

    return score


def straight(faces: tuple[int, ...], points: int) -> Scorer:
    """Scores *points* when every one of *faces* is among the dice.

    >>> straight((1, 2, 3, 4, 5), 15)(counts_of([1, 2, 3, 4, 5]))
    15
    >>> straight((2, 3, 4, 5, 6), 20)(counts_of([2, 3, 3, 4, 5, 6]))
    20
    >>> straight((1, 2, 3, 4, 5), 15)(counts_of([1, 2, 3, 4, 4]))
    0
    """

    def score(counts: Counts) -> int:
        return points if all(counts[face] for face in faces) else 0

    return score


def run(length: int, points: int) -> Scorer:
    """Scores *points* for *length* consecutive faces among the dice.

    >>> run(4, 30)(counts_of([3, 4, 5, 6, 6]))
    30
    >>> run(5, 40)(counts_of([1, 2, 3, 4, 6]))
    0
    """
    starts = range(1, 8 - length)

    def score(counts: Counts) -> int:
        for start in starts:
            if all(counts[face] for face in range(start, start + length)):
                return points
        return 0

    return score


def dice_sum(counts: Counts) -> int:
    """Scores the sum of all dice (chance).

    >>> dice_sum(counts_of([6, 6, 5, 3, 2]))
    22
    """
    return sum(face * counts[face] for face in FACES)


def all_equal(points: int) -> Scorer:
    """Scores *points* when every die shows the same face (Yatzy, Maxi Yatzy).

    >>> all_equal(50)(counts_of([2, 2, 2, 2, 2]))
    50
    >>> all_equal(100)(counts_of([2, 2, 2, 2, 2, 3]))
    0
    """

    def score(counts: Counts) -> int:
        return points if max(counts) == sum(counts) else 0

    return score


def full_house_or_all_equal(counts: Counts) -> int:
    """Scores Yacht's full house: three and two, or five equal, as the sum of all dice.

    >>> full_house_or_all_equal(counts_of([5, 5, 5, 5, 5]))
    25
    >>> full_house_or_all_equal(counts_of([2, 2, 3, 3, 3]))
    13
    """
    if max(counts) == sum(counts) or house(3, 2)(counts):
        return dice_sum(counts)
    return 0
