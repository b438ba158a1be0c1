"""The OpenAPI 3.1 description of the whole HTTP API (served by :mod:`api`).

Players, daily puzzles, games, the rankings of :mod:`boards` and ``/healthz``.
tests/web/test_api_openapi.py checks that every route under ``/api/`` (any blueprint) is
described here; tests/web/test_schemathesis.py fuzzes the app against it.
"""

from __future__ import annotations

from typing import Any

from daily import __version__
from daily.store import boards
from daily.web import answers, leagues, schemas
from daily.web.boards import MAX_OFFSET


def _model(model: type[schemas.Body]) -> dict[str, Any]:
    """The JSON schema of a request body, generated from its model (every limit in it)."""
    return model.model_json_schema(ref_template="#/components/schemas/{model}")


def _answers() -> dict[str, Any]:
    """The answers generated from their models, under the names the paths refer to."""
    found: dict[str, Any] = {}
    named: dict[str, type[schemas.Answer]] = {
        "Error": schemas.ErrorAnswer,
        "Player": schemas.PlayerAnswer,
        "Daily": schemas.DailyAnswer,
        "GameState": answers.GameState,
        "Hint": answers.Hint,
        "Analysis": answers.Analysis,
        "BoardPage": answers.BoardPage,
        "Distribution": answers.Distribution,
        "Record": answers.Record,
        "League": leagues.LeagueAnswer,
        "Leagues": leagues.LeaguesAnswer,
        "LeagueBoard": leagues.StandingAnswer,
    }
    for name, model in named.items():
        schema: dict[str, Any] = dict(schemas.answer_schema(model))
        found.update(schema.pop("$defs", {}))
        found[name] = schema
    return found


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    meaning = {
        400: "malformed input (bad JSON, wrong types, unknown fields, malformed code)",
        401: "a tampered token or session cookie, or no player yet",
        403: "not allowed in this game's mode, or not yet",
        404: "no such game, code or open day",
        409: "a conflict: a second start, a stale or illegal move, a finished game, a closed"
        " code (code_closed, with practice_at)",
        413: "a body over 16 KiB",
        429: "a rate limit met (Retry-After says when to come back)",
        415: "a body that is not application/json",
        503: "the store is unavailable, or the strategy table is being built "
        "(`strategy_table_building`: Retry-After and `progress` say when to come back)",
    }
    return {str(s): _json(_ref("Error"), meaning[s]) for s in (*statuses, 429, 503)}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _object(required: list[str], **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": False,
    }


API = "/api/v1"
_GAME_ID = [{"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_DAY = [
    {"name": "day", "in": "path", "required": True, "schema": {"type": "string", "format": "date"}}
]

_BOARD_DAY = [
    {
        "name": "day",
        "in": "path",
        "required": True,
        "description": "YYYY-MM-DD from 2026-01-01 (earlier: 404), or `today`",
        "schema": {"anyOf": [{"type": "string", "format": "date"}, {"const": "today"}]},
    }
]
_YEAR = [
    {
        "name": "year",
        "in": "path",
        "required": True,
        "description": "2026 to 9999 (other years: 404)",
        "schema": {"type": "integer", "minimum": 0},
    }
]
_CODE = [
    {
        "name": "code",
        "in": "path",
        "required": True,
        "description": "a friend code, XXXX-XXXX (malformed: 400, unknown: 404)",
        "schema": {"type": "string"},
    }
]
_PAGE_QUERY = [
    {
        "name": "limit",
        "in": "query",
        "description": "entries on the page (default 50)",
        "schema": {"type": "integer", "minimum": 1, "maximum": boards.MAX_LIMIT},
    },
    {
        "name": "offset",
        "in": "query",
        "description": "entries skipped from the top (default 0)",
        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
    },
    {
        "name": "around",
        "in": "query",
        "description": "`me`: the page centred on the asking player (needs a player, else 400)",
        "schema": {"const": "me"},
    },
]
_BAND = {
    "name": "band",
    "in": "query",
    "description": "points per band (default 50)",
    "schema": {"type": "integer", "minimum": 1, "maximum": boards.DAILY_TOP + 1},
}
_TABLE_STATUS = _object(
    ["ruleset", "state"],
    ruleset={"type": "string", "description": "`maxi`, or with options: `maxi:bonus=50@75`"},
    state={"enum": ["missing", "building", "ready"]},
    percent={"type": "number", "description": "building: the share of the work done"},
    seconds={"type": "number", "description": "building: spent so far; ready: the build's"},
    eta={"type": "number", "description": "building: estimated seconds left"},
)
_HEALTH_BODY = _object(
    ["status", "redis", "version", "tables"],
    status={"enum": ["ok", "unavailable"]},
    redis={"type": "string", "description": "`ok`, or `unreachable: <reason>`"},
    version={"type": "string"},
    tables={
        "type": "array",
        "items": _TABLE_STATUS,
        "description": "each strategy table the service builds by itself (DAILY_TABLES)",
    },
)
_HEALTH = {
    "get": {
        "summary": "200 while Redis answers a PING, else 503 (for a load balancer).",
        "security": [],
        "responses": {
            "200": _json(_HEALTH_BODY, "the service and its store are up"),
            "503": _json(_HEALTH_BODY, "Redis does not answer"),
        },
    }
}

_SCHEMAS: dict[str, Any] = {
    "NewGame": {"oneOf": [_model(model) for model in schemas.NEW_GAME]},
}


def document() -> dict[str, Any]:
    """The OpenAPI document of every /api/ route and /healthz."""
    state = _json(_ref("GameState"), "the game as its player sees it")
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "daily",
            "version": __version__,
            "description": "The same Maxi Yatzy dice for everybody, every day.",
        },
        "servers": [{"url": "/"}],
        "components": {
            "schemas": {**_SCHEMAS, **_answers()},
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "session"},
            },
        },
        "security": [{"bearer": []}, {"cookie": []}],
        "paths": {
            **{f"{API}{path}": item for path, item in _game_paths(state).items()},
            **{f"{API}{path}": item for path, item in _ranking_paths().items()},
            **{f"{API}{path}": item for path, item in _league_paths().items()},
            "/healthz": _HEALTH,
        },
    }


