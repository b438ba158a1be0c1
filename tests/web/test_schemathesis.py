"""Fuzzing the game API from its own OpenAPI document (schemathesis), against the real app.

A bounded run: every operation gets generated requests, valid and invalid, with a
player's bearer token; no answer may be a 5xx and every answer must match the
document (status code, content type, body schema).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
#: Days at the calendar's edges that every operation taking a day is sent.
EDGE_DAYS = ["9999-12-31", "0001-01-01", "2028-02-29", "9999-12-30", "2025-12-31"]
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def live(make_app: Any) -> tuple[Any, dict[str, str]]:
    """The app on a real Redis (generous default limits on) and a player's token."""
    app = make_app(now=NOON, rate_limits={})
    token = app.test_client().post("/api/v1/players", json={"name": "Fuzz"}).get_json()["token"]
    return app, {"Authorization": f"Bearer {token}"}


@pytest.mark.one_redis
@pytest.mark.slow  # 12 s; test_api_openapi.py checks the document in the quick loop
def test_api_answers_as_documented(live: tuple[Any, dict[str, str]]) -> None:
    app, headers = live
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result.err()  # the document has no route it cannot read
        operations.append(result.ok())
    assert len(operations) >= 10  # every route of the document, not a silent few
    real = _real_parameters(app, headers)
    for operation in operations:
        _fuzz(operation, real, headers)


def _fuzz(operation: Any, real: dict[str, str], headers: dict[str, str]) -> None:
    """Sends *operation* its generated requests, half of them naming things that exist
    (*real*), then, if it takes a day, each day at the calendar's edges."""

    @given(case=operation.as_strategy(), use_real=st.booleans())
    @settings(
        max_examples=20,
        deadline=None,
        derandomize=True,  # the same requests every run: a failure reproduces
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def fuzz(case: Any, use_real: bool) -> None:
        if use_real:  # a game and a day that exist, to get past the 404s
            for name, value in real.items():
                if name in (case.path_parameters or {}):
                    case.path_parameters[name] = value
        case.call_and_validate(headers=headers, checks=CHECKS)

    fuzz()
    for case in _edge_cases(operation, real):
        case.call_and_validate(headers=headers, checks=CHECKS)


def _edge_cases(operation: Any, real: dict[str, str]) -> list[Any]:
    """*operation*'s requests with a day at the calendar's edges, if it takes a day: in its
    path, or a new daily's (round 5's 500 was a new daily of 9999-12-31)."""
    params = {p.name for p in operation.path_parameters}
    if "day" in params:
        path = {name: real.get(name, "x") for name in params}
        return [operation.Case(path_parameters=path | {"day": day}) for day in EDGE_DAYS]
    if operation.method.upper() == "POST" and operation.path.endswith("/games"):
        return [operation.Case(body={"mode": "daily", "day": day}, media_type="application/json")
                for day in EDGE_DAYS]  # fmt: skip
    return []


def _real_parameters(app: Any, headers: dict[str, str]) -> dict[str, str]:
    """Path parameters that name things that exist: the player's daily game, an open day."""
    client = app.test_client()
    game = client.post("/api/v1/games", json={"mode": "daily"}, headers=headers).get_json()
    return {"game_id": game["id"], "day": "2026-12-02"}
