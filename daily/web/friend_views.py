"""Friend challenges: a code's page, who sent it, and everyone's sheets side by side once played;
and the creator hearing back (``GET /api/v1/players/me/challenges``).

The views are routes of the pages blueprint (``pages.friend``, ``pages.friend_lookup``) and
of the API's (``api.my_challenges``); what they show comes from the friend-code service
(:mod:`daily.service.friends`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flask import jsonify, redirect, render_template, request, url_for
from flask_babel import format_datetime, gettext
from werkzeug.wrappers import Response

from daily.core.codes import code_str, parse_code
from daily.core.rules import find_ruleset
from daily.service import friends
from daily.web import answers, auth, current_config, current_redis
from daily.web.i18n import player_name, row_name
from daily.web.openapi import documented


def friend_lookup() -> Response:
    """The code form of the home page: on to the code's page."""
    return redirect(url_for("pages.friend", code=parse_code(request.args.get("code", ""))), 303)


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
        names=[name_of(sheet) for sheet in found.sheets],
        table=compare(found.sheets) if found.sheets and found.sheets[0].card else None,
    )


@dataclass(frozen=True, slots=True)
class Comparison:
    """Finished sheets side by side: a column per player, a line per row and sum."""

    titles: list[str]
    lines: list[tuple[str, list[int | None]]]
    sums: list[tuple[str, list[int]]]  # upper subtotal, bonus, total
    upper_rows: int  # the sums of the upper rows come after this many lines


def compare(sheets: Sequence[friends.Sheet]) -> Comparison:
    """Lines up *sheets* for one table, the reader's own titled "You"."""
    cards = [sheet.card for sheet in sheets if sheet.card is not None]
    points = [dict(card.rows) for card in cards]
    lines = [(row_name(row_id), [p[row_id] for p in points]) for row_id, _ in cards[0].rows]
    sums = [
        (str(gettext("Upper subtotal")), [c.upper for c in cards]),
        (str(gettext("Bonus")), [c.bonus for c in cards]),
        (str(gettext("Total")), [c.total for c in cards]),
    ]
    titles = [str(gettext("You")) if sheet.is_me else name_of(sheet) for sheet in sheets]
    return Comparison(titles, lines, sums, cards[0].upper_rows)


def name_of(sheet: friends.Sheet) -> str:
    """The name of a sheet's player as shown, or "a deleted player"."""
    return player_name(sheet.name) if sheet.name else str(gettext("a deleted player"))


# -- the creator hears back -------------------------------------------------------------------


def challenges_answer(found: Sequence[friends.Challenge]) -> answers.Challenges:
    """The answer of *found* (the API's, and the home page's first paint)."""
    return answers.Challenges(challenges=[_challenge(c) for c in found])


def _challenge(found: friends.Challenge) -> answers.Challenge:
    plays = [
        answers.ChallengePlay(player_id=p.player_id, name=p.name, score=p.score)
        for p in found.plays
    ]
    return answers.Challenge(
        code=code_str(found.code),
        ruleset=found.ruleset,
        day=found.day.isoformat() if found.day else None,
        number=found.number,
        mine=found.mine,
        players=found.players,
        plays=plays,
        open=found.is_open,
    )


@documented(answers.Challenges, errors=(401,), access="either",
            description="the codes, with the ETag to send back")  # fmt: skip
def my_challenges() -> Response:
    """The codes the asking player made lately and who played them (none without a player).

    A page polls it with ``If-None-Match``: an unchanged answer is a 304 without a body.
    """
    found = friends.challenges(current_redis(), current_config(), auth.current_player_id())
    response = jsonify(challenges_answer(found).model_dump())
    response.headers["Cache-Control"] = "private, no-cache"
    response.add_etag()
    return response.make_conditional(request)
