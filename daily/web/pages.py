"""The HTML pages: today's puzzle, play, friend challenges, advent, rules.

Pages are rendered on the server from the store and the rules engine; the
small script in ``static/js/`` then plays through the JSON API (docs/api.md),
so the browser never holds a rule or a die the server did not send.
"""

from __future__ import annotations

import functools
from pathlib import Path

from flask import Blueprint, redirect, render_template, request, session, url_for
from flask_babel import (
    format_date,
    format_datetime,
    get_locale,
    get_translations,
    gettext,
)
from markupsafe import Markup
from werkzeug.wrappers import Response

from daily.core import dice
from daily.core.codes import code_str, parse_code
from daily.core.errors import DailyError, NotFoundError
from daily.core.modes import BoardKind
from daily.core.record import Record
from daily.core.rules import BASE_RULESETS, find_ruleset
from daily.core.version import VERSION
from daily.service import analyses, friends, games, history, leagues, past_days, stats
from daily.web import (
    auth,
    costs,
    friend_sheets,
    game_answers,
    sheets,
    strategy_answers,
)
from daily.web.context import current_config, current_redis
from daily.web.http_errors import bad_request
from daily.web.i18n import (
    ERROR_MESSAGES,
    FACE_WORDS,
    NO_ANSWER,
    OTHER_ERROR,
    face_word,
    row_name,
    ruleset_name,
)
from daily.web.play_strings import hint_strings, play_strings, result_strings
from daily.web.security import next_path
from daily.web.sheets import mode_meta
from daily.web.sheets import option_view as option_view
from daily.web.sheets import sheet_meta as sheet_meta
from daily.web.skill_views import skill_view

bp = Blueprint("pages", __name__)

#: Die face sets: the classic one and the Christmas one (December only).
DICE_STYLES = ("f", "x")
STATIC = Path(__file__).resolve().parents[1] / "static"
_STYLE_KEY = "dice"


# -- shared context -------------------------------------------------------------------------


@bp.app_context_processor
def _context() -> dict[str, object]:
    return {
        "locale": str(get_locale() or "en"),
        "asset_version": VERSION,
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
        **result_strings(),
        **hint_strings(),
        "errorOther": str(OTHER_ERROR),
        "errorNoAnswer": str(NO_ANSWER),
        **errors,
        **play_strings(),
    }


# -- pages ---------------------------------------------------------------------------------


def _today() -> dice.Day:
    config = current_config()
    return dice.today(config.now(), config.timezone)


@bp.get("/", cost=costs.GUEST_PAGE)
def today() -> str:
    """Today's puzzle: its number and date, Play, the countdown, and your result; for a
    returning player, their streak, figures and leagues at the top before and after playing."""
    day = _today()
    player_id = auth.current_player_id()
    client, config = current_redis(), current_config()
    mine = history.daily_of(client, player_id, day.date)
    doors = history.advent_doors(client, day.date, player_id, config)
    seconds_left = int((day.closes_at - config.now()).total_seconds())
    finished = bool(mine and mine.finished)
    boot: dict[str, object] = {
        "date": day.date.isoformat(),
        "number": day.number,
        "secondsLeft": seconds_left,
        "game": mine.id if mine else None,
        "finished": finished,
    }
    kept = analyses.kept_skill(mine) if mine is not None and finished else None
    skill = None if kept is None else strategy_answers.skill_answer(kept)
    if mine is not None and finished:
        # The share grid as the result screen draws it: the sheet, the scored rows, and the
        # skill and luck once kept (else the script asks for them: the first ask computes).
        card = friends.card_of(config, mine)
        boot["sheet"] = sheet_meta(mine.rules)
        boot["card"] = {"scorecard": dict(card.rows), "bonus": card.bonus}
        boot["skill"] = None if skill is None else skill.model_dump()
        boot["skillReady"] = analyses.is_ready(config, mine)
        # The standing and records of the game's own answer: the result and home agree.
        result = game_answers.game_answer(games.view(client, config, mine))
        boot["standing"] = result.standing.model_dump() if result.standing else None
        boot["records"] = result.records.model_dump() if result.records else None
    figures = stats.stats_of(client, config, player_id, day.date) if player_id else None
    standings = leagues.standings_of(client, config, player_id, day.date) if player_id else []
    heard = friends.challenges(client, config, player_id)
    if heard:  # the page follows who played them (static/js/challenge.js)
        boot["challenges"] = friend_sheets.challenges_answer(heard).model_dump()["challenges"]
        boot["rulesetNames"] = {c.ruleset: ruleset_name(c.ruleset) for c in heard}
    return render_template(
        "today.html",
        day=day,
        stats=figures if figures and figures.figures.days else None,
        standings=standings,
        mine=mine,
        skill=skill_view(skill),
        held=bool(mine and mine.extra.get("review") == "held"),
        doors=doors,
        boot=boot,
        rulesets=sheets.ruleset_choices(),
        daily_rules=find_ruleset("maxi"),
    )


