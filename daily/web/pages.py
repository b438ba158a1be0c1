"""The HTML pages: today's puzzle, play, friend challenges, advent, rules.

Pages are rendered on the server from the store and the rules engine; the
small script in ``static/app.js`` then plays through the JSON API (API.md),
so the browser never holds a rule or a die the server did not send.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from flask import Blueprint, redirect, render_template, request, session, url_for
from flask_babel import format_datetime, get_locale, get_translations, gettext, ngettext
from markupsafe import Markup
from werkzeug.wrappers import Response

from daily import __version__, dice
from daily.codes import code_str, parse_code
from daily.errors import DailyError
from daily.modes import BoardKind
from daily.rules import (
    BASE_RULESETS,
    Option,
    Ruleset,
    apply,
    find_ruleset,
    new_game,
    parse_move,
)
from daily.store import games, keys, players
from daily.web import auth, current_config, current_redis
from daily.web.errors import bad_request, not_found
from daily.web.i18n import (
    ERROR_MESSAGES,
    FACE_WORDS,
    NO_ANSWER,
    OTHER_ERROR,
    face_word,
    option_name,
    row_name,
    row_rule,
    ruleset_name,
    value_str,
)
from daily.web.security import next_path

bp = Blueprint("pages", __name__)

#: Die face sets: the classic one and the Christmas one (December only).
DICE_STYLES = ("f", "x")
STATIC = Path(__file__).resolve().parents[1] / "static"
_STYLE_KEY = "dice"


# -- shared context -------------------------------------------------------------------------


@bp.app_context_processor
def _context() -> dict[str, Any]:
    return {
        "locale": str(get_locale() or "en"),
        "asset_version": __version__,
        "dice_style": dice_style(),
        "is_december": is_december(),
        "player_name": _header_name(),
        "js_strings": _js_strings_in(get_translations()),
    }


@bp.app_template_global()
def dice_sprite() -> Markup:
    """The die faces as an inline SVG sprite, so every die on a page is a local ``<use>``."""
    return _sprite()


@functools.cache
def _sprite() -> Markup:
    text = (STATIC / "dice.svg").read_text()
    return Markup(text.replace("<svg ", '<svg class="visually-hidden" aria-hidden="true" ', 1))


bp.add_app_template_global(face_word, "face_word")
bp.add_app_template_global(row_name, "row_name")
bp.add_app_template_global(ruleset_name, "ruleset_name")
bp.add_app_template_filter(face_word, "face_word")


def _header_name() -> str | None:
    # The header is decoration: a page (or the error page itself) must still render
    # when the cookie is bad or Redis is down, so those errors only hide the name.
    try:
        player = auth.current_player()
    except DailyError:
        return None
    return player.name if player else None


def is_december() -> bool:
    """Whether the reference clock says December (advent and the Christmas dice)."""
    return current_config().now().month == 12


def dice_style() -> str:
    """The die face set to draw: ``x`` (Christmas) if chosen and in December, else ``f``."""
    chosen = session.get(_STYLE_KEY)
    return "x" if chosen == "x" and is_december() else "f"


@functools.lru_cache(maxsize=16)
def _js_strings_in(catalogue: object) -> dict[str, str]:
    # Some fifty messages a page: translated once per catalogue (per language), not per request.
    return js_strings()


def js_strings() -> dict[str, str]:
    """Every string the script shows, translated (the script never writes English itself)."""
    faces = {f"face{n}": str(word) for n, word in FACE_WORDS.items()}
    # API errors: the script shows "error:<code>" for the error JSON's code.
    errors = {f"error:{code}": str(message) for code, message in ERROR_MESSAGES.items()}
    return faces | {
        "held": gettext("held"),
        "die": gettext("Die %(n)s: %(face)s", n="{n}", face="{face}"),
        "dieHeld": gettext("Die %(n)s: %(face)s, held", n="{n}", face="{face}"),
        "rollsLeft": gettext("Roll (%(n)s left)", n="{n}"),
        "noRolls": gettext("No rolls left: pick a row"),
        "rolled": gettext("Dice: %(faces)s. Rolls left: %(n)s.", faces="{faces}", n="{n}"),
        "turn": gettext("Turn %(turn)s of %(turns)s", turn="{turn}", turns="{turns}"),
        "pickRow": gettext("Score %(row)s for %(points)s", row="{row}", points="{points}"),
        "scratch": gettext("Scratch %(row)s? It scores 0 and closes the row.", row="{row}"),
        "ahead": gettext("+%(n)s ahead of pace", n="{n}"),
        "behind": gettext("%(n)s behind pace", n="{n}"),
        "onPace": gettext("on pace"),
        "bonusMade": gettext("bonus made"),
        "rank": gettext("Rank %(rank)s of %(total)s", rank="{rank}", total="{total}"),
        "rankOnly": gettext("Rank %(rank)s", rank="{rank}"),
        # A game whose luck is past the clairvoyance threshold (daily/store/reviews.py).
        "underReview": gettext(
            "Under review: this game is kept off the rankings until an operator has checked it."
        ),
        "reviewRemoved": gettext("Removed from the rankings after review."),
        "copied": gettext("Copied"),
        "copyFailed": gettext("Select the text and copy it"),
        "nameSaved": gettext("Saved"),
        "vs": gettext(
            "After turn %(turn)s: you %(you)s, %(name)s %(them)s",
            turn="{turn}",
            you="{you}",
            name="{name}",
            them="{them}",
        ),
        "shareText": gettext(
            "Daily Maxi Yatzy #%(number)s: %(total)s points. Play the same dice: %(link)s",
            number="{number}",
            total="{total}",
            link="{link}",
        ),
        "shareFriend": gettext(
            "I scored %(total)s at %(ruleset)s. Beat me on the same dice: %(link)s",
            total="{total}",
            ruleset="{ruleset}",
            link="{link}",
        ),
        "timeLeft": gettext("%(h)sh %(m)sm %(s)ss", h="{h}", m="{m}", s="{s}"),
        "newPuzzle": gettext("A new puzzle is out: reload the page"),
        "yourPlace": gettext("your score"),
        "playersOne": ngettext("%(n)s player", "%(n)s players", 1, n="{n}"),
        "playersMany": ngettext("%(n)s player", "%(n)s players", 2, n="{n}"),
        "yourBand": gettext(
            "Your score is in the marked band, %(low)s to %(high)s.", low="{low}", high="{high}"
        ),
        # Computer games and the "Best move" hints.
        "hintKeep": gettext("Keep %(dice)s", dice="{dice}"),
        "hintRollAll": gettext("Re-roll every die"),
        "hintScore": gettext("Score %(row)s", row="{row}"),
        "hintValue": gettext("expects %(value)s", value="{value}"),
        "hintLoss": gettext("%(loss)s less", loss="{loss}"),
        "theirKeep": gettext("kept %(n)s", n="{n}"),
        "theirScore": gettext("scored %(points)s in %(row)s", points="{points}", row="{row}"),
        "youWin": gettext("You win!"),
        "computerWins": gettext("The computer wins."),
        "tie": gettext("A tie."),
        "errorOther": str(OTHER_ERROR),
        "errorNoAnswer": str(NO_ANSWER),
        **errors,
    }


# -- the rules, as the page and the script show them -----------------------------------------


@dataclass(frozen=True, slots=True)
class RowView:
    """A row of a rules table: its name, its rule in words and a worked example."""

    id: str
    name: str
    rule: str
    face: int
    example: tuple[int, ...]
    points: int
    best: int


def row_views(ruleset: Ruleset) -> list[RowView]:
    """Every row of *ruleset* with its example scored by the engine and its best score."""
    views = []
    for index, row in enumerate(ruleset.rows):
        example = row.example
        views.append(
            RowView(
                id=row.id,
                name=row_name(row.id),
                rule=row_rule(ruleset.id, row.id, is_upper=row.is_upper),
                face=row.face,
                example=example,
                points=ruleset.score(example)[index],
                best=max(points[index] for points in ruleset.table.values()),
            )
        )
    return views


def bonus_par(ruleset: Ruleset) -> float:
    """Dice of each face the bonus asks for on average: 4 in Maxi (84), 3 in Yatzy (63)."""
    faces = sum(row.face for row in ruleset.rows if row.is_upper)
    return ruleset.bonus_threshold / faces if faces else 0.0


def sheet_meta(ruleset: Ruleset) -> dict[str, Any]:
    """What the play script needs to draw a ruleset's sheet and the bonus pace."""
    return {
        "id": ruleset.id,
        "name": ruleset_name(ruleset.id),
        "dice": ruleset.dice,
        "rows": [{"id": r.id, "name": row_name(r.id), "face": r.face} for r in ruleset.rows],
        "bonus": ruleset.bonus,
        "threshold": ruleset.bonus_threshold,
        "par": bonus_par(ruleset),
        "upperRows": sum(1 for r in ruleset.rows if r.is_upper),
    }


