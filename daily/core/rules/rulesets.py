"""The rulesets as data: rows, dice, bonus and edition options, and a registry.

A :class:`Ruleset` is a frozen value. The four base rulesets of docs/rules.md are
declared below; :func:`find_ruleset` applies edition options (``bonus``,
``full_straight``, ``saved_rolls``, ``forced``) to give the ruleset a game uses. Each
:class:`Option` carries its effect (the fields of the ruleset a value sets), as
python-chess's variants carry theirs: a new option is a new declaration, and whatever reads
a ruleset (the solver's table names among them) sees what it changed.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from daily.core.errors import RulesError
from daily.core.rules import scoring
from daily.core.rules.scoring import Dice, Scorer

OptionValue = int | str | bool
#: A ruleset's options as checked by :func:`parse_options`: each name with its value.
Options = Mapping[str, OptionValue]
#: What an option's value does to a ruleset: the fields it sets, by name (applied with
#: :func:`dataclasses.replace`, in the order of the ruleset's options).
Effect = Callable[["Ruleset", OptionValue], Mapping[str, Any]]
#: The forced joker's fixed points on lower rows (Yahtzee's); other lower rows score the dice.
JOKER_POINTS: tuple[tuple[str, int], ...] = (
    ("full_house", 25),
    ("small_straight", 30),
    ("large_straight", 40),
)


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the score sheet: its id, its scorer and a worked example."""

    id: str
    scorer: Scorer = field(compare=False, repr=False)
    example: Dice = ()
    face: int = 0  # the face an upper row counts; 0 for lower rows

    @property
    def is_upper(self) -> bool:
        """Whether the row counts towards the upper bonus."""
        return self.face != 0