@bp.get("/play/<game_id>", cost=costs.GAME_PAGE)
def play(game_id: str) -> str | Response:
    """The play page of a game (and its results once finished); a party game has its own."""
    record = auth.own_game(game_id)
    if record.kind.is_party:
        return redirect(url_for("party.play", game_id=record.id))
    ruleset = record.rules
    mode = record.kind
    boot: dict[str, object] = {
        "game": record.id,
        "sheet": sheet_meta(ruleset),
        "mode": mode_meta(mode),
    }
    day_name, own = None, None
    if record.day is not None:
        boot["number"] = dice.Day(record.day, current_config().timezone).number
        if record.practice:  # a past day replayed: its result names the day
            boot["dayName"] = format_date(record.day, "long")
        day_name, own = _day_scores(record)
    # Skill and luck are asked for at the finish where the solver's table is there.
    boot["skillReady"] = analyses.is_ready(current_config(), record)
    target = friends.target_of(current_redis(), current_config(), record)
    if target is not None:
        # A name of None (the creator deleted their account) the script words as the API's.
        boot["target"] = {
            "name": target.name,
            "finished": target.finished,
            "byTurn": target.by_turn,
        }
    return render_template("play.html", record=record, mode=mode, ruleset=ruleset, boot=boot,
                           day_name=day_name, own=own)  # fmt: skip


def _day_scores(record: Record) -> tuple[str | None, list[int] | None]:
    # A daily's chart of the day's scores: its day named when it is not today's, and the
    # player's own other days, drawn instead when the day has too few players (scores.js).
    assert record.day is not None
    if record.kind.board is not BoardKind.DAILY:
        return None, None
    today = _today().date
    day_name = format_date(record.day, "long") if record.day != today else None
    if record.practice:  # not in the player's history: a thin day draws nothing
        return day_name, None
    client, config = current_redis(), current_config()
    return day_name, stats.own_totals(client, config, record.player_id, today, record.day)


@bp.get("/f", cost=costs.PAGE)
def friend_lookup() -> Response:
    """The code form of the home page: on to the code's page."""
    return redirect(url_for("pages.friend", code=parse_code(request.args.get("code", ""))), 303)


@bp.get("/f/<code>", cost=costs.PAGE)
def friend(code: str) -> str:
    """A friend challenge: who sent it, blind or target, and everyone's sheets once played."""
    normalized = parse_code(code)
    found = friends.code_page(
        current_redis(), current_config(), normalized, auth.current_player_id()
    )
    mine = found.mine
    boot: dict[str, object] = {"code": normalized, "game": mine.id if mine else None}
    theirs = found.theirs
    if found.is_creator and theirs is not None and theirs.finished:
        boot["creatorTotal"] = theirs.total  # the creator's page lists who beat it
        boot["creator"] = found.found.creator
    return render_template(
        "friend.html",
        status=found.status,
        daily_game=found.daily_game,
        practice_at=format_datetime(found.practice_at),
        code=normalized,
        shown_code=code_str(normalized),
        creator=found.creator_name or gettext("your friend"),
        theirs=found.theirs,
        mine=mine,
        is_creator=found.is_creator,
        ruleset=find_ruleset(found.found.ruleset, found.found.options),
        boot=boot,
        names=[friend_sheets.name_of(sheet) for sheet in found.sheets],
        table=friend_sheets.compare(found.sheets)
        if found.sheets and found.sheets[0].card
        else None,
    )


@bp.get("/solo", cost=costs.PAGE)
def solo() -> str:
    """Practice on fresh dice: any ruleset, any edition options, not ranked."""
    choices = [
        (ruleset, [option_view(option) for option in ruleset.option_specs])
        for ruleset in BASE_RULESETS.values()
    ]
    return render_template("solo.html", choices=choices)


@bp.get("/rules", cost=costs.PAGE)
def rules_index() -> Response:
    """The daily puzzle's rules."""
    return redirect(url_for("pages.rules", ruleset_id="maxi"))


@bp.get("/rules/<ruleset_id>", cost=costs.PAGE)
def rules(ruleset_id: str) -> str:
    """A ruleset's rules: each row with a worked example scored by the engine."""
    if ruleset_id not in BASE_RULESETS:
        raise NotFoundError(f"no such ruleset: {ruleset_id!r}")
    ruleset = find_ruleset(ruleset_id)
    return render_template(
        "rules.html",
        ruleset=ruleset,
        rows=sheets.row_views(ruleset),
        pace=sheets.pace_example(ruleset),
        options=[option_view(o) for o in ruleset.option_specs],
        others=sheets.ruleset_choices(),
        max_total=ruleset.max_total,
    )


@bp.get("/advent", cost=costs.PAGE)
def advent() -> str:
    """The advent calendar in December: 24 doors, today's opens the daily."""
    day = _today()
    player_id = auth.current_player_id()
    client, config = current_redis(), current_config()
    doors = history.advent_doors(client, day.date, player_id, config)
    december = history.december_of(doors)
    # What each door's day holds beyond its score: a practice game (a missed door opens as
    # practice), a daily held for review.
    days = (
        past_days.month_of(client, config, player_id, day.date.replace(day=1)).days if doors else ()
    )
    return render_template(
        "advent.html", day=day, doors=doors, december=december, year=day.date.year, days=days
    )


@bp.post("/prefs/dice", cost=costs.PAGE)
def set_dice_style() -> Response:
    """Saves the die face set (Christmas or classic) in the player's session."""
    style = request.form.get("style", "")
    if style not in DICE_STYLES:
        raise bad_request(f"unknown dice style: {style!r} (allowed: f, x)")
    session[_STYLE_KEY] = style
    session.permanent = True
    return redirect(next_path(request.form.get("next")) or url_for("pages.advent"), 303)
