"""The API's request bodies: typed models read by :func:`parse` from the JSON object of
:func:`json_object` (415 if not JSON, 400 if malformed), documented by their schema.

Each limit lives once, where it belongs (a name's length in :mod:`daily.service.accounts`, a
party's size in :mod:`daily.core.party`, the levels in :mod:`daily.strategy.bots`); the models
and the OpenAPI document (:mod:`daily.web.openapi`) both read it from there. A refused
body answers 400 with the first problem in words: a missing or unknown field, or what a
field must be.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import date
from typing import Annotated, Any, Literal, TypeVar, get_args

from flask import request
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, model_validator
from pydantic.config import JsonDict

from daily.core import party
from daily.core.codes import parse_code
from daily.core.errors import BadInputError, ErrorCode, RulesError
from daily.core.modes import Level
from daily.core.rules import OptionValue, parse_options
from daily.service import accounts, rankings
from daily.service.accounts import MAX_NAME
from daily.web.context import current_config
from daily.web.http_errors import HttpError, bad_request

#: A player's name as the document states it.
NAME_SCHEMA: JsonDict = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}


class Body(BaseModel):
    """A JSON request body: exactly its fields, each of its exact JSON type."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# What a field must be, in the refusal's words (and the document's descriptions).
NAME = Field(description="a string", json_schema_extra=NAME_SCHEMA)
#: The ruleset of a new game whose body names none.
DEFAULT_RULESET = "maxi"
RULESET = Field(DEFAULT_RULESET, description="a string (a ruleset id)")
OPTIONS: Any = Field(default_factory=dict, description="an object (the ruleset's options)")
MOVE = Field(
    None,
    ge=0,
    description="the number of moves made so far (`move_count`): a move sent on a game that "
    "has moved on meanwhile is refused (409), so a retry is never applied twice",
)


class NewPlayer(Body):
    """POST /players and PATCH /players/me: the player's name (checked by the store)."""

    name: Annotated[str, NAME]


class RollBody(Body):
    """POST /games/{id}/roll: the held positions, and the moves seen so far."""

    hold: list[int] = Field(description="a list of dice positions")
    move: int | None = MOVE


class ScoreBody(Body):
    """POST /games/{id}/score: the row to score, and the moves seen so far."""

    category: str = Field(description="a row's id")
    move: int | None = MOVE


class NewDaily(Body):
    """Today's daily game; with *day*, a past day's as practice (once its dice are revealed)."""

    mode: Literal["daily"]
    day: str | None = Field(
        None, description="a past day (YYYY-MM-DD), played as practice: on no board"
    )


class NewFriend(Body):
    """A friend game: with a *code*, a game on that code (*target* shows the creator's running
    score); without one, a fresh code of *ruleset* and its creator's game."""

    mode: Literal["friend"]
    code: str | None = Field(None, description="a friend code (XXXX-XXXX) to play")
    target: bool = Field(False, description="true or false (with a code)")
    ruleset: str | None = Field(None, description="a string (a ruleset id; maxi if none)")
    options: dict[str, object] = OPTIONS  # checked by the rules, as sent

    @model_validator(mode="after")
    def _code_or_rules(self) -> NewFriend:
        # A code names its own rules; a fresh code has no creator to aim at.
        if self.code is not None and (self.ruleset is not None or self.options):
            raise ValueError("a game on a code plays its ruleset: send no ruleset or options")
        if self.code is None and self.target:
            raise ValueError("target needs a code: send the code to play")
        return self


class NewSolo(Body):
    """A solo game on fresh dice."""

    mode: Literal["solo"]
    ruleset: str = RULESET
    options: dict[str, object] = OPTIONS  # checked by the rules, as sent


class NewComputer(Body):
    """A game against the computer at a level."""

    mode: Literal["computer"]
    ruleset: str = RULESET
    options: dict[str, object] = OPTIONS  # checked by the rules, as sent
    level: Level = Field("medium", description=f"one of {', '.join(get_args(Level))}")


