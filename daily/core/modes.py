"""The game modes as data: what each mode is, in one place (like :mod:`daily.core.rules.rulesets`).

The store, the game service and the web layer read a mode's description instead of
comparing its name, so a new mode is one entry here plus the code of what is new in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, get_args

from daily.core.errors import ModeError


class SeedKind(StrEnum):
    """Where a mode's dice come from (the kind of its seed reference: :mod:`daily.core.dice`)."""

    DAILY = "daily"  # the day's seed: everybody plays the same dice
    FRIEND = "friend"  # a friend code's own seed (or the seed of the game it was made from)
    RANDOM = "hex"  # a random seed kept with the game


class BoardKind(StrEnum):
    """The kind of board a mode's ranked games count on."""

    DAILY = "daily"
    FRIEND = "friend"


class Opponent(StrEnum):
    """Who else plays a game besides its player."""

    PARTY = "party"  # other people on the same device, turn by turn
    COMPUTER = "computer"  # a bot of a chosen level


#: The computer's levels, strongest first (:data:`daily.strategy.bots.LEVELS` plays them).
Level = Literal["expert", "hard", "medium", "easy"]
LEVELS: tuple[Level, ...] = get_args(Level)
#: What the computer of a game plays on, fixed at its start: the exact table, or the
#: heuristic while the table is being built (:mod:`daily.service.tables`).
Engine = Literal["exact", "heuristic"]
ENGINES: tuple[Engine, ...] = get_args(Engine)


def level_of(text: str) -> Level:
    """*text* as a :data:`Level`, or raises ValueError (a record read back names one).

    >>> level_of("hard")
    'hard'
    >>> level_of("godlike")
    Traceback (most recent call last):
    ...
    ValueError: unknown level: 'godlike' (known: expert, hard, medium, easy)
    """
    for level in LEVELS:
        if level == text:
            return level
    raise ValueError(f"unknown level: {text!r} (known: {', '.join(LEVELS)})")


def engine_of(text: str | None) -> Engine:
    """*text* as an :data:`Engine`, or raises ValueError; none is ``exact`` (games from
    before the heuristic played on the table).

    >>> engine_of("heuristic"), engine_of(None)
    ('heuristic', 'exact')
    """
    for engine in ENGINES:
        if engine == (text or "exact"):
            return engine
    raise ValueError(f"unknown engine: {text!r} (known: {', '.join(ENGINES)})")


class OnePer(StrEnum):
    """What a player may play only once in a mode."""

    DAY = "day"  # one daily game per player and day
    CODE = "code"  # one game per player and friend code


#: The ids of :data:`MODES` as a type, for the API's typed models.
ModeId = Literal["daily", "friend", "solo", "party", "computer"]


@dataclass(frozen=True, slots=True)
class Mode:
    """What a game mode is: its dice, its board, what its player may see and share."""

    id: ModeId
    seed: SeedKind
    board: BoardKind | None = None  # ranked on this kind of board (None: never ranked)
    one_per: OnePer | None = None
    shares: bool = False  # a finished game gets a fresh friend code to share its dice
    hints: bool = False  # the player may ask for the best move during the game
    reviewed: bool = False  # reaches a public board, so the clairvoyance check looks at it
    opponent: Opponent | None = None
    ruleset: str | None = None  # the one ruleset the mode is played with (None: any)

    @property
    def is_ranked(self) -> bool:
        """Whether the mode's games (on an open day or code) count on a board.

        >>> find_mode("daily").is_ranked, find_mode("solo").is_ranked
        (True, False)
        """
        return self.board is not None

    @property
    def is_party(self) -> bool:
        """Whether several people play the game on one device."""
        return self.opponent is Opponent.PARTY

    @property
    def is_computer(self) -> bool:
        """Whether the player plays against the computer."""
        return self.opponent is Opponent.COMPUTER


DAILY = Mode(
    "daily", SeedKind.DAILY, BoardKind.DAILY, OnePer.DAY, shares=True, reviewed=True, ruleset="maxi"
)
FRIEND = Mode("friend", SeedKind.FRIEND, BoardKind.FRIEND, OnePer.CODE, reviewed=True)
SOLO = Mode("solo", SeedKind.RANDOM, shares=True, hints=True, reviewed=True)
PARTY = Mode("party", SeedKind.RANDOM, opponent=Opponent.PARTY)
COMPUTER = Mode("computer", SeedKind.RANDOM, hints=True, opponent=Opponent.COMPUTER)

#: Every mode by its id, in the order the API lists them.
MODES: dict[str, Mode] = {mode.id: mode for mode in (DAILY, FRIEND, SOLO, PARTY, COMPUTER)}


def find_mode(mode_id: str) -> Mode:
    """The mode named *mode_id*, or raises :class:`ModeError`.

    >>> find_mode("computer").hints
    True
    >>> find_mode("chess")
    Traceback (most recent call last):
    ...
    daily.core.errors.ModeError: unknown mode: 'chess' (known: daily, friend, solo, party, computer)
    """
    try:
        return MODES[mode_id]
    except (KeyError, TypeError):
        raise ModeError(f"unknown mode: {mode_id!r} (known: {', '.join(MODES)})") from None
