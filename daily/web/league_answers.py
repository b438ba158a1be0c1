"""The league API's answers: a league, the asker's leagues, a league board, as typed models
(:mod:`daily.web.league_views` serves them; OpenAPI describes them from these models).
"""

from __future__ import annotations

from flask import url_for
from pydantic import Field

from daily.service import leagues
from daily.service.leagues import MAX_LEAGUES
from daily.web import answers


class MemberAnswer(answers.Answer):
    """A member of a league."""

    player_id: str
    name: str


class LeagueAnswer(answers.Answer):
    """A league as the asker sees it; ``members`` is empty unless they are one."""

    id: str = Field(description="the league's id, the last part of its invite link")
    name: str
    owner: MemberAnswer
    size: int = Field(ge=0, le=leagues.MAX_MEMBERS, description="members now")
    members: list[MemberAnswer] = Field(max_length=leagues.MAX_MEMBERS)
    is_member: bool
    is_owner: bool
    invite: str = Field(
        description="the invite link to share; it changes when the owner renews it or removes"
        " a member"
    )
    removed: list[MemberAnswer] = Field(
        [],
        description="the owner's view: the members they removed, whom no link lets in"
        " until readmitted (latest first)",
    )


class LeaguesAnswer(answers.Answer):
    """The leagues the asker is in, by name."""

    leagues: list[LeagueAnswer] = Field(max_length=MAX_LEAGUES)


class LineAnswer(answers.Answer):
    """A member's line on a league board."""

    rank: int = Field(ge=1)
    player_id: str
    name: str
    score: int = Field(ge=0)


class StandingAnswer(answers.Answer):
    """A league board: a day's (scores) or a week's (each member's best five days summed)."""

    board: str = Field(description="league/{id}/day/{date} or league/{id}/week/{monday}")
    day: str = Field(
        description="the day, or the week's Monday", json_schema_extra={"format": "date"}
    )
    entries: list[LineAnswer] = Field(max_length=leagues.MAX_MEMBERS)
    me: LineAnswer | None = Field(description="the asker's line (null: not on it yet)")


def league_answer(league: leagues.League) -> LeagueAnswer:
    """*league* as the API answers it."""
    return LeagueAnswer(
        id=league.id,
        name=league.name,
        owner=MemberAnswer(player_id=league.owner.player_id, name=league.owner.name),
        size=league.size,
        members=[MemberAnswer(player_id=m.player_id, name=m.name) for m in league.members],
        is_member=league.is_member,
        is_owner=league.is_owner,
        invite=invite_link(league),
        removed=[MemberAnswer(player_id=m.player_id, name=m.name) for m in league.removed],
    )


def invite_link(league: leagues.League) -> str:
    """The link that invites to *league* (its page, with the invite token)."""
    page = "leagues.league_page"
    return url_for(page, league_id=league.id, invite=league.invite, _external=True)


def _line(line: leagues.Line) -> LineAnswer:
    return LineAnswer(rank=line.rank, player_id=line.player_id, name=line.name, score=line.score)


def standing_answer(standing: leagues.LeagueBoard) -> dict[str, object]:
    """A league board as the API answers it (JSON-ready)."""
    answer = StandingAnswer(
        board=standing.board,
        day=standing.day.isoformat(),
        entries=[_line(line) for line in standing.lines],
        me=None if standing.me is None else _line(standing.me),
    )
    return answer.model_dump()
