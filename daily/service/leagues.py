"""The league service: friends who play the daily together, on a board of their own.

A player makes a league (:func:`create`) and shares its invite link, which carries the
league's id and its invite token; whoever opens it may :func:`join`. Members see the league's
daily board (just them, on each day's daily) and its week table: each member's sum of their
best :data:`~daily.store.league_boards.BEST_DAYS` days of the week, Monday to Sunday, so a
missed day or two costs nothing. A finished daily counts on every league its player is in at
that moment (:func:`daily.store.pending_results.submit`), and one finished earlier on the day
a member joins counts when they join; earlier days do not count.

Rules: a player is in at most :data:`MAX_LEAGUES` leagues and a league holds at most
:data:`MAX_MEMBERS`; a league's name follows a player name's rules. Only the owner renames
the league, removes a member or renews the invite link; removing a member renews it too, and
lists them among the removed, whom no link lets in until the owner readmits them. The owner
leaving hands the league to the longest-standing member, and the last member leaving deletes
it. A member who leaves or is removed leaves the league's boards too. Every refusal changes
nothing.

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
    RemovedError,
    TooManyLeaguesError,
)
from daily.store import boards, league_boards, league_removals, players
from daily.store.league_boards import BEST_DAYS, KEEP_DAYS, monday

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

__all__ = [
    "BEST_DAYS",
    "KEEP_DAYS",
    "MAX_LEAGUES",
    "MAX_MEMBERS",
    "League",
    "LeagueBoard",
    "Standing",
]

#: The most leagues one player can be in.
MAX_LEAGUES = 10
#: The most members one league can hold.
MAX_MEMBERS = 50
#: A league id or invite token: 11 URL-safe characters (the token: the unguessable part of
#: the invite link).
_ID = re.compile(r"[A-Za-z0-9_-]{11}")


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a league, with their name read now."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class League:
    """A league as a player sees it; *members* is empty for someone not in it, and *invite*
    is the token its invite link carries now. The owner sees whom they *removed* (who join
    again once readmitted); a removed player sees that they are (*is_removed*)."""

    id: str
    name: str
    owner: Member
    size: int
    members: tuple[Member, ...]
    is_member: bool
    is_owner: bool
    invite: str
    removed: tuple[Member, ...] = ()
    is_removed: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    """A member's line on a league board."""

    rank: int
    player_id: str
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class LeagueBoard:
    """One of a league's boards: its id, the day it shows (or the week's Monday), its lines
    best first, and the asker's line."""

    board: str
    day: date
    lines: tuple[Line, ...]
    me: Line | None


@dataclass(frozen=True, slots=True)
class Standing:
    """One of the player's leagues on one day: where they stand among its members."""

    league_id: str
    name: str
    rank: int | None  # None: the player did not play
    members: int
    played: int  # members who played that day


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
    """Makes a league named *name*, owned by *player_id*, its first member (their daily of
    today, finished already, on its board at once)."""
    name = parse_league_name(name)
    league_id = secrets.token_urlsafe(8)
    if league_boards.claim(client, player_id, league_id, MAX_LEAGUES) == league_boards.FULL:
        raise _too_many()
    now = config.now()
    league_boards.create(client, league_id, name, player_id, now.timestamp(), _token())
    league_boards.count_from_board(client, league_id, player_id, now.date(), zone=config.timezone)
    return get(client, player_id, league_id)


