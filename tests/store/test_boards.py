"""The rankings on a real Redis: ties, streaks, advent, friend boards, retries and crashes."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.cluster import RedisCluster

from daily.core.errors import BoardError
from daily.core.modes import BoardKind
from daily.store import board_counts, boards, keys, league_boards, members, players
from daily.store.boards import Board, Result
from daily.store.connection import connect
from tests import redis_servers

pytestmark = pytest.mark.redis

DEC1 = date(2026, 12, 1)


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return connect(redis_url, Path("unused"))  # a server or a cluster


def finished(day: date, minute: int = 0) -> float:
    """Unix time *minute* minutes after 09:00 UTC on *day*."""
    return datetime(day.year, day.month, day.day, 9, tzinfo=UTC).timestamp() + 60 * minute


def daily(player: str, total: int, day: date = DEC1, minute: int = 0) -> Result:
    return Result(
        f"g-{player}-{day}", player, BoardKind.DAILY, total, finished(day, minute), day=day
    )


def play(client: redis.Redis, player: str, days: list[date], total: int = 200) -> None:
    for day in days:
        board_counts.submit(client, daily(player, total, day))


def table(page: boards.Page) -> list[tuple[int | None, str, int]]:
    return [(e.rank, e.player_id, e.score) for e in page.entries]


def span(first: date, count: int) -> list[date]:
    return [first + timedelta(days=i) for i in range(count)]


def test_equal_scores_share_a_rank_and_the_earlier_finisher_is_listed_first(
    client: redis.Redis,
) -> None:
    for player, total, minute in [
        ("ana", 280, 30),
        ("bo", 300, 50),
        ("cy", 280, 10),
        ("di", 250, 0),
    ]:
        board_counts.submit(client, daily(player, total, minute=minute))
    page = boards.page(client, Board.daily(DEC1))
    assert table(page) == [(1, "bo", 300), (2, "cy", 280), (2, "ana", 280), (4, "di", 250)]
    assert page.total == 4


def test_the_top_score_of_a_board_and_of_an_empty_one(client: redis.Redis) -> None:
    assert boards.top_score(client, Board.daily(DEC1)) is None
    for player, total, minute in [("ana", 280, 30), ("bo", 300, 50), ("cy", 300, 10)]:
        board_counts.submit(client, daily(player, total, minute=minute))
    assert boards.top_score(client, Board.daily(DEC1)) == 300  # the score, not its packing
    assert boards.top_score(client, Board.daily(DEC1 + timedelta(days=1))) is None


def test_a_tie_across_a_page_boundary_keeps_its_shared_rank(client: redis.Redis) -> None:
    for i, total in enumerate([500, 400, 400, 400, 300]):
        board_counts.submit(client, daily(f"p{i}", total, minute=i))
    second = boards.page(client, Board.daily(DEC1), offset=2, limit=2)
    assert table(second) == [(2, "p2", 400), (2, "p3", 400)]
    third = boards.page(client, Board.daily(DEC1), offset=4, limit=2)
    assert table(third) == [(5, "p4", 300)]
    assert (second.total, second.offset) == (5, 2)


def test_around_me_at_the_top_the_middle_and_the_bottom(client: redis.Redis) -> None:
    for i in range(10):
        board_counts.submit(client, daily(f"p{i}", 600 - 10 * i))
    board = Board.daily(DEC1)
    top = boards.page(client, board, limit=4, me="p0", around=True)
    assert [e.player_id for e in top.entries] == ["p0", "p1", "p2", "p3"]
    assert top.me is not None and (top.me.rank, top.me.score) == (1, 600)
    bottom = boards.page(client, board, limit=4, me="p9", around=True)
    assert [e.player_id for e in bottom.entries] == ["p6", "p7", "p8", "p9"]
    assert bottom.offset == 6 and bottom.me is not None and bottom.me.rank == 10
    middle = boards.page(client, board, limit=3, me="p5", around=True)
    assert [e.player_id for e in middle.entries] == ["p4", "p5", "p6"]
    stranger = boards.page(client, board, limit=3, me="zed", around=True)
    assert stranger.me is None and stranger.offset == 0


def test_a_retried_completion_counts_once(client: redis.Redis) -> None:
    result = daily("ana", 300, date(2026, 12, 3))
    for _ in range(3):
        board_counts.submit(client, result)
    assert boards.rank_of(client, Board.advent(2026), "ana") == boards.Entry(
        1, "ana", "Guest ana", 300
    )
    assert boards.streak_of(client, "ana", date(2026, 12, 3)) == (1, 1)
    assert sum(b.players for b in boards.distribution(client, date(2026, 12, 3))) == 1


def test_concurrent_completions_from_threads_count_once(client: redis.Redis) -> None:
    results = [daily("ana", 100 + day, date(2026, 12, day)) for day in range(1, 6)]
    barrier = threading.Barrier(20)

    def finish(result: Result) -> None:
        barrier.wait()
        board_counts.submit(client, result)

    threads = [threading.Thread(target=finish, args=(r,)) for r in results for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert boards.rank_of(client, Board.advent(2026), "ana").score == 101 + 102 + 103 + 104 + 105  # type: ignore[union-attr]
    assert boards.streak_of(client, "ana", date(2026, 12, 5)) == (5, 5)
    assert boards.rank_of(client, Board.best_day(), "ana").score == 105  # type: ignore[union-attr]
    assert boards.page(client, Board.daily(date(2026, 12, 2))).total == 1


def test_a_second_game_on_the_same_date_does_not_replace_the_first(client: redis.Redis) -> None:
    board_counts.submit(client, daily("ana", 250))
    board_counts.submit(
        client, Result("another-game", "ana", BoardKind.DAILY, 400, finished(DEC1, 5), day=DEC1)
    )
    assert table(boards.page(client, Board.daily(DEC1))) == [(1, "ana", 250)]


def test_a_crash_between_steps_is_repaired_by_submitting_again(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = date(2026, 12, 7)
    play(client, "ana", span(date(2026, 12, 1), 6), total=100)
    result = daily("ana", 300, day)

    def crash(*args: object) -> None:
        raise ConnectionError("power cut")

    monkeypatch.setattr(board_counts, "count_streak", crash)
    with pytest.raises(ConnectionError):
        board_counts.submit(client, result)
    # Half-way: the date's board and the best day have it, the streak and advent do not.
    assert boards.rank_of(client, Board.daily(day), "ana").score == 300  # type: ignore[union-attr]
    assert boards.rank_of(client, Board.best_day(), "ana").score == 300  # type: ignore[union-attr]
    assert boards.rank_of(client, Board.streak(), "ana").score == 6  # type: ignore[union-attr]
    assert boards.rank_of(client, Board.advent(2026), "ana").score == 600  # type: ignore[union-attr]
    monkeypatch.undo()
    board_counts.submit(client, result)  # the game record's result, submitted again
    board_counts.submit(client, result)
    assert boards.rank_of(client, Board.streak(), "ana").score == 7  # type: ignore[union-attr]
    assert boards.rank_of(client, Board.advent(2026), "ana").score == 900  # type: ignore[union-attr]
    assert boards.page(client, Board.daily(day)).total == 1
    assert sum(b.players for b in boards.distribution(client, day)) == 1


def test_a_broken_streak_keeps_its_best_and_is_rebuilt(client: redis.Redis) -> None:
    play(client, "ana", span(date(2026, 3, 1), 3))  # March 1 to 3
    play(client, "ana", span(date(2026, 3, 5), 2))  # the 4th missed
    assert boards.streak_of(client, "ana", date(2026, 3, 6)) == (2, 3)
    assert boards.streak_of(client, "ana", date(2026, 3, 8)) == (0, 3)  # missed the 7th too
    play(client, "ana", span(date(2026, 3, 8), 4))
    assert boards.streak_of(client, "ana", date(2026, 3, 11)) == (4, 4)
    entry = boards.page(client, Board.streak(), today=date(2026, 3, 12)).entries[0]
    assert (entry.score, entry.current) == (4, 4)
    assert boards.page(client, Board.streak(), today=date(2026, 3, 13)).entries[0].current == 0


def test_streaks_run_across_month_and_year_ends_and_leap_days(client: redis.Redis) -> None:
    play(client, "ana", span(date(2027, 12, 30), 4))  # Dec 30 to Jan 2
    play(client, "bo", [date(2028, 2, 28), date(2028, 2, 29), date(2028, 3, 1)])
    play(client, "cy", [date(2027, 2, 28), date(2027, 3, 1)])  # not a leap year
    play(client, "di", [date(2026, 1, 31), date(2026, 2, 1)])
    assert boards.streak_of(client, "ana", date(2028, 1, 2)) == (4, 4)
    assert boards.streak_of(client, "bo", date(2028, 3, 1)) == (3, 3)
    assert boards.streak_of(client, "cy", date(2027, 3, 1)) == (2, 2)
    assert boards.streak_of(client, "di", date(2026, 2, 2)) == (2, 2)
    ranked = table(boards.page(client, Board.streak()))
    assert ranked == [(1, "ana", 4), (2, "bo", 3), (3, "di", 2), (3, "cy", 2)]


def test_a_late_day_joins_the_runs_on_either_side(client: redis.Redis) -> None:
    # A game started before midnight can finish after the next day's game.
    play(client, "ana", [date(2026, 5, 1), date(2026, 5, 2), date(2026, 5, 4), date(2026, 5, 5)])
    assert boards.streak_of(client, "ana", date(2026, 5, 5)) == (2, 2)
    play(client, "ana", [date(2026, 5, 3)])
    assert boards.streak_of(client, "ana", date(2026, 5, 5)) == (5, 5)
    play(client, "ana", [date(2026, 4, 20)])  # a much older day changes neither run
    assert boards.streak_of(client, "ana", date(2026, 5, 6)) == (5, 5)


def test_the_streak_board_keeps_the_earlier_achiever_first(client: redis.Redis) -> None:
    play(client, "ana", span(date(2026, 6, 1), 3))
    play(client, "bo", span(date(2026, 6, 10), 3))
    play(client, "ana", span(date(2026, 6, 20), 3))  # equals her best, later: no change
    assert table(boards.page(client, Board.streak())) == [(1, "ana", 3), (1, "bo", 3)]


def test_the_advent_board_sums_24_doors_with_gaps(client: redis.Redis) -> None:
    doors = [d for d in range(1, 25) if d not in (5, 13)]
    for door in doors:
        board_counts.submit(client, daily("ana", 10 * door, date(2026, 12, door)))
    for door in (1, 24):
        board_counts.submit(client, daily("bo", 500, date(2026, 12, door)))
    for day in (date(2026, 11, 30), date(2026, 12, 25), date(2027, 1, 1)):
        board_counts.submit(client, daily("bo", 600, day))
    assert table(boards.page(client, Board.advent(2026))) == [
        (1, "ana", 10 * sum(doors)),
        (2, "bo", 1000),
    ]
    assert boards.page(client, Board.advent(2027)).total == 0


def test_equal_advent_sums_rank_who_reached_it_first(client: redis.Redis) -> None:
    board_counts.submit(client, daily("ana", 300, date(2026, 12, 1)))
    board_counts.submit(client, daily("ana", 300, date(2026, 12, 3)))
    board_counts.submit(client, daily("bo", 600, date(2026, 12, 2)))
    assert table(boards.page(client, Board.advent(2026))) == [(1, "bo", 600), (1, "ana", 600)]


def test_the_best_day_board_keeps_each_players_best(client: redis.Redis) -> None:
    play(client, "ana", [date(2026, 7, 1)], total=300)
    play(client, "ana", [date(2026, 7, 2)], total=350)
    play(client, "ana", [date(2026, 7, 3)], total=320)
    play(client, "bo", [date(2026, 7, 1)], total=340)
    assert table(boards.page(client, Board.best_day())) == [(1, "ana", 350), (2, "bo", 340)]


def test_friend_boards_hold_their_codes_games_only(client: redis.Redis) -> None:
    at = finished(DEC1)
    board_counts.submit(client, Result("f1", "ana", BoardKind.FRIEND, 420, at, code="K7P2QX9D"))
    board_counts.submit(client, Result("f2", "bo", BoardKind.FRIEND, 450, at + 1, code="K7P2QX9D"))
    board_counts.submit(client, Result("f3", "cy", BoardKind.FRIEND, 999, at, code="ZZZZZZZZ"))
    # "solo" is no board kind, on purpose: such a result takes no board step.
    solo = Result("s1", "di", "solo", 640, at, day=DEC1)  # type: ignore[arg-type]
    board_counts.submit(client, solo)
    assert table(boards.page(client, Board.friend("K7P2QX9D"))) == [(1, "bo", 450), (2, "ana", 420)]
    assert boards.page(client, Board.best_day()).total == 0
    assert boards.page(client, Board.daily(DEC1)).total == 0


def test_names_come_from_the_player_record_at_read_time(client: redis.Redis) -> None:
    ana = players.create(client, "Ana")
    board_counts.submit(client, daily(ana.id, 300))
    assert boards.page(client, Board.daily(DEC1)).entries[0].name == "Ana"
    players.rename(client, ana.id, "Ana B.")
    assert boards.page(client, Board.best_day()).entries[0].name == "Ana B."
    assert members.member(ana.id) != ana.id  # stored compactly, read back as the id
    assert boards.page(client, Board.daily(DEC1)).entries[0].player_id == ana.id


def test_the_distribution_counts_players_per_band(client: redis.Redis) -> None:
    for i, total in enumerate([0, 49, 50, 260, 299, 649]):
        board_counts.submit(client, daily(f"p{i}", total))
    bands = boards.distribution(client, DEC1, band=50)
    assert (bands[0], bands[1], bands[-1]) == (
        boards.Band(0, 49, 2),
        boards.Band(50, 99, 1),
        boards.Band(600, 649, 1),
    )
    assert bands[5] == boards.Band(250, 299, 2)
    assert sum(b.players for b in bands) == 6 and len(bands) == 13
    assert sum(b.players for b in boards.distribution(client, date(2026, 12, 2))) == 0


def test_daily_boards_expire_after_the_retention_and_the_others_stay(client: redis.Redis) -> None:
    zone = ZoneInfo("Europe/Stockholm")
    board_counts.submit(client, daily("ana", 300), retention_days=10, zone=zone)
    end = datetime(2026, 12, 12, tzinfo=zone).timestamp()
    left = client.ttl(keys.board_daily("2026-12-01"))
    assert abs(time.time() + left - end) <= 2
    assert client.ttl(keys.board_best_day()) == -1
    assert client.ttl(keys.board_streak()) == -1
    assert client.ttl(keys.board_advent(2026)) == -1


@pytest.mark.parametrize(
    "result",
    [
        Result("g", "ana", BoardKind.DAILY, 300, 0.0),
        Result("g", "ana", BoardKind.DAILY, -1, 0.0, day=DEC1),
        Result("g", "ana", BoardKind.DAILY, boards.MAX_SCORE + 1, 0.0, day=DEC1),
        Result("g", "ana", BoardKind.FRIEND, 300, 0.0),
        Result("g", "ana", BoardKind.DAILY, 300, 0.0, day=date(2025, 12, 31)),
    ],
    ids=["no-day", "negative", "too-high", "no-code", "before-2026"],
)
def test_bad_results_are_refused_and_change_nothing(client: redis.Redis, result: Result) -> None:
    with pytest.raises(BoardError):
        board_counts.submit(client, result)
    assert client.keys("*") == []


def test_bad_pages_are_refused(client: redis.Redis) -> None:
    with pytest.raises(BoardError):
        boards.page(client, Board.best_day(), limit=101)
    with pytest.raises(BoardError):
        boards.page(client, Board.best_day(), offset=-1)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (keys.board_daily("2026-12-01"), "daily:board:{day:2026-12-01}"),
        (keys.board_best_day(), "daily:board:{best-day}"),
        (keys.board_streak(), "daily:board:{streak}"),
        (keys.board_advent(2026), "daily:board:{advent:2026}"),
        (keys.advent_doors(2026), "daily:board:{advent:2026}:doors"),
        (keys.board_friend("K7P2QX9D"), "daily:board:{friend:K7P2QX9D}"),
        (keys.player_days("p1"), "daily:player:{p1}:days"),
        (keys.player_streak("p1"), "daily:player:{p1}:streak"),
    ],
    ids=["daily", "best-day", "streak", "advent", "doors", "friend", "days", "player-streak"],
)
def test_board_key_strings(key: str, expected: str) -> None:
    assert key == expected


def test_the_keys_one_step_touches_share_a_cluster_slot() -> None:
    def tag(key: str) -> str:
        return key.split("{")[1].split("}")[0]

    assert tag(keys.board_advent(2026)) == tag(keys.advent_doors(2026))
    assert tag(keys.player_days("p1")) == tag(keys.player_streak("p1")) == tag(keys.player("p1"))


def longest_run(days: set[date]) -> int:
    """The longest run of consecutive dates in *days* (the model of the streak board)."""
    return max(
        (
            next(n for n in range(1, len(days) + 2) if day + timedelta(days=n) not in days)
            for day in days
            if day - timedelta(days=1) not in days
        ),
        default=0,
    )


def model_ranks(scores: dict[str, int]) -> dict[str, int]:
    """Competition ranks: 1 + how many have a strictly higher score."""
    return {p: 1 + sum(other > s for other in scores.values()) for p, s in scores.items()}


games = st.lists(
    st.tuples(
        st.sampled_from(["ana", "bo", "cy", "di"]),
        st.integers(0, 40).map(lambda n: date(2026, 11, 20) + timedelta(days=n)),
        st.integers(0, 649),
        st.integers(0, 600),
    ),
    max_size=25,
    unique_by=lambda g: (g[0], g[1]),  # one daily game per player and date
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(played=games, data=st.data())
def test_any_order_and_any_repeats_give_the_boards_of_the_model(
    client: redis.Redis, played: list[tuple[str, date, int, int]], data: st.DataObject
) -> None:
    client.flushdb()
    results = [daily(p, total, day, minute) for p, day, total, minute in played]
    repeats = data.draw(st.lists(st.sampled_from(results))) if results else []
    for result in data.draw(st.permutations(results + repeats)):
        board_counts.submit(client, result)
    best: dict[str, int] = {}
    days: dict[str, set[date]] = {}
    advent: dict[str, int] = {}
    for player, day, total, _ in played:
        best[player] = max(best.get(player, 0), total)
        days.setdefault(player, set()).add(day)
        if boards.advent_door(day):
            advent[player] = advent.get(player, 0) + total
    streak = {player: longest_run(played_days) for player, played_days in days.items()}
    for board, model in [
        (Board.best_day(), best),
        (Board.streak(), streak),
        (Board.advent(2026), advent),
    ]:
        page = boards.page(client, board, limit=100)
        assert {e.player_id: e.score for e in page.entries} == model
        assert {e.player_id: e.rank for e in page.entries} == model_ranks(model)
        assert [e.score for e in page.entries] == sorted(model.values(), reverse=True)


def test_a_game_finished_after_midnight_counts_for_the_day_it_started(client: redis.Redis) -> None:
    after_midnight = datetime(2026, 12, 2, 0, 10, tzinfo=UTC).timestamp()
    board_counts.submit(client, Result("g1", "ana", BoardKind.DAILY, 300, after_midnight, day=DEC1))
    board_counts.submit(client, daily("ana", 250, date(2026, 12, 2)))
    assert table(boards.page(client, Board.daily(DEC1))) == [(1, "ana", 300)]
    assert table(boards.page(client, Board.daily(date(2026, 12, 2)))) == [(1, "ana", 250)]
    assert boards.streak_of(client, "ana", date(2026, 12, 2)) == (2, 2)


# -- withdrawing a counted game (held for review after it was counted) ------------------------

LEAGUE = "Le4gueId-01"
DEC2 = date(2026, 12, 2)


def counted_games(client: redis.Redis) -> dict[str, Result]:
    """Ana's dailies of December 1 to 3 (door and streak days, one week) and a friend game,
    Bo's December 2 and a game on the same code, counted on every board and on the league
    the two are in."""
    league_boards.create(client, LEAGUE, "Club", "ana", 0.0, "tok")
    for player in ("ana", "bo"):
        league_boards.claim(client, player, LEAGUE, 10)
    league_boards.join(client, LEAGUE, "bo", 1.0, 50, "tok")
    games = {
        "dec1": daily("ana", 200, DEC1),
        "dec2": daily("ana", 300, DEC2, minute=2),
        "dec3": daily("ana", 250, date(2026, 12, 3)),
        "bo": daily("bo", 260, DEC2, minute=1),
        "friend": Result("f1", "ana", BoardKind.FRIEND, 210, finished(DEC1), code="K7P2QX9D"),
        "bo-friend": Result("f2", "bo", BoardKind.FRIEND, 220, finished(DEC1), code="K7P2QX9D"),
    }
    for result in games.values():
        board_counts.submit(client, result)
        league_boards.count(client, result, zone=UTC)
    return games


@pytest.mark.parametrize(
    ("board", "game", "before", "after"),
    [
        (Board.daily(DEC2), "dec2", {"ana": 300, "bo": 260}, {"bo": 260}),
        (Board.best_day(), "dec2", {"ana": 300, "bo": 260}, {"ana": 250, "bo": 260}),
        (Board.streak(), "dec2", {"ana": 3, "bo": 1}, {"ana": 1, "bo": 1}),
        (Board.advent(2026), "dec2", {"ana": 750, "bo": 260}, {"ana": 450, "bo": 260}),
        (Board.friend("K7P2QX9D"), "friend", {"ana": 210, "bo": 220}, {"bo": 220}),
        (league_boards.day_board(LEAGUE, DEC2), "dec2", {"ana": 300, "bo": 260}, {"bo": 260}),
        (league_boards.week_board(LEAGUE, DEC2), "dec2", {"ana": 750, "bo": 260},
         {"ana": 450, "bo": 260}),
    ],
    ids=["daily", "best-day", "streak", "advent", "friend", "league-day", "league-week"],
)  # fmt: skip
def test_a_withdrawn_game_leaves_each_kind_of_board(
    client: redis.Redis, board: Board, game: str, before: dict[str, int], after: dict[str, int]
) -> None:
    withdrawn = counted_games(client)[game]
    assert scores(client, board) == before
    board_counts.withdraw(client, withdrawn)
    assert scores(client, board) == after
    board_counts.withdraw(client, withdrawn)  # a retried withdrawal takes nothing twice
    assert scores(client, board) == after
    board_counts.submit(client, withdrawn)  # released after review: counted again, once
    league_boards.count(client, withdrawn, zone=UTC)
    assert scores(client, board) == before


def scores(client: redis.Redis, board: Board) -> dict[str, int]:
    return {e.player_id: e.score for e in boards.page(client, board).entries}


def test_withdrawing_takes_a_daily_off_every_league_of_its_player(client: redis.Redis) -> None:
    games = counted_games(client)
    other = "0ther-Le4gu"
    league_boards.create(client, other, "Other", "ana", 0.0, "tok")
    league_boards.claim(client, "ana", other, 10)
    assert league_boards.count(client, games["dec2"], zone=UTC) == 2
    # The leagues go last, after the date's board that a member joining meanwhile reads.
    steps = board_counts.withdraw_steps(games["dec2"])
    assert steps[0] is board_counts.uncount_daily and steps[-1] is board_counts.uncount_leagues
    board_counts.withdraw(client, games["dec2"])
    for league_id in (LEAGUE, other):
        page = boards.page(client, league_boards.day_board(league_id, DEC2), me="ana")
        assert page.me is None, league_id


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    """A real three-node Redis Cluster on loopback (no replicas, nothing saved), read with
    redis-py's own cluster client."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    nodes, url = redis_servers.start_cluster(tmp_path_factory.mktemp("cluster"))
    try:
        client = RedisCluster.from_url(url.replace("redis+cluster://", "redis://"),
                                       decode_responses=True)  # fmt: skip
        yield client
        client.close()
    finally:
        redis_servers.stop(nodes)


