"""Turns every error into the error JSON of the API (under /api) or an error page.

This is the one place where errors meet HTTP: :data:`TABLE` maps each domain error to its
status and :class:`~daily.core.errors.ErrorCode`; views raise, they never catch.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from flask import Flask, Response, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException

from daily.core import metrics
from daily.core.errors import (
    BadInputError,
    BoardError,
    CodeClosedError,
    CodeError,
    ConflictError,
    ConfusableNameError,
    DailyError,
    DeletedTodayError,
    ErrorCode,
    IllegalMoveError,
    InvalidMoveError,
    InvalidNameError,
    LeagueFullError,
    ModeError,
    NoStrategyError,
    NotAllowedError,
    NotFoundError,
    NotOpenError,
    NotOwnerError,
    RemovedError,
    ReplayError,
    RulesError,
    SignInLinkError,
    StorageError,
    TableBuildingError,
    TableMissingError,
    TooManyLeaguesError,
)
from daily.core.rules import Ruleset, find_ruleset
from daily.strategy.specs import TableStatus
from daily.web.costs import Cpu
from daily.web.routes import current_route

log = logging.getLogger(__name__)
_CODES = {str(code) for code in ErrorCode}


class HttpError(DailyError):
    """An error with its HTTP status and a stable machine-readable code."""

    def __init__(self, status: int, code: ErrorCode | str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.status = status
        self.code = str(code)
        self.message = message
        self.extra = extra


def _table_building(error: Exception) -> HttpError:
    assert isinstance(error, TableBuildingError)
    return building_error(error.status)


def _table_missing(error: Exception) -> HttpError:
    assert isinstance(error, TableMissingError)
    return missing_error(error.ruleset)


#: How a row answers: None keeps the error's own message, a string replaces it (internals
#: stay private), a function builds the whole answer (a table's progress, its command).
Answer = str | Callable[[Exception], HttpError] | None

#: Each domain error's status and code, the first match winning (subclasses first); a code
#: of None is the error's own (:class:`~daily.core.errors.NotAllowedError` says what it refuses).
TABLE: tuple[tuple[type[Exception], int, ErrorCode | None, Answer], ...] = (
    (ConfusableNameError, 400, ErrorCode.CONFUSABLE_NAME, None),
    (InvalidNameError, 400, ErrorCode.BAD_REQUEST, None),
    (CodeError, 400, ErrorCode.BAD_REQUEST, None),
    (ModeError, 400, ErrorCode.BAD_REQUEST, None),
    (BoardError, 400, ErrorCode.BAD_REQUEST, None),
    (BadInputError, 400, ErrorCode.BAD_REQUEST, None),
    (NotFoundError, 404, ErrorCode.NOT_FOUND, None),
    (NotOpenError, 404, ErrorCode.NOT_OPEN, None),
    (CodeClosedError, 409, ErrorCode.CODE_CLOSED, None),
    (ConflictError, 409, ErrorCode.CONFLICT, None),
    (NotAllowedError, 403, None, None),
    (NoStrategyError, 409, ErrorCode.NO_STRATEGY, None),
    (TableBuildingError, 503, ErrorCode.STRATEGY_TABLE_BUILDING, _table_building),
    (TableMissingError, 503, ErrorCode.STRATEGY_TABLE_MISSING, _table_missing),
    (IllegalMoveError, 409, ErrorCode.ILLEGAL_MOVE, None),
    (InvalidMoveError, 400, ErrorCode.INVALID_MOVE, None),
    (RulesError, 400, ErrorCode.INVALID_MOVE, None),
    (ReplayError, 500, ErrorCode.REPLAY_FAILED, "the stored game does not replay"),
    (StorageError, 503, ErrorCode.STORAGE_UNAVAILABLE, "the store is unavailable, try again soon"),
    (SignInLinkError, 403, ErrorCode.BAD_LINK, None),
    (DeletedTodayError, 409, ErrorCode.DELETED_TODAY, None),
    (LeagueFullError, 409, ErrorCode.LEAGUE_FULL, None),
    (TooManyLeaguesError, 409, ErrorCode.TOO_MANY_LEAGUES, None),
    (NotOwnerError, 403, ErrorCode.NOT_OWNER, None),
    (RemovedError, 403, ErrorCode.REMOVED_FROM_LEAGUE, None),
)


def bad_request(message: str) -> HttpError:
    """A 400 for input the API cannot read."""
    return HttpError(400, ErrorCode.BAD_REQUEST, message)


def not_found(message: str) -> HttpError:
    """A 404 for something that does not exist (or is not yours to see)."""
    return HttpError(404, ErrorCode.NOT_FOUND, message)


def conflict(message: str, **extra: object) -> HttpError:
    """A 409 for a move or start that clashes with what is stored."""
    return HttpError(409, ErrorCode.CONFLICT, message, **extra)


def classify(error: Exception) -> HttpError:
    """The status, code, message and details that answer *error*."""
    if isinstance(error, HttpError):
        return error
    if isinstance(error, HTTPException):
        name = (error.name or "error").lower().replace(" ", "_")
        status = error.code or 500
        # Werkzeug's own errors answer with their name when the enum has it (405, 413...).
        fallback = ErrorCode.BAD_REQUEST if status < 500 else ErrorCode.INTERNAL
        code = ErrorCode(name) if name in _CODES else fallback
        return HttpError(status, code, error.description or error.name)
    for kind, status, row_code, answer in TABLE:
        if not isinstance(error, kind):
            continue
        if callable(answer):
            return answer(error)
        own = getattr(error, "code", ErrorCode.INTERNAL) if row_code is None else row_code
        return HttpError(status, own, answer or str(error), **_details(error))
    log.exception("unhandled error", exc_info=error)
    return HttpError(500, ErrorCode.INTERNAL, "something went wrong on our side")


def _details(error: Exception) -> dict[str, object]:
    return dict(getattr(error, "details", {}))


def handle(error: Exception) -> Response:
    """Renders *error* as the API's error JSON, or as an HTML page for the site."""
    http = classify(error)
    route = current_route()
    if route is not None and route.cost.cpu is Cpu.MOVE:  # a refused move (daily.core.metrics)
        metrics.move_refused(http.code)
    if request.path.startswith("/api/"):
        body = {"error": {"code": http.code, "message": http.message, **http.extra}}
        response = jsonify(body)
        response.status_code = http.status
        _retry_after(response, http)
        return response
    response = make_response(render_template("error.html", error=http), http.status)
    _retry_after(response, http)
    return response


