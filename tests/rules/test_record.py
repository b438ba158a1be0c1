"""The compact game record: one character a move, the same moves back, and a JSON line."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from daily.core.errors import ReplayError
from daily.core.record import ComputerPart, OnCode, PartyPart, Record, decode_moves, encode_moves
from daily.core.rules import BASE_RULESETS, Roll, Score, find_ruleset, legal_moves, new_game

NAMES = sorted(BASE_RULESETS)


@pytest.mark.parametrize("name", NAMES)
def test_every_legal_move_of_every_ruleset_is_one_character_and_reads_back(name: str) -> None:
    rules = find_ruleset(name)
    state = new_game(rules, lambda turn, holds, count: (1, 2, 3, 4, 5, 6)[:count])
    moves = [*legal_moves(state), *(Score(row) for row in rules.row_ids)]
    text = encode_moves(rules, moves)
    assert len(text) == len(moves) and text.isascii() and text.isprintable()
    assert decode_moves(rules, text) == tuple(moves)


@given(st.lists(st.integers(0, 63).map(lambda m: Roll(tuple(p for p in range(6) if m >> p & 1)))))
def test_any_hold_of_six_dice_reads_back(moves: list[Roll]) -> None:
    maxi = find_ruleset("maxi")
    assert decode_moves(maxi, encode_moves(maxi, moves)) == tuple(moves)


@pytest.mark.parametrize("text", ["~", " ", "\u00e9", "a\n"], ids=["row", "space", "latin", "nl"])
def test_a_character_that_is_no_move_is_a_replay_error(text: str) -> None:
    with pytest.raises(ReplayError):
        decode_moves(find_ruleset("yacht"), text)


def test_a_replay_error_names_the_first_character_that_is_no_move() -> None:
    with pytest.raises(ReplayError, match="move 2: not a move of yacht: '~'") as raised:
        decode_moves(find_ruleset("yacht"), "a(~b\n")
    assert raised.value.index == 2


def test_a_hold_past_the_sixth_die_is_refused_not_written() -> None:
    with pytest.raises(ValueError, match="sixth"):
        encode_moves(find_ruleset("maxi"), [Roll((6,))])


@pytest.mark.parametrize(
    "record",
    [
        Record("g1", "daily", "maxi", {}, "p1", "daily:2026-12-03", 1.5, (Roll((0, 5)),),
               day=date(2026, 12, 3), on_code=OnCode("K7P2QX9D", closes_at=9.0),
               finished=True, total=250, finished_at=2.5, share="ABCD1234", submitted=True,
               extra={"luck": "0.1"}),
        Record("g2", "party", "yatzy", {"forced": True}, "p1", "hex:" + "00" * 32, 1.0,
               party_part=PartyPart(("Ana", "Bo"))),
        Record("g3", "computer", "yacht", {}, "p1", "hex:" + "11" * 32, 1.0, (Score("sixes"),),
               computer_part=ComputerPart("hard", "exact", (Score("ones"),)), stream="v2"),
    ],
    ids=["daily-on-code", "party", "computer"],
)  # fmt: skip
def test_a_record_reads_back_from_its_json_line(record: Record) -> None:
    assert Record.from_dict(record.to_dict()) == record