def join(
    client: redis.Redis, config: Config, player_id: str, league_id: str, invite: str | None
) -> League:
    """Joins the league *league_id* with its current *invite* token (None: a link from
    before the tokens, which carried the id only); joining twice is a no-op. A daily that
    the player finished today already counts on the league's boards at once."""
    league_id = parse_id(league_id)
    record = league_boards.load(client, league_id)
    if record is None:
        raise _unknown(league_id)
    if player_id not in record.members and not _holds(record, invite):
        raise _stale(league_id)  # said before the limit of leagues: the link is what failed
    claimed = league_boards.claim(client, player_id, league_id, MAX_LEAGUES)
    if claimed == league_boards.FULL:
        raise _too_many()
    now = config.now()
    found = league_boards.join(
        client, league_id, player_id, now.timestamp(), MAX_MEMBERS, _invite(invite)
    )
    if found in (
        league_boards.FULL,
        league_boards.MISSING,
        league_boards.STALE,
        league_boards.REMOVED,
    ):
        if claimed == league_boards.ADDED:
            league_boards.unclaim(client, player_id, league_id)  # undo the player's side
        raise _refused(league_id, found)
    league_boards.count_from_board(client, league_id, player_id, now.date(), zone=config.timezone)
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
    """Removes *player_id* from the league (its owner only; the owner leaves instead), renews
    its invite link and lists them among the removed in the same step: no link lets them in
    again until the owner readmits them (:func:`readmit`)."""
    league_id = parse_id(league_id)
    if player_id == owner_id:
        raise BadInputError("the owner does not remove themselves: leave the league instead")
    found = league_boards.leave(
        client,
        league_id,
        player_id,
        _today(config),
        owner=owner_id,
        invite=_token(),
        now=config.now().timestamp(),
    )
    if found == league_boards.MISSING:
        raise _unknown(league_id)
    if found == league_boards.NOT_OWNER:
        raise NotOwnerError(f"only the owner of league {league_id} removes members")
    if found == league_boards.NOT_MEMBER:
        raise NotFoundError(f"no such member in league {league_id}: {player_id!r}")
    league_boards.unclaim(client, player_id, league_id)
    return get(client, owner_id, league_id)


def readmit(
    client: redis.Redis, config: Config, owner_id: str, league_id: str, player_id: str
) -> League:
    """Takes *player_id* off the league's removed (its owner only): they may join again, with
    the league's current link, as anyone invited."""
    league_id = parse_id(league_id)
    found = league_removals.readmit(client, league_id, owner_id, player_id)
    _owned(found, league_id, "readmits a removed member")
    if found == league_boards.NOT_MEMBER:
        raise NotFoundError(f"no such removed member of league {league_id}: {player_id!r}")
    return get(client, owner_id, league_id)


def rename(client: redis.Redis, config: Config, owner_id: str, league_id: str, name: str) -> League:
    """Renames the league (its owner only)."""
    league_id = parse_id(league_id)
    name = parse_league_name(name)
    found = league_boards.rename(client, league_id, owner_id, name)
    _owned(found, league_id, "renames it")
    return get(client, owner_id, league_id)


def renew(client: redis.Redis, config: Config, owner_id: str, league_id: str) -> League:
    """Gives the league a new invite link (its owner only); the old one joins no more."""
    league_id = parse_id(league_id)
    found = league_boards.renew(client, league_id, owner_id, _token())
    _owned(found, league_id, "renews its invite link")
    return get(client, owner_id, league_id)


def get(
    client: redis.Redis, player_id: str | None, league_id: str, invite: str | None = None
) -> League:
    """The league *league_id* as *player_id* (None: anybody) sees it: all of it for a member;
    its name, owner and size for anyone else who holds its current *invite* token."""
    found = find(client, player_id, league_id, invite)
    if found is None:
        raise NotFoundError(f"no such league, or its invite link was renewed: {league_id}")
    return found


