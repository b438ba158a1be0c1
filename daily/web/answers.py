"""The API's answers about games, hints, analyses and rankings as typed models.

The views build these models from the service's typed results (:mod:`daily.web.game_answers`
for games) and answer :func:`dump` of them: the model checks every field (a field the
model lacks is a bug, not an answer) and the OpenAPI document (:mod:`daily.web.openapi`) is
generated from the same models, so each limit and enum is written once. A field that is
absent in some answers has the default ``None`` and is left out unless the view set it
(``exclude_unset``): a null the view sets explicitly stays a null.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, RootModel
from pydantic.config import JsonDict

from daily.core import rules
from daily.core.dice import Version
from daily.core.errors import ErrorCode
from daily.core.modes import Engine, Level, ModeId
from daily.core.rules import OptionValue
from daily.service.results import Review
from daily.strategy.computer import Outcome
from daily.web.bodies import NAME_SCHEMA

Die = Annotated[int, Field(ge=1, le=6)]
Count = Annotated[int, Field(ge=0)]
DATE: JsonDict = {"format": "date"}


class Answer(BaseModel):
    """A JSON answer: the view fills every field, the document lists them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


A = TypeVar("A", bound=Answer)


def built(model: type[A], *parts: Answer, **fields: object) -> A:
    """*model* of the fields set in each of *parts* (smaller answers whose fields it has too, a
    :class:`Totals` in a :class:`Played`) and of *fields*, later ones over earlier ones.

    Each field is declared once, in its model: a field neither gives stays unset and is left
    out of the answer (:func:`dump`), a name the model lacks or a value of the wrong type is
    refused here, where the answer is validated, once.

    >>> built(Cheer, Cheer(kind="best", value=300), kind="bonus").model_dump(exclude_unset=True)
    {'kind': 'bonus', 'value': 300}
    """
    given = {name: getattr(part, name) for part in parts for name in part.model_fields_set}
    return model.model_validate(given | fields)


_TIME: JsonDict = {"format": "date-time"}


class PlayerAnswer(Answer):
    """A player: their id, name and (when just made) the token that signs their calls."""

    player_id: str
    name: Annotated[str, Field(json_schema_extra=NAME_SCHEMA)]
    token: Annotated[str | None, Field(description="only when the player is made")] = None


class DailyGame(Answer):
    """The asking player's game of a day: its id, whether it is over, its total so far."""

    id: str
    finished: bool
    total: int | None


class DailyAnswer(Answer):
    """A day's puzzle: its number, commitment and closing time; its seed once revealed."""

    date: str = Field(json_schema_extra=DATE)
    number: int = Field(description="1 on 2026-01-01")
    ruleset: Literal["maxi"]
    commitment: str = Field(description="sha256 hex of the day's seed")
    closes_at: str = Field(json_schema_extra=_TIME)
    reveals_at: str = Field(json_schema_extra=_TIME)
    advent_door: int | None
    seed: str | None = Field(description="hex, once revealed")
    game: DailyGame | None = Field(description="the asking player's game")


class ErrorBody(BaseModel):
    """The error itself: its code, its message, and details some codes carry."""

    model_config = ConfigDict(extra="allow", frozen=True)

    code: ErrorCode
    message: str


class ErrorAnswer(Answer):
    """Every error the API answers (any status but 2xx)."""

    error: ErrorBody


def answer_schema(model: type[BaseModel]) -> JsonDict:
    """The JSON schema of *model* for the OpenAPI document."""
    return model.model_json_schema(ref_template="#/components/schemas/{model}")


class HoldMove(Answer):
    """A re-roll: the held positions."""

    hold: list[int]


class ScoreMove(Answer):
    """A row scored."""

    score: str