@dataclass(frozen=True, slots=True)
class Option:
    """An edition option: its allowed values, the first being the default, and its effect:
    the fields of the ruleset that a value sets (none: the value changes nothing)."""

    name: str
    values: tuple[OptionValue, ...]
    effect: Effect = field(default=lambda rules, value: {}, compare=False, repr=False)

    @property
    def default(self) -> OptionValue:
        """The value a game gets when the option is not given."""
        return self.values[0]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A ruleset with its options applied: everything a game needs to know."""

    id: str
    name: str
    dice: int
    rows: tuple[Row, ...]
    bonus_threshold: int
    bonus: int
    option_specs: tuple[Option, ...] = ()
    options: tuple[tuple[str, OptionValue], ...] = ()
    rerolls: int = 2
    extra_bonus: int = 0  # points per extra five-of-a-kind (Yahtzee)
    joker_row: str = ""  # the row whose filling enables the forced joker
    joker_points: tuple[tuple[str, int], ...] = JOKER_POINTS  # read where joker_row is set
    saved_rolls: bool = False
    forced: bool = False
    # Points of every row for every sorted roll: scoring is one dict lookup.
    table: dict[Dice, tuple[int, ...]] = field(init=False, compare=False, repr=False, hash=False)
    row_index: dict[str, int] = field(init=False, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        table = {
            roll: tuple(row.scorer(scoring.counts_of(roll)) for row in self.rows)
            for roll in itertools.combinations_with_replacement(scoring.FACES, self.dice)
        }
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "row_index", {row.id: i for i, row in enumerate(self.rows)})

    def score(self, dice: Dice) -> tuple[int, ...]:
        """Returns the points of every row, in sheet order, for *dice*.

        >>> find_ruleset("yatzy").score((6, 6, 4, 4, 3))[:8]
        (0, 0, 3, 8, 0, 12, 12, 20)
        """
        try:
            return self.table[tuple(sorted(dice))]
        except (KeyError, TypeError):
            raise RulesError(
                f"{self.id} scores {self.dice} dice from 1 to 6, got {dice!r}"
            ) from None

    def index_of(self, row: str) -> int:
        """Returns the position of *row* on the sheet, or raises :class:`RulesError`."""
        try:
            return self.row_index[row]
        except KeyError:
            raise RulesError(f"unknown row for {self.id}: {row!r}") from None

    @property
    def row_ids(self) -> tuple[str, ...]:
        """The row ids in printed order."""
        return tuple(row.id for row in self.rows)

    @property
    def all_same_row(self) -> Row:
        """The all-of-a-kind row: a Maxi Yatzy, a Yatzy, a Yacht, a Yahtzee (the lower row that
        only dice all of one face fill).

        >>> find_ruleset("maxi").all_same_row.id, find_ruleset("yahtzee").all_same_row.id
        ('maxi_yatzy', 'yahtzee')
        """
        return next(row for row in self.rows if not row.is_upper and len(set(row.example)) == 1)

    @property
    def max_total(self) -> int:
        """The highest total a game can reach, not counting extra bonuses."""
        best = [max(points[i] for points in self.table.values()) for i in range(len(self.rows))]
        return sum(best) + self.bonus

    def options_dict(self) -> dict[str, OptionValue]:
        """The options as a JSON-ready dict."""
        return dict(self.options)

    @property
    def spec(self) -> str:
        """The ruleset as a short spec: its id and the options that differ from the defaults
        (what ``daily solve`` and ``DAILY_TABLES`` take, and the tables' metrics name).

        >>> find_ruleset("maxi", {"bonus": "50@75"}).spec
        'maxi:bonus=50@75'
        >>> find_ruleset("yatzy").spec
        'yatzy'
        """
        defaults = {option.name: option.default for option in self.option_specs}
        changed = [
            f"{name}={json.dumps(value) if not isinstance(value, str) else value}"
            for name, value in self.options
            if defaults.get(name) != value
        ]
        return self.id + (":" + ",".join(changed) if changed else "")

    def joker_points_of(self, row: str, dice_sum: int) -> int:
        """The points of the forced joker in the lower row *row*: its fixed points, else the
        dice (*dice_sum*).

        >>> yahtzee = find_ruleset("yahtzee")
        >>> yahtzee.joker_points_of("full_house", 15), yahtzee.joker_points_of("chance", 15)
        (25, 15)
        """
        return dict(self.joker_points).get(row, dice_sum)


#: The fields of a :class:`Ruleset` that say how the game is played (what an option's effect
#: may set, and what the solver's table is named for): all but its name, its options and
#: what it computes from them.
RULE_FIELDS: tuple[str, ...] = tuple(
    f.name
    for f in dataclasses.fields(Ruleset)
    if f.compare and f.name not in ("name", "option_specs", "options")
)


def _upper_rows(dice: int) -> tuple[Row, ...]:
    names = ("ones", "twos", "threes", "fours", "fives", "sixes")
    # The seed pages' five-dice examples; six-dice rulesets add a die of another face.
    examples = (
        (1, 1, 1, 4, 6, 2),
        (2, 2, 3, 5, 6, 1),
        (3, 3, 3, 3, 1, 5),
        (4, 4, 4, 2, 6, 1),
        (5, 5, 5, 1, 3, 2),
        (6, 6, 6, 2, 4, 1),
    )
    return tuple(
        Row(name, scoring.upper(face), example[:dice], face)
        for face, name, example in zip(scoring.FACES, names, examples, strict=True)
    )


def _bonus(rules: Ruleset, value: OptionValue) -> dict[str, int]:
    points, threshold = str(value).split("@")
    return {"bonus": int(points), "bonus_threshold": int(threshold)}


def _full_straight(rules: Ruleset, value: OptionValue) -> dict[str, tuple[Row, ...]]:
    scorer = scoring.straight(scoring.FACES, int(value))
    rows = tuple(
        dataclasses.replace(row, scorer=scorer) if row.id == "full_straight" else row
        for row in rules.rows
    )
    return {"rows": rows}


#: The edition options, each with its effect (docs/rules.md#options).
BONUS = Option("bonus", ("100@84", "50@75"), _bonus)
FULL_STRAIGHT = Option("full_straight", (21, 25, 30), _full_straight)
SAVED_ROLLS = Option("saved_rolls", (False, True), lambda rules, value: {"saved_rolls": value})
FORCED = Option("forced", (False, True), lambda rules, value: {"forced": value})

YATZY = Ruleset(
    id="yatzy",
    name="Yatzy",
    dice=5,
    rows=_upper_rows(5)
    + (
        Row("one_pair", scoring.of_a_kind(2), (6, 6, 5, 3, 2)),
        Row("two_pairs", scoring.pairs(2), (6, 6, 4, 4, 3)),
        Row("three_of_a_kind", scoring.of_a_kind(3), (5, 5, 5, 3, 2)),
        Row("four_of_a_kind", scoring.of_a_kind(4), (5, 5, 5, 5, 2)),
        Row("small_straight", scoring.straight((1, 2, 3, 4, 5), 15), (1, 2, 3, 4, 5)),
        Row("large_straight", scoring.straight((2, 3, 4, 5, 6), 20), (2, 3, 4, 5, 6)),
        Row("full_house", scoring.house(3, 2), (6, 6, 6, 3, 3)),
        Row("chance", scoring.dice_sum, (6, 5, 4, 3, 3)),
        Row("yatzy", scoring.all_equal(50), (4, 4, 4, 4, 4)),
    ),
    bonus_threshold=63,
    bonus=50,
    option_specs=(FORCED,),
)

MAXI = Ruleset(
    id="maxi",
    name="Maxi Yatzy",
    dice=6,
    rows=_upper_rows(6)
    + (
        Row("one_pair", scoring.of_a_kind(2), (6, 6, 5, 3, 2, 1)),
        Row("two_pairs", scoring.pairs(2), (6, 6, 4, 4, 3, 1)),
        Row("three_pairs", scoring.pairs(3), (6, 6, 5, 5, 2, 2)),
        Row("three_of_a_kind", scoring.of_a_kind(3), (5, 5, 5, 3, 2, 1)),
        Row("four_of_a_kind", scoring.of_a_kind(4), (5, 5, 5, 5, 2, 1)),
        Row("five_of_a_kind", scoring.of_a_kind(5), (4, 4, 4, 4, 4, 2)),
        Row("full_house", scoring.house(3, 2), (6, 6, 6, 3, 3, 1)),
        Row("villa", scoring.house(3, 3), (5, 5, 5, 2, 2, 2)),
        Row("tower", scoring.house(4, 2), (6, 6, 6, 6, 2, 2)),
        Row("small_straight", scoring.straight((1, 2, 3, 4, 5), 15), (1, 2, 3, 4, 5, 5)),
        Row("large_straight", scoring.straight((2, 3, 4, 5, 6), 20), (2, 3, 4, 5, 6, 2)),
        Row("full_straight", scoring.straight(scoring.FACES, 21), (1, 2, 3, 4, 5, 6)),
        Row("chance", scoring.dice_sum, (6, 5, 4, 3, 3, 1)),
        Row("maxi_yatzy", scoring.all_equal(100), (3, 3, 3, 3, 3, 3)),
    ),
    bonus_threshold=84,
    bonus=100,
    option_specs=(BONUS, FULL_STRAIGHT, SAVED_ROLLS, FORCED),
)

YACHT = Ruleset(
    id="yacht",
    name="Yacht",
    dice=5,
    rows=_upper_rows(5)
    + (
        Row("choice", scoring.dice_sum, (6, 5, 4, 3, 3)),
        Row("four_of_a_kind", scoring.of_a_kind(4, sum_all=True), (5, 5, 5, 5, 2)),
        Row("full_house", scoring.full_house_or_all_equal, (6, 6, 6, 3, 3)),
        Row("small_straight", scoring.run(4, 15), (1, 2, 3, 4, 6)),
        Row("large_straight", scoring.run(5, 30), (2, 3, 4, 5, 6)),
        Row("yacht", scoring.all_equal(50), (4, 4, 4, 4, 4)),
    ),
    bonus_threshold=63,
    bonus=35,
    option_specs=(FORCED,),
)

YAHTZEE = Ruleset(
    id="yahtzee",
    name="Classic 13",
    dice=5,
    rows=_upper_rows(5)
    + (
        Row("three_of_a_kind", scoring.of_a_kind(3, sum_all=True), (5, 5, 5, 3, 2)),
        Row("four_of_a_kind", scoring.of_a_kind(4, sum_all=True), (5, 5, 5, 5, 2)),
        Row("full_house", scoring.house(3, 2, fixed=25), (6, 6, 6, 3, 3)),
        Row("small_straight", scoring.run(4, 30), (1, 2, 3, 4, 6)),
        Row("large_straight", scoring.run(5, 40), (2, 3, 4, 5, 6)),
        Row("yahtzee", scoring.all_equal(50), (4, 4, 4, 4, 4)),
        Row("chance", scoring.dice_sum, (6, 5, 4, 3, 3)),
    ),
    bonus_threshold=63,
    bonus=35,
    option_specs=(FORCED,),
    extra_bonus=100,
    joker_row="yahtzee",
)

BASE_RULESETS: dict[str, Ruleset] = {r.id: r for r in (MAXI, YATZY, YACHT, YAHTZEE)}


def parse_options(ruleset_id: str, options: Mapping[str, Any] | None) -> dict[str, OptionValue]:
    """Checks *options* for a ruleset and fills in the defaults.

    >>> parse_options("maxi", {"bonus": "50@75"})
    {'bonus': '50@75', 'full_straight': 21, 'saved_rolls': False, 'forced': False}
    """
    base = _base(ruleset_id)
    given = dict(options or {})
    specs = {spec.name: spec for spec in base.option_specs}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise RulesError(f"unknown option for {ruleset_id}: {unknown[0]!r}")
    parsed: dict[str, OptionValue] = {}
    for name, spec in specs.items():
        value = given.get(name, spec.default)
        # bool is an int in Python: compare types too, so True never passes for 1.
        if not any(type(value) is type(v) and value == v for v in spec.values):
            allowed = ", ".join(repr(v) for v in spec.values)
            raise RulesError(f"bad value for option {name!r}: {value!r} (allowed: {allowed})")
        parsed[name] = value
    return parsed


def find_ruleset(ruleset_id: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """Returns the ruleset *ruleset_id* with *options* applied.

    >>> maxi = find_ruleset("maxi", {"full_straight": 30})
    >>> maxi.score((1, 2, 3, 4, 5, 6))[maxi.index_of("full_straight")]
    30
    """
    parsed = parse_options(ruleset_id, options)
    return _build(ruleset_id, tuple(parsed.items()))


def parse_spec(text: str) -> Ruleset:
    """The ruleset of a spec of :attr:`Ruleset.spec`; raises :class:`RulesError` for a bad one.

    >>> parse_spec("yatzy:forced=true") == find_ruleset("yatzy", {"forced": True})
    True
    """
    name, _, rest = text.strip().partition(":")
    options: dict[str, OptionValue] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(f"an option is name=value, got {item!r}")
        options[key] = json.loads(value) if value in ("true", "false") or value.isdigit() else value
    return find_ruleset(name, options)


@lru_cache(maxsize=64)
def _build(ruleset_id: str, options: tuple[tuple[str, OptionValue], ...]) -> Ruleset:
    base = _base(ruleset_id)
    values = dict(options)
    changes: dict[str, Any] = {}
    for spec in base.option_specs:  # each option's effect, on the rules the earlier ones set
        rules = dataclasses.replace(base, **changes) if changes else base
        changes.update(spec.effect(rules, values[spec.name]))
    unknown = sorted(set(changes) - set(RULE_FIELDS))
    if unknown:
        raise RulesError(f"an option of {ruleset_id} sets {unknown[0]!r}, not a rule")
    return dataclasses.replace(base, options=options, **changes)


def _base(ruleset_id: str) -> Ruleset:
    try:
        return BASE_RULESETS[ruleset_id]
    except KeyError:
        known = ", ".join(BASE_RULESETS)
        raise RulesError(f"unknown ruleset: {ruleset_id!r} (known: {known})") from None


def parse_dice(ruleset: Ruleset, dice: Any) -> Dice:
    """Checks that *dice* is a list of the ruleset's number of faces 1 to 6.

    >>> parse_dice(find_ruleset("yatzy"), [1, 2, 3, 4, 5])
    (1, 2, 3, 4, 5)
    """
    if not isinstance(dice, list | tuple):
        raise RulesError(f"dice must be a list of {ruleset.dice} integers, got {dice!r}")
    if len(dice) != ruleset.dice:
        raise RulesError(f"{ruleset.id} needs {ruleset.dice} dice, got {len(dice)}")
    for die in dice:
        if type(die) is not int or not 1 <= die <= 6:
            raise RulesError(f"a die must be an integer from 1 to 6, got {die!r}")
    return tuple(dice)
