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
        (keys.player_codes("p1"), "daily:player:{p1}:codes"),
        (keys.player_best_days("p1"), "daily:player:{p1}:best-days"),
        (keys.board_daily("2026-12-01"), "daily:board:{day:2026-12-01}"),
        (keys.board_daily_new("2026-12-01"), "daily:board:{day:2026-12-01}:new"),
        (keys.player_practice("p1", "2026-11-30"), "daily:player:{p1}:practice:2026-11-30"),
        (keys.player_archived("p1", "2026-12"), "daily:player:{p1}:archived:2026-12"),
        (keys.game("g1"), "daily:game:{g1}"),
        (keys.game_moves("g1"), "daily:game:{g1}:moves"),
        (keys.friend_code("K7P2QX9D"), "daily:code:{K7P2QX9D}"),
        (keys.code_bucket("K7P2QX9D"), "daily:codes:{K7P2Q}"),
        (keys.pending_results(), "daily:results:pending"),
        (keys.games_finished(), "daily:games:finished"),
        (keys.archive_lock(), "daily:games:archiving"),
        (keys.player_moves("p1", 60), "daily:player:{p1}:moves:60"),
        (keys.address_moves("2001:db8::/64", 60), "daily:address:{2001:db8::/64}:moves:60"),
        (keys.anonymous_moves("10.0.0.1", 1), "daily:address:{10.0.0.1}:anonymous-moves:1"),
        (
            keys.quota("10.0.0.0/24", "dailies", "2026-12-03", "10.0.0.7"),
            "daily:quota:{10.0.0.0/24}:dailies:2026-12-03:10.0.0.7",
        ),
        (keys.player_quota("p1", "analyses", "60"), "daily:player:{p1}:quota:analyses:60"),
        (keys.player_reminder("p1"), "daily:player:{p1}:reminder"),
        (keys.reminders_due(), "daily:reminders:due"),
    ],
    ids=[
        "player",
        "games",
        "daily",
        "friend",
        "keys",
        "codes",
        "best-days",
        "day-board",
        "day-board-new",
        "practice",
        "archived",
        "game",
        "moves",
        "code",
        "code-bucket",
        "pending",
        "finished",
        "archiving",
        "player-moves",
        "address-moves",
        "anonymous-moves",
        "quota",
        "player-quota",
        "reminder",
        "reminders-due",
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


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (keys.league("L1"), "daily:league:{L1}"),
        (keys.league_members("L1"), "daily:league:{L1}:members"),
        (keys.league_removed("L1"), "daily:league:{L1}:removed"),
        (keys.league_day("L1", "2026-12-01"), "daily:league:{L1}:day:2026-12-01"),
        (keys.league_week("L1", "2026-11-30"), "daily:league:{L1}:week:2026-11-30"),
        (keys.player_leagues("p1"), "daily:player:{p1}:leagues"),
    ],
    ids=["league", "members", "removed", "day", "week", "player-leagues"],
)
def test_league_key_strings(key: str, expected: str) -> None:
    assert key == expected


def test_a_leagues_keys_share_one_cluster_slot() -> None:
    # The count script checks membership and writes a day board and its week together.
    found = {
        key.split("{")[1].split("}")[0]
        for key in (
            keys.league("L1"),
            keys.league_members("L1"),
            keys.league_removed("L1"),
            keys.league_day("L1", "2026-12-01"),
            keys.league_week("L1", "2026-11-30"),
        )
    }
    assert found == {"L1"}


def test_a_players_dailies_share_their_slot() -> None:
    assert keys.player_dailies("p1") == "daily:player:{p1}:dailies"
    assert keys.player_dailies("p1").split("}")[0] == keys.player("p1").split("}")[0]


def test_a_reminder_shares_its_players_slot_and_the_schedule_is_kept_with_players() -> None:
    # The claim script reads the reminder with the player's record, notes and streak.
    tags = {key.split("{")[1].split("}")[0] for key in (
        keys.player_reminder("p1"), keys.player("p1"), keys.player_dailies("p1"),
        keys.player_streak("p1"))}  # fmt: skip
    assert tags == {"p1"}
    assert keys.owner_of(keys.reminders_due()) == "player"
    assert keys.owner_of(keys.player_reminder("p1")) == "player"