# -- pages ---------------------------------------------------------------------------------


def _today() -> dice.Day:
    config = current_config()
    return dice.today(config.now(), config.timezone)


def _my_game(index_key: str) -> games.Record | None:
    return games.index_lookup(current_redis(), index_key)


@bp.get("/")
def today() -> str:
    """Today's puzzle: its number and date, Play, the countdown, and your result."""
    day = _today()
    player_id = auth.current_player_id()
    mine = _my_game(keys.player_daily(player_id, day.date.isoformat())) if player_id else None
    seconds_left = int((day.closes_at - current_config().now()).total_seconds())
    boot = {
        "date": day.date.isoformat(),
        "number": day.number,
        "secondsLeft": seconds_left,
        "game": mine.id if mine else None,
        "finished": bool(mine and mine.finished),
    }
    return render_template(
        "today.html",
        day=day,
        mine=mine,
        boot=boot,
        rulesets=_ruleset_choices(),
        daily_rules=find_ruleset("maxi"),
    )


def _ruleset_choices() -> list[tuple[str, str]]:
    return [(r.id, ruleset_name(r.id)) for r in BASE_RULESETS.values()]


@bp.get("/play/<game_id>")
def play(game_id: str) -> str | Response:
    """The play page of a game (and its results once finished); a party game has its own."""
    record = auth.own_game(game_id)
    if record.kind.is_party:
        return redirect(url_for("party.play", game_id=record.id))
    ruleset = record.rules
    boot: dict[str, Any] = {"game": record.id, "sheet": sheet_meta(ruleset), "mode": record.mode}
    if record.day is not None:
        boot["number"] = dice.Day(record.day, current_config().timezone).number
    target = _target_of(record)
    if target is not None:
        boot["target"] = target
    return render_template("play.html", record=record, ruleset=ruleset, boot=boot)


