"""The modes registry: every mode can be started, is documented, and reads back the same."""

from __future__ import annotations

from typing import Any

import pytest

from daily.core import dice
from daily.core.errors import ModeError
from daily.core.modes import MODES, find_mode
from daily.web import bodies, game_starts, openapi

from .helpers import api_blueprints_app


def test_every_mode_has_a_body_and_a_starter() -> None:
    for mode in MODES:
        model = bodies.new_game_model(mode)
        assert model.model_fields["mode"].annotation.__args__ == (mode,)  # type: ignore[union-attr]
        assert model in game_starts.STARTERS
    assert set(game_starts.STARTERS) == set(bodies.NEW_GAME)


def test_the_document_lists_every_mode_and_each_start_body() -> None:
    document: dict[str, Any] = openapi.document(api_blueprints_app())  # JSON, walked by key
    schemas_ = document["components"]["schemas"]
    assert schemas_["GameState"]["properties"]["mode"]["enum"] == list(MODES)
    new_game = schemas_["NewGame"]
    mapping = new_game["discriminator"]["mapping"]
    assert new_game["discriminator"]["propertyName"] == "mode"
    assert sorted(mapping) == sorted(MODES)  # one named body per mode
    assert sorted(v["$ref"] for v in new_game["oneOf"]) == sorted(mapping.values())
    for mode, ref in mapping.items():
        body = schemas_[ref.rsplit("/", 1)[1]]
        assert body["properties"]["mode"]["const"] == mode


def test_an_unknown_mode_is_refused_by_name() -> None:
    with pytest.raises(ModeError, match="known: daily, friend, solo, party, computer"):
        find_mode("chess")


@pytest.mark.parametrize("text", ["daily:2026-12-01", "friend:K7P2QX9D", "hex:" + "ab" * 32])
def test_a_seed_reference_reads_back_as_written(text: str) -> None:
    assert str(dice.SeedRef.parse(text)) == text


@pytest.mark.parametrize("text", ["", "daily", "moon:1", "friend:"])
def test_a_bad_seed_reference_is_refused(text: Any) -> None:
    with pytest.raises(ValueError, match="not a seed reference"):
        dice.SeedRef.parse(text)
