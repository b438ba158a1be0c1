"""The analysis service: which finished games may be analysed, their skill and luck, and the
Expert's daily game; each computed once and kept.

A game is analysed once it is finished and only if its mode allows it; a daily game's
analysis also shows the Expert's own game from the day's first rolls, but only once the day
has closed (before, it would tell the day's dice to a player who can still play them
elsewhere). Its score alone tells no die, so a daily's skill and luck carry it from the finish
on; a friend code's games carry the Expert's score on the code's dice the same way.

The first ask computes a game's analysis (its table must be built: about 0.1 s for a Maxi
game) and keeps it (:mod:`daily.store.kept_analyses`): the summary with the game, the
decisions beside it, both copied to the archive; every later ask reads them back and replays
the moves for the dice, without the solver. The Expert's game of a day is the same for every
player: computed once per day and stream, and kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Final

import numpy as np

from daily.core import dice, party
from daily.core.config import Config
from daily.core.errors import (
    ConflictError,
    ReplayError,
    RulesError,
)
from daily.core.modes import BoardKind, OnePer
from daily.core.record import Record, decode_moves, encode_moves
from daily.core.rules import DiceSource, Move, find_ruleset, replay
from daily.service import tables
from daily.store import kept_analyses
from daily.strategy import analysis, bots
from daily.strategy.analysis import Analysis
from daily.strategy.skill import (
    Skill,
    decisions_str,
    parse_decisions,
    parse_skill,
    skill_of,
    skill_str,
)
from daily.strategy.solver import Table

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The ruleset of the daily dice the Expert plays.
EXPERT_RULES: Final = "maxi"


@dataclass(frozen=True, slots=True)
class ExpertGame:
    """The Expert's own game on the daily dice of *day*."""

    day: date
    ruleset: str
    moves: tuple[Move, ...]
    scorecard: Mapping[str, int | None]
    total: int
    optimum: float  # the expected final score of optimal play from the start


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """A finished game analysed: its player's decisions and their skill and luck, the
    computer's decisions, the Expert's game.

    *has_expert* says whether the game's mode shows the Expert at all (a daily game);
    *expert* is None until the day has closed (its score is in *skill* from the finish on).
    """

    record: Record
    mine: Analysis
    skill: Skill
    computer: Analysis | None = None
    has_expert: bool = False
    expert: ExpertGame | None = None
    player: int | None = None  # a party's: whose own game *mine* is (seat, from 0)
    players: tuple[Skill, ...] = ()  # a party's: every player's skill and luck, in seat order


#: How long a game's kept decisions outlive the day it may be archived (the archive copies
#: them; a game kept in Redis longer, one held for review, computes them again if asked).
KEEP_PAST_ARCHIVE = timedelta(days=14)


def analyse(client: redis.Redis, config: Config, record: Record, player: int = 0
            ) -> GameAnalysis:  # fmt: skip
    """The analysis of the finished game *record*, computed on the first ask and kept (a
    party's: its *player*'s own game, every player's skill beside it; every mode has one);
    ConflictError while the game goes on, TableMissingError while its table is not built
    (and nothing was kept)."""
    if not record.finished or record.total is None:
        raise ConflictError("the game is not finished yet")
    if record.kind.is_party:
        return _party(config, record, player)
    # As kept, else computed and kept: either way read from the kept text, so the first
    # answer is the one every later ask gets, to the last decimal.
    sides = _read(config, record, _kept_body(client, record))
    if sides is None:
        sides = _read(config, record, _compute(client, config, record))
    if sides is None:
        raise ReplayError(0, f"the analysis of game {record.id} does not read back")
    mine, computer, skill = sides
    found = GameAnalysis(record, mine, skill, computer)
    if _is_daily(record):
        assert record.day is not None
        closed = is_closed(config, record.day)
        expert = expert_game(config, record.day, record.stream, client) if closed else None
        found = GameAnalysis(record, mine, skill, computer, True, expert)
    return found


def _party(config: Config, record: Record, player: int) -> GameAnalysis:
    # Every player's own game (their decisions, their dice), analysed at each ask: a party is
    # on no board and its players share one device, so nothing is kept for it (a Maxi party
    # of four: 0.12 to 0.14 s of CPU an ask, measured at load 7; under the analyses limit).
    names = record.players
    if not 0 <= player < len(names):  # the web layer reads it (a 400 before this)
        raise ValueError(f"no such player in this party: {player}")
    table = tables.exact_table(config, record.rules)
    seed = dice.seed_from_ref(record.seed_ref, config.secret_key)
    own = party.player_moves(record.moves, len(names))
    found = [analysis.analyse(table, party.player_source(seed, i, record.stream), moves)
             for i, moves in enumerate(own)]  # fmt: skip
    skills = tuple(skill_of(each) for each in found)
    return GameAnalysis(record, found[player], skills[player], player=player, players=skills)


def kept_skill(record: Record) -> Skill | None:
    """The skill and luck kept with *record*, once its analysis was asked for (no table is
    read); None before."""
    text = record.extra.get(kept_analyses.SUMMARY)
    if text is None or record.total is None:
        return None
    try:
        return parse_skill(text, record.total)
    except ValueError:  # written by another version: asked again, it is computed again
        return None


