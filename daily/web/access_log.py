"""One JSON access-log line per request, and the version header on every response.

The log goes to stderr (gunicorn collects it) on the ``daily.access`` logger, one JSON
object a line: time, method, path (a sign-in token redacted), status, duration, bytes, client
address, player id and endpoint. Every response carries ``X-Daily-Version``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from datetime import UTC, datetime
from typing import TextIO

from flask import Flask, Response, g, request

from daily.core.redact import install, redact
from daily.core.version import VERSION

log = logging.getLogger("daily.access")
VERSION_HEADER = "X-Daily-Version"


class StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is now (test runners swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    def emit(self, record: logging.LogRecord) -> None:
        """Writes *record* to the current stderr."""
        self.stream = sys.stderr
        super().emit(record)


def access_entry(response: Response, started: float) -> dict[str, object]:
    """The access-log fields of the request being answered."""
    return {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "method": request.method,
        "path": redact(request.path),  # a sign-in link's path is its token
        "status": response.status_code,
        "ms": round((time.perf_counter() - started) * 1000, 2),
        "bytes": response.calculate_content_length(),
        "address": request.remote_addr,
        "player": g.get("player_id"),
        "endpoint": request.endpoint,
    }


def _start_timer() -> None:
    g.started = time.perf_counter()


def _finish(response: Response) -> Response:
    response.headers[VERSION_HEADER] = VERSION
    if log.isEnabledFor(logging.INFO):
        started = g.get("started", time.perf_counter())
        log.info(json.dumps(access_entry(response, started), separators=(",", ":")))
    return response


def init_app(app: Flask) -> None:
    """Installs the access log and the version header on *app*."""
    if not log.handlers:
        handler = StderrHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False  # one line per request, not again through the root logger
    install()  # no token in any request line: ours, werkzeug's or gunicorn's
    app.before_request(_start_timer)
    app.after_request(_finish)
