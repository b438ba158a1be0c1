"""Flask-Babel set-up and the game's words: row names, row rules, die faces.

Every string a player sees goes through :func:`flask_babel.gettext` (or its lazy
form here, because these tables are built at import time, outside a request).
The catalogues live in ``daily/translations/`` (``.po`` sources, compiled to
``.mo`` by the install's build step, never at run time); the language is the
player's choice from the switcher, kept in the session, else the best match
for the browser's ``Accept-Language``, else English.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask, redirect, request, session
from flask_babel import Babel, LazyString, format_decimal, gettext, lazy_gettext
from werkzeug.wrappers import Response

from daily.core.errors import ErrorCode
from daily.web import costs

#: Locales with a catalogue, each with its name in its own language; the first is the default.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "da": "Dansk",
    "de": "Deutsch",
    "es": "Español",
    "fr": "Français",
    "it": "Italiano",
    "nl": "Nederlands",
    "nb": "Norsk bokmål",
    "pl": "Polski",
    "pt": "Português",
    "fi": "Suomi",
    "sv": "Svenska",
    "ja": "日本語",
}
DEFAULT = "en"
#: Tags a browser may send for a language whose catalogue has another code.
ALIASES = {"no": "nb", "nn": "nb"}
TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"
_SESSION_KEY = "language"
#: The name a guest gets until it picks one: "Guest" and the first four digits of its id.
GUEST = re.compile(r"Guest ([0-9a-f]{4})")

babel = Babel()


def select_locale() -> str:
    """The switcher's choice kept in the session, else the best ``Accept-Language`` match."""
    chosen = session.get(_SESSION_KEY)
    if isinstance(chosen, str) and chosen in LANGUAGES:
        return chosen
    offered = [*LANGUAGES, *ALIASES]
    best = request.accept_languages.best_match(offered, default=DEFAULT)
    return ALIASES.get(best, best)


def set_language() -> Response:
    """Keeps the language picked in the switcher (``POST /prefs/language``) in the session."""
    from daily.web.http_errors import bad_request
    from daily.web.security import next_path

    language = request.form.get("language", "")
    if language not in LANGUAGES:
        raise bad_request(f"unknown language: {language!r} (known: {', '.join(LANGUAGES)})")
    session[_SESSION_KEY] = language
    session.permanent = True
    return redirect(next_path(request.form.get("next")) or "/", 303)


def player_name(name: str) -> str:
    """A player's name as shown: a guest's generic name in the reader's language."""
    found = GUEST.fullmatch(name)
    return str(gettext("Guest %(n)s", n=found.group(1))) if found else name


def init_app(app: Flask) -> None:
    """Installs Flask-Babel (and its ``_``/``gettext`` in Jinja) and the language switcher."""
    babel.init_app(
        app,
        default_locale=DEFAULT,
        default_translation_directories=str(TRANSLATIONS),
        locale_selector=select_locale,
    )
    app.add_url_rule(
        "/prefs/language", "set_language", set_language, methods=["POST"], cost=costs.PAGE
    )
    app.jinja_env.globals["languages"] = LANGUAGES
    app.jinja_env.globals["status_message"] = status_message
    # Numbers as the locale writes them: 7,204 in English, 7.204 in German.
    app.jinja_env.filters["number"] = format_decimal


#: What an error page tells the player, by HTTP status; the code's own message follows it.
STATUS_MESSAGES: dict[int, LazyString] = {
    400: lazy_gettext("That request could not be read."),
    401: lazy_gettext("Your session could not be read, so it was cleared. Please start again."),
    403: lazy_gettext("That is not allowed."),
    404: lazy_gettext("There is nothing here (or it is not yours to see)."),
    409: lazy_gettext("That clashes with what happened meanwhile. Reload and try again."),
    429: lazy_gettext("Too many requests: wait a moment and try again."),
    503: lazy_gettext("The game store is unavailable just now. Try again soon."),
}
_OTHER_ERROR = lazy_gettext("Something went wrong on our side.")


def status_message(status: int) -> str:
    """The player's words for an error page of HTTP status *status*."""
    return str(STATUS_MESSAGES.get(status, _OTHER_ERROR))