def is_ready(config: Config, record: Record) -> bool:
    """Whether the skill and luck of *record* can be had without a wait once it is finished:
    kept already, or its table is built (the first ask then computes them in a moment)."""
    if kept_skill(record) is not None:
        return True
    try:
        return tables.status(config, record.rules).state == "ready"
    except RulesError:  # rules no table can value (saved rolls): no analysis
        return False


def _is_daily(record: Record) -> bool:
    return record.kind.one_per is OnePer.DAY and record.day is not None


Sides = tuple[Analysis, Analysis | None, Skill]


def _compute(client: redis.Redis, config: Config, record: Record) -> str:
    # The analysis of both sides and the Expert's score, kept; the kept text is returned.
    table = tables.exact_table(config, record.rules)
    source = record.source(config.secret_key)
    mine = analysis.analyse(table, source, record.moves)
    theirs = (
        analysis.analyse(table, source, record.computer_moves) if record.kind.is_computer else None
    )
    expert = None
    if _is_daily(record):
        assert record.day is not None
        expert = expert_game(config, record.day, record.stream, client).total
    elif record.kind.board is BoardKind.FRIEND:  # the code's dice, the same for all its games
        expert = own_expert(table, record.source(config.secret_key))
    summary = skill_str(skill_of(mine, expert))
    # One text: the summary, the player's decisions, the computer's (none: empty).
    sides = [decisions_str(record.rules, side) if side else "" for side in (mine, theirs)]
    body = "|".join([summary, *sides])
    kept_analyses.keep(client, record.id, summary, body, _lifetime_s(config))
    return body


def _lifetime_s(config: Config) -> float:
    """How long a kept analysis stays in Redis: past the archiving of its game, which copies
    it; the Expert's game of a day as long (asked after that, it is played again)."""
    return (timedelta(days=config.archive_days) + KEEP_PAST_ARCHIVE).total_seconds()


def _kept_body(client: redis.Redis, record: Record) -> str | None:
    # As archived with the record, else as kept beside it in Redis.
    found = record.extra.get(kept_analyses.DECISIONS)
    return found or kept_analyses.decisions_of(client, record.id)


def _read(config: Config, record: Record, body: str | None) -> Sides | None:
    # A kept text read back by replaying the game; None: nothing kept, or kept by another
    # version or for fewer moves (then it is computed again).
    if not body or record.total is None:
        return None
    rules, source = record.rules, record.source(config.secret_key)
    try:
        summary, mine_text, theirs_text = body.split("|")
        skill = parse_skill(summary, record.total)
        mine = parse_decisions(mine_text, rules, source, record.moves, skill.optimum)
        theirs = None
        if record.kind.is_computer:
            moves = record.computer_moves
            theirs = parse_decisions(theirs_text, rules, source, moves, skill.optimum)
    except (ValueError, ReplayError):
        return None
    return mine, theirs, skill


def own_expert(table: Table, source: DiceSource) -> int:
    """The Expert's score in its own game on *source* (a friend code's dice): played at a
    game's first analysis and kept in its summary, as a daily's is (its score tells no die)."""
    # The Expert never draws: its generator is only there for the bots' common signature.
    played = bots.play_games(table, bots.LEVELS["expert"], [source], np.random.default_rng(0))
    return played[0].state.total


def is_closed(config: Config, day: date) -> bool:
    """Whether the daily puzzle of *day* has closed (its seed may be shown)."""
    return dice.Day(day, config.timezone).is_revealed(config.now())


def expert_game(
    config: Config, day: date, stream: str = dice.CURRENT, client: redis.Redis | None = None
) -> ExpertGame:
    """The Expert's own game on the daily dice of *day*, in dice stream *stream* (the one
    the player's game was dealt from, so both see the same re-rolls for the same holds);
    with *client*, played once and kept for every later ask of the day."""
    rules = find_ruleset(EXPERT_RULES)
    source = dice.stream(dice.daily_seed(config.secret_key, day), stream)
    kept = kept_analyses.expert_of(client, day.isoformat(), stream) if client else None
    if kept is not None:
        try:
            total, optimum, log = kept.split()
            moves = decode_moves(rules, log)
            state = replay(rules, source, moves)
            return ExpertGame(day, rules.id, moves, state.scorecard(), int(total), float(optimum))
        except (ValueError, ReplayError):
            pass  # written by another version: played again below
    table = tables.exact_table(config, rules)
    # The Expert never draws: its generator is only there for the bots' common signature.
    played = bots.play_games(table, bots.LEVELS["expert"], [source], np.random.default_rng(0))[0]
    state = played.state
    if client is not None:
        text = f"{state.total} {table.optimum!r} {encode_moves(rules, played.moves)}"
        kept_analyses.keep_expert(client, day.isoformat(), stream, text, _lifetime_s(config))
    return ExpertGame(
        day, rules.id, tuple(played.moves), state.scorecard(), state.total, table.optimum
    )