def _target_of(record: games.Record) -> dict[str, Any] | None:
    """The creator's running totals, for a friend game played with their score as the target."""
    if (
        record.kind.board is not BoardKind.FRIEND
        or not record.code
        or not (record.target or record.finished)
    ):
        return None
    theirs = _creator_game(record.code)
    if theirs is None or theirs.id == record.id:
        return None
    return {
        "name": _name_of(theirs.player_id),
        "finished": theirs.finished,
        "byTurn": turn_totals(theirs, current_config().secret_key),
    }


def _creator_game(code: str) -> games.Record | None:
    found = games.load_code(current_redis(), code)
    return games.load(current_redis(), found.game_id) if found else None


def _name_of(player_id: str) -> str:
    player = players.get(current_redis(), player_id)
    return player.name if player else gettext("your friend")


def turn_totals(record: games.Record, secret: str) -> list[int]:
    """The game's total after each scored turn, the bonus counted once earned."""
    source = dice.stream(dice.seed_from_ref(record.seed_ref, secret))
    state = new_game(record.rules, source)
    totals = []
    for entry in record.moves:
        state = apply(state, parse_move(entry))
        if "score" in entry:
            totals.append(state.total)
    return totals


@bp.get("/f")
def friend_lookup() -> Response:
    """The code form of the home page: on to the code's page."""
    return redirect(url_for("pages.friend", code=parse_code(request.args.get("code", ""))), 303)


