"""Turns every error into the error JSON of API.md (under /api) or an error page.

This is the one place where errors meet HTTP; views raise, they never catch.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException

from daily import metrics
from daily.errors import (
    DailyError,
    IllegalMoveError,
    InvalidMoveError,
    ReplayError,
    RulesError,
    StorageError,
)

log = logging.getLogger(__name__)
#: The endpoints whose errors count as refused moves (see daily.metrics).
MOVE_ENDPOINTS = ("api.roll", "api.score")


class HttpError(DailyError):
    """An error with its HTTP status and a stable machine-readable code."""

    def __init__(self, status: int, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def bad_request(message: str) -> HttpError:
    """A 400 for input the API cannot read."""
    return HttpError(400, "bad_request", message)


def not_found(message: str) -> HttpError:
    """A 404 for something that does not exist (or is not yours to see)."""
    return HttpError(404, "not_found", message)


def conflict(message: str, **extra: object) -> HttpError:
    """A 409 for a move or start that clashes with what is stored."""
    return HttpError(409, "conflict", message, **extra)


def _classify(error: Exception) -> HttpError:
    if isinstance(error, HttpError):
        return error
    if isinstance(error, HTTPException):
        code = (error.name or "error").lower().replace(" ", "_")
        return HttpError(error.code or 500, code, error.description or error.name)
    if isinstance(error, IllegalMoveError):
        return HttpError(409, "illegal_move", str(error))
    if isinstance(error, InvalidMoveError | RulesError):
        return HttpError(400, "invalid_move", str(error))
    if isinstance(error, ReplayError):
        return HttpError(500, "replay_failed", "the stored game does not replay")
    if isinstance(error, StorageError):
        return HttpError(503, "storage_unavailable", "the store is unavailable, try again soon")
    log.exception("unhandled error", exc_info=error)
    return HttpError(500, "internal", "something went wrong on our side")


def handle(error: Exception) -> Response:
    """Renders *error* as the API's error JSON, or as an HTML page for the site."""
    http = _classify(error)
    if request.endpoint in MOVE_ENDPOINTS:
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
