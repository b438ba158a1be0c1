"""The league service: friends who play the daily together, on a board of their own.

A player makes a league (:func:`create`) and shares its invite link, which carries the
league's id; whoever opens it may :func:`join`. Members see the league's daily board (just
them, on each day's daily) and its week table: each member's sum of their best
:data:`~daily.store.league_boards.BEST_DAYS` days of the week, Monday to Sunday, so a missed day or
two costs nothing. A finished daily counts on every league its player is in at that moment
(:func:`daily.store.pending_results.submit`); days played before joining do not count.

Rules: a player is in at most :data:`MAX_LEAGUES` leagues and a league holds at most
:data:`MAX_MEMBERS`; a league's name follows a player name's rules. Only the owner renames
the league or removes a member; the owner leaving hands the league to the longest-standing
member, and the last member leaving deletes it. A member who leaves or is removed leaves the
league's boards too. Every refusal changes nothing.

Like :mod:`daily.service.games` this is handed the Redis client and the configuration, and returns
frozen values; it never imports Flask.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from daily.core.config import Config
from daily.core.errors import (
    BadInputError,
    LeagueFullError,
    NotFoundError,
    NotOwnerError,
    TooManyLeaguesError,
)
from daily.store import boards, league_boards, players
from daily.store.league_boards import BEST_DAYS, KEEP_DAYS, monday

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

__all__ = ["BEST_DAYS", "KEEP_DAYS", "MAX_LEAGUES", "MAX_MEMBERS", "League", "Standing"]

#: The most leagues one player can be in.
MAX_LEAGUES = 10
#: The most members one league can hold.
MAX_MEMBERS = 50
#: A league id: 11 URL-safe characters, the unguessable part of its invite link.
_ID = re.compile(r"[A-Za-z0-9_-]{11}")


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a league, with their name read now."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class League:
    """A league as a player sees it; *members* is empty for someone not in it."""

    id: str
    name: str
    owner: Member
    size: int
    members: tuple[Member, ...]
    is_member: bool
    is_owner: bool


@dataclass(frozen=True, slots=True)
class Line:
    """A member's line on a league board."""

    rank: int
    player_id: str
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class Standing:
    """One of a league's boards: its id, the day it shows (or the week's Monday), its lines
    best first, and the asker's line."""

    board: str
    day: date
    lines: tuple[Line, ...]
    me: Line | None


def parse_id(text: str) -> str:
    """A league id as it appears in an invite link; unknown shapes are a :class:`NotFoundError`.

    >>> parse_id("AbCdEfGhIjK")
    'AbCdEfGhIjK'
    """
    if not _ID.fullmatch(text):
        raise NotFoundError(f"no such league: {text!r}")
    return text


def parse_league_name(text: object) -> str:
    """A league's name: the rules of a player's name (:func:`players.parse_name`)."""
    return players.parse_name(text)


def create(client: redis.Redis, config: Config, player_id: str, name: str) -> League:
    """Makes a league named *name*, owned by *player_id*, its first member."""
    name = parse_league_name(name)
    league_id = secrets.token_urlsafe(8)
    if league_boards.claim(client, player_id, league_id, MAX_LEAGUES) == league_boards.FULL:
        raise _too_many()
    league_boards.create(client, league_id, name, player_id, config.now().timestamp())
    return get(client, player_id, league_id)


def join(client: redis.Redis, config: Config, player_id: str, league_id: str) -> League:
    """Joins the league *league_id* (joining twice is a no-op)."""
    league_id = parse_id(league_id)
    if league_boards.load(client, league_id) is None:
        raise _unknown(league_id)
    claimed = league_boards.claim(client, player_id, league_id, MAX_LEAGUES)
    if claimed == league_boards.FULL:
        raise _too_many()
    found = league_boards.join(client, league_id, player_id, config.now().timestamp(), MAX_MEMBERS)
    if found in (league_boards.FULL, league_boards.MISSING):
        if claimed == league_boards.ADDED:
            league_boards.unclaim(client, player_id, league_id)  # undo the player's side
        if found == league_boards.MISSING:
            raise _unknown(league_id)
        raise LeagueFullError(f"league {league_id} is full: {MAX_MEMBERS} members",
                              limit=MAX_MEMBERS)  # fmt: skip
    return get(client, player_id, league_id)


def leave(client: redis.Redis, config: Config, player_id: str, league_id: str) -> None:
    """Leaves the league *league_id* and its boards."""
    league_id = parse_id(league_id)
    found = league_boards.leave(client, league_id, player_id, _today(config))
    if found == league_boards.MISSING:
        raise _unknown(league_id)
    league_boards.unclaim(client, player_id, league_id)
    if found == league_boards.NOT_MEMBER:
        raise NotFoundError(f"you are not in league {league_id}")


