"""The friend-code service: a code's page, everyone's sheets on it, the creator's running score,
and who played the codes a player made (:func:`challenges`, their home page's news).

Handed the Redis client and the configuration, like :mod:`daily.service.games`; the page renders the
frozen results returned here and queries nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from daily.core import dice
from daily.core.codes import code_str
from daily.core.config import Config
from daily.core.errors import NotFoundError
from daily.core.modes import BoardKind
from daily.core.record import Record
from daily.core.rules import GameState, Score, apply, new_game
from daily.service import archive, rankings
from daily.store import boards, friend_codes, keys, players, saved_games
from daily.store.friend_codes import FriendCode

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: How many sheets a code's page shows side by side.
SHEETS_SHOWN = 12
#: How many of a player's newest codes their home page follows.
CODES_FOLLOWED = 8
#: How many friends' results each followed code lists (its count says how many in all).
PLAYS_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Card:
    """A finished game's sheet as a comparison lines it up: points per row and the sums."""

    rows: tuple[tuple[str, int | None], ...]  # row id, points (None: not scored)
    upper: int
    bonus: int  # the bonus and any extra bonus
    total: int
    upper_rows: int  # the sums of the upper rows come after this many rows

    @classmethod
    def of(cls, state: GameState) -> Card:
        """The card of a game's *state*."""
        card = state.scorecard()
        upper_rows = sum(1 for row in state.ruleset.rows if row.is_upper)
        bonus = state.bonus + state.extra_bonus
        return cls(tuple(card.items()), state.upper, bonus, state.total, upper_rows)


def card_of(config: Config, record: Record) -> Card:
    """The card of *record*'s game as it stands (for a finished game's share grid)."""
    return Card.of(record.state(config.secret_key))


@dataclass(frozen=True, slots=True)
class Sheet:
    """A finished game on a friend code, as the code's page lists it."""

    name: str | None  # None: a deleted player
    card: Card | None  # None until the reader has finished their own game: no peeking
    is_creator: bool
    is_me: bool


@dataclass(frozen=True, slots=True)
class CodePage:
    """What a friend code's page shows to one player.

    *status* says what opening the code does now, before the first roll: ``open`` (ranked
    on the code's board), ``as_daily`` (a daily's code, played as the player's daily),
    ``daily_under_way`` or ``played`` (with that daily in *daily_game*: the player's one game
    on the day's dice, shown beside the code's), ``closed`` (not playable yet) or
    ``practice``.
    """

    found: FriendCode
    creator_name: str | None  # None: a deleted player
    theirs: Record | None
    mine: Record | None
    is_creator: bool
    status: str
    daily_game: Record | None
    practice_at: datetime
    sheets: tuple[Sheet, ...]


@dataclass(frozen=True, slots=True)
class Target:
    """The creator's running totals, for a friend game played with their score as the target."""

    name: str | None  # None: a deleted player
    finished: bool
    by_turn: tuple[int, ...]


def code_page(client: redis.Redis, config: Config, code: str, player_id: str | None) -> CodePage:
    """The page of the normalized *code* as *player_id* sees it; NotFoundError if unknown."""
    found, theirs = archive.code_and_game(client, config, code)
    if found is None:
        raise NotFoundError(f"no such friend code: {code_str(code)}")
    is_creator = player_id == found.creator
    mine = theirs if is_creator else _friend_game(client, config, player_id, code)
    status, daily_game = _status(client, config, found, player_id)
    if status == "played":
        mine = daily_game  # their daily is their game on these dice: shown beside the code's
    shown = bool(mine and mine.finished)
    sheets = sheets_of(client, config, code, theirs, player_id, with_cards=shown, mine=mine)
    return CodePage(
        found=found,
        creator_name=_name(client, found.creator),
        theirs=theirs,
        mine=mine,
        is_creator=is_creator,
        status=status,
        daily_game=daily_game,
        practice_at=found.practice_at(config.timezone),
        sheets=sheets,
    )


def _friend_game(
    client: redis.Redis, config: Config, player_id: str | None, code: str
) -> Record | None:
    if player_id is None:
        return None
    key = keys.player_friend(player_id, code)
    return saved_games.index_lookup(client, key, archive.reader(config))


def _status(
    client: redis.Redis, config: Config, found: FriendCode, player_id: str | None
) -> tuple[str, Record | None]:
    now = config.now()
    if not found.window.is_open(now):
        return ("closed" if now < found.practice_at(config.timezone) else "practice"), None
    if found.day is None:
        return "open", None
    key = keys.player_daily(player_id, found.day.isoformat()) if player_id else None
    daily = saved_games.index_lookup(client, key) if key else None
    if daily is None:
        return "as_daily", None
    return ("played" if daily.finished else "daily_under_way"), daily