def test_every_step_and_read_works_on_a_redis_cluster(cluster: RedisCluster) -> None:
    # A script or transaction on keys of two slots would fail here with CROSSSLOT.
    client: Any = cluster
    ids = ["ana", "bo", "0123456789abcdef"]
    for i, player in enumerate(ids):
        for day in span(date(2026, 12, 1), 3):
            board_counts.submit(client, daily(player, 100 + 10 * i + day.day, day, minute=i))
        board_counts.submit(
            client, Result(f"f{i}", player, BoardKind.FRIEND, 200 + i, 0.0, code="K7P2QX9D")
        )
    dec3 = date(2026, 12, 3)
    for board, scores in [
        (Board.daily(dec3), [123, 113, 103]),
        (Board.best_day(), [123, 113, 103]),
        (Board.streak(), [3, 3, 3]),
        (Board.advent(2026), [366, 336, 306]),
        (Board.friend("K7P2QX9D"), [202, 201, 200]),
    ]:
        page = boards.page(client, board, me="bo", around=True, today=dec3)
        assert [e.score for e in page.entries] == scores, board.id
        assert page.me is not None and page.me.player_id == "bo"
    assert boards.streak_of(client, "ana", dec3) == (3, 3)
    assert sum(b.players for b in boards.distribution(client, dec3)) == 3


