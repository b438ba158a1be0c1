"""Friend challenges as the pages and the API show them: everyone's sheets side by side once
played, and the codes a creator made with who played them.

What they show comes from the friend-code service (:mod:`daily.service.friends`); the views
are the pages blueprint's (``pages.friend``, ``pages.friend_lookup``) and the API's
(``api.my_challenges``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flask_babel import gettext
from pydantic import Field

from daily.core.codes import code_str
from daily.service import friends
from daily.web import answers
from daily.web.answers import DATE
from daily.web.i18n import player_name, row_name


class ChallengePlay(answers.Answer):
    """A friend's score on one of the asker's codes."""

    player_id: str
    name: str
    score: int = Field(ge=0)


class Challenge(answers.Answer):
    """One of the asker's codes and who played it."""

    code: str = Field(description="the code, XXXX-XXXX")
    ruleset: str
    day: str | None = Field(
        description="a daily's code: the day it replays", json_schema_extra=DATE
    )
    number: int | None = Field(description="a daily's code: the puzzle number")
    mine: int | None = Field(description="the asker's score on it (null: not counted yet)")
    players: int = Field(ge=0, description="the others with a score on it")
    plays: list[ChallengePlay] = Field(
        max_length=friends.PLAYS_SHOWN, description="the best of them, best first"
    )
    open: bool = Field(description="still ranked: a game on it counts on its board")


class Challenges(answers.Answer):
    """The codes the asker made lately, newest first."""

    challenges: list[Challenge] = Field(max_length=friends.CODES_FOLLOWED)


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


def challenges_answer(found: Sequence[friends.Challenge]) -> Challenges:
    """The answer of *found* (the API's, and the home page's first paint)."""
    return Challenges(challenges=[_challenge(c) for c in found])


def _challenge(found: friends.Challenge) -> Challenge:
    plays = [ChallengePlay(player_id=p.player_id, name=p.name, score=p.score) for p in found.plays]
    return Challenge(
        code=code_str(found.code),
        ruleset=found.ruleset,
        day=found.day.isoformat() if found.day else None,
        number=found.number,
        mine=found.mine,
        players=found.players,
        plays=plays,
        open=found.is_open,
    )
