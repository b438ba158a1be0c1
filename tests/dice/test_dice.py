"""The dice streams v1 and v2, seeds and commitments: pinned vectors and a second implementation."""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daily.core import dice
from daily.core.rules import Roll, Score, find_ruleset, legal_moves, new_game, replay
from daily.core.rules import apply as apply_move

ZERO = bytes(32)
SECRET = "test-secret"


def reference_faces(seed: bytes, turn: int, holds: list[list[int]], count: int) -> list[int]:
    """The dice stream of docs/dice.md, implemented again from its text alone."""
    text = "".join("[" + ",".join(map(str, sorted(h))) + "]" for h in holds)
    out: list[int] = []
    counter = 0
    while len(out) < count:
        message = f"v1|{turn}|{text}|{counter}".encode("ascii")
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < 252 and len(out) < count:
                out.append(byte % 6 + 1)
        counter += 1
    return out


# The test vectors of docs/dice.md, word for word.
VECTORS = [
    (ZERO, 1, (), 6, (3, 2, 3, 4, 1, 1)),
    (ZERO, 1, ((),), 6, (1, 5, 5, 3, 2, 5)),
    (ZERO, 1, ((0, 3),), 6, (2, 5, 6, 4, 1, 2)),
    (ZERO, 1, ((0, 3), (0, 1, 3)), 6, (3, 4, 5, 3, 5, 6)),
    (ZERO, 2, (), 6, (5, 5, 2, 3, 1, 6)),
    (ZERO, 3, (), 6, (2, 6, 5, 2, 4, 5)),  # byte 0xfc skipped
    (ZERO, 20, ((5,),), 6, (3, 4, 2, 3, 4, 4)),
    (ZERO, 1, (), 40, (3, 2, 3, 4, 1, 1, 6, 4, 5, 5, 5, 2, 6, 6, 3, 2, 2, 4, 5, 5,
                       2, 1, 1, 1, 2, 4, 1, 2, 1, 3, 6, 2, 3, 3, 4, 3, 2, 3, 6, 6)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("seed", "turn", "holds", "count", "expected"),
    VECTORS,
    ids=["first", "empty-hold", "one-hold", "two-holds", "turn2", "skip", "turn20", "40-dice"],
)
def test_vectors(
    seed: bytes,
    turn: int,
    holds: tuple[tuple[int, ...], ...],
    count: int,
    expected: tuple[int, ...],
) -> None:
    assert dice.faces(seed, turn, holds, count) == expected
    assert tuple(reference_faces(seed, turn, [list(h) for h in holds], count)) == expected


def test_seed_vectors() -> None:
    seed = dice.daily_seed(SECRET, date(2026, 12, 1))
    assert seed.hex() == "5ac9ffe0bfab94d45aa11e349e02df3b6e2cdde1cfd2b8c1bcf94216f7110141"
    assert dice.commitment(seed) == (
        "ab8ce4820a0f9836127879d505c82e68f7b1c84deb4550d1bf409bdfa559a8b5"
    )
    assert dice.friend_seed(SECRET, "K7P2QX9D").hex() == (
        "a0f528c28ad893014ddc13d728fa8de9f24e18d3e02652c984e078e6128a4eca"
    )


def test_seeds_differ_by_date_secret_and_kind() -> None:
    day = date(2026, 12, 1)
    seeds = {
        dice.daily_seed(SECRET, day),
        dice.daily_seed(SECRET, date(2026, 12, 2)),
        dice.daily_seed("other", day),
        dice.friend_seed(SECRET, "2026-12-01"),
    }
    assert len(seeds) == 4


@given(
    st.binary(min_size=32, max_size=32),
    st.integers(1, 30),
    st.lists(st.lists(st.integers(0, 5), max_size=5, unique=True), max_size=4),
    st.integers(1, 50),
)
def test_matches_the_reference(seed: bytes, turn: int, holds: list[list[int]], count: int) -> None:
    as_tuples = tuple(tuple(sorted(h)) for h in holds)
    assert list(dice.faces(seed, turn, as_tuples, count)) == reference_faces(
        seed, turn, holds, count
    )


def test_faces_are_roughly_uniform() -> None:
    # 60,000 dice: each face's share within 1.5% of 1/6 (about 6 standard deviations).
    counts = Counter(d for turn in range(1, 10_001) for d in dice.faces(ZERO, turn, (), 6))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(abs(n / 60_000 - 1 / 6) < 0.015 for n in counts.values())


def test_first_roll_of_every_turn_ignores_earlier_turns() -> None:
    maxi = find_ruleset("maxi")
    source = dice.stream(ZERO)
    a = new_game(maxi, source)
    b = apply_move(apply_move(a, Roll((0,))), Roll(()))
    a, b = apply_move(a, Score("chance")), apply_move(b, Score("ones"))
    assert a.dice == b.dice == dice.faces(ZERO, 2, (), 6)


def test_same_holds_same_dice_and_held_dice_stay() -> None:
    maxi = find_ruleset("maxi")
    first = new_game(maxi, dice.stream(ZERO))
    one = apply_move(first, Roll((1, 4)))
    two = apply_move(new_game(maxi, dice.stream(ZERO)), Roll((4, 1)))
    assert one.dice == two.dice
    assert (one.dice[1], one.dice[4]) == (first.dice[1], first.dice[4])
    fresh = dice.faces(ZERO, 1, ((1, 4),), 6)
    assert [one.dice[i] for i in (0, 2, 3, 5)] == [fresh[i] for i in (0, 2, 3, 5)]


def test_replay_is_a_fold_over_the_stream() -> None:
    moves = [{"hold": [0]}, {"score": "ones"}, {"hold": []}, {"hold": [2, 3]}, {"score": "chance"}]
    state = replay(find_ruleset("maxi"), dice.stream(ZERO), moves)
    assert state.turn == 3
    assert state.dice == dice.faces(ZERO, 3, (), 6)


@pytest.mark.parametrize(
    ("ref", "seed"),
    [
        ("daily:2026-12-01", dice.daily_seed(SECRET, date(2026, 12, 1))),
        ("friend:K7P2QX9D", dice.friend_seed(SECRET, "K7P2QX9D")),
        ("hex:" + "ab" * 32, bytes([0xAB]) * 32),
    ],
    ids=["daily", "friend", "hex"],
)
def test_seed_references(ref: str, seed: bytes) -> None:
    assert dice.seed_from_ref(ref, SECRET) == seed


def test_unknown_seed_reference() -> None:
    with pytest.raises(ValueError, match="not a seed reference"):
        dice.seed_from_ref("moon:1", SECRET)


def test_day_numbers_and_doors() -> None:
    assert dice.Day(date(2026, 1, 1), UTC).number == 1
    assert dice.Day(date(2027, 1, 1), UTC).number == 366
    assert dice.Day(date(2026, 12, 24), UTC).advent_door == 24
    assert dice.Day(date(2026, 12, 25), UTC).advent_door is None
    assert dice.Day(date(2026, 11, 1), UTC).advent_door is None


def test_day_opens_closes_and_reveals_in_its_zone() -> None:
    zone = ZoneInfo("Europe/Copenhagen")
    day = dice.Day(date(2026, 12, 1), zone)
    assert day.closes_at == datetime(2026, 12, 1, 23, 0, tzinfo=UTC)
    assert not day.is_open(datetime(2026, 11, 30, 22, 59, tzinfo=UTC))
    assert day.is_open(datetime(2026, 11, 30, 23, 0, tzinfo=UTC))
    assert not day.is_revealed(datetime(2026, 12, 1, 23, 59, tzinfo=UTC))
    assert day.is_revealed(datetime(2026, 12, 2, 0, 0, tzinfo=UTC))
    assert dice.today(datetime(2026, 11, 30, 23, 30, tzinfo=UTC), zone).date == date(2026, 12, 1)


def test_no_puzzle_before_the_epoch() -> None:
    assert not dice.Day(date(2025, 12, 31), UTC).is_open(datetime(2026, 6, 1, tzinfo=UTC))


def test_the_documented_vectors_are_these() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "dice.md").read_text()
    section = text.split("## Test vectors", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (.+?) \| ([1-6 ]+) \|$", section, flags=re.M)
    assert len(rows) == 7
    for turn, holds_text, fresh in rows:
        holds = tuple(
            tuple(int(p) for p in h.split(",") if p)
            for h in re.findall(r"\[([0-9,]*)\]", holds_text)
        )
        assert dice.faces(ZERO, int(turn), holds, 6) == tuple(map(int, fresh.split()))
        assert (ZERO, int(turn), holds, 6, tuple(map(int, fresh.split()))) in VECTORS


# -- dice stream v2: re-rolls keyed on the whole path ------------------------------------------


def reference_v2(seed: bytes, path: str, count: int) -> list[int]:
    """A v2 re-roll of docs/dice.md, implemented again from its text alone."""
    out: list[int] = []
    counter = 0
    while len(out) < count:
        message = f"v2|{path}|{counter}".encode("ascii")
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < 252 and len(out) < count:
                out.append(byte % 6 + 1)
        counter += 1
    return out


def path_of(moves: list[Roll | Score]) -> str:
    """The path text of docs/dice.md, written again."""
    return "".join(
        "[" + ",".join(map(str, sorted(m.hold))) + "]" if isinstance(m, Roll) else m.row + ";"
        for m in moves
    )


V2_VECTORS = [
    ("[]", (3, 1, 2, 5, 1, 4)),
    ("[0,3]", (5, 2, 5, 3, 3, 2)),
    ("[0,3][0,1,3]", (4, 5, 5, 6, 3, 6)),
    ("ones;[1]", (1, 4, 3, 6, 6, 5)),
    ("[][2]chance;[5]", (2, 6, 6, 6, 1, 5)),
]


def parse_path(text: str) -> list[Roll | Score]:
    moves: list[Roll | Score] = []
    for hold, row in re.findall(r"\[([0-9,]*)\]|([a-z_]+);", text):
        moves.append(Score(row) if row else Roll(tuple(int(p) for p in hold.split(",") if p)))
    return moves


def test_v2_vectors_and_the_documented_table() -> None:
    source = dice.PathStream(ZERO)
    for path, expected in V2_VECTORS:
        key = source.start()
        for move in parse_path(path):
            key = source.step(key, move)
        assert source.reroll(key, 6) == expected
        assert tuple(reference_v2(ZERO, path, 6)) == expected
    text = (Path(__file__).resolve().parents[2] / "docs" / "dice.md").read_text()
    section = text.split("### Test vectors, v2", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(.+?)` \| ([1-6 ]+) \|$", section, flags=re.M)
    assert [(p, tuple(map(int, f.split()))) for p, f in rows] == V2_VECTORS


@settings(deadline=None, max_examples=40)  # whole games through the rules: no 200 ms deadline
@given(st.binary(min_size=32, max_size=32), st.randoms(use_true_random=False))
def test_v2_games_match_the_reference_move_by_move(seed: bytes, rng: random.Random) -> None:
    # A random legal game of maxi: after every move, the dice the rules dealt are the
    # second implementation's (first rolls as v1's, re-rolls from the whole path).
    state = new_game(find_ruleset("maxi"), dice.stream(seed, "v2"))
    assert list(state.dice) == reference_faces(seed, 1, [], 6)
    moves: list[Roll | Score] = []
    while not state.is_finished and state.turn <= 6:
        move = rng.choice(legal_moves(state))
        before = state
        state = apply_move(state, move)
        moves.append(move)
        if isinstance(move, Roll):
            fresh = reference_v2(seed, path_of(moves), 6)
            expected = [before.dice[i] if i in move.hold else fresh[i] for i in range(6)]
            assert list(state.dice) == expected
        elif not state.is_finished:
            assert list(state.dice) == reference_faces(seed, state.turn, [], 6)


def test_v2_same_moves_same_dice_other_paths_other_dice() -> None:
    maxi = find_ruleset("maxi")
    a, b = (new_game(maxi, dice.stream(ZERO, "v2")) for _ in range(2))
    assert a.dice == b.dice == new_game(maxi, dice.stream(ZERO)).dice
    # Turn 2 after scoring a different row: same first roll, other re-rolls.
    a, b = apply_move(a, Score("chance")), apply_move(b, Score("ones"))
    assert a.dice == b.dice
    assert apply_move(a, Roll((0,))).dice != apply_move(b, Roll((0,))).dice
    again = apply_move(apply_move(new_game(maxi, dice.stream(ZERO, "v2")), Score("chance")),
                       Roll((0,)))  # fmt: skip
    assert again.dice == apply_move(a, Roll((0,))).dice


def test_unknown_stream_version() -> None:
    with pytest.raises(ValueError, match="unknown dice stream"):
        dice.stream(ZERO, "v3")
    with pytest.raises(ValueError, match="keyed on the path"):
        dice.stream(ZERO, "v2")(1, ((0,),), 6)
