"""The OpenAPI document describes every route under /api/ (any blueprint), with its methods."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.redis


def _described(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in document["paths"].items() for method in item}


def test_every_api_route_is_described(make_app: Any) -> None:
    app = make_app()
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    assert document["openapi"] == "3.1.0"
    assert document["servers"] == [{"url": "/"}]  # paths are whole: /healthz is outside /api
    routes = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method)
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/") or rule.endpoint == "health.healthz"
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    blueprints = {rule.endpoint.split(".")[0] for rule in app.url_map.iter_rules()}
    assert {"api", "boards", "health"} <= blueprints  # the rankings are in the map at all
    assert ("/api/v1/leaderboards/advent/{year}", "GET") in routes
    assert ("/healthz", "GET") in routes
    assert routes == _described(document)


def test_every_operation_documents_its_errors(make_app: Any) -> None:
    document = make_app().test_client().get("/api/v1/openapi.json").get_json()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert any(s.startswith("2") for s in responses), (path, method)
            if path.startswith("/api/v1/") and path != "/api/v1/openapi.json":
                assert {"429", "503"} <= set(responses), (path, method)
                for status, response in responses.items():
                    if not status.startswith("2"):
                        schema = response["content"]["application/json"]["schema"]
                        assert schema == {"$ref": "#/components/schemas/Error"}, (path, status)
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    assert f"{{{parameter['name']}}}" in path, (path, parameter["name"])


def test_board_queries_are_described(make_app: Any) -> None:
    document = make_app().test_client().get("/api/v1/openapi.json").get_json()
    boards = [p for p in document["paths"] if p.startswith("/api/v1/leaderboards/")]
    assert len(boards) == 5
    for path in boards:
        operation = document["paths"][path]["get"]
        query = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
        assert query == {"limit", "offset", "around"}, path
        assert {"200", "400", "401"} <= set(operation["responses"]), path


@pytest.mark.parametrize("value", ["\u00b2", "\uff15", "-1", "1.5", "x", "", "1000000001"])
def test_documented_integer_queries_refuse_what_is_not_one(make_app: Any, value: str) -> None:
    # '²' passes str.isdigit() but not int() (it was a 500); '５' passes both (it was read as 5).
    client = make_app().test_client()
    document = client.get("/api/v1/openapi.json").get_json()
    asked = 0
    for path, item in document["paths"].items():
        if "{code}" in path:  # the code is checked first (a 400 of its own); same query parser
            continue
        for parameter in item.get("get", {}).get("parameters", []):
            if parameter["in"] == "query" and parameter["schema"].get("type") == "integer":
                url = path.replace("{day}", "2026-11-02").replace("{year}", "2026")
                response = client.get(url, query_string={parameter["name"]: value})
                assert response.status_code == 400, (url, parameter["name"], value)
                error = response.get_json()["error"]
                assert error["code"] == "bad_request", (url, parameter["name"])
                assert parameter["name"] in error["message"]
                asked += 1
    assert asked == 4 * 2 + 1  # limit and offset of the four boards without a code, band


def test_references_resolve(make_app: Any) -> None:
    document = make_app().test_client().get("/api/v1/openapi.json").get_json()
    text = str(document)
    names = re.findall(r"#/components/schemas/(\w+)", text)
    assert {"Entry", "BoardPage", "Distribution", "GameState"} <= set(names)
    for name in names:
        assert name in document["components"]["schemas"]
