"""A game's result: counting it as the ledger plans, where it stands, its review status as
the player sees it, and when its seed may be published.

Handed the Redis client and the configuration, like :mod:`daily.service.games`. What a
finished game counts toward is the ledger's decision (:mod:`daily.core.ledger`), asked here
with the player's standing (:func:`daily.service.history.standing_of`); the store only
carries the plan out (:func:`daily.store.pending_results.submit`), and the web layer's game
answer (:mod:`daily.web.game_answers`) reads these and nothing of the store.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from daily.core import dice, ledger
from daily.core.config import Config
from daily.core.errors import DailyError
from daily.core.modes import BoardKind
from daily.core.record import Record
from daily.service import archive, establishment, history
from daily.store import boards, pending_results, review_queue

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The review statuses a player sees: held (kept off the rankings while an operator looks at
#: its luck) or removed (never ranked).
Review = Literal["held", "removed"]

#: When a seed that may still be played on a ranked board is published: never, for now.
_NEVER = datetime.max.replace(tzinfo=UTC)


def board_of(record: Record) -> boards.Board | None:
    """The board a game counts on: its date's or its friend code's; None for unranked games.

    >>> from datetime import date
    >>> daily = Record(id="g1", mode="daily", ruleset="maxi", options={}, player_id="p1",
    ...                seed_ref="daily:2026-12-01", created=0.0, day=date(2026, 12, 1))
    >>> board_of(daily).id
    'daily/2026-12-01'
    >>> board_of(Record(id="g2", mode="solo", ruleset="maxi", options={}, player_id="p1",
    ...                 seed_ref="daily:2026-12-01", created=0.0)) is None
    True
    """
    if record.practice:
        return None
    if record.kind.board is BoardKind.DAILY and record.day is not None:
        return boards.Board.daily(record.day)
    if record.kind.board is BoardKind.FRIEND and record.code is not None:
        return boards.Board.friend(record.code)
    return None


def board_id(record: Record) -> str | None:
    """The id of the board *record* counts on (``daily/2026-12-01``, ``friend/CODE``), if any."""
    board = board_of(record)
    return board.id if board else None


def game_of(record: Record, config: Config, counts: bool = True, held: bool = False) -> ledger.Game:
    """What the ledger needs of a finished game: its day if a daily, the friend codes'
    boards it counts on (the code a friend game or a daily was played on, the code it
    made), its total and sheet; *counts* False for a game that counts on no board (rules no
    table checks; a practice game never does); *held*: held or removed after review."""
    if record.total is None or record.finished_at is None:
        raise DailyError(f"game {record.id} is not finished")
    state = record.state(config.secret_key)
    codes = []
    if record.code and record.kind.board is not None:  # a friend game, a daily on a code
        codes.append(record.code)
    if record.kind.shares and record.share:
        codes.append(record.share)  # the creator's own game opens its code's board
    daily = record.kind.board is BoardKind.DAILY
    own = not record.kind.is_party  # a party's sheets are its players', not the device's
    return ledger.Game(
        record.id,
        record.player_id,
        record.total,
        record.finished_at,
        day=record.day if daily else None,
        codes=tuple(codes),
        bonus=own and state.bonus > 0,
        all_same=own and (state.scorecard().get(state.ruleset.all_same_row.id) or 0) > 0,
        counts=counts and not record.practice,
        held=held,
    )


def reaches_a_board(record: Record) -> bool:
    """Whether a finished game would reach a public board (its day's or a code's), so that
    the clairvoyance check looks at it first."""
    if record.practice:
        return False
    return record.is_ranked or bool(record.kind.shares and record.share)


def plan_of(
    client: redis.Redis, config: Config, record: Record, counts: bool, held: bool = False
) -> ledger.Plan:
    """The ledger's plan of counting *record* now, for its player's standing."""
    today = history.today(config)
    game = game_of(record, config, counts, held)
    if game.day is None or not game.counts or held:
        return ledger.plan(game, ledger.Standing(), config.established_days, today)
    standing = history.standing_of(client, config, record.player_id, today)
    # A newcomer's daily started past its network's budget may not establish its player.
    standing = dataclasses.replace(standing, may_establish=establishment.counts_towards(record))
    return ledger.plan(game, standing, config.established_days, today)


def count(
    client: redis.Redis, config: Config, record: Record, counts: bool, held: bool = False
) -> ledger.Plan:
    """Counts a finished game as the ledger plans it (*counts* False: on no board; *held*:
    nothing at all, but it is marked counted) and keeps the plan's tally with the game;
    repeating it is a no-op."""
    found = plan_of(client, config, record, counts, held)
    pending_results.submit(client, config, found)
    return found


def withdraw(client: redis.Redis, config: Config, record: Record) -> None:
    """Takes a counted game off every board it may have reached (held after it counted)."""
    game = game_of(record, config)
    review_queue.withdraw(client, ledger.Plan(game, day=game.day, codes=game.codes))


@dataclass(frozen=True, slots=True)
class DayPlace:
    """Where a finished daily stands on its day's board now: its *rank* among the ranked
    players (None: a new player's), how many are ranked, its *place* among everyone in the
    *field*, how many others share its score, its percentile in the field, and whether it
    is a *new* player's."""

    rank: int | None
    ranked: int
    place: int
    field: int
    tied: int
    percentile: int | None
    new: bool


def place_of(client: redis.Redis, record: Record) -> DayPlace | None:
    """Where *record* stands on its day's board, once counted there; None for any other game."""
    if not (record.is_ranked and record.kind.board is BoardKind.DAILY and record.day):
        return None
    if not record.submitted:
        return None
    found = boards.place_of(client, record.day, record.player_id)
    if found is None:
        return None
    return DayPlace(
        rank=None if found.new else found.ranked_above + 1,
        ranked=found.ranked,
        place=found.above + 1,
        field=found.field,
        tied=found.tied - 1,
        percentile=ledger.percentile(found.field, found.above, found.tied),
        new=found.new,
    )


def rank_of(client: redis.Redis, record: Record) -> int | None:
    """The rank of a finished game's player on its board, once counted."""
    board = board_of(record)
    if board is None or not record.submitted:
        return None
    entry = boards.rank_of(client, board, record.player_id)
    return entry.rank if entry else None


def review_of(client: redis.Redis, game_id: str, record: Record | None = None) -> Review | None:
    """The review status of *game_id* as stored now, if the player is to see one (as its
    *record* says once it is archived)."""
    status = review_queue.shown_status_of(client, game_id, record)
    if status == review_queue.HELD:
        return "held"
    return "removed" if status == review_queue.REMOVED else None


def seed_reveals_at(client: redis.Redis, config: Config, record: Record) -> datetime | None:
    """When the seed of *record* may be published; None if no ranked board ever uses it.

    A day's seed: an hour after the day closes. A code's dice (its own seed, or the seed
    of the solo game it was made from): once the code's ranked games are over. A daily's
    code only replays the day, so the day decides. Unknown: never.
    """
    ref = dice.SeedRef.parse(record.seed_ref)
    if ref.day is not None:
        return dice.Day(ref.day, config.timezone).reveals_at
    shared = record.kind.shares and not record.kind.is_ranked  # a solo game's dice
    code = record.code or (record.share if shared else None)
    if code is not None:
        found = archive.load_code(client, config, code)
        return found.practice_at(config.timezone) if found else _NEVER
    if ref.kind == "friend" or shared:
        return _NEVER  # a code or share not made (yet): keep it
    return None  # a party's or a computer game's own random seed: nobody else plays it


def is_seed_public(client: redis.Redis, config: Config, record: Record) -> bool:
    """Whether *record*'s seed may be shown now: no ranked game can be played on it any more."""
    reveals = seed_reveals_at(client, config, record)
    return reveals is None or config.now() >= reveals