@bp.get("/f/<code>")
def friend(code: str) -> str:
    """A friend challenge: who sent it, blind or target, and both sheets once played."""
    normalized = parse_code(code)
    found = games.load_code(current_redis(), normalized)
    if found is None:
        raise not_found(f"no such friend code: {code_str(normalized)}")
    theirs = games.load(current_redis(), found.game_id)
    player_id = auth.current_player_id()
    mine = _my_game(keys.player_friend(player_id, normalized)) if player_id else None
    is_creator = player_id == found.creator
    if is_creator:
        mine = theirs  # the creator's own game is the one on the code
    ruleset = find_ruleset(found.ruleset, found.options)
    comparison = None
    if mine is not None and mine.finished and theirs is not None and theirs.finished:
        both = [(_name_of(theirs.player_id), theirs)]
        if mine.id != theirs.id:
            both.append((str(gettext("You")), mine))
        comparison = compare(both)
    boot = {"code": normalized, "game": mine.id if mine else None}
    status, daily_game = code_status(found, player_id)
    return render_template(
        "friend.html",
        status=status,
        daily_game=daily_game,
        practice_at=format_datetime(found.practice_at(current_config().timezone)),
        code=normalized,
        shown_code=code_str(normalized),
        creator=_name_of(found.creator),
        theirs=theirs,
        mine=mine,
        is_creator=is_creator,
        ruleset=ruleset,
        comparison=comparison,
        boot=boot,
    )


def code_status(found: games.FriendCode, player_id: str | None) -> tuple[str, games.Record | None]:
    """What opening a code does now, said before the first roll: ``open`` (ranked on the
    code's board), ``as_daily`` (a daily's code, played as the player's daily),
    ``daily_under_way`` (with that daily), ``closed`` (not playable yet) or ``practice``."""
    config = current_config()
    now = config.now()
    if not found.window.is_open(now):
        return ("closed" if now < found.practice_at(config.timezone) else "practice"), None
    if found.day is None:
        return "open", None
    daily = _my_game(keys.player_daily(player_id, found.day.isoformat())) if player_id else None
    if daily is None:
        return "as_daily", None
    return ("open" if daily.finished else "daily_under_way"), daily


@dataclass(frozen=True, slots=True)
class Comparison:
    """Finished sheets side by side: a column per player, a line per row and sum."""

    titles: list[str]
    lines: list[tuple[str, list[int | None]]]
    sums: list[tuple[str, list[int]]]  # upper subtotal, bonus, total
    upper_rows: int  # the sums of the upper rows come after this many lines


def compare(records: list[tuple[str, games.Record]]) -> Comparison:
    """Lines up the sheets of *records* (title, finished game) for one table."""
    states = [record.state(current_config().secret_key) for _, record in records]
    cards = [state.scorecard() for state in states]
    lines = [(row_name(row_id), [card[row_id] for card in cards]) for row_id in cards[0]]
    sums = [
        (str(gettext("Upper subtotal")), [s.upper for s in states]),
        (str(gettext("Bonus")), [s.bonus + s.extra_bonus for s in states]),
        (str(gettext("Total")), [s.total for s in states]),
    ]
    upper_rows = sum(1 for row in states[0].ruleset.rows if row.is_upper)
    return Comparison([title for title, _ in records], lines, sums, upper_rows)


