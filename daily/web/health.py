"""``/healthz``: is the service up, and how far are its strategy tables?

``/healthz`` answers 200 when Redis answers a PING, else 503, in JSON, for a load
balancer or an orchestrator; it also lists each strategy table the service builds by itself
(missing, building with its percent, ready, or bad: refused by its digest check, with why),
which does not change the status. The access
log and the version header are :mod:`daily.web.access_log`'s.
"""

from __future__ import annotations

from typing import Literal

from flask import Blueprint, Response, jsonify
from pydantic import Field

from daily.core.version import VERSION
from daily.service import backend, tables
from daily.strategy.specs import TableStatus
from daily.web import answers, costs
from daily.web.context import current_config, current_redis
from daily.web.routes import documented

bp = Blueprint("health", __name__)


class TableState(answers.Answer):
    """Where one strategy table the service builds by itself stands."""

    ruleset: str = Field(description="`maxi`, or with options: `maxi:bonus=50@75`")
    state: Literal["missing", "building", "ready", "bad"] = Field(
        description="`bad`: the table found failed its digest check, and nothing replaced it yet"
    )
    percent: float | None = Field(None, description="building: the share of the work done")
    seconds: float | None = Field(None, description="building: spent so far; ready: the build's")
    eta: float | None = Field(None, description="building: estimated seconds left")
    problem: str | None = Field(
        None, description="bad, or building its replacement: why the last table was refused"
    )


class Health(answers.Answer):
    """The service's health: 200 while Redis answers a PING, else 503."""

    status: Literal["ok", "unavailable"]
    redis: str = Field(description="`ok`, or `unreachable: <reason>`")
    version: str
    tables: list[TableState] = Field(
        description="each strategy table the service builds by itself (DAILY_TABLES)"
    )


@bp.get(
    "/healthz",
    cost=costs.CHECK,
    api=documented(
        Health,
        errors=(503,),
        access="public",
        errors_answer=True,
        description="the service and its store are up (503: Redis does not answer)",
    ),
)
def healthz() -> tuple[Response, int]:
    """200 when Redis answers, 503 (with the reason) when it does not."""
    tables = table_statuses()
    reason = backend.unreachable(current_redis())
    if reason is not None:
        down = Health(status="unavailable", redis=reason, version=VERSION, tables=tables)
        return jsonify(answers.dump(down)), 503
    up = Health(status="ok", redis="ok", version=VERSION, tables=tables)
    return jsonify(answers.dump(up)), 200


def table_statuses() -> list[TableState]:
    """Each configured strategy table (``DAILY_TABLES``) as missing, building, ready or bad."""
    found = tables.statuses(current_config())
    return [table_state(status) for status in found]


def table_state(status: TableStatus) -> TableState:
    """One table's state, its figures to a tenth, those that do not apply left out."""
    figures = {"percent": status.percent, "seconds": status.seconds, "eta": status.eta}
    shown = {name: round(value, 1) for name, value in figures.items() if value is not None}
    why = {} if status.problem is None else {"problem": status.problem}
    return TableState.model_validate(
        {"ruleset": status.ruleset, "state": status.state, **shown, **why}
    )
