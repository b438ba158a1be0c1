"""Operations: ``/healthz``, one JSON access-log line per request, the version header.

``/healthz`` answers 200 when Redis answers a PING, else 503, in JSON, for a load
balancer or an orchestrator; it also lists each strategy table the service builds by itself
(missing, building with its percent, ready), which does not change the status. Every
response carries ``X-Daily-Version``. The access log goes to stderr (gunicorn collects it)
on the ``daily.access`` logger, one JSON object a line: time, method, path, status,
duration, client address, player id.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from datetime import UTC, datetime
from typing import TextIO

from flask import Blueprint, Flask, Response, g, jsonify, request

from daily import __version__
from daily.core.redact import install, redact
from daily.service import backend, tables
from daily.strategy import builder
from daily.web import answers, current_redis
from daily.web.openapi import documented

bp = Blueprint("health", __name__)
log = logging.getLogger("daily.access")
VERSION_HEADER = "X-Daily-Version"


@bp.get("/healthz")
@documented(
    answers.Health,
    errors=(503,),
    access="public",
    errors_answer=True,
    description="the service and its store are up (503: Redis does not answer)",
)
def healthz() -> tuple[Response, int]:
    """200 when Redis answers, 503 (with the reason) when it does not."""
    tables = table_statuses()
    reason = backend.unreachable(current_redis())
    if reason is not None:
        down = answers.Health(status="unavailable", redis=reason, version=__version__,
                              tables=tables)  # fmt: skip
        return jsonify(answers.dump(down)), 503
    up = answers.Health(status="ok", redis="ok", version=__version__, tables=tables)
    return jsonify(answers.dump(up)), 200


def table_statuses() -> list[answers.TableState]:
    """Each configured strategy table (``$DAILY_TABLES``) as missing, building or ready."""
    found = tables.statuses()
    return [table_state(status) for status in found]


def table_state(status: builder.TableStatus) -> answers.TableState:
    """One table's state, its figures to a tenth, those that do not apply left out."""
    figures = {"percent": status.percent, "seconds": status.seconds, "eta": status.eta}
    shown = {name: round(value, 1) for name, value in figures.items() if value is not None}
    return answers.TableState(ruleset=status.ruleset, state=status.state, **shown)


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
    response.headers[VERSION_HEADER] = __version__
    if log.isEnabledFor(logging.INFO):
        started = g.get("started", time.perf_counter())
        log.info(json.dumps(access_entry(response, started), separators=(",", ":")))
    return response


def init_app(app: Flask) -> None:
    """Registers ``/healthz``, the access log and the version header on *app*."""
    if not log.handlers:
        handler = StderrHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False  # one line per request, not again through the root logger
    install()  # no token in any request line: ours, werkzeug's or gunicorn's
    app.register_blueprint(bp)
    app.before_request(_start_timer)
    app.after_request(_finish)