def test_withdrawing_works_on_a_redis_cluster(cluster: RedisCluster) -> None:
    # The league step's scripts run in one pipeline, one league's keys (one slot) each.
    client: Any = cluster
    client.flushall()
    games = counted_games(client)
    board_counts.withdraw(client, games["dec2"])
    assert scores(client, league_boards.week_board(LEAGUE, DEC2)) == {"ana": 450, "bo": 260}
    assert scores(client, league_boards.day_board(LEAGUE, DEC2)) == {"bo": 260}
    assert scores(client, Board.advent(2026)) == {"ana": 450, "bo": 260}


def test_an_archived_boards_pages_are_the_pages_it_had_in_redis(client: redis.Redis) -> None:
    # A friend code's board leaves Redis with its code; its standing, kept in the archive,
    # reads as the board did: ranks with ties, pages, the asker's entry, around=me.
    board = Board.friend("K7P2QX9D")
    for n, total in enumerate([250, 250, 240, 300, 240, 199, 250, 300, 180, 250]):
        result = Result(f"g{n}", f"{n:016x}", BoardKind.FRIEND, total, finished(DEC1, n % 3),
                        code="K7P2QX9D")  # fmt: skip
        board_counts.count_friend(client, result, 400, UTC)
    kept = boards.standing(client, board)
    assert len(kept) == 10
    asks = [
        (0, 50, None, False),
        (2, 3, f"{6:016x}", False),
        (0, 3, f"{9:016x}", True),
        (8, 5, f"{0:016x}", True),
        (20, 5, None, False),
        (0, 0, f"{3:016x}", False),
    ]
    for offset, limit, me, around in asks:
        live = boards.page(client, board, offset=offset, limit=limit, me=me, around=around)
        archived = boards.page_of(client, board, kept, offset=offset, limit=limit, me=me,
                                  around=around)  # fmt: skip
        assert archived == live, (offset, limit, me, around)