class Move(RootModel[HoldMove | ScoreMove]):
    """One move of a move log."""

    @classmethod
    def of(cls, move: rules.Move) -> Move:
        """*move* as a log writes it (:meth:`~daily.core.rules.Roll.to_dict`,
        :meth:`~daily.core.rules.Score.to_dict`).

        >>> Move.of(rules.Roll((0, 2))).model_dump(), Move.of(rules.Score("chance")).model_dump()
        ({'hold': [0, 2]}, {'score': 'chance'})
        """
        if isinstance(move, rules.Roll):
            return cls(HoldMove(**move.to_dict()))
        return cls(ScoreMove(**move.to_dict()))


class Totals(Answer):
    """A sheet without the dice on the table: the rows and the totals."""

    turn: int
    scorecard: dict[str, int | None]
    upper: int
    bonus: int
    extra_bonus: int
    total: int
    finished: bool


class PartySheet(Totals):
    """One party player's name and sheet."""

    name: str


class Step(Answer):
    """One step of the computer's last turn: the dice, then the hold or the row and points."""

    dice: list[Die]
    hold: list[int] | None = None
    score: str | None = None
    points: int | None = None


class ComputerSide(Totals):
    """The computer's level, engine, sheet, turns played and its last turn step by step."""

    level: Level
    engine: Engine
    turns: Count
    last_turn: list[Step]


class Target(Answer):
    """The creator's game of a friend code: their name, sheet and total so far."""

    player_id: str
    name: str | None = Field(description="null: the creator deleted their account")
    scorecard: dict[str, int | None]
    upper: int
    bonus: int
    total: int
    finished: bool


class Skill(Answer):
    """A finished game's score split by the exact solver, as shown: skill / 100 x optimum +
    luck = total (to half a point; docs/strategy.md, "Skill and luck")."""

    skill: int = Field(
        ge=0, le=100,
        description="whole percent of the optimum's expected points the decisions kept (100: "
        "every decision a best one; 0 at the least), the figure shown",
    )  # fmt: skip
    luck: int = Field(
        description="whole points: the total less skill / 100 x optimum, the figure shown"
    )
    optimum: float = Field(description="expected score of optimal play")
    lost: float = Field(description="expected points the decisions gave away")
    expert: int | None = Field(
        None,
        description="the Expert's score: its own game on the day's first rolls, the same for "
        "everyone (dailies and friend codes where the ruleset has a table)",
    )


class LeaguePlace(Answer):
    """Where the player stands in one of their leagues on a finished daily's day."""

    league: str = Field(description="the league's id")
    name: str
    rank: int | None = Field(ge=1, description="null: not ranked there that day")
    members: Count
    played: Count = Field(description="members who played that day")


class DayStanding(Answer):
    """Where a counted daily stands on its day's board now, among everyone who finished the
    day's puzzle (docs/rankings.md, "The ledger")."""

    rank: int | None = Field(
        ge=1, description="competition rank among the ranked players; null: a new player's"
    )
    ranked: Count = Field(description="players with a rank on the day")
    place: int = Field(ge=1, description="1 + the players of the day who scored more")
    field: Count = Field(description="everyone who finished the day's puzzle")
    tied: Count = Field(description="the others who scored the same")
    percentile: int | None = Field(
        ge=0, le=100, description="the share of the field beaten (half of the ties), rounded "
        "down; null on a field of one or with nobody beaten",
    )  # fmt: skip
    new: bool = Field(description="a new player's daily: listed, not ranked")
    days_left: int | None = Field(
        None, ge=0, description="a new player's: the days they still had to play to rank when "
        "this daily counted (0: from their next one)",
    )  # fmt: skip


class Figures(Answer):
    """A player's figures over their counted dailies, rounded once on the server (the result
    keeps those of its count; home, ``/me`` and the history show today's)."""

    days: Count = Field(description="days with a counted daily")
    best: int | None = Field(description="the best daily total")
    mean: float | None = Field(description="the mean daily total of the last 400 days, to 0.1")
    streak: Count = Field(description="days in a row, alive (the last played today or yesterday)")
    longest: Count = Field(description="the longest run of days in a row")


class Me(PlayerAnswer):
    """The asking player and their figures today (what home and ``/me`` show)."""

    figures: Figures
    established: bool = Field(
        description="their dailies rank on the world boards (docs/rankings.md, The ledger)"
    )


