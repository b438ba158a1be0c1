"""The answer models: what a view builds through them, and what they refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
import pytest

from daily.web import analysis_answers, answers, board_answers, openapi

from .helpers import api_blueprints_app


def test_an_explicit_null_stays_and_an_unset_field_is_left_out() -> None:
    entry = {"rank": 1, "player_id": "p", "name": "Ann", "score": 300}
    page = {"board": "best-day", "total": 1, "ranked": 1, "offset": 0, "entries": [entry],
            "me": None}  # fmt: skip
    # no "current", and "me" stays null
    assert answers.dump(board_answers.BoardPage.model_validate(page)) == page


def test_an_alias_is_the_json_name() -> None:
    body = {"date": "2026-12-01", "band": 50, "players": 2,
            "bands": [{"from": 0, "to": 49, "players": 2}]}  # fmt: skip
    assert answers.dump(board_answers.Distribution.model_validate(body)) == body


@pytest.mark.parametrize(
    "change",
    [{"extra": 1}, {"rank": 0}, {"score": "many"}],
    ids=["unknown field", "rank below 1", "not an integer"],
)
def test_a_body_off_its_model_is_refused(change: dict[str, object]) -> None:
    entry = {"rank": 1, "player_id": "p", "name": "Ann", "score": 300} | change
    with pytest.raises(pydantic.ValidationError):
        board_answers.Entry.model_validate(entry)


def test_the_document_is_generated_from_the_models() -> None:
    document: dict[str, Any] = openapi.document(api_blueprints_app())  # JSON, walked by key
    found = document["components"]["schemas"]
    for name in ("GameState", "Hint", "Analysis", "BoardPage", "Distribution", "Record"):
        module = next(m for m in (board_answers, analysis_answers, answers) if hasattr(m, name))
        schema = dict(getattr(module, name).model_json_schema(
            ref_template="#/components/schemas/{model}"))  # fmt: skip
        schema.pop("$defs", None)
        assert found[name] == schema, name
    assert found["GameState"]["properties"]["mode"]["enum"] == ["daily", "friend", "solo",
                                                                "party", "computer"]  # fmt: skip


def test_each_answer_field_is_declared_once_in_its_model() -> None:
    # No TypedDict mirrors a model's fields where the answers are built (issue 41.5): a view
    # gives a model its fields directly, or through answers.built, the one place that
    # validates gathered fields into a model.
    package = Path(answers.__file__).parent
    builders = ("game_answers.py", "strategy_answers.py", "board_views.py", "league_answers.py",
                "answers.py", "analysis_answers.py", "board_answers.py")  # fmt: skip
    for name in builders:
        text = (package / name).read_text(encoding="utf-8")
        assert "TypedDict" not in text, name
        assert name == "answers.py" or "model_validate" not in text, name


def test_a_built_answer_keeps_the_parts_fields_and_leaves_the_rest_unset() -> None:
    totals = answers.Totals(turn=3, scorecard={"chance": None}, upper=0, bonus=0,
                            extra_bonus=0, total=0, finished=False)  # fmt: skip
    sheet = answers.built(answers.PartySheet, totals, name="Ann", total=12)
    assert answers.dump(sheet) == answers.dump(totals) | {"name": "Ann", "total": 12}
    entry = answers.built(board_answers.Entry, rank=None, player_id="p", name="Ann", score=1)
    assert answers.dump(entry) == {"rank": None, "player_id": "p", "name": "Ann", "score": 1}


@pytest.mark.parametrize(
    "change",
    [{"extra": 1}, {"turn": "third"}, {"name": None}],
    ids=["unknown field", "not an integer", "a required field null"],
)
def test_a_built_answer_refuses_what_its_model_does_not_declare(change: dict[str, object]) -> None:
    # What mypy checked in the mirrors, the model checks where the answer is built.
    totals = answers.Totals(turn=3, scorecard={}, upper=0, bonus=0, extra_bonus=0, total=0,
                            finished=False)  # fmt: skip
    with pytest.raises(pydantic.ValidationError):
        answers.built(answers.PartySheet, totals, **({"name": "Ann"} | change))
