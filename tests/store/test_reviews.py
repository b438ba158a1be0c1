"""The review queue on a real Redis: a clairvoyant game is held off every board, then the
operator releases it (counted exactly once) or removes it (kept, never ranked)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import redis

from daily import cli
from daily.core import config, dice
from daily.core.errors import ReviewError
from daily.core.record import OnCode, Record
from daily.core.rules import Move, Roll, find_ruleset
from daily.service import games, results, reviews
from daily.store import game_fields, keys, members, review_queue, saved_games
from daily.store.connection import connect
from daily.strategy import clairvoyant, luck, solver
from daily.strategy.model import model_of
from daily.strategy.solver import Table
from daily.tables.loader import load_table
from tests.built_tables import SECRET, session_tables, site

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
CODE = "K7P2QX9D"
YATZY = find_ruleset("yatzy")


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return connect(redis_url, Path("unused"))  # a server or a cluster


@pytest.fixture(scope="module")
def table(small_tables: Path) -> Table:
    return load_table(model_of(YATZY), site(small_tables))


def settings() -> config.Config:
    return config.load(
        session_tables(), env="testing", secret_key=SECRET, clock=lambda: NOON, established_days=1
    )


def friend_record(player: str, code: str = CODE) -> Record:
    return Record(
        id=game_fields.new_id(),
        mode="friend",
        ruleset="yatzy",
        options={},
        player_id=player,
        seed_ref=f"friend:{code}",
        created=NOON.timestamp(),
        on_code=OnCode(code),
    )


def line(table: Table, *, foresight: bool, code: str = CODE) -> tuple[Move, ...]:
    """A whole game on the code's dice: every turn foreseen, or the Expert's honest play."""
    source = dice.stream(dice.friend_seed(SECRET, code))
    turns = range(1, len(YATZY.rows) + 1) if foresight else ()
    return clairvoyant.play(table, source, turns).moves


def play(client: redis.Redis, player: str, moves: Sequence[Move], code: str = CODE) -> Record:
    """Plays *moves* through the store, as the API does; the finished record."""
    record = friend_record(player, code)
    lifetime_s = games.expires_in(record, settings())
    record, _ = saved_games.start(client, record, lifetime_s, [keys.player_friend(player, code)])
    for move in moves:
        record, _ = games.play(client, settings(), record, move)
    assert record.finished
    return saved_games.load(client, record.id) or record


def on_board(client: redis.Redis, player: str, code: str = CODE) -> bool:
    return client.zscore(keys.board_friend(code), members.member(player)) is not None


def test_a_clairvoyant_game_is_held_and_an_honest_one_counts(
    client: redis.Redis, table: Table
) -> None:
    honest = play(client, "honest", line(table, foresight=False))
    seer = play(client, "seer", line(table, foresight=True))
    assert on_board(client, "honest") and review_queue.status_of(honest) is None
    assert float(honest.extra["luck"]) < luck.THRESHOLD
    assert not on_board(client, "seer")
    assert (
        review_queue.status_of(seer) == review_queue.HELD
        and review_queue.shown_status(seer) == "held"
    )
    assert float(seer.extra["luck"]) >= luck.THRESHOLD
    assert seer.submitted and results.rank_of(client, seer) is None
    assert client.zcard(keys.pending_results()) == 0
    assert [h.game_id for h in reviews.held(client)] == [seer.id]
    assert reviews.held(client)[0].board == f"friend/{CODE}"
    # Submitting again (a retried count) neither checks twice nor lets it through.
    reviews.submit(client, settings(), seer)
    games.retry_pending(client, settings())
    assert not on_board(client, "seer")


def test_release_counts_the_game_once(client: redis.Redis, table: Table) -> None:
    seer = play(client, "seer", line(table, foresight=True))
    reviews.release(client, settings(), seer.id)
    assert on_board(client, "seer") and client.zcard(keys.board_friend(CODE)) == 1
    record = saved_games.load(client, seer.id)
    assert record is not None and review_queue.status_of(record) == review_queue.RELEASED
    assert review_queue.shown_status(record) is None and results.rank_of(client, record) == 1
    assert reviews.held(client) == []
    with pytest.raises(ReviewError, match="not under review"):
        reviews.release(client, settings(), seer.id)
    reviews.submit(client, settings(), record)  # a late retry: still one entry
    assert client.zcard(keys.board_friend(CODE)) == 1


def test_remove_keeps_the_record_and_never_ranks_it(client: redis.Redis, table: Table) -> None:
    seer = play(client, "seer", line(table, foresight=True))
    reviews.remove(client, seer.id)
    record = saved_games.load(client, seer.id)
    assert record is not None and record.moves == seer.moves and record.total == seer.total
    assert (
        review_queue.status_of(record) == review_queue.REMOVED
        and review_queue.shown_status(record) == "removed"
    )
    reviews.submit(client, settings(), record)
    assert not on_board(client, "seer") and reviews.held(client) == []
    with pytest.raises(ReviewError):
        reviews.release(client, settings(), seer.id)
    with pytest.raises(ReviewError, match="no such game"):
        reviews.remove(client, "nope")


def test_without_a_table_the_game_counts_and_is_checked_once_it_is_built(
    client: redis.Redis,
    table: Table,
    strategy_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Yatzy's table builds on first need; make it behave like maxi's (built ahead only).
    moves = line(table, foresight=True)
    monkeypatch.setattr(solver, "is_small", lambda ruleset: False)
    monkeypatch.setenv("DAILY_CACHE", str(tmp_path / "empty"))
    seer = play(client, "seer", moves)
    play(client, "honest", line(table, foresight=False, code="ABCD1234"), "ABCD1234")
    assert on_board(client, "seer") and on_board(client, "honest", "ABCD1234")
    assert review_queue.unchecked(client) == 2 and "luck" not in seer.extra
    assert reviews.check_unchecked(client, settings()) == 0  # still no table: both wait
    assert review_queue.unchecked(client) == 2

    monkeypatch.setenv("DAILY_CACHE", str(strategy_cache))
    assert reviews.check_unchecked(client, settings()) == 1
    assert review_queue.unchecked(client) == 0
    assert not on_board(client, "seer") and on_board(client, "honest", "ABCD1234")
    assert [h.game_id for h in reviews.held(client)] == [seer.id]
    reviews.release(client, settings(), seer.id)
    assert on_board(client, "seer") and client.zcard(keys.board_friend(CODE)) == 1


def test_a_maxi_daily_without_its_table_counts_and_waits(client: redis.Redis) -> None:
    # The tests never build maxi: exactly the service before `daily solve maxi`.
    day = date(2026, 12, 3)
    record = Record(
        id=game_fields.new_id(),
        mode="daily",
        ruleset="maxi",
        options={},
        player_id="p1",
        seed_ref=f"daily:{day}",
        created=NOON.timestamp(),
        day=day,
    )
    lifetime_s = games.expires_in(record, settings())
    record, _ = saved_games.start(client, record, lifetime_s, [keys.player_daily("p1", str(day))])
    state = record.state(SECRET)
    while not state.is_finished:
        move = Roll(()) if state.rolls_left else None
        record, state = games.play(client, settings(), record, move or _first_row(state))
    assert client.zscore(keys.board_daily(str(day)), members.member("p1")) is not None
    assert review_queue.unchecked(client) == 1
    assert reviews.check_unchecked(client, settings()) == 0 and review_queue.unchecked(client) == 1


def _first_row(state: Any) -> Move:
    from daily.core.rules import Score

    return Score(state.open_rows()[0])


def test_review_command_lists_releases_and_removes(
    client: redis.Redis, table: Table, redis_url: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("SECRET_KEY", SECRET)
    first = play(client, "seer", line(table, foresight=True))
    second = play(client, "other", line(table, foresight=True, code="ABCD1234"), "ABCD1234")
    assert cli.main(["review", "list"]) == 0
    out = capsys.readouterr().out
    assert first.id in out and second.id in out and "2 held for review" in out
    assert cli.main(["review", "release", first.id]) == 0
    assert cli.main(["review", "remove", second.id]) == 0
    assert "removed" in capsys.readouterr().out
    assert on_board(client, "seer") and not on_board(client, "other", "ABCD1234")
    assert cli.main(["review", "release", first.id]) == 2
    assert "not under review" in capsys.readouterr().err
    assert cli.main(["review", "release"]) == 2
    assert cli.main(["review", "check"]) == 0
    assert "0 held for review, 0 still waiting" in capsys.readouterr().out


def test_a_held_game_that_a_crash_left_unlisted_is_listed_again(
    client: redis.Redis, table: Table
) -> None:
    seer = play(client, "seer", line(table, foresight=True))
    client.zrem(keys.reviews_held(), seer.id)  # as if the process died after the hash
    reviews.submit(client, settings(), seer)
    assert [h.game_id for h in reviews.held(client)] == [seer.id]
    assert not on_board(client, "seer")


def test_games_without_a_table_never_stall_the_sweep(
    client: redis.Redis, table: Table, strategy_cache: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    # Twelve ranked games of a variant whose table nobody builds wait at the head of the
    # list (before: the sweep looked at the first ten for good); a clairvoyant one is behind.
    forced = {"forced": True}
    monkeypatch.setenv("DAILY_CACHE", str(tmp_path / "empty"))
    for n in range(12):
        code = f"WAIT{n:04d}"
        waiting = dataclasses.replace(friend_record(f"p{n}", code), options=forced)
        lifetime_s = games.expires_in(waiting, settings())
        record, _ = saved_games.start(
            client, waiting, lifetime_s, [keys.player_friend(f"p{n}", code)]
        )
        state = record.state(SECRET)
        while not state.is_finished:
            move = Roll(()) if state.rolls_left else _first_row(state)
            record, state = games.play(client, settings(), record, move)
    seer = play(client, "seer", line(table, foresight=True))
    assert review_queue.unchecked(client) == 13 and on_board(client, "seer")
    monkeypatch.setenv("DAILY_CACHE", str(strategy_cache))  # yatzy's table now exists
    assert reviews.sweep_unchecked(client, settings()) == 1  # one sweep, no operator's command
    assert not on_board(client, "seer") and [h.game_id for h in reviews.held(client)] == [seer.id]
    assert review_queue.unchecked(client) == 12  # the variants wait, at the back of the list
    # The next sweep may run at once (the variants still wait); one running keeps others off.
    assert reviews.sweep_unchecked(client, settings()) == 0
    assert review_queue.claim_sweep(client, 30)
    assert reviews.sweep_unchecked(client, settings()) is None


def test_one_sweep_checks_every_game_whose_table_is_ready(
    client: redis.Redis, table: Table, strategy_cache: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    # Forty honest games and a clairvoyant one, all waiting for a table that comes later:
    # one sweep checks them all (it checked 25 a minute before), the seer last in line.
    monkeypatch.setenv("DAILY_CACHE", str(tmp_path / "empty"))
    for n in range(40):
        play(client, f"p{n}", line(table, foresight=False))
    seer = play(client, "seer", line(table, foresight=True))
    assert review_queue.unchecked(client) == 41
    monkeypatch.setenv("DAILY_CACHE", str(strategy_cache))
    assert reviews.sweep_unchecked(client, settings()) == 1
    assert review_queue.unchecked(client) == 0
    assert [h.game_id for h in reviews.held(client)] == [seer.id]