def _retry_after(response: Response, http: HttpError) -> None:
    # A 503 that knows when the service will be ready says so (a table being built).
    if "retry_after" in http.extra:
        response.headers["Retry-After"] = str(http.extra["retry_after"])


def register(app: Flask) -> None:
    """Installs :func:`handle` for every exception."""
    app.register_error_handler(Exception, handle)


# A strategy table a request waits for: how the error table answers it.


def retry_after(status: TableStatus) -> int:
    """The seconds a client should wait before asking again: the estimate, within 2 to 60.

    >>> retry_after(TableStatus("maxi", "building", 50.0, 30.0, 30.0))
    30
    >>> retry_after(TableStatus("maxi", "building", 0.0, 1.0, None))
    5
    """
    if status.eta is None:
        return 5
    return int(min(60, max(2, round(status.eta))))


def building_error(status: TableStatus) -> HttpError:
    """The 503 of a table being built, with its progress and when to ask again."""
    progress = {"percent": round(status.percent or 0.0, 1), "eta": None}
    if status.eta is not None:
        progress["eta"] = round(status.eta)
    return HttpError(
        503,
        ErrorCode.STRATEGY_TABLE_BUILDING,
        f"the strategy table of {status.ruleset} is being built: "
        f"{progress['percent']}% done, try again in {retry_after(status)} s",
        progress=progress,
        retry_after=retry_after(status),
    )


def missing_error(rules: Ruleset) -> HttpError:
    """The 503 of a table nobody builds: the command that would build it."""
    return HttpError(
        503,
        ErrorCode.STRATEGY_TABLE_MISSING,
        f"the strategy table of {rules.id} is not built yet: run `{solve_command(rules)}`",
    )


def solve_command(rules: Ruleset) -> str:
    """The ``daily solve`` command line that builds the table of *rules*."""
    base = find_ruleset(rules.id).options_dict()
    changed = [
        f" --option {name}={value if isinstance(value, str) else json.dumps(value)}"
        for name, value in rules.options_dict().items()
        if base.get(name) != value
    ]
    return f"daily solve {rules.id}" + "".join(changed)
