"""A client generated from the OpenAPI document plays against the live app.

openapi-python-client writes a Python package from the document; the test imports it and
plays a whole daily, a friend code (made by one player, played by another with the first
one's score as the target) and a solo game, over HTTP, against the app served on a free port
with a real Redis.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from werkzeug.serving import make_server

from daily.web import openapi

from .helpers import api_blueprints_app

pytestmark = pytest.mark.redis

PACKAGE = "daily_api"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The client package generated from the document (its modules imported on demand)."""
    folder = tmp_path_factory.mktemp("client")
    document = folder / "openapi.json"
    document.write_text(json.dumps(openapi.document(api_blueprints_app())))
    config = folder / "config.yaml"
    config.write_text("post_hooks: []\n")  # the generated code is used, not linted
    tool = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    assert tool, "openapi-python-client is installed by the test extra"
    command = [tool, "generate", "--path", str(document), "--config", str(config),
               "--meta", "none", "--output-path", str(folder / PACKAGE)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout, result.stdout  # every schema became a model
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture
def base_url(make_app: Any) -> Iterator[str]:
    """The app served by werkzeug in a thread, on a free port."""
    server = make_server("127.0.0.1", 0, make_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()
    server.server_close()


def _op(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.default.{name}")


def _models() -> Any:
    return importlib.import_module(f"{PACKAGE}.models")


class Player:
    """A player made through the generated client, holding its authenticated client."""

    def __init__(self, api: ModuleType, base_url: str, name: str) -> None:
        with api.Client(base_url=base_url) as anonymous:
            made = _op("create_player").sync(client=anonymous, body=_models().NewPlayer(name=name))
        assert isinstance(made, _models().PlayerAnswer), made
        self.id = made.player_id
        self.client = api.AuthenticatedClient(base_url=base_url, token=made.token)

    def start(self, body: Any) -> Any:
        """Starts a game with *body*; its first state."""
        state = _op("create_game").sync(client=self.client, body=body)
        assert isinstance(state, _models().GameState), state
        return state

    def play(self, state: Any) -> Any:
        """Plays *state*'s game to its end, scoring the first open row each turn; the whole
        game as it ends (a move answers only what it changed: ``Played``)."""
        score = _op("score")
        game_id = state.id
        while not state.finished:
            row = next(iter(state.potential.to_dict()))
            body = _models().ScoreBody(category=row, move=state.move_count)
            state = score.sync(client=self.client, game_id=game_id, body=body)
            assert isinstance(state, _models().Played), state
        game = _op("get_game").sync(client=self.client, game_id=game_id)
        assert isinstance(game, _models().GameState) and game.total == state.total, game
        return game


@pytest.mark.one_redis
def test_a_generated_client_plays_every_kind_of_game(api: ModuleType, base_url: str) -> None:
    models = _models()
    ana, bo = Player(api, base_url, "Ana"), Player(api, base_url, "Bo")
    with ana.client, bo.client:
        daily = ana.play(ana.start(models.NewDaily(mode="daily")))
        assert daily.board.startswith("daily/") and daily.standing.place == 1
        assert daily.standing.new and daily.records.days == 1  # a new player's first day
        today = _op("today").sync(client=ana.client)
        assert today.game.to_dict() == {"id": daily.id, "finished": True, "total": daily.total}
        record = _op("record").sync(client=ana.client, game_id=daily.id)
        assert [m.to_dict() for m in record.moves] == [m.to_dict() for m in daily.moves]

        made = ana.play(ana.start(models.NewFriend(mode="friend", ruleset="yatzy")))
        joined = bo.start(models.NewFriend(mode="friend", code=made.code, target=True))
        assert joined.ruleset == "yatzy" and joined.target.name == "Ana"
        theirs = bo.play(joined)
        assert theirs.target.total == made.total
        board = _op("friend_board").sync(client=bo.client, code=made.code)
        assert sorted(e.player_id for e in board.entries) == sorted([ana.id, bo.id])
        assert board.me.player_id == bo.id

        solo = ana.play(ana.start(models.NewSolo(mode="solo", ruleset="yatzy")))
        assert solo.finished and solo.mode.value == "solo" and solo.board is None


def test_every_operation_is_named(api: ModuleType) -> None:
    document: dict[str, Any] = openapi.document(api_blueprints_app())  # JSON, walked by key
    names = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(names) == len(set(names))
    for name in names:  # each a function of the client, named as the view
        assert callable(_op(name).sync_detailed), name
