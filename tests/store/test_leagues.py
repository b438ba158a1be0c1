"""Leagues on a real Redis: members, limits, the day board and the week table, leaving."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from daily.core.config import Config, load
from daily.core.errors import (
    BadInputError,
    InvalidNameError,
    LeagueFullError,
    NotFoundError,
    NotOwnerError,
    RemovedError,
    TooManyLeaguesError,
)
from daily.core.modes import BoardKind
from daily.service import leagues
from daily.store import board_counts, keys, league_boards, players
from daily.store.boards import Result
from daily.store.connection import connect
from daily.store.members import member

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
    return load({}, clock=lambda: start + timedelta(seconds=next(ticks)))


CONFIG = config_on(MONDAY)


def daily(player: str, total: int, day: date, minute: int = 0) -> Result:
    at = datetime(day.year, day.month, day.day, 9, tzinfo=UTC).timestamp() + 60 * minute
    return Result(f"g-{player}-{day}", player, BoardKind.DAILY, total, at, day=day)


def lines(standing: leagues.LeagueBoard) -> list[tuple[int, str, int]]:
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
        "removed": client.zrange(keys.league_removed(league_id), 0, -1),
    }


def test_members_see_a_day_board_of_just_the_league(client: redis.Redis) -> None:
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Tuesday club")
    leagues.join(client, CONFIG, bo, league.id, league.invite)
    for player, total in ((ana, 250), (bo, 280), (cy, 300)):  # Cy is not in it
        board_counts.submit(client, daily(player, total, MONDAY))
        league_boards.count(client, daily(player, total, MONDAY), zone=UTC)
    standing = leagues.day_standing(client, CONFIG, ana, league.id, MONDAY)
    assert lines(standing) == [(1, "Bo", 280), (2, "Ana", 250)]
    assert standing.me is not None and standing.me.rank == 2
    assert [m.name for m in leagues.get(client, bo, league.id).members] == ["Ana", "Bo"]
    with pytest.raises(NotFoundError, match="for its members"):
        leagues.day_standing(client, CONFIG, cy, league.id, MONDAY)
    seen = leagues.get(client, cy, league.id, league.invite)  # a stranger with the link
    assert (seen.name, seen.size, seen.members) == ("Tuesday club", 2, ())  # no names
    with pytest.raises(NotFoundError, match="invite link was renewed"):
        leagues.get(client, cy, league.id)  # the id alone


def test_the_week_table_sums_each_members_best_five_days(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    league = leagues.create(client, CONFIG, ana, "Week")
    leagues.join(client, CONFIG, bo, league.id, league.invite)
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
    made = [leagues.create(client, CONFIG, ana, f"L{n}") for n in range(3)]
    ids = [league.id for league in made]
    leagues.join(client, CONFIG, bo, ids[0], made[0].invite)
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
    leagues.join(client, CONFIG, bo, league.id, league.invite)
    leagues.join(client, CONFIG, cy, league.id, league.invite)
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
    leagues.join(client, CONFIG, bo, league.id, league.invite)
    league_boards.count(client, daily(bo, 200, MONDAY), zone=UTC)
    before = dump(client, league.id)
    refusals: list[tuple[type[Exception], Callable[[], object]]] = [
        (NotOwnerError, lambda: leagues.rename(client, CONFIG, bo, league.id, "Mine")),
        (NotOwnerError, lambda: leagues.remove(client, CONFIG, bo, league.id, ana)),
        (BadInputError, lambda: leagues.remove(client, CONFIG, ana, league.id, ana)),
        (NotFoundError, lambda: leagues.remove(client, CONFIG, ana, league.id, cy)),
        (NotFoundError, lambda: leagues.leave(client, CONFIG, cy, league.id)),
        (InvalidNameError, lambda: leagues.rename(client, CONFIG, ana, league.id, " ")),
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, "AAAAAAAAAAA", None)),
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, "../x", league.invite)),
        # Without the current invite token: none (a link of the id alone), an old or a bad one.
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, league.id, None)),
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, league.id, league.id)),
        (NotFoundError, lambda: leagues.join(client, CONFIG, cy, league.id, "../x")),
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
    leagues.join(client, CONFIG, bo, league.id, league.invite)
    leagues.join(client, CONFIG, bo, league.id, league.invite)  # twice: still two members
    before = dump(client, league.id)
    with pytest.raises(LeagueFullError, match="full: 2 members") as full:
        leagues.join(client, CONFIG, cy, league.id, league.invite)
    assert full.value.details == {"limit": 2}
    assert dump(client, league.id) == before and league_boards.leagues_of(client, cy) == []
    leagues.create(client, CONFIG, cy, "One")
    leagues.create(client, CONFIG, cy, "Two")
    with pytest.raises(TooManyLeaguesError, match="at most 2 leagues"):
        leagues.create(client, CONFIG, cy, "Three")
    leagues.create(client, CONFIG, ana, "Other")
    theirs = leagues.mine(client, cy)[0].id
    with pytest.raises(TooManyLeaguesError):
        leagues.join(client, CONFIG, ana, theirs, leagues.mine(client, cy)[0].invite)
    assert (
        len(league_boards.leagues_of(client, cy)) == 2
        and len(league_boards.leagues_of(client, ana)) == 2
    )
    assert leagues.get(client, cy, theirs).size == 1


def test_leave_all_before_a_player_is_deleted(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    made = [leagues.create(client, CONFIG, ana, name) for name in ("One", "Two")]
    ids = [league.id for league in made]
    leagues.join(client, CONFIG, bo, ids[0], made[0].invite)
    league_boards.count(client, daily(bo, 300, MONDAY), zone=UTC)
    assert leagues.leave_all(client, CONFIG, bo) == 1
    assert leagues.get(client, ana, ids[0]).size == 1
    assert lines(leagues.day_standing(client, CONFIG, ana, ids[0], MONDAY)) == []
    assert leagues.leave_all(client, CONFIG, ana) == 2 and leagues.mine(client, ana) == ()


def test_standings_of_a_player_on_one_day(client: redis.Redis) -> None:
    ana, bo, cy, di = named(client, "Ana", "Bo", "Cy", "Di")
    club = leagues.create(client, CONFIG, ana, "club")
    solo = leagues.create(client, CONFIG, ana, "Alone")
    quiet = leagues.create(client, CONFIG, di, "Quiet")
    gone = leagues.create(client, CONFIG, bo, "Gone")
    for player, league in ((bo, club), (cy, club), (ana, quiet), (ana, gone)):
        leagues.join(client, CONFIG, player, league.id, league.invite)
    leagues.leave(client, CONFIG, ana, gone.id)  # left: not listed
    for player, total, minute in ((ana, 250, 5), (bo, 250, 1), (cy, 300, 2)):
        league_boards.count(client, daily(player, total, MONDAY, minute), zone=UTC)
    league_boards.count(client, daily(di, 100, MONDAY + timedelta(days=1)), zone=UTC)
    found = leagues.standings_of(client, CONFIG, ana, MONDAY)
    assert found == [
        leagues.Standing(solo.id, "Alone", 1, 1, 1),
        leagues.Standing(club.id, "club", 2, 3, 3),  # tied with Bo: both second
        leagues.Standing(quiet.id, "Quiet", 1, 2, 1),
    ]
    tuesday = leagues.standings_of(client, CONFIG, ana, MONDAY + timedelta(days=1))
    assert [(s.name, s.rank, s.played) for s in tuesday] == [
        ("Alone", None, 0),
        ("club", None, 0),
        ("Quiet", None, 1),
    ]
    assert leagues.standings_of(client, CONFIG, cy, MONDAY)[0].rank == 1
    assert leagues.standings_of(client, CONFIG, "nobody", MONDAY) == []


def test_standings_of_read_every_league_in_one_pipeline(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = named(client, "Ana")[0]
    for n in range(leagues.MAX_LEAGUES):
        leagues.create(client, CONFIG, ana, f"L{n}")
    league_boards.count(client, daily(ana, 200, MONDAY), zone=UTC)
    leagues.standings_of(client, CONFIG, ana, MONDAY)  # the script is cached now
    commands: list[object] = []
    pipelines: list[object] = []
    send, pipeline = client.execute_command, client.pipeline

    def counted_send(*a: Any, **k: Any) -> Any:
        commands.append(a[0])
        return send(*a, **k)  # type: ignore[no-untyped-call]  # redis-py leaves it untyped

    def counted_pipeline(*a: Any, **k: Any) -> Any:
        pipelines.append(a)
        return pipeline(*a, **k)

    monkeypatch.setattr(client, "execute_command", counted_send)
    monkeypatch.setattr(client, "pipeline", counted_pipeline)
    found = leagues.standings_of(client, CONFIG, ana, MONDAY)
    assert [s.rank for s in found] == [1] * leagues.MAX_LEAGUES
    assert (commands, len(pipelines)) == (["SMEMBERS"], 1)


def test_a_removed_member_stays_out_and_the_owner_renews_the_link(client: redis.Redis) -> None:
    ana, bo, cy, di = named(client, "Ana", "Bo", "Cy", "Di")
    league = leagues.create(client, CONFIG, ana, "Club")
    old = league.invite
    for player in (bo, cy):
        leagues.join(client, CONFIG, player, league.id, old)
    after = leagues.remove(client, CONFIG, ana, league.id, cy)
    assert after.invite != old and leagues.get(client, bo, league.id).invite == after.invite
    with pytest.raises(NotFoundError, match="invite link was renewed"):
        leagues.join(client, CONFIG, cy, league.id, old)  # the link Cy had
    with pytest.raises(NotFoundError, match="invite link was renewed"):
        leagues.get(client, cy, league.id, old)
    assert leagues.find(client, cy, league.id, old) is None
    assert league_boards.leagues_of(client, cy) == []
    leagues.join(client, CONFIG, bo, league.id, old)  # a member joining again needs none
    renewed = leagues.renew(client, CONFIG, ana, league.id)
    assert renewed.invite not in (old, after.invite)
    with pytest.raises(NotFoundError):
        leagues.join(client, CONFIG, di, league.id, after.invite)
    joined = leagues.join(client, CONFIG, di, league.id, renewed.invite)
    assert [m.name for m in joined.members] == ["Ana", "Bo", "Di"]
    before = dump(client, league.id)
    with pytest.raises(NotOwnerError):
        leagues.renew(client, CONFIG, bo, league.id)
    with pytest.raises(NotFoundError):
        leagues.renew(client, CONFIG, ana, "AAAAAAAAAAA")
    assert dump(client, league.id) == before


def test_a_league_from_before_invite_tokens_takes_its_id_until_renewed(
    client: redis.Redis,
) -> None:
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Old")
    client.hdel(keys.league(league.id), "invite")  # as stored before the tokens
    assert leagues.get(client, bo, league.id).invite == league.id  # the link of the id alone
    leagues.join(client, CONFIG, bo, league.id, None)
    renewed = leagues.renew(client, CONFIG, ana, league.id)
    with pytest.raises(NotFoundError):
        leagues.join(client, CONFIG, cy, league.id, None)
    assert leagues.join(client, CONFIG, cy, league.id, renewed.invite).size == 3


def test_joining_counts_the_daily_played_earlier_that_day(client: redis.Redis) -> None:
    ana, bo, cy, di = named(client, "Ana", "Bo", "Cy", "Di")
    sunday = MONDAY - timedelta(days=1)
    board_counts.submit(client, daily(bo, 180, sunday))  # the day before: never counts here
    for player, total in ((ana, 250), (bo, 280), (cy, 300)):
        board_counts.submit(client, daily(player, total, MONDAY, minute=total // 100))
    # Di's game is held for review: not on the public board, so on no league either.
    league = leagues.create(client, CONFIG, ana, "Club")
    for player in (bo, cy, di):
        leagues.join(client, CONFIG, player, league.id, league.invite)
    expected = [(1, "Cy", 300), (2, "Bo", 280), (3, "Ana", 250)]
    assert lines(leagues.day_standing(client, CONFIG, di, league.id, MONDAY)) == expected
    assert lines(leagues.week_standing(client, CONFIG, di, league.id, MONDAY)) == expected
    assert lines(leagues.day_standing(client, CONFIG, di, league.id, sunday)) == []
    assert leagues.standings_of(client, CONFIG, ana, MONDAY) == [
        leagues.Standing(league.id, "Club", 3, 4, 3)
    ]
    # Its finish counted again later (a retried submit) changes nothing; the finish time stands.
    league_boards.count(client, daily(bo, 280, MONDAY, minute=2), zone=UTC)
    leagues.join(client, CONFIG, bo, league.id, None)  # again: no change
    assert lines(leagues.day_standing(client, CONFIG, di, league.id, MONDAY)) == expected
    board_counts.submit(client, daily(di, 320, MONDAY))  # released: counted where Di is now
    league_boards.count(client, daily(di, 320, MONDAY), zone=UTC)
    assert lines(leagues.day_standing(client, CONFIG, di, league.id, MONDAY))[0] == (1, "Di", 320)


def test_a_withdrawn_daily_leaves_the_league_day_and_week(client: redis.Redis) -> None:
    ana, bo = named(client, "Ana", "Bo")
    league = leagues.create(client, CONFIG, ana, "Club")
    leagues.join(client, CONFIG, bo, league.id, league.invite)
    totals = [300, 100, 200, 150, 250, 50]  # Monday to Saturday: the best five make 1000
    results = [daily(ana, t, MONDAY + timedelta(days=n), n) for n, t in enumerate(totals)]
    for result in [*results, daily(bo, 400, MONDAY)]:
        board_counts.submit(client, result)
        league_boards.count(client, result, zone=UTC)
    assert lines(leagues.week_standing(client, CONFIG, ana, league.id, MONDAY)) == [
        (1, "Ana", 1000),
        (2, "Bo", 400),
    ]
    board_counts.withdraw(client, results[0])  # Monday's 300: Saturday's 50 counts instead
    board_counts.withdraw(client, results[0])  # again: no change
    assert lines(leagues.day_standing(client, CONFIG, ana, league.id, MONDAY)) == [(1, "Bo", 400)]
    assert lines(leagues.week_standing(client, CONFIG, ana, league.id, MONDAY)) == [
        (1, "Ana", 750),
        (2, "Bo", 400),
    ]
    # The week entry is what counting the five days left would have made, tie-break included.
    fresh = leagues.create(client, CONFIG, ana, "Fresh")
    for result in results[1:]:
        league_boards.count(client, result, [fresh.id], zone=UTC)
    week_keys = [keys.league_week(i, MONDAY.isoformat()) for i in (league.id, fresh.id)]
    assert len({client.zscore(key, member(ana)) for key in week_keys}) == 1
    for result in results[1:]:
        board_counts.withdraw(client, result)
    assert lines(leagues.week_standing(client, CONFIG, ana, league.id, MONDAY)) == [(1, "Bo", 400)]
    assert leagues.standings_of(client, CONFIG, ana, MONDAY + timedelta(days=1))[0].rank is None


def test_a_removed_member_joins_by_no_link_until_readmitted(client: redis.Redis) -> None:
    # Round 5: a removed member came back as soon as the owner shared the renewed link.
    ana, bo, cy = named(client, "Ana", "Bo", "Cy")
    league = leagues.create(client, CONFIG, ana, "Club")
    leagues.join(client, CONFIG, bo, league.id, league.invite)
    leagues.join(client, CONFIG, cy, league.id, league.invite)
    removed = leagues.remove(client, CONFIG, ana, league.id, bo)
    assert [m.name for m in removed.removed] == ["Bo"]
    assert leagues.get(client, cy, league.id).removed == ()  # the owner's list alone
    renewed = leagues.renew(client, CONFIG, ana, league.id)
    for link in (removed.invite, renewed.invite, None):  # the current link, or any other
        with pytest.raises((RemovedError, NotFoundError)):
            leagues.join(client, CONFIG, bo, league.id, link)
    with pytest.raises(RemovedError, match="removed you"):
        leagues.join(client, CONFIG, bo, league.id, renewed.invite)
    seen = leagues.get(client, bo, league.id, renewed.invite)
    assert seen.is_removed and not seen.is_member and seen.members == ()
    assert league_boards.leagues_of(client, bo) == []  # no claim left behind by the refusals
    before = dump(client, league.id)
    with pytest.raises(NotOwnerError):
        leagues.readmit(client, CONFIG, cy, league.id, bo)
    with pytest.raises(NotFoundError):
        leagues.readmit(client, CONFIG, ana, league.id, cy)  # never removed
    assert dump(client, league.id) == before
    assert leagues.readmit(client, CONFIG, ana, league.id, bo).removed == ()
    with pytest.raises(NotFoundError):
        leagues.join(client, CONFIG, bo, league.id, removed.invite)  # an old link stays old
    back = leagues.join(client, CONFIG, bo, league.id, renewed.invite)
    assert [m.name for m in back.members] == ["Ana", "Cy", "Bo"] and not back.is_removed
    # The list goes with the league: the last member out deletes every key of it.
    for player in (bo, cy):
        leagues.remove(client, CONFIG, ana, league.id, player)
    leagues.leave(client, CONFIG, ana, league.id)
    assert not client.exists(keys.league_removed(league.id))
