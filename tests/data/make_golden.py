"""Writes the golden games once (``python tests/data/make_golden.py``); tests pin what it wrote.

Re-running it on a changed dice stream or rules engine would hide the change:
the golden files exist so that such a change fails tests/dice/test_golden.py.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from daily.core.dice import stream
from daily.core.rules import GameState, Move, MoveEntry, Roll, Score, apply, find_ruleset, new_game

HERE = Path(__file__).parent
GAMES: list[tuple[str, str, dict[str, object], str]] = [
    ("maxi-default", "maxi", {}, "v1"),
    (
        "maxi-saved-rolls",
        "maxi",
        {"saved_rolls": True, "bonus": "50@75", "full_straight": 30},
        "v1",
    ),
    ("yatzy-forced", "yatzy", {"forced": True}, "v1"),
    ("yacht", "yacht", {}, "v1"),
    ("yahtzee", "yahtzee", {}, "v1"),
    ("maxi-v2", "maxi", {}, "v2"),  # dice stream v2: re-rolls keyed on the whole path
]


def policy(state: GameState, turn_style: int) -> Move:
    """A fixed, varied way to play: keep the most common face, sometimes scratch early."""
    potential = state.potential()
    face, count = Counter(state.dice).most_common(1)[0]
    if state.rolls_left and count < len(state.dice) and (state.roll == 1 or turn_style % 3 == 0):
        return Roll(tuple(i for i, d in enumerate(state.dice) if d == face))
    return Score(max(potential, key=lambda row: potential[row]))


def play(name: str, ruleset_id: str, options: dict[str, object], version: str) -> dict[str, object]:
    seed = hashlib.sha256(f"golden:{name}".encode()).digest()
    rules = find_ruleset(ruleset_id, options)
    state = new_game(rules, stream(seed, version))
    moves: list[MoveEntry] = []
    seen = [list(state.dice)]
    while not state.is_finished:
        move = policy(state, state.turn)
        state = apply(state, move)
        moves.append(move.to_dict())
        seen.append(list(state.dice))
    # v1 files predate the "stream" field and stay as written: no field means v1.
    return {
        "description": f"{name}: seed sha256('golden:{name}'), pinned dice after every move",
        **({"stream": version} if version != "v1" else {}),
        "ruleset": ruleset_id,
        "options": options,
        "seed": seed.hex(),
        "moves": moves,
        "dice": seen,
        "scorecard": state.scorecard(),
        "total": state.total,
    }


if __name__ == "__main__":
    for name, ruleset_id, options, version in GAMES:
        record = play(name, ruleset_id, options, version)
        (HERE / f"golden-{name}.json").write_text(json.dumps(record, indent=1) + "\n")