def find(
    client: redis.Redis, player_id: str | None, league_id: str, invite: str | None = None
) -> League | None:
    """:func:`get`, or None where it refuses: no league *league_id* (a well-formed one), or
    a visitor whose link is not its current one (renewed, or the member was removed)."""
    league_id = parse_id(league_id)
    found = league_boards.load(client, league_id)
    if found is None:
        return None
    is_member = player_id is not None and player_id in found.members
    if not is_member and not _holds(found, invite):
        return None
    is_owner = player_id == found.owner
    removed = league_removals.removed_of(client, found.id) if is_owner or not is_member else []
    names = _names(
        client, [found.owner, *(found.members if is_member else ()), *(removed if is_owner else ())]
    )
    return League(
        id=found.id,
        name=found.name,
        owner=Member(found.owner, names[found.owner]),
        size=len(found.members),
        members=tuple(Member(m, names[m]) for m in found.members) if is_member else (),
        is_member=is_member,
        is_owner=is_owner,
        invite=found.invite,
        removed=tuple(Member(m, names[m]) for m in removed) if is_owner else (),
        is_removed=not is_member and player_id in removed,
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


def standings_of(client: redis.Redis, config: Config, player_id: str, day: date) -> list[Standing]:
    """Where *player_id* stands on *day* in each of their leagues, by league name.

    A league's rank counts only its members who played the daily of *day*, ties sharing a
    rank as on every board; *rank* is None when the player did not play (or their game is
    held for review). One read of the player's leagues, then one pipeline over at most
    :data:`MAX_LEAGUES` of them, whatever their sizes.
    """
    found = [
        Standing(line.league_id, line.name, line.rank or None, line.members, line.played)
        for line in league_boards.day_lines(client, player_id, day)
    ]
    return sorted(found, key=lambda s: (s.name.casefold(), s.league_id))


def day_standing(
    client: redis.Redis, config: Config, player_id: str | None, league_id: str, day: date
) -> LeagueBoard:
    """The league's board of the daily of *day* (members only)."""
    return _standing(
        client, config, player_id, league_id, league_boards.day_board(league_id, day), day
    )


def week_standing(
    client: redis.Redis, config: Config, player_id: str | None, league_id: str, day: date
) -> LeagueBoard:
    """The league's table of the week holding *day*: best five days summed (members only)."""
    board = league_boards.week_board(league_id, day)
    return _standing(client, config, player_id, league_id, board, monday(day))


def _standing(
    client: redis.Redis,
    config: Config,
    player_id: str | None,
    league_id: str,
    board: boards.Board,
    day: date,
) -> LeagueBoard:
    found = league_boards.load(client, parse_id(league_id))
    if found is None:
        raise _unknown(league_id)
    if player_id not in found.members:
        raise NotFoundError(f"league {found.id}'s boards are for its members")
    page = boards.page(client, board, limit=MAX_MEMBERS, me=player_id)
    lines = tuple(_line(e) for e in page.entries)
    return LeagueBoard(board.id, day, lines, None if page.me is None else _line(page.me))


def _line(entry: boards.Entry) -> Line:
    # A league's boards rank every member (only a day's public board lists the unranked).
    assert entry.rank is not None
    return Line(entry.rank, entry.player_id, entry.name, entry.score)


def _names(client: redis.Redis, ids: list[str]) -> dict[str, str]:
    found = players.names_of(client, set(ids))
    return {i: found.get(i) or players.guest_name(i) for i in ids}


def _today(config: Config) -> date:
    return config.now().date()


def _token() -> str:
    """A new invite token: 11 random URL-safe characters, like a league's id."""
    return secrets.token_urlsafe(8)


def _holds(record: league_boards.LeagueRecord, invite: str | None) -> bool:
    """Whether *invite* is the league's current token (None: its id, as links of before)."""
    return (_invite(invite) or record.id) == record.invite


def _invite(text: str | None) -> str | None:
    """The invite token a link carries (None: none, a link from before the tokens);
    a malformed one matches no league's."""
    if text is None:
        return None
    return text if _ID.fullmatch(text) else "?"


def _refused(league_id: str, found: str) -> LeagueFullError | NotFoundError | RemovedError:
    if found == league_boards.FULL:
        return LeagueFullError(
            f"league {league_id} is full: {MAX_MEMBERS} members", limit=MAX_MEMBERS
        )
    if found == league_boards.REMOVED:
        return RemovedError(f"the owner of league {league_id} removed you: they may readmit you")
    return _unknown(league_id) if found == league_boards.MISSING else _stale(league_id)


def _owned(found: str, league_id: str, doing: str) -> None:
    """Raises what an owner's step on *league_id* answered when it was refused: no such
    league, or the asker is not its owner (who alone *doing*)."""
    if found == league_boards.MISSING:
        raise _unknown(league_id)
    if found == league_boards.NOT_OWNER:
        raise NotOwnerError(f"only the owner of league {league_id} {doing}")


def _stale(league_id: str) -> NotFoundError:
    return NotFoundError(
        f"league {league_id}'s invite link was renewed: ask a member for the new one"
    )


def _unknown(league_id: str) -> NotFoundError:
    return NotFoundError(f"no such league: {league_id}")


def _too_many() -> TooManyLeaguesError:
    return TooManyLeaguesError(
        f"a player is in at most {MAX_LEAGUES} leagues: leave one first", limit=MAX_LEAGUES
    )
