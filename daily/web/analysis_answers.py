"""The API's answers of the strategy engine: a hint's ranked actions, an analysis's decisions
and the Expert's game, as typed models (:mod:`daily.web.strategy_answers` builds them).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from daily.core.modes import ModeId
from daily.web import answers


class Action(answers.Answer):
    """A re-roll (keep: dice values, hold: positions) or a row to score."""

    keep: list[answers.Die] | None = None
    hold: list[int] | None = None
    score: str | None = None
    value: float = Field(description="expected final score")
    loss: float = Field(description="expected points below the best")


class Hint(answers.Answer):
    """Every legal action now, best first."""

    id: str
    turn: int
    roll: int
    rolls_left: int
    dice: list[answers.Die]
    actions: list[Action] = Field(description="best first")


class Decision(answers.Answer):
    """One decision of a game: what was played, the best action and the loss."""

    index: answers.Count
    turn: int
    roll: int
    dice: list[answers.Die]
    played: Action
    best: Action
    loss: float


class Analysed(answers.Answer):
    """Every decision of one side's game and the expected points lost in all."""

    total: int
    optimum: float = Field(description="expected score of optimal play")
    lost: float = Field(description="expected points lost in all")
    decisions: list[Decision]


class Expert(answers.Answer):
    """The Expert's own game on a day's dice."""

    date: str = Field(json_schema_extra=answers.DATE)
    ruleset: Literal["maxi"]
    moves: list[answers.Move]
    scorecard: dict[str, int | None]
    total: int
    optimum: float


class PartySkill(answers.Answer):
    """One party player's skill and luck: their own decisions on their own dice."""

    name: str
    total: int
    skill: answers.Skill


class Analysis(Analysed):
    """The analysis of a finished game; a daily game's Expert once its day has closed; a
    party's, of one player's own game (``?player=``), every player's skill beside it."""

    id: str
    mode: ModeId
    ruleset: str
    skill: answers.Skill = Field(description="the player's skill and luck")
    computer: Analysed | None = Field(None, description="computer games: its own analysis")
    expert: Expert | None = Field(
        None,
        description="daily games: the Expert's own game from the day's first rolls, once "
        "the day has closed (null before)",
    )
    player: int | None = Field(
        None, ge=0, description="party games: the seat (from 0) whose own game this is"
    )
    players: list[PartySkill] | None = Field(
        None, description="party games: every player's skill and luck, in seat order"
    )