def _game_paths(state: dict[str, Any]) -> dict[str, Any]:
    """The players, daily and games endpoints (:mod:`api`), below ``/api/v1``."""
    return {
        "/players": {
            "post": {
                "summary": "Create a player; the token signs later calls.",
                "security": [],
                "requestBody": _body(_model(schemas.NewPlayer)),
                "responses": {
                    "201": _json(_ref("Player"), "the player and token"),
                    **_errors(400, 413, 415),
                },
            }
        },
        "/players/me": {
            "get": {
                "summary": "The asking player (401 before it has one: a read makes none).",
                "responses": {"200": _json(_ref("Player"), "the player"), **_errors(401, 404)},
            },
            "patch": {
                "summary": "Rename the asking player.",
                "requestBody": _body(_model(schemas.NewPlayer)),
                "responses": {
                    "200": _json(_ref("Player"), "the player"),
                    **_errors(400, 401, 413, 415),
                },
            },
        },
        "/daily": {
            "get": {
                "summary": "Today's puzzle.",
                "security": [],
                "responses": {"200": _json(_ref("Daily"), "the puzzle"), **_errors()},
            }
        },
        "/daily/{day}": {
            "get": {
                "summary": "A day's puzzle; its seed once revealed.",
                "security": [],
                "parameters": _DAY,
                "responses": {"200": _json(_ref("Daily"), "the puzzle"), **_errors(400, 404)},
            }
        },
        "/games": {
            "post": {
                "summary": "Start a game (first roll dealt).",
                "requestBody": _body(_ref("NewGame")),
                "responses": {"201": state, **_errors(400, 401, 404, 409, 413, 415)},
            }
        },
        "/games/{game_id}": {
            "get": {
                "summary": "A game.",
                "parameters": _GAME_ID,
                "responses": {"200": state, **_errors(401, 404)},
            }
        },
        "/games/{game_id}/roll": {
            "post": {
                "summary": "Re-roll every die but the held positions.",
                "parameters": _GAME_ID,
                "requestBody": _body(_model(schemas.RollBody)),
                "responses": {"200": state, **_errors(400, 401, 404, 409, 413, 415)},
            }
        },
        "/games/{game_id}/score": {
            "post": {
                "summary": "Score a row; the next turn's first roll is dealt.",
                "parameters": _GAME_ID,
                "requestBody": _body(_model(schemas.ScoreBody)),
                "responses": {"200": state, **_errors(400, 401, 404, 409, 413, 415)},
            }
        },
        "/games/{game_id}/record": {
            "get": {
                "summary": "The record `daily verify` reads (finished games).",
                "parameters": _GAME_ID,
                "responses": {
                    "200": _json(_ref("Record"), "the record"),
                    **_errors(401, 404, 409),
                },
            }
        },
        "/games/{game_id}/hint": {
            "get": {
                "summary": "Every legal action with its expected final score (solo, computer).",
                "parameters": _GAME_ID,
                "responses": {
                    "200": _json(_ref("Hint"), "the ranked actions"),
                    **_errors(401, 403, 404, 409, 503),
                },
            }
        },
        "/games/{game_id}/analysis": {
            "get": {
                "summary": "Each decision of a finished game, the best one and the loss.",
                "parameters": _GAME_ID,
                "responses": {
                    "200": _json(_ref("Analysis"), "the analysis"),
                    **_errors(401, 403, 404, 409, 503),
                },
            }
        },
        "/openapi.json": {
            "get": {
                "summary": "This document.",
                "security": [],
                "responses": {"200": {"description": "OpenAPI 3.1"}},
            }
        },
    }


