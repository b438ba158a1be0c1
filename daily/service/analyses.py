"""The analysis service: which finished games may be analysed, and the Expert's daily game.

A game is analysed once it is finished and only if its mode allows it; a daily game's
analysis also shows the Expert's own game on the same dice, but only once the day has closed
(before, it would tell the day's dice to a player who can still play them elsewhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Final

import numpy as np

from daily.core import dice
from daily.core.config import Config
from daily.core.errors import ConflictError, ErrorCode, NotAllowedError
from daily.core.modes import OnePer
from daily.core.record import Record
from daily.core.rules import Move, find_ruleset
from daily.service import tables
from daily.strategy import analysis, bots
from daily.strategy.analysis import Analysis

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
    """A finished game analysed: its player's decisions, the computer's, the Expert's game.

    *has_expert* says whether the game's mode shows the Expert at all (a daily game);
    *expert* is None until the day has closed.
    """

    record: Record
    mine: Analysis
    computer: Analysis | None = None
    has_expert: bool = False
    expert: ExpertGame | None = None


def analyse(config: Config, record: Record) -> GameAnalysis:
    """The analysis of the finished game *record*; NotAllowedError in a mode without one,
    ConflictError while the game goes on, TableMissingError while its table is not built."""
    if not record.kind.analysis:
        raise NotAllowedError(ErrorCode.NO_ANALYSIS, f"{record.mode} games are not analysed")
    if not record.finished:
        raise ConflictError("the game is not finished yet")
    table = tables.exact_table(record.rules)
    source = record.source(config.secret_key)
    found = GameAnalysis(record, analysis.analyse(table, source, record.moves))
    if record.kind.is_computer:
        theirs = analysis.analyse(table, source, record.computer_moves)
        found = GameAnalysis(record, found.mine, theirs)
    if record.kind.one_per is OnePer.DAY and record.day is not None:
        closed = is_closed(config, record.day)
        expert = expert_game(config, record.day, record.stream) if closed else None
        found = GameAnalysis(record, found.mine, found.computer, True, expert)
    return found


def is_closed(config: Config, day: date) -> bool:
    """Whether the daily puzzle of *day* has closed (its seed may be shown)."""
    return dice.Day(day, config.timezone).is_revealed(config.now())


def expert_game(config: Config, day: date, stream: str = dice.CURRENT) -> ExpertGame:
    """The Expert's own game on the daily dice of *day*, in dice stream *stream* (the one
    the player's game was dealt from, so both see the same re-rolls for the same holds)."""
    rules = find_ruleset(EXPERT_RULES)
    table = tables.exact_table(rules)
    source = dice.stream(dice.daily_seed(config.secret_key, day), stream)
    # The Expert never draws: its generator is only there for the bots' common signature.
    played = bots.play_games(table, bots.LEVELS["expert"], [source], np.random.default_rng(0))[0]
    state = played.state
    return ExpertGame(day, rules.id, tuple(played.moves), state.scorecard(), state.total,
                      table.optimum)  # fmt: skip