class Cheer(Answer):
    """Something a finished game earned, celebrated once, at its finish."""

    kind: Literal["bonus", "all_same", "best", "streak"] = Field(
        description="the upper bonus, the all-of-a-kind row, a new best day (value: the "
        "total), a streak milestone (value: its days)"
    )
    value: int | None = None


class Played(Totals):
    """What a move changed: the sheet (of its scorecard, only the row the move scored; a
    party's: the whole sheet of the player to move), the dice, the number of moves, the
    result and the other sides. The settings and the log are the game's (:class:`GameState`).
    """

    id: str
    roll: int
    rolls_left: int
    dice: list[Die]
    potential: dict[str, int]
    move_count: Count = Field(description="the moves played so far (the `move` to send next)")
    share_code: str | None = None
    board: str | None = None
    rank: int | None = Field(
        None, description="the rank on the game's board (a daily's: among the ranked players)"
    )
    standing: DayStanding | None = Field(
        None, description="a counted daily: where it stands on its day's board now"
    )
    records: Figures | None = Field(
        None, description="a counted daily: its player's figures when it counted"
    )
    cheers: list[Cheer] | None = Field(
        None, description="the answer to the finishing move only: what the game earned"
    )
    review: Review | None = Field(
        None,
        description="finished games: held (kept off the rankings while an operator reviews "
        "its luck) or removed (never ranked); null otherwise",
    )
    target: Target | None = None
    players: list[PartySheet] | None = Field(
        None, description="party games: each player's name and sheet, in turn order"
    )
    current: int | None = Field(None, description="party: whose turn")
    winners: list[int] | None = Field(
        None, description="party: the best totals' players at the end (two or more: a tie)"
    )
    computer: ComputerSide | None = None
    winner: Outcome | None = Field(
        None, description="computer games: who won, once both sheets are full"
    )
    skill: Skill | None = Field(
        None,
        description="finished games with an analysis: skill and luck, once the analysis "
        "was asked for (it is then kept)",
    )
    leagues: list[LeaguePlace] | None = Field(
        None, description="a finished ranked daily: the player's place in each league"
    )


class GameState(Played):
    """The game as its player sees it: settings, sheet, moves, result and the other sides."""

    mode: ModeId
    ruleset: str
    options: dict[str, OptionValue]
    date: str | None = Field(None, json_schema_extra=DATE)
    number: int | None = None
    code: str | None = Field(None, description="XXXX-XXXX (friend games, a daily on a code)")
    ranked: bool = Field(description="counts on a board")
    practice: bool = Field(
        description="practice (a closed code, or a past day replayed): unranked, on no board"
    )
    commitment: str | None = Field(None, description="games on a code: sha256 hex of its seed")
    closes_at: str | None = Field(
        None,
        description="games on a code: when the code stopped (or stops) being ranked",
        json_schema_extra={"format": "date-time"},
    )
    moves: list[Move]


class RecordComputer(Answer):
    """The computer's side of a record: its level, engine and moves."""

    level: Level
    engine: Engine
    moves: list[Move]


class Record(Answer):
    """What ``daily verify`` reads: the seed, or the date or code that names it."""

    id: str
    mode: ModeId
    ruleset: str
    options: dict[str, OptionValue]
    seed: str | None = Field(None, description="hex, once it may be published")
    date: str | None = Field(None, json_schema_extra=DATE)
    code: str | None = None
    stream: Version | None = Field(None, description="the dice stream (docs/dice.md); none: v1")
    commitment: str = Field(description="sha256 of the seed, hex")
    moves: list[Move]
    total: int | None
    players: list[str] | None = Field(None, description="party games: the names in turn order")
    computer: RecordComputer | None = Field(
        None, description="computer games: its level, engine and moves"
    )


def dump(answer: Answer) -> JsonDict:
    """*answer* as JSON, the fields the view did not set left out."""
    return answer.model_dump(mode="json", exclude_unset=True, by_alias=True)
