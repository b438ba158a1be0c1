"""Every Redis key of players and games, pinned: a changed key strands stored data."""

from __future__ import annotations

import pytest

from daily.store import keys


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (keys.player("p1"), "daily:player:{p1}"),
        (keys.player_games("p1"), "daily:player:{p1}:games"),
        (keys.player_daily("p1", "2026-12-01"), "daily:player:{p1}:daily:2026-12-01"),
        (keys.player_friend("p1", "K7P2QX9D"), "daily:player:{p1}:friend:K7P2QX9D"),
        (keys.player_keys("p1"), "daily:player:{p1}:keys"),
        (keys.player_best_days("p1"), "daily:player:{p1}:best-days"),
        (keys.game("g1"), "daily:game:{g1}"),
        (keys.game_moves("g1"), "daily:game:{g1}:moves"),
        (keys.friend_code("K7P2QX9D"), "daily:code:{K7P2QX9D}"),
        (keys.pending_results(), "daily:results:pending"),
    ],
    ids=[
        "player",
        "games",
        "daily",
        "friend",
        "keys",
        "best-days",
        "game",
        "moves",
        "code",
        "pending",
    ],
)
def test_key_strings(key: str, expected: str) -> None:
    assert key == expected


def test_a_games_keys_share_one_cluster_slot() -> None:
    # The append script touches the game hash and its move list together.
    tag = keys.game("g1").split("{")[1].split("}")[0]
    assert keys.game_moves("g1").split("{")[1].split("}")[0] == tag == "g1"


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (keys.reviews_held(), "daily:reviews:held"),
        (keys.reviews_unchecked(), "daily:reviews:unchecked"),
        (keys.reviews_sweep(), "daily:reviews:sweep"),
    ],
    ids=["held", "unchecked", "sweep"],
)
def test_review_key_strings(key: str, expected: str) -> None:
    assert key == expected
