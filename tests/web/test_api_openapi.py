"""The OpenAPI document describes every route of the game API, with its methods."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.redis


def test_every_api_route_is_described(make_app: Any) -> None:
    app = make_app()
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    assert document["openapi"] == "3.1.0"
    described = {
        (path, method.upper()) for path, item in document["paths"].items() for method in item
    }
    routes = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule.removeprefix("/api/v1")), method)
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("api.")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert routes == described


def test_references_resolve(make_app: Any) -> None:
    document = make_app().test_client().get("/api/v1/openapi.json").get_json()
    text = str(document)
    for name in re.findall(r"#/components/schemas/(\w+)", text):
        assert name in document["components"]["schemas"]
