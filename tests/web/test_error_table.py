"""The error table: every row answers its own errors, none is shadowed by an earlier one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from daily.core import errors
from daily.core.errors import CodeError, ModeError, TableBuildingError, TableMissingError
from daily.core.rules import find_ruleset
from daily.strategy.specs import TableStatus
from daily.web.http_errors import TABLE, classify

_MAXI = find_ruleset("maxi")

#: An error of each row's class, as the code raises it.
EXAMPLES: dict[type[Exception], Callable[[], Exception]] = {
    errors.ConfusableNameError: lambda: errors.ConfusableNameError("name looks Latin"),
    errors.InvalidNameError: lambda: errors.InvalidNameError("name too long"),
    CodeError: lambda: CodeError("not a code"),
    ModeError: lambda: ModeError("unknown mode"),
    errors.BoardError: lambda: errors.BoardError("limit out of range"),
    errors.BadInputError: lambda: errors.BadInputError("bad field"),
    errors.NotFoundError: lambda: errors.NotFoundError("no such game"),
    errors.NotOpenError: lambda: errors.NotOpenError("not open"),
    errors.CodeClosedError: lambda: errors.CodeClosedError("closed", practice_at="later"),
    errors.ConflictError: lambda: errors.ConflictError("already", game_id="g"),
    errors.NotAllowedError: lambda: errors.NotAllowedError(
        errors.ErrorCode.HINTS_NOT_ALLOWED, "no hints"
    ),
    errors.NoStrategyError: lambda: errors.NoStrategyError("no model"),
    TableBuildingError: lambda: TableBuildingError(
        _MAXI, TableStatus("maxi", "building", 40.0, 10.0, 15.0)
    ),
    TableMissingError: lambda: TableMissingError(_MAXI, "not built"),
    errors.IllegalMoveError: lambda: errors.IllegalMoveError("row used"),
    errors.InvalidMoveError: lambda: errors.InvalidMoveError("no such row"),
    errors.RulesError: lambda: errors.RulesError("bad rules"),
    errors.ReplayError: lambda: errors.ReplayError(3, "bad move"),
    errors.StorageError: lambda: errors.StorageError("redis down"),
    errors.SignInLinkError: lambda: errors.SignInLinkError("expired"),
    errors.DeletedTodayError: lambda: errors.DeletedTodayError("deleted today"),
    errors.LeagueFullError: lambda: errors.LeagueFullError("league full", limit=50),
    errors.TooManyLeaguesError: lambda: errors.TooManyLeaguesError("in 10 leagues", limit=10),
    errors.NotOwnerError: lambda: errors.NotOwnerError("only the owner renames"),
    errors.RemovedError: lambda: errors.RemovedError("the owner removed you"),
}


def test_every_row_has_an_example() -> None:
    assert [row[0] for row in TABLE] == list(EXAMPLES)


@pytest.mark.parametrize("row", TABLE, ids=[row[0].__name__ for row in TABLE])
def test_each_row_answers_its_own_errors(row: tuple[type[Exception], int, object, object]
                                         ) -> None:  # fmt: skip
    kind, status, code, _ = row
    error = EXAMPLES[kind]()
    assert type(error) is kind
    answer = classify(error)
    assert answer.status == status
    assert answer.code == str(code if code is not None else getattr(error, "code"))  # noqa: B009


def test_a_table_being_built_says_how_far_and_when_to_ask_again() -> None:
    answer = classify(EXAMPLES[TableBuildingError]())
    assert answer.extra == {"progress": {"percent": 40.0, "eta": 15}, "retry_after": 15}
    assert "40.0% done" in answer.message


def test_a_missing_table_names_the_command_that_builds_it() -> None:
    assert "`daily solve maxi`" in classify(EXAMPLES[TableMissingError]()).message
