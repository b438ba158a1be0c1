"""The pure rules engine: rulesets as data, row scoring and the game state machine."""

from daily.rules.game import (
    DiceSource,
    GameState,
    Hold,
    Move,
    PathSource,
    Roll,
    Score,
    apply,
    legal_moves,
    new_game,
    parse_move,
    replay,
)
from daily.rules.rulesets import (
    BASE_RULESETS,
    Option,
    Row,
    Ruleset,
    find_ruleset,
    parse_dice,
    parse_options,
)
from daily.rules.scoring import Dice

__all__ = [
    "BASE_RULESETS",
    "Dice",
    "DiceSource",
    "GameState",
    "Hold",
    "Move",
    "Option",
    "PathSource",
    "Roll",
    "Row",
    "Ruleset",
    "Score",
    "apply",
    "find_ruleset",
    "legal_moves",
    "new_game",
    "parse_dice",
    "parse_move",
    "parse_options",
    "replay",
]
