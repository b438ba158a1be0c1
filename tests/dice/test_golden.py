"""Golden games: a seed, a ruleset and moves, with the dice after every move pinned."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from daily.core import dice
from daily.core.rules import apply, find_ruleset, new_game, parse_move, replay

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = sorted(DATA.glob("golden-*.json"))


def test_there_are_golden_games() -> None:
    assert len(GOLDEN) >= 5


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game(path: Path) -> None:
    record: dict[str, Any] = json.loads(path.read_text())
    rules = find_ruleset(record["ruleset"], record["options"])
    source = dice.stream(bytes.fromhex(record["seed"]), record.get("stream", "v1"))
    state = new_game(rules, source)
    seen = [list(state.dice)]
    for entry in record["moves"]:
        state = apply(state, parse_move(entry))
        seen.append(list(state.dice))
    assert seen == record["dice"]
    assert state.is_finished
    assert state.scorecard() == record["scorecard"]
    assert state.total == record["total"]
    assert replay(rules, source, record["moves"]).total == record["total"]