#: What the script tells the player, by the error JSON's ``code`` (the API's own message is
#: English, so the script shows these instead); codes with a status message share its words.
ERROR_MESSAGES: dict[ErrorCode, LazyString] = {
    ErrorCode.BAD_REQUEST: STATUS_MESSAGES[400],
    ErrorCode.METHOD_NOT_ALLOWED: STATUS_MESSAGES[400],
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: STATUS_MESSAGES[400],
    ErrorCode.REQUEST_ENTITY_TOO_LARGE: STATUS_MESSAGES[400],
    ErrorCode.INVALID_MOVE: lazy_gettext("That move is not possible in this game."),
    ErrorCode.UNAUTHORIZED: STATUS_MESSAGES[401],
    ErrorCode.CROSS_SITE: STATUS_MESSAGES[403],
    ErrorCode.HINTS_NOT_ALLOWED: lazy_gettext("Best-move hints are not allowed in this game."),
    ErrorCode.NOT_FOUND: STATUS_MESSAGES[404],
    ErrorCode.NOT_OPEN: lazy_gettext("That puzzle is not open yet."),
    ErrorCode.CONFLICT: STATUS_MESSAGES[409],
    ErrorCode.ILLEGAL_MOVE: lazy_gettext("That move is not allowed now. Reload and try again."),
    ErrorCode.NO_STRATEGY: lazy_gettext("Best moves are not available for this game."),
    ErrorCode.TOO_MANY_REQUESTS: STATUS_MESSAGES[429],
    ErrorCode.CONFUSABLE_NAME: lazy_gettext(
        "That name imitates another with letters of another script. Write it in one script."
    ),
    ErrorCode.CODE_CLOSED: lazy_gettext(
        "This challenge has closed. It can be played for practice once its dice are published."
    ),
    ErrorCode.STORAGE_UNAVAILABLE: STATUS_MESSAGES[503],
    ErrorCode.STRATEGY_TABLE_MISSING: lazy_gettext(
        "The best-move table for this game is not built yet. Try again later."
    ),
    ErrorCode.STRATEGY_TABLE_BUILDING: lazy_gettext(
        "The table of best moves is being built. Try again in a minute."
    ),
    ErrorCode.REPLAY_FAILED: _OTHER_ERROR,
    ErrorCode.INTERNAL: _OTHER_ERROR,
    # The player's pages (daily.web.account).
    ErrorCode.BAD_LINK: lazy_gettext(
        "This sign-in link no longer works: it expired, or a newer link replaced it."
        " Make a new one on the device that has your player."
    ),
    ErrorCode.DELETED_TODAY: lazy_gettext(
        "You can play again as a new guest; today's ranked games open again tomorrow."
    ),
    # Leagues (daily.web.league_views).
    ErrorCode.LEAGUE_FULL: lazy_gettext("This league is full."),
    ErrorCode.TOO_MANY_LEAGUES: lazy_gettext(
        "You are in as many leagues as a player can be. Leave one first."
    ),
    ErrorCode.NOT_OWNER: lazy_gettext("Only the league's owner can do that."),
    ErrorCode.REMOVED_FROM_LEAGUE: lazy_gettext(
        "The league's owner removed you. You can join again once they readmit you."
    ),
    # A request shed while the service was saturated (daily.web.admission).
    ErrorCode.BUSY: lazy_gettext("The service is busy just now. Try again in a few seconds."),
}
#: The script's words for a code missing above, and for a request that got no answer.
OTHER_ERROR = _OTHER_ERROR
NO_ANSWER = lazy_gettext("The server could not be reached. Check your connection and try again.")


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
    "bonus": lazy_gettext("Upper bonus"),
    "full_straight": lazy_gettext("Full straight points"),
    "saved_rolls": lazy_gettext("Saved rolls: unused rolls are banked for later turns"),
    "forced": lazy_gettext("Forced order: rows are filled top to bottom"),
}


def option_name(name: str) -> str:
    """The player-facing name of the edition option *name*."""
    text = OPTION_NAMES.get(name)
    return str(text) if text is not None else name


def value_str(value: object) -> str:
    """An option value as a player reads it: on/off for switches, a bonus in words.

    A bonus option's ``"100@84"`` reads "bonus 100 for 84 or more", not the code's jargon.

    >>> value_str("100@84"), value_str(True), value_str(2)
    ('bonus 100 for 84 or more', 'on', '2')
    """
    if isinstance(value, bool):
        return str(lazy_gettext("on")) if value else str(lazy_gettext("off"))
    if isinstance(value, str) and "@" in value:
        points, threshold = value.split("@", 1)
        return str(
            lazy_gettext(
                "bonus %(points)s for %(threshold)s or more", points=points, threshold=threshold
            )
        )
    return str(value)
