"""Friend challenges: a code's page, who sent it, and everyone's sheets side by side once played.

The views are routes of the pages blueprint (``pages.friend``, ``pages.friend_lookup``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import redirect, render_template, request, url_for
from flask_babel import format_datetime, gettext
from werkzeug.wrappers import Response

from daily.codes import code_str, parse_code
from daily.errors import NotFoundError
from daily.modes import BoardKind
from daily.rules import apply, find_ruleset, new_game, parse_move
from daily.store import games, keys, players
from daily.web import auth, current_config, current_redis
from daily.web.i18n import row_name


def _my_game(index_key: str) -> games.Record | None:
    return games.index_lookup(current_redis(), index_key)


def friend_lookup() -> Response:
    """The code form of the home page: on to the code's page."""
    return redirect(url_for("pages.friend", code=parse_code(request.args.get("code", ""))), 303)


def friend(code: str) -> str:
    """A friend challenge: who sent it, blind or target, and everyone's sheets once played
    (the template lists them through ``friend_sheets`` and ``sheets_table``)."""
    normalized = parse_code(code)
    found = games.load_code(current_redis(), normalized)
    if found is None:
        raise NotFoundError(f"no such friend code: {code_str(normalized)}")
    theirs = games.load(current_redis(), found.game_id)
    player_id = auth.current_player_id()
    mine = _my_game(keys.player_friend(player_id, normalized)) if player_id else None
    is_creator = player_id == found.creator
    if is_creator:
        mine = theirs  # the creator's own game is the one on the code
    ruleset = find_ruleset(found.ruleset, found.options)
    boot = {"code": normalized, "game": mine.id if mine else None}
    status, daily_game = code_status(found, player_id)
    if status == "played":
        mine = daily_game  # their daily is their game on these dice: shown beside the code's
    return render_template(
        "friend.html",
        status=status,
        daily_game=daily_game,
        practice_at=format_datetime(found.practice_at(current_config().timezone)),
        code=normalized,
        shown_code=code_str(normalized),
        creator=name_of(found.creator),
        theirs=theirs,
        mine=mine,
        is_creator=is_creator,
        ruleset=ruleset,
        boot=boot,
    )


def code_status(found: games.FriendCode, player_id: str | None) -> tuple[str, games.Record | None]:
    """What opening a code does now, said before the first roll: ``open`` (ranked on the
    code's board), ``as_daily`` (a daily's code, played as the player's daily),
    ``daily_under_way`` or ``played`` (with that daily, the player's one game on the day's
    dice), ``closed`` (not playable yet) or ``practice``."""
    config = current_config()
    now = config.now()
    if not found.window.is_open(now):
        return ("closed" if now < found.practice_at(config.timezone) else "practice"), None
    if found.day is None:
        return "open", None
    daily = _my_game(keys.player_daily(player_id, found.day.isoformat())) if player_id else None
    if daily is None:
        return "as_daily", None
    return ("played" if daily.finished else "daily_under_way"), daily


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


def target_of(record: games.Record) -> dict[str, Any] | None:
    """The creator's running totals, for a friend game played with their score as the target."""
    if (
        record.kind.board is not BoardKind.FRIEND
        or not record.code
        or not (record.target or record.finished)
    ):
        return None
    theirs = creator_game(record.code)
    if theirs is None or theirs.id == record.id:
        return None
    return {
        "name": name_of(theirs.player_id),
        "finished": theirs.finished,
        "byTurn": turn_totals(theirs, current_config().secret_key),
    }


def creator_game(code: str) -> games.Record | None:
    found = games.load_code(current_redis(), code)
    return games.load(current_redis(), found.game_id) if found else None


def name_of(player_id: str) -> str:
    player = players.get(current_redis(), player_id)
    return player.name if player else gettext("your friend")


def turn_totals(record: games.Record, secret: str) -> list[int]:
    """The game's total after each scored turn, the bonus counted once earned."""
    source = record.source(secret)
    state = new_game(record.rules, source)
    totals = []
    for entry in record.moves:
        state = apply(state, parse_move(entry))
        if "score" in entry:
            totals.append(state.total)
    return totals
