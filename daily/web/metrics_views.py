"""``/metrics``: the Prometheus text format, for an operator's scraper, behind a bearer token.

Without ``DAILY_METRICS_TOKEN`` the endpoint does not exist (404, like any unknown path);
with it, a scrape must send ``Authorization: Bearer <token>`` (else 401). Under gunicorn
(``PROMETHEUS_MULTIPROC_DIR`` set) a scrape adds up every worker's values, whichever worker
answers it. Every request is counted here too, by its endpoint name (bounded: never the
raw path), method and status. A scrape also reads each configured strategy table's state and
its build's progress (percent done, seconds left) from the cache folder.
"""

from __future__ import annotations

import hmac
import math
import os
import time

from flask import Blueprint, Flask, Response, abort, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Gauge,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from daily.core.metrics import request_answered, table_state
from daily.service import tables
from daily.web import costs
from daily.web.context import current_config

bp = Blueprint("metrics", __name__)
MULTIPROC_VAR = "PROMETHEUS_MULTIPROC_DIR"
#: The endpoint label of a request that matched no route (a 404 or 405 of any path).
UNMATCHED = "unmatched"
# Set at each scrape, from the cache folder: the worker that answers it reads them last.
TABLE_PERCENT = Gauge(
    "daily_strategy_table_build_percent",
    "How far a strategy table's build (or download) has got: 0 missing, 100 ready.",
    ["ruleset"],
    multiprocess_mode="mostrecent",
)
TABLE_ETA = Gauge(
    "daily_strategy_table_build_eta_seconds",
    "Estimated seconds left of a strategy table's build; NaN when none runs or not yet known.",
    ["ruleset"],
    multiprocess_mode="mostrecent",
)


@bp.get("/metrics", cost=costs.SCRAPE)
def metrics() -> Response:
    """Every metric in Prometheus' text format, for the holder of the metrics token."""
    token = current_config().metrics_token
    if not token:
        abort(404)
    if not is_bearer(request.headers.get("Authorization", ""), token):
        return Response(
            "a bearer token is required\n",
            status=401,
            mimetype="text/plain",
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    _refresh_tables()
    return Response(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)


def _refresh_tables() -> None:
    # A table is built by a process of its own (see daily.tables.background), so its state
    # is read from the cache folder at each scrape rather than remembered by a worker.
    for status in tables.statuses(current_config()):
        table_state(status.ruleset, status.state)
        done = {"missing": 0.0, "ready": 100.0}.get(status.state, status.percent or 0.0)
        TABLE_PERCENT.labels(status.ruleset).set(done)
        TABLE_ETA.labels(status.ruleset).set(math.nan if status.eta is None else status.eta)


def is_bearer(header: str, token: str) -> bool:
    """Whether the Authorization *header* carries exactly *token* (compared in constant time).

    >>> is_bearer("Bearer s3cret", "s3cret"), is_bearer("Bearer s3cre", "s3cret")
    (True, False)
    """
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip(), token)


def _registry() -> CollectorRegistry:
    if not os.environ.get(MULTIPROC_VAR):
        return REGISTRY
    # A fresh registry each scrape: the collector reads every worker's files as they are now.
    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return registry


def _count(response: Response) -> Response:
    started = g.get("started")  # set by daily.web.access_log's first hook
    seconds = time.perf_counter() - started if started is not None else 0.0
    endpoint = request.endpoint or UNMATCHED
    request_answered(endpoint, request.method, response.status_code, seconds)
    return response


def init_app(app: Flask) -> None:
    """Registers ``/metrics`` and the request counter on *app*."""
    app.register_blueprint(bp)
    app.after_request(_count)