def leave_all(client: redis.Redis, config: Config, player_id: str) -> int:
    """Leaves every league of *player_id* (before the player is deleted); returns how many."""
    ids = league_boards.leagues_of(client, player_id)
    for league_id in ids:
        league_boards.leave(client, league_id, player_id, _today(config))
        league_boards.unclaim(client, player_id, league_id)
    return len(ids)


def remove(
    client: redis.Redis, config: Config, owner_id: str, league_id: str, player_id: str
) -> League:
    """Removes *player_id* from the league (its owner only; the owner leaves instead)."""
    league_id = parse_id(league_id)
    if player_id == owner_id:
        raise BadInputError("the owner does not remove themselves: leave the league instead")
    found = league_boards.leave(client, league_id, player_id, _today(config), owner=owner_id)
    if found == league_boards.MISSING:
        raise _unknown(league_id)
    if found == league_boards.NOT_OWNER:
        raise NotOwnerError(f"only the owner of league {league_id} removes members")
    if found == league_boards.NOT_MEMBER:
        raise NotFoundError(f"no such member in league {league_id}: {player_id!r}")
    league_boards.unclaim(client, player_id, league_id)
    return get(client, owner_id, league_id)


def rename(client: redis.Redis, config: Config, owner_id: str, league_id: str, name: str) -> League:
    """Renames the league (its owner only)."""
    league_id = parse_id(league_id)
    name = parse_league_name(name)
    found = league_boards.rename(client, league_id, owner_id, name)
    if found == league_boards.MISSING:
        raise _unknown(league_id)
    if found == league_boards.NOT_OWNER:
        raise NotOwnerError(f"only the owner of league {league_id} renames it")
    return get(client, owner_id, league_id)


def get(client: redis.Redis, player_id: str | None, league_id: str) -> League:
    """The league *league_id* as *player_id* (None: anybody) sees it: its members only
    when they are one of them."""
    league_id = parse_id(league_id)
    found = league_boards.load(client, league_id)
    if found is None:
        raise _unknown(league_id)
    is_member = player_id is not None and player_id in found.members
    names = _names(client, [found.owner, *(found.members if is_member else ())])
    return League(
        id=found.id,
        name=found.name,
        owner=Member(found.owner, names[found.owner]),
        size=len(found.members),
        members=tuple(Member(m, names[m]) for m in found.members) if is_member else (),
        is_member=is_member,
        is_owner=player_id == found.owner,
    )


def mine(client: redis.Redis, player_id: str | None) -> tuple[League, ...]:
    """The leagues *player_id* is in, by name (a league deleted meanwhile is skipped)."""
    if player_id is None:
        return ()
    found = []
    for league_id in league_boards.leagues_of(client, player_id):
        try:
            found.append(get(client, player_id, league_id))
        except NotFoundError:
            continue
    return tuple(sorted(found, key=lambda league: (league.name.casefold(), league.id)))


def day_standing(
    client: redis.Redis, config: Config, player_id: str | None, league_id: str, day: date
) -> Standing:
    """The league's board of the daily of *day* (members only)."""
    return _standing(
        client, config, player_id, league_id, league_boards.day_board(league_id, day), day
    )


def week_standing(
    client: redis.Redis, config: Config, player_id: str | None, league_id: str, day: date
) -> Standing:
    """The league's table of the week holding *day*: best five days summed (members only)."""
    board = league_boards.week_board(league_id, day)
    return _standing(client, config, player_id, league_id, board, monday(day))


def _standing(client: redis.Redis, config: Config, player_id: str | None, league_id: str,
              board: boards.Board, day: date) -> Standing:  # fmt: skip
    league = get(client, player_id, league_id)
    if not league.is_member:
        raise NotFoundError(f"league {league.id}'s boards are for its members")
    page = boards.page(client, board, limit=MAX_MEMBERS, me=player_id)
    lines = tuple(Line(e.rank, e.player_id, e.name, e.score) for e in page.entries)
    own = page.me
    me = None if own is None else Line(own.rank, own.player_id, own.name, own.score)
    return Standing(board.id, day, lines, me)


def _names(client: redis.Redis, ids: list[str]) -> dict[str, str]:
    found = players.names_of(client, set(ids))
    return {i: found.get(i) or players.guest_name(i) for i in ids}


def _today(config: Config) -> date:
    return config.now().date()


def _unknown(league_id: str) -> NotFoundError:
    return NotFoundError(f"no such league: {league_id}")


def _too_many() -> TooManyLeaguesError:
    return TooManyLeaguesError(f"a player is in at most {MAX_LEAGUES} leagues: leave one first",
                               limit=MAX_LEAGUES)  # fmt: skip