def _board(summary: str, parameters: list[dict[str, Any]], *statuses: int) -> dict[str, Any]:
    return {
        "get": {
            "summary": summary,
            "description": "Anonymous, or with a player's token or cookie for `me`/`around=me`.",
            "security": [{}, {"bearer": []}, {"cookie": []}],
            "parameters": [*parameters, *_PAGE_QUERY],
            "responses": {
                "200": _json(_ref("BoardPage"), "the page of the board"),
                **_errors(400, 401, *statuses),
            },
        }
    }


def _ranking_paths() -> dict[str, Any]:
    """The leaderboards and the day's distribution (:mod:`boards`), below ``/api/v1``."""
    return {
        "/leaderboards/daily/{day}": _board(
            "One day's board (`today` works as the day).", _BOARD_DAY, 404
        ),
        "/leaderboards/best-day": _board("Every player's best daily total.", []),
        "/leaderboards/streak": _board(
            "The longest runs of consecutive days played (`current`: the run alive today).", []
        ),
        "/leaderboards/advent/{year}": _board(
            "The advent calendar of a year: each player's door scores summed.", _YEAR, 404
        ),
        "/leaderboards/friend/{code}": _board("The games played on one friend code.", _CODE, 404),
        "/daily/{day}/distribution": {
            "get": {
                "summary": "How many players reached each band of scores on a day.",
                "security": [],
                "parameters": [*_BOARD_DAY, _BAND],
                "responses": {
                    "200": _json(_ref("Distribution"), "the bands, lowest first"),
                    **_errors(400, 404),
                },
            }
        },
    }


_LEAGUE_ID = [
    {
        "name": "league_id",
        "in": "path",
        "required": True,
        "description": "the league's id, the end of its invite link (unknown: 404)",
        "schema": {"type": "string"},
    }
]
_MEMBER = [
    {
        "name": "player_id",
        "in": "path",
        "required": True,
        "description": "`me` (or the asker's id) to leave; another member's id to remove them",
        "schema": {"type": "string"},
    }
]


def _league_board(summary: str) -> dict[str, Any]:
    return {
        "get": {
            "summary": summary,
            "parameters": [*_LEAGUE_ID, *_BOARD_DAY],
            "responses": {
                "200": _json(_ref("LeagueBoard"), "the board, best first"),
                **_errors(400, 401, 404),
            },
        }
    }


def _league_paths() -> dict[str, Any]:
    """The leagues (:mod:`leagues`), below ``/api/v1``: 409 `league_full` or
    `too_many_leagues` at a limit, 403 `not_owner` for the owner's actions."""
    league = _json(_ref("League"), "the league as the asker sees it")
    name = _body(_model(leagues.NewLeague))
    return {
        "/leagues": {
            "get": {
                "summary": "The leagues the asking player is in.",
                "responses": {"200": _json(_ref("Leagues"), "the leagues"), **_errors(401)},
            },
            "post": {
                "summary": "Start a league; the asker owns it and is its first member.",
                "requestBody": name,
                "responses": {"201": league, **_errors(400, 401, 409, 413, 415)},
            },
        },
        "/leagues/{league_id}": {
            "get": {
                "summary": "A league: name and owner for anyone, members for its members.",
                "parameters": _LEAGUE_ID,
                "responses": {"200": league, **_errors(401, 404)},
            },
            "patch": {
                "summary": "Rename a league (its owner only).",
                "parameters": _LEAGUE_ID,
                "requestBody": name,
                "responses": {"200": league, **_errors(400, 401, 403, 404, 413, 415)},
            },
        },
        "/leagues/{league_id}/members": {
            "post": {
                "summary": "Join a league (again: no change).",
                "parameters": _LEAGUE_ID,
                "responses": {"200": league, **_errors(401, 404, 409)},
            }
        },
        "/leagues/{league_id}/members/{player_id}": {
            "delete": {
                "summary": "Leave a league (`me`), or remove a member (its owner only).",
                "parameters": [*_LEAGUE_ID, *_MEMBER],
                "responses": {
                    "200": league,
                    "204": {"description": "left the league"},
                    **_errors(400, 401, 403, 404),
                },
            }
        },
        "/leagues/{league_id}/days/{day}": _league_board(
            "A league's board of one day's daily (members only)."
        ),
        "/leagues/{league_id}/weeks/{day}": _league_board(
            "A league's table of the week holding the day: best five days summed (members only)."
        ),
    }