class NewParty(Body):
    """A party of players on one device (each name checked by the store)."""

    mode: Literal["party"]
    ruleset: str = RULESET
    options: dict[str, object] = OPTIONS  # checked by the rules, as sent
    players: list[Any] = Field(
        min_length=party.MIN_PLAYERS,
        max_length=party.MAX_PLAYERS,
        description=f"a list of {party.MIN_PLAYERS} to {party.MAX_PLAYERS} names",
        json_schema_extra={"items": NAME_SCHEMA},
    )


class NewGame(RootModel[NewDaily | NewFriend | NewSolo | NewComputer | NewParty]):
    """POST /games: the body of one mode, told apart by its ``mode``."""

    root: NewDaily | NewFriend | NewSolo | NewComputer | NewParty = Field(discriminator="mode")


#: Every body of POST /games, one per mode.
NEW_GAME: tuple[type[Body], ...] = (NewDaily, NewFriend, NewSolo, NewComputer, NewParty)
_BY_MODE: dict[str, type[Body]] = {
    str(model.model_fields["mode"].annotation.__args__[0]): model  # type: ignore[union-attr]
    for model in NEW_GAME
}


def new_game_model(mode: str) -> type[Body]:
    """The model of a POST /games body of *mode* (a known mode's id)."""
    return _BY_MODE[mode]


B = TypeVar("B", bound=Body)


def parse(model: type[B], data: Mapping[str, Any]) -> B:
    """*data* read as *model*; raises :class:`BadInputError` naming the first problem."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise BadInputError(_first_problem(model, e, data)) from None


def _first_problem(model: type[Body], error: ValidationError, data: Mapping[str, Any]) -> str:
    # Missing fields first, unknown ones last: the order the hand-written checks had.
    order = {"missing": 0, "extra_forbidden": 2}
    found = min(error.errors(), key=lambda e: order.get(e["type"], 1))
    field = str(found["loc"][0]) if found["loc"] else ""
    if found["type"] == "missing":
        return f"missing field: {field!r}"
    if found["type"] == "extra_forbidden":
        return f"unknown field: {field!r}"
    if found["type"] == "value_error" and not found["loc"]:  # a rule over several fields
        return str(found["ctx"]["error"])
    info = model.model_fields.get(field)
    what = info.description if info and info.description else found["msg"]
    return f"{field} must be {what}, got {data.get(field)!r}"


# Reading a body: the JSON object itself, and the values the rules check.


def json_object() -> dict[str, object]:
    """The JSON object of the request (415 if it is not JSON, 400 if not an object)."""
    if not request.is_json:
        raise HttpError(
            415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send JSON (Content-Type: application/json)"
        )
    try:
        data = json.loads(request.get_data(), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise bad_request(f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise bad_request("the body must be a JSON object")
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def name(value: object) -> str:
    """A player's name (see :func:`daily.service.accounts.parse_name`)."""
    return accounts.parse_name(value)


def rules(ruleset: str, options: Mapping[str, object]) -> tuple[str, dict[str, OptionValue]]:
    """The ruleset and its options, checked (400 naming what is wrong)."""
    try:
        return ruleset, dict(parse_options(ruleset, options))
    except RulesError as e:
        raise bad_request(str(e)) from None


def code(text: object) -> str:
    """A friend code, normalized."""
    return parse_code(text)  # a CodeError answers 400 (see daily.web.http_errors)


# Days in a path: a board's, a league's, a practice's.

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def today() -> date:
    """Today's date in the configured zone."""
    return current_config().now().date()


def parse_day(text: str) -> date:
    """A ``YYYY-MM-DD`` date (or ``today``), or a 400."""
    if text == "today":
        return today()
    try:
        day = date.fromisoformat(text) if _DATE.fullmatch(text) else None
    except ValueError:
        day = None
    if day is None:
        raise bad_request(f"not a date (YYYY-MM-DD): {text!r}")
    return rankings.check_day(day)


def parse_date(text: str) -> date:
    """A ``YYYY-MM-DD`` date, or a 400 (any day: the caller says whether it is open)."""
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise bad_request(f"not a date (YYYY-MM-DD): {text!r}") from None
