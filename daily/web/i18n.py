"""Flask-Babel set-up and the game's words: row names, row rules, die faces.

Every string a player sees goes through :func:`flask_babel.gettext` (or its lazy
form here, because these tables are built at import time, outside a request).
English is the only catalogue today; the languages issue adds ``translations/``.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, request
from flask_babel import Babel, LazyString, lazy_gettext

#: Locales with a catalogue; the first is the default.
LANGUAGES = ("en",)
TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"

babel = Babel()


def select_locale() -> str:
    """The best of :data:`LANGUAGES` for the request's ``Accept-Language``."""
    return request.accept_languages.best_match(LANGUAGES) or LANGUAGES[0]


def init_app(app: Flask) -> None:
    """Installs Flask-Babel (and its ``_``/``gettext`` in Jinja) on *app*."""
    babel.init_app(
        app,
        default_locale=LANGUAGES[0],
        default_translation_directories=str(TRANSLATIONS),
        locale_selector=select_locale,
    )


#: Die faces as words, for labels such as "four, held".
FACE_WORDS: dict[int, LazyString] = {
    1: lazy_gettext("one"),
    2: lazy_gettext("two"),
    3: lazy_gettext("three"),
    4: lazy_gettext("four"),
    5: lazy_gettext("five"),
    6: lazy_gettext("six"),
}

RULESET_NAMES: dict[str, LazyString] = {
    "maxi": lazy_gettext("Maxi Yatzy"),
    "yatzy": lazy_gettext("Yatzy"),
    "yacht": lazy_gettext("Yacht"),
    "yahtzee": lazy_gettext("Classic 13"),
}

ROW_NAMES: dict[str, LazyString] = {
    "ones": lazy_gettext("Ones"),
    "twos": lazy_gettext("Twos"),
    "threes": lazy_gettext("Threes"),
    "fours": lazy_gettext("Fours"),
    "fives": lazy_gettext("Fives"),
    "sixes": lazy_gettext("Sixes"),
    "one_pair": lazy_gettext("One pair"),
    "two_pairs": lazy_gettext("Two pairs"),
    "three_pairs": lazy_gettext("Three pairs"),
    "three_of_a_kind": lazy_gettext("Three of a kind"),
    "four_of_a_kind": lazy_gettext("Four of a kind"),
    "five_of_a_kind": lazy_gettext("Five of a kind"),
    "full_house": lazy_gettext("Full house"),
    "villa": lazy_gettext("Villa"),
    "tower": lazy_gettext("Tower"),
    "small_straight": lazy_gettext("Small straight"),
    "large_straight": lazy_gettext("Large straight"),
    "full_straight": lazy_gettext("Full straight"),
    "chance": lazy_gettext("Chance"),
    "choice": lazy_gettext("Choice"),
    "yatzy": lazy_gettext("Yatzy"),
    "maxi_yatzy": lazy_gettext("Maxi Yatzy"),
    "yacht": lazy_gettext("Yacht"),
    "yahtzee": lazy_gettext("Yahtzee"),
}

_SUM_ALL = lazy_gettext("Any dice: the sum of all dice.")
_ALL_EQUAL = lazy_gettext("All dice equal: a fixed score.")
_FOUR_IN_A_ROW = lazy_gettext("Four in a row (1-2-3-4, 2-3-4-5 or 3-4-5-6): a fixed score.")
_FIVE_IN_A_ROW = lazy_gettext("Five in a row (1-2-3-4-5 or 2-3-4-5-6): a fixed score.")

