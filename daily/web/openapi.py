"""The OpenAPI 3.1 document of the HTTP API, generated from the routes and the typed models.

Each view under ``/api/`` (and ``/healthz``) is registered with its operation
(``api=documented(...)``, :mod:`daily.web.routes`): the model of its answer, of its request
body, the error statuses it may answer and its query parameters.
The paths, their path parameters and the ``operationId`` (the view's name) come from the
app's URL map, the schemas from the models (:mod:`daily.web.bodies`, :mod:`daily.web.answers`),
so a route, a limit or an enum is written once. tests/web/test_api_openapi.py checks that every
route is described; tests/web/test_schemathesis.py fuzzes the app against the document and
tests/web/test_client.py plays through a client generated from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

from flask import Flask, current_app
from pydantic import BaseModel, JsonValue
from pydantic.config import JsonDict

from daily.core.version import VERSION
from daily.service import rankings
from daily.web import answers
from daily.web.routes import Operation, routes_of

#: The component names of the answers the paths name, where they differ from the class's.
NAMES: dict[type[BaseModel], str] = {
    answers.ErrorAnswer: "Error",
    answers.PlayerAnswer: "Player",
    answers.DailyAnswer: "Daily",
}
#: What each error status means, in every operation that may answer it.
MEANINGS = {
    400: "malformed input (bad JSON, wrong types, unknown fields, malformed code)",
    401: "a tampered token or session cookie, or no player yet",
    403: "not allowed in this game's mode, or not yet",
    404: "no such game, code or open day",
    409: "a conflict: a second start, a stale or illegal move, a finished game, a closed"
    " code (code_closed, with practice_at)",
    413: "a body over 16 KiB",
    415: "a body that is not application/json",
    429: "a rate limit met (Retry-After says when to come back)",
    503: "the store is unavailable, or the strategy table is being built "
    "(`strategy_table_building`: Retry-After and `progress` say when to come back)",
}
#: Every operation under /api/v1 may meet a rate limit or a store that is down.
ALWAYS = (429, 503)
#: Path parameters by name (a view may override one: a board's day also takes `today`).
PATH: dict[str, JsonDict] = {
    "game_id": {"schema": {"type": "string"}},
    "day": {"schema": {"type": "string", "format": "date"}},
    "year": {
        "description": "2026 to 9999 (other years: 404)",
        "schema": {"type": "integer", "minimum": 0},
    },
    "code": {
        "description": "a friend code, XXXX-XXXX (malformed: 400, unknown: 404)",
        "schema": {"type": "string"},
    },
}
BOARD_DAY: JsonDict = {
    "description": "YYYY-MM-DD from 2026-01-01 (earlier: 404), or `today`",
    "schema": {"anyOf": [{"type": "string", "format": "date"}, {"const": "today"}]},
}
#: Query parameters by name; each limit comes from where it is defined.
QUERY: dict[str, JsonDict] = {
    "limit": {
        "description": "entries on the page (default 50)",
        "schema": {"type": "integer", "minimum": 1, "maximum": rankings.MAX_LIMIT},
    },
    "offset": {
        "description": "entries skipped from the top (default 0)",
        "schema": {"type": "integer", "minimum": 0, "maximum": rankings.MAX_OFFSET},
    },
    "around": {
        "description": "`me`: the page centred on the asking player (needs a player, else 400)",
        "schema": {"const": "me"},
    },
    "band": {
        "description": "points per band (default 50)",
        "schema": {"type": "integer", "minimum": 1, "maximum": rankings.DAILY_TOP + 1},
    },
    "invite": {
        "description": "the token of the league's current invite link (its `invite`"
        " query): a non-member needs it",
        "schema": {"type": "string"},
    },
}
#: Request headers by name.
HEADERS: dict[str, JsonDict] = {
    "Idempotency-Key": {
        "required": False,
        "description": "any 1 to 255 printable characters, new for each move: a request that "
        "repeats the key of the game's last move was applied already and gets the game as it "
        "is (a retry is applied once). Without it (and without `move`) every request is a "
        "move of its own: the same hold sent twice rolls twice.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    },
}
_ARGUMENT = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
_SKIPPED = {"HEAD", "OPTIONS"}


def document(app: Flask | None = None) -> JsonDict:
    """The OpenAPI document of every documented route of *app* (the running app if None)."""
    app = app or current_app
    declared = routes_of(app)
    components: JsonDict = {}
    paths: JsonDict = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        view = app.view_functions[rule.endpoint]
        found = declared[rule.endpoint].operation
        if found is None:
            continue
        path = _ARGUMENT.sub(r"{\2}", rule.rule)
        for method in sorted((rule.methods or set()) - _SKIPPED):
            item = cast(JsonDict, paths.setdefault(path, {}))
            item[method.lower()] = _operation(rule.rule, view, found, components)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "daily",
            "version": VERSION,
            "description": "The same Maxi Yatzy dice for everybody, every day.",
        },
        "servers": [{"url": "/"}],
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "session"},
            },
        },
        "security": [{"bearer": []}, {"cookie": []}],
        "paths": paths,
    }


def _operation(
    rule: str, view: Callable[..., Any], found: Operation, components: JsonDict
) -> JsonDict:
    summary = (view.__doc__ or "").strip().splitlines()[0]
    operation: JsonDict = {"operationId": view.__name__, "summary": summary}
    if found.access == "public":
        operation["security"] = []
    elif found.access == "either":
        operation["description"] = "Anonymous, or with a player's token or cookie for `me`."
        operation["security"] = [{}, {"bearer": []}, {"cookie": []}]
    parameters: list[JsonValue] = [
        _path_parameter(kind, name, found) for kind, name in _ARGUMENT.findall(rule)
    ]
    parameters += [{"name": name, "in": "query", **QUERY[name]} for name in found.query]
    parameters += [{"name": name, "in": "header", **HEADERS[name]} for name in found.headers]
    if parameters:
        operation["parameters"] = parameters
    if found.body is not None:
        body = _component(found.body, components)
        operation["requestBody"] = {"required": True, "content": _json(body)}
    operation["responses"] = _responses(rule, found, components)
    return operation


def _path_parameter(kind: str, name: str, found: Operation) -> JsonDict:
    described = found.path.get(name) or PATH.get(name)
    if described is None:
        schema: JsonDict = (
            {"type": "integer", "minimum": 0} if kind == "int" else {"type": "string"}
        )
        described = {"schema": schema}
    return {"name": name, "in": "path", "required": True, **described}


def _responses(rule: str, found: Operation, components: JsonDict) -> JsonDict:
    description = found.description or "the answer"
    if found.answer is None:  # this document itself
        return {str(found.status): {"description": "OpenAPI 3.1"}}
    content = _json(_component(found.answer, components))
    answer: JsonDict = {"description": description, "content": content}
    responses: JsonDict = {str(found.status): answer}
    statuses = (*found.errors, *ALWAYS) if rule.startswith("/api/") else found.errors
    error = _component(found.answer if found.errors_answer else answers.ErrorAnswer, components)
    for status in sorted(set(statuses)):
        responses[str(status)] = {"description": MEANINGS[status], "content": _json(error)}
    return responses


def _json(schema: JsonValue) -> JsonDict:
    return {"application/json": {"schema": schema}}


def _component(model: type[BaseModel], components: JsonDict) -> JsonDict:
    """A reference to *model*'s schema, added to *components* with the models it names."""
    name = NAMES.get(model, model.__name__)
    if name not in components:
        schema = dict(answers.answer_schema(model))
        components.update(cast(JsonDict, schema.pop("$defs", {})))
        components[name] = schema
    return {"$ref": f"#/components/schemas/{name}"}