def sheets_of(
    client: redis.Redis,
    config: Config,
    code: str,
    creator_game: Record | None,
    me_id: str | None,
    with_cards: bool = True,
    limit: int = SHEETS_SHOWN,
    mine: Record | None = None,
) -> tuple[Sheet, ...]:
    """The finished games on *code*: the creator's first, the reader's own game *mine* (their
    daily on a daily's code), then the code's board order; their cards only *with_cards*."""
    secret = config.secret_key if with_cards else None
    found: list[Sheet] = []
    if creator_game is not None and creator_game.finished:
        found.append(_sheet(client, secret, creator_game, True, me_id))
    if mine is not None and mine.finished and (creator_game is None or mine.id != creator_game.id):
        found.append(_sheet(client, secret, mine, False, me_id))
    listed = {record.id for record in (creator_game, mine) if record is not None}
    for player_id in rankings.top_players(client, config, code, limit + 1):
        key = keys.player_friend(player_id, code)
        record = saved_games.index_lookup(client, key, archive.reader(config))
        if record is None or not record.finished or record.id in listed:
            continue
        found.append(_sheet(client, secret, record, False, me_id))
    return tuple(found[:limit])


def _sheet(
    client: redis.Redis, secret: str | None, record: Record, is_creator: bool, me_id: str | None
) -> Sheet:
    card = Card.of(record.state(secret)) if secret is not None else None
    name = _name(client, record.player_id)
    return Sheet(name, card, is_creator, record.player_id == me_id)


def _name(client: redis.Redis, player_id: str) -> str | None:
    player = players.get(client, player_id)
    return player.name if player else None


def target_of(client: redis.Redis, config: Config, record: Record) -> Target | None:
    """The creator's running totals for *record*, a game on their code: a friend game played
    with the creator's score as its target, or a finished one (a daily played from its share
    link too: the head-to-head); None for any other game, and for the creator's own."""
    if record.kind.board not in (BoardKind.FRIEND, BoardKind.DAILY) or not record.code:
        return None
    if not (record.target or record.finished):
        return None
    theirs = archive.code_and_game(client, config, record.code, unless=record.id)[1]
    if theirs is None:
        return None
    totals = turn_totals(theirs, config.secret_key)
    return Target(_name(client, theirs.player_id), theirs.finished, totals)


def turn_totals(record: Record, secret: str) -> tuple[int, ...]:
    """The game's total after each scored turn, the bonus counted once earned."""
    state = new_game(record.rules, record.source(secret))
    totals = []
    for move in record.moves:
        state = apply(state, move)
        if isinstance(move, Score):
            totals.append(state.total)
    return tuple(totals)


@dataclass(frozen=True, slots=True)
class Play:
    """A friend's counted game on a code, as the code's creator hears of it."""

    player_id: str
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class Challenge:
    """A code a player made and who played it: *mine* is the creator's own score on it (None
    until their game on it counts), *players* how many others have a score on it, *plays*
    the best :data:`PLAYS_SHOWN` of those, best first; *day* and *number* name the daily a
    daily's code replays; *is_open* says whether games on it still count on its board (once
    not, the home page folds it away)."""

    code: str
    ruleset: str
    day: date | None
    number: int | None
    mine: int | None
    players: int
    plays: tuple[Play, ...]
    is_open: bool = True


def challenges(client: redis.Redis, config: Config, player_id: str | None) -> tuple[Challenge, ...]:
    """The codes *player_id* made lately, newest first, each with who played it.

    Followed: the newest :data:`CODES_FOLLOWED` made within a code's ranked life and a day
    (games on a code count on its board only while it is open). The boards are the truth: a
    game withdrawn after review is gone from here too. Three round trips whatever the number
    of codes (the list, the codes with their boards, the names), so a page may poll it.
    """
    if player_id is None:
        return ()
    since = config.now() - config.code_lifetime - friend_codes.CODE_FOLLOWED_AFTER
    listed = friend_codes.codes_of(client, player_id, since.timestamp(), CODES_FOLLOWED)
    found = [c for c in friend_codes.load_codes(client, listed) if c is not None]
    wanted = [(boards.Board.friend(c.code), player_id) for c in found]
    heads = boards.heads(client, wanted, PLAYS_SHOWN + 1)  # the creator may be among them
    others = [[e for e in head.entries if e[0] != player_id][:PLAYS_SHOWN] for head in heads]
    names = _names_of(client, {pid for entries in others for pid, _ in entries})
    return tuple(
        Challenge(
            code=c.code,
            ruleset=c.ruleset,
            day=c.day,
            number=dice.Day(c.day, config.timezone).number if c.day else None,
            mine=head.score_of,
            players=head.size - (0 if head.score_of is None else 1),
            plays=tuple(Play(pid, names[pid], score) for pid, score in entries),
            is_open=c.window.is_open(config.now()),
        )
        for c, head, entries in zip(found, heads, others, strict=True)
    )


def _names_of(client: redis.Redis, ids: set[str]) -> dict[str, str]:
    """Names read now (a rename shows at once); a guest's or deleted player's: its guest name."""
    found = players.names_of(client, ids)
    return {i: found.get(i) or players.guest_name(i) for i in ids}
