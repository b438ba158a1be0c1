"""The API's answers about the rankings as typed models: a page of a board, a day's scores.

Built by :mod:`daily.web.board_views` from the rankings service's pages; the OpenAPI document
is generated from them, as from every answer (:mod:`daily.web.answers`).
"""

from __future__ import annotations

from pydantic import Field

from daily.service import rankings
from daily.web.answers import DATE, Answer, Count


class Entry(Answer):
    """A player's line on a board."""

    rank: int | None = Field(
        ge=1,
        description="competition rank among the ranked players; null: a new player's "
        "line on a day's board (listed, marked new, not ranked: docs/rankings.md)",
    )
    player_id: str
    name: str
    score: int
    current: int | None = Field(None, description="streak board: the run alive today")
    new: bool = Field(False, description="a new player's line on a day's board")
    days_left: int | None = Field(
        None,
        ge=0,
        description="a new player's line: the days they must still play to rank "
        "(0: they rank from their next daily)",
    )


class BoardPage(Answer):
    """A page of a board and the asking player's entry."""

    board: str = Field(description="e.g. daily/2026-12-03, best-day, streak")
    total: Count = Field(description="players on the board")
    ranked: Count = Field(
        description="players with a rank (a day's board also lists new players, unranked)"
    )
    offset: Count = Field(description="the first entry's place - 1")
    entries: list[Entry] = Field(max_length=rankings.MAX_LIMIT)
    me: Entry | None = Field(
        description="the asking player's entry (null: anonymous or not on the board)"
    )


class Band(Answer):
    """How many players scored from *from* to *to* (both included)."""

    low: Count = Field(alias="from")
    high: Count = Field(alias="to")
    players: Count


class Distribution(Answer):
    """How many players reached each band of scores on a day, lowest first."""

    date: str = Field(json_schema_extra=DATE)
    band: int = Field(ge=1)
    players: Count
    bands: list[Band]