#: What each row needs and how it scores, in words; the numbers come from the engine.
ROW_RULES: dict[str, LazyString] = {
    "upper": lazy_gettext("The sum of the dice showing that face."),
    "one_pair": lazy_gettext("Two equal dice: the sum of the highest pair."),
    "two_pairs": lazy_gettext(
        "Two pairs of different faces: the sum of those four dice, the best choice."
    ),
    "three_pairs": lazy_gettext("Three pairs of different faces: the sum of the six dice."),
    "three_of_a_kind": lazy_gettext("Three equal dice: the sum of those three."),
    "four_of_a_kind": lazy_gettext("Four equal dice: the sum of those four."),
    "five_of_a_kind": lazy_gettext("Five equal dice: the sum of those five."),
    "full_house": lazy_gettext("Three of one face and two of another: the sum of those five dice."),
    "villa": lazy_gettext("Two sets of three, of different faces: the sum of the six dice."),
    "tower": lazy_gettext("Four of one face and two of another: the sum of the six dice."),
    "small_straight": lazy_gettext("1-2-3-4-5 among the dice: a fixed score."),
    "large_straight": lazy_gettext("2-3-4-5-6 among the dice: a fixed score."),
    "full_straight": lazy_gettext("1-2-3-4-5-6: a fixed score."),
    "chance": _SUM_ALL,
    "choice": _SUM_ALL,
    "yatzy": _ALL_EQUAL,
    "maxi_yatzy": _ALL_EQUAL,
    "yacht": _ALL_EQUAL,
    "yahtzee": _ALL_EQUAL,
}

#: Where a ruleset reads a row differently from :data:`ROW_RULES`.
RULESET_ROW_RULES: dict[tuple[str, str], LazyString] = {
    ("yatzy", "small_straight"): lazy_gettext("Exactly 1-2-3-4-5: a fixed score."),
    ("yatzy", "large_straight"): lazy_gettext("Exactly 2-3-4-5-6: a fixed score."),
    ("yacht", "four_of_a_kind"): lazy_gettext("Four or more equal dice: the sum of all dice."),
    ("yacht", "full_house"): lazy_gettext(
        "Three of one face and two of another, or five equal: the sum of all dice."
    ),
    ("yacht", "small_straight"): _FOUR_IN_A_ROW,
    ("yacht", "large_straight"): _FIVE_IN_A_ROW,
    ("yahtzee", "three_of_a_kind"): lazy_gettext("At least three equal dice: the sum of all dice."),
    ("yahtzee", "four_of_a_kind"): lazy_gettext("At least four equal dice: the sum of all dice."),
    ("yahtzee", "full_house"): lazy_gettext(
        "Three of one face and two of another (five equal only as a joker): a fixed score."
    ),
    ("yahtzee", "small_straight"): _FOUR_IN_A_ROW,
    ("yahtzee", "large_straight"): _FIVE_IN_A_ROW,
}


def ruleset_name(ruleset_id: str) -> str:
    """The player-facing name of the ruleset *ruleset_id*."""
    name = RULESET_NAMES.get(ruleset_id)
    return str(name) if name is not None else ruleset_id


def row_name(row_id: str) -> str:
    """The player-facing name of the row *row_id*."""
    name = ROW_NAMES.get(row_id)
    return str(name) if name is not None else row_id


def row_rule(ruleset_id: str, row_id: str, *, is_upper: bool = False) -> str:
    """What the row needs and how it scores, in the words of *ruleset_id*."""
    if is_upper:
        return str(ROW_RULES["upper"])
    text = RULESET_ROW_RULES.get((ruleset_id, row_id)) or ROW_RULES.get(row_id)
    return str(text) if text is not None else ""


def face_word(face: int) -> str:
    """The die face *face* as a word ("four")."""
    return str(FACE_WORDS[face])


OPTION_NAMES: dict[str, LazyString] = {
    "bonus": lazy_gettext("Upper bonus (points@threshold)"),
    "full_straight": lazy_gettext("Full straight points"),
    "saved_rolls": lazy_gettext("Saved rolls: unused rolls are banked for later turns"),
    "forced": lazy_gettext("Forced order: rows are filled top to bottom"),
}


def option_name(name: str) -> str:
    """The player-facing name of the edition option *name*."""
    text = OPTION_NAMES.get(name)
    return str(text) if text is not None else name


def value_str(value: object) -> str:
    """An option value as a player reads it: on/off for switches."""
    if isinstance(value, bool):
        return str(lazy_gettext("on")) if value else str(lazy_gettext("off"))
    return str(value)
