"""Operations: /healthz, the JSON access log and the version header."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from daily import __version__
from daily.core.rules import find_ruleset
from daily.service import upkeep
from daily.strategy.model import Model, model_of
from daily.tables import background
from daily.tables.files import temp_files
from daily.web.context import config_of
from tests.redis_servers import free_port

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
DOWN = "redis://127.0.0.1:1/0"  # nothing listens there


def access_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"time"')]


def test_healthz_is_ok_when_redis_answers(make_app: Any) -> None:
    response = make_app(now=NOON).test_client().get("/healthz")
    assert response.status_code == 200
    body = response.get_json()
    assert body == {"status": "ok", "redis": "ok", "version": __version__, "tables": []}


def test_healthz_lists_each_table_the_service_builds(
    make_app: Any, small_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []  # what would be built (maxi: minutes), recorded, not built

    def build(models: list[Model], site: object) -> bool:
        asked.extend(m.ruleset.spec for m in models)
        return True

    monkeypatch.setattr(background, "start", build)
    specs = ("maxi", "yatzy", "yatzy:forced=true")
    app = make_app(now=NOON, table_specs=specs)
    client = app.test_client()
    body = client.get("/healthz").get_json()
    assert [t["ruleset"] for t in body["tables"]] == ["maxi", "yatzy", "yatzy:forced=true"]
    assert [t["state"] for t in body["tables"]] == ["missing", "ready", "missing"]
    assert body["tables"][1]["seconds"] > 0  # what the build took
    assert asked == []  # the factory and a request start no build: a server's upkeep does
    upkeep.start(config_of(app))
    assert asked == ["maxi", "yatzy:forced=true"]  # the two missing, in their order


def test_healthz_is_503_json_when_redis_is_down(make_app: Any) -> None:
    response = make_app(now=NOON, redis_url=DOWN).test_client().get("/healthz")
    assert response.status_code == 503 and response.content_type == "application/json"
    body = response.get_json()
    assert body["status"] == "unavailable" and body["redis"].startswith("unreachable")


def test_every_response_names_the_version(make_app: Any) -> None:
    client = make_app(now=NOON).test_client()
    for path in ["/", "/api/v1/daily", "/healthz", "/static/site.css", "/nope", "/api/v1/nope"]:
        with client.get(path) as response:  # a static file is streamed: close it
            assert response.headers["X-Daily-Version"] == __version__, path
    assert client.post("/api/v1/players", data="x").headers["X-Daily-Version"] == __version__


def test_one_json_access_line_per_request(
    make_app: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    client = make_app(now=NOON).test_client()
    capsys.readouterr()
    game = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    client.get("/rules/maxi")
    client.get(f"/api/v1/games/{game['id']}x")
    lines = access_lines(capsys.readouterr().err)
    assert [(e["method"], e["path"], e["status"]) for e in lines] == [
        ("POST", "/api/v1/games", 201),
        ("GET", "/rules/maxi", 200),
        ("GET", f"/api/v1/games/{game['id']}x", 404),
    ]
    first = lines[0]
    assert isinstance(first["player"], str) and len(first["player"]) == 16  # the new guest
    assert first["endpoint"] == "api.create_game" and first["address"] == "127.0.0.1"
    assert all(isinstance(e["ms"], float | int) and e["ms"] >= 0 for e in lines)
    assert lines[0]["bytes"] > 0
    datetime.fromisoformat(lines[0]["time"])


def test_the_access_log_names_the_player_but_no_name(make_app: Any, capsys: Any) -> None:
    client = make_app(now=NOON).test_client()
    created = client.post("/api/v1/players", json={"name": "Ana Secret"}).get_json()
    client.get("/api/v1/players/me", headers={"Authorization": f"Bearer {created['token']}"})
    err = capsys.readouterr().err
    me = access_lines(err)[-1]
    assert me["player"] == created["player_id"] and me["status"] == 200
    assert "Ana Secret" not in err and created["token"] not in err


def _healthz(port: int) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz") as response:
            return dict(json.load(response))
    except OSError:
        return None


@pytest.mark.one_redis
@pytest.mark.slow
def test_serve_builds_the_missing_tables_as_it_starts(redis_url: str, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "DAILY_CACHE": str(tmp_path),
           "DAILY_TABLES": "yacht", "DAILY_NOW": "2026-12-03T12:00:00"}  # fmt: skip
    daily = Path(sys.executable).parent / "daily"
    server = subprocess.Popen(
        [str(daily), "serve", "--port", str(port)], env=env, stderr=subprocess.DEVNULL
    )
    try:
        seen = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            body = _healthz(port)
            if body is not None:
                seen.append(body["tables"][0]["state"])
                if seen[-1] == "ready":
                    break
            time.sleep(0.1)
        # Nobody asked for a hint: the server started the build by itself.
        assert seen and seen[-1] == "ready", seen
        assert set(seen) <= {"missing", "building", "ready"}
        assert body is not None and body["tables"][0]["ruleset"] == "yacht"
    finally:
        server.terminate()
        server.wait(10)
    assert temp_files(model_of(find_ruleset("yacht")), tmp_path) == []
