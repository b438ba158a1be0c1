"""Leagues on a real Redis: members, limits, the day board and the week table, leaving."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import redis

from daily.core.config import Config
from daily.core.errors import (
    BadInputError,
    LeagueFullError,
    NotFoundError,
    NotOwnerError,
    TooManyLeaguesError,
)
from daily.service import leagues
from daily.store import board_counts, keys, league_boards, players
from daily.store.boards import Result
from daily.store.connection import connect
from daily.store.players import InvalidNameError

pytestmark = pytest.mark.redis

MONDAY = date(2026, 11, 30)


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return connect(redis_url, Path("unused"))  # a server or a cluster


def config_on(day: date) -> Config:
    """A config whose clock starts at noon on *day* and moves a second each time it is read
    (members are listed in the order they joined)."""
    start = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    ticks = itertools.count()
    return Config(clock=lambda: start + timedelta(seconds=next(ticks)))


CONFIG = config_on(MONDAY)


def daily(player: str, total: int, day: date, minute: int = 0) -> Result:
    at = datetime(day.year, day.month, day.day, 9, tzinfo=UTC).timestamp() + 60 * minute
    return Result(f"g-{player}-{day}", player, "daily", total, at, day=day)


def lines(standing: leagues.Standing) -> list[tuple[int, str, int]]:
    return [(line.rank, line.name, line.score) for line in standing.lines]


def named(client: redis.Redis, *names: str) -> list[str]:
    return [players.create(client, name).id for name in names]


def dump(client: redis.Redis, league_id: str) -> dict[str, object]:
    """Everything stored about a league: a refusal must leave it as it was."""
    return {
        key: client.zrange(key, 0, -1, withscores=True)
        for key in league_boards.board_keys(league_id, MONDAY + timedelta(days=6))
        if client.exists(key)
    } | {
        "league": client.hgetall(keys.league(league_id)),
        "members": client.zrange(keys.league_members(league_id), 0, -1),
    }


def test_members_see_a_day_board_of_just_the_league(client: redis.Redis) -> None:
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Tuesday club")
    leagues.join(client, CONFIG, bo, league.id)
    for player, total in ((ana, 250), (bo, 280), (cy, 300)):  # Cy is not in it
        board_counts.submit(client, daily(player, total, MONDAY))
        league_boards.count(client, daily(player, total, MONDAY), zone=UTC)
    standing = leagues.day_standing(client, CONFIG, ana, league.id, MONDAY)
    assert lines(standing) == [(1, "Bo", 280), (2, "Ana", 250)]
    assert standing.me is not None and standing.me.rank == 2
    assert [m.name for m in leagues.get(client, bo, league.id).members] == ["Ana", "Bo"]
    with pytest.raises(NotFoundError, match="for its members"):
        leagues.day_standing(client, CONFIG, cy, league.id, MONDAY)
    assert leagues.get(client, cy, league.id).members == ()  # a stranger sees no names


def test_the_week_table_sums_each_members_best_five_days(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    league = leagues.create(client, CONFIG, ana, "Week")
    leagues.join(client, CONFIG, bo, league.id)
    ana_days = [100, 200, 300, 150, 250, 50, 120]  # best five: 300+250+200+150+120 = 1020
    for n, total in enumerate(ana_days):
        league_boards.count(client, daily(ana, total, MONDAY + timedelta(days=n)), zone=UTC)
    for n, total in enumerate([400, 400]):  # two days only: 800
        league_boards.count(client, daily(bo, total, MONDAY + timedelta(days=n)), zone=UTC)
    # Counting again (a retried finish) and the next week's Monday change nothing here.
    league_boards.count(client, daily(ana, 640, MONDAY + timedelta(days=2)), zone=UTC)
    league_boards.count(client, daily(bo, 640, MONDAY + timedelta(days=7)), zone=UTC)
    sunday = MONDAY + timedelta(days=6)
    week = leagues.week_standing(client, config_on(sunday), bo, league.id, sunday)
    assert (week.day, lines(week)) == (MONDAY, [(1, "Ana", 1020), (2, "Bo", 800)])
    following = leagues.week_standing(client, CONFIG, bo, league.id, MONDAY + timedelta(days=7))
    assert lines(following) == [(1, "Bo", 640)]


def test_a_player_in_many_leagues_counts_on_each_in_one_call(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    ids = [leagues.create(client, CONFIG, ana, f"L{n}").id for n in range(3)]
    leagues.join(client, CONFIG, bo, ids[0])
    client.script_flush()  # a node without the script cached loads it and runs again
    assert league_boards.count(client, daily(ana, 222, MONDAY), zone=UTC) == 3
    assert league_boards.count(client, daily(bo, 111, MONDAY), zone=UTC) == 1
    assert league_boards.count(client, daily(bo, 111, MONDAY), ids, zone=UTC) == 1  # Bo is in one
    for league_id in ids:
        standing = leagues.day_standing(client, CONFIG, ana, league_id, MONDAY)
        expected = [(1, "Ana", 222)] + ([(2, "Bo", 111)] if league_id == ids[0] else [])
        assert lines(standing) == expected


def test_leaving_takes_a_member_off_the_boards_and_hands_ownership_on(client: redis.Redis) -> None:
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Club")
    leagues.join(client, CONFIG, bo, league.id)
    leagues.join(client, CONFIG, cy, league.id)
    for minute, player in enumerate((ana, bo, cy)):
        league_boards.count(client, daily(player, 200, MONDAY, minute), zone=UTC)
    leagues.remove(client, CONFIG, ana, league.id, cy)
    assert lines(leagues.day_standing(client, CONFIG, ana, league.id, MONDAY)) == [
        (1, "Ana", 200),
        (1, "Bo", 200),
    ]
    assert lines(leagues.week_standing(client, CONFIG, bo, league.id, MONDAY))[1:] == [
        (1, "Bo", 200)
    ]
    assert leagues.mine(client, cy) == ()
    leagues.leave(client, CONFIG, ana, league.id)  # the owner leaves: Bo owns it now
    found = leagues.get(client, bo, league.id)
    assert (found.owner.name, found.is_owner, found.size) == ("Bo", True, 1)
    assert league_boards.count(client, daily(ana, 300, MONDAY + timedelta(days=1)), zone=UTC) == 0
    leagues.leave(client, CONFIG, bo, league.id)  # the last one out: the league is gone
    with pytest.raises(NotFoundError, match="no such league"):
        leagues.get(client, bo, league.id)
    assert not client.exists(keys.league_day(league.id, MONDAY.isoformat()))


def test_rename_and_mine(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    zed = leagues.create(client, CONFIG, ana, "zed")
    alpha = leagues.create(client, CONFIG, ana, "Alpha")
    assert leagues.rename(client, CONFIG, ana, zed.id, "Beta").name == "Beta"
    assert [league.name for league in leagues.mine(client, ana)] == ["Alpha", "Beta"]
    assert leagues.mine(client, bo) == leagues.mine(client, None) == ()
    assert alpha.is_owner and alpha.owner.name == "Ana"


def test_refusals_change_nothing(client: redis.Redis) -> None:
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Club")
    leagues.join(client, CONFIG, bo, league.id)
    league_boards.count(client, daily(bo, 200, MONDAY), zone=UTC)
    before = dump(client, league.id)
    refusals = [
        (NotOwnerError, lambda: leagues.rename(client, CONFIG, bo, league.id, "Mine")),
        (NotOwnerError, lambda: leagues.remove(client, CONFIG, bo, league.id, ana)),
        (BadInputError, lambda: leagues.remove(client, CONFIG, ana, league.id, ana)),
        (NotFoundError, lambda: leagues.remove(client, CONFIG, ana, league.id, cy)),
        (NotFoundError, lambda: leagues.leave(client, CONFIG, cy, league.id)),
        (InvalidNameError, lambda: leagues.rename(client, CONFIG, ana, league.id, " ")),
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, "AAAAAAAAAAA")),
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, "../x")),
        # An unknown league: its owner's calls are refused as anybody's.
        (NotFoundError, lambda: leagues.rename(client, CONFIG, ana, "AAAAAAAAAAA", "Mine")),
        (NotFoundError, lambda: leagues.remove(client, CONFIG, ana, "AAAAAAAAAAA", bo)),
        (NotFoundError, lambda: leagues.leave(client, CONFIG, ana, "AAAAAAAAAAA")),
        (NotFoundError, lambda: leagues.remove(client, CONFIG, ana, league.id, "")),
    ]
    for error, call in refusals:
        with pytest.raises(error):
            call()
    assert dump(client, league.id) == before
    assert league_boards.leagues_of(client, cy) == []
    assert (
        league_boards.leagues_of(client, ana) == league_boards.leagues_of(client, bo) == [league.id]
    )


def test_limits_on_members_and_leagues(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(leagues, "MAX_MEMBERS", 2)
    monkeypatch.setattr(leagues, "MAX_LEAGUES", 2)
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Small")
    leagues.join(client, CONFIG, bo, league.id)
    leagues.join(client, CONFIG, bo, league.id)  # twice: still two members
    before = dump(client, league.id)
    with pytest.raises(LeagueFullError, match="full: 2 members") as full:
        leagues.join(client, CONFIG, cy, league.id)
    assert full.value.details == {"limit": 2}
    assert dump(client, league.id) == before and league_boards.leagues_of(client, cy) == []
    leagues.create(client, CONFIG, cy, "One")
    leagues.create(client, CONFIG, cy, "Two")
    with pytest.raises(TooManyLeaguesError, match="at most 2 leagues"):
        leagues.create(client, CONFIG, cy, "Three")
    leagues.create(client, CONFIG, ana, "Other")
    theirs = leagues.mine(client, cy)[0].id
    with pytest.raises(TooManyLeaguesError):
        leagues.join(client, CONFIG, ana, theirs)
    assert (
        len(league_boards.leagues_of(client, cy)) == 2
        and len(league_boards.leagues_of(client, ana)) == 2
    )
    assert leagues.get(client, cy, theirs).size == 1


def test_leave_all_before_a_player_is_deleted(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    ids = [leagues.create(client, CONFIG, ana, name).id for name in ("One", "Two")]
    leagues.join(client, CONFIG, bo, ids[0])
    league_boards.count(client, daily(bo, 300, MONDAY), zone=UTC)
    assert leagues.leave_all(client, CONFIG, bo) == 1
    assert leagues.get(client, ana, ids[0]).size == 1
    assert lines(leagues.day_standing(client, CONFIG, ana, ids[0], MONDAY)) == []
    assert leagues.leave_all(client, CONFIG, ana) == 2 and leagues.mine(client, ana) == ()