@bp.get("/advent")
def advent() -> str:
    """The advent calendar in December: 24 doors, today's opens the daily."""
    day = _today()
    player_id = auth.current_player_id()
    doors = advent_doors(day.date, player_id) if day.date.month == 12 else []
    return render_template("advent.html", day=day, doors=doors, year=day.date.year)


@dataclass(frozen=True, slots=True)
class Door:
    """One door of the advent calendar."""

    number: int
    state: str  # "today", "played", "missed" or "locked"
    score: int | None = None


def advent_doors(today_: date, player_id: str | None) -> list[Door]:
    """The 24 doors as *player_id* sees them on *today_* (a December date)."""
    doors = []
    for number in range(1, 25):
        when = today_.replace(day=number)
        if when > today_:
            doors.append(Door(number, "locked"))
            continue
        game = _my_game(keys.player_daily(player_id, when.isoformat())) if player_id else None
        if when == today_:
            doors.append(Door(number, "today", game.total if game and game.finished else None))
        elif game is not None and game.finished:
            doors.append(Door(number, "played", game.total))
        else:
            doors.append(Door(number, "missed"))
    return doors


@bp.post("/prefs/dice")
def set_dice_style() -> Response:
    """Saves the die face set (Christmas or classic) in the player's session."""
    style = request.form.get("style", "")
    if style not in DICE_STYLES:
        raise bad_request(f"unknown dice style: {style!r} (allowed: f, x)")
    session[_STYLE_KEY] = style
    session.permanent = True
    return redirect(next_path(request.form.get("next")) or url_for("pages.advent"), 303)


@bp.get("/solo")
def solo() -> str:
    """Practice on fresh dice: any ruleset, any edition options, not ranked."""
    choices = [
        (ruleset, [option_view(option) for option in ruleset.option_specs])
        for ruleset in BASE_RULESETS.values()
    ]
    return render_template("solo.html", choices=choices)


@bp.get("/rules")
def rules_index() -> Response:
    """The daily puzzle's rules."""
    return redirect(url_for("pages.rules", ruleset_id="maxi"))


@bp.get("/rules/<ruleset_id>")
def rules(ruleset_id: str) -> str:
    """A ruleset's rules: each row with a worked example scored by the engine."""
    if ruleset_id not in BASE_RULESETS:
        raise not_found(f"no such ruleset: {ruleset_id!r}")
    ruleset = find_ruleset(ruleset_id)
    return render_template(
        "rules.html",
        ruleset=ruleset,
        rows=row_views(ruleset),
        pace=pace_example(ruleset),
        options=[option_view(o) for o in ruleset.option_specs],
        others=_ruleset_choices(),
        max_total=ruleset.max_total,
    )


def pace_example(ruleset: Ruleset) -> dict[str, Any]:
    """A worked bonus-pace example: one die above par in Sixes."""
    par = bonus_par(ruleset)
    count = round(par) + 1
    ahead = round((count - par) * 6)
    return {
        "par": f"{par:g}" if par == int(par) else f"{par:.1f}",
        "count": count,
        "points": count * 6,
        "text": pace_str(ahead),
    }


def pace_str(ahead: int) -> str:
    """How the sheet words a bonus pace: "+6 ahead of pace", "3 behind pace"."""
    if ahead > 0:
        return str(gettext("+%(n)s ahead of pace", n=ahead))
    if ahead < 0:
        return str(gettext("%(n)s behind pace", n=-ahead))
    return str(gettext("on pace"))


@dataclass(frozen=True, slots=True)
class OptionView:
    """An edition option as the rules and setup pages list it: labels and JSON values."""

    name: str
    name_text: str
    values: list[str]
    default: str
    choices: list[tuple[str, str]]  # (JSON value, label)


def option_view(option: Option) -> OptionView:
    """The view of *option* in the player's language."""
    return OptionView(
        option.name,
        option_name(option.name),
        [value_str(v) for v in option.values],
        value_str(option.default),
        [(json.dumps(v), value_str(v)) for v in option.values],
    )
