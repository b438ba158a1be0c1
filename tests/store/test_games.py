"""Games on a real Redis: start once, append only what replays, finish and count exactly once."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import redis
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from daily.core import config, dice
from daily.core.errors import IllegalMoveError, InvalidMoveError, MoveConflict, RulesError
from daily.core.record import OnCode, Record
from daily.core.rules import GameState, Move, Roll, Score, apply, legal_moves
from daily.service import games
from daily.store import (
    archived_games,
    board_counts,
    boards,
    friend_codes,
    game_fields,
    keys,
    played_days,
    players,
    saved_games,
)
from daily.store.connection import connect
from daily.store.game_fields import archive_shard
from tests.built_tables import SECRET, session_tables

pytestmark = pytest.mark.redis

DAY = date(2026, 12, 3)
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
#: What the service gives a daily started at NOON to live: until its day's reveal.
LIFETIME_S = (dice.Day(DAY, UTC).reveals_at - NOON).total_seconds()


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return connect(redis_url, Path("unused"))  # a server or a cluster


def settings(at: datetime = NOON) -> config.Config:
    return config.load(
        session_tables(), env="testing", secret_key=SECRET, clock=lambda: at, established_days=1
    )


def daily_record(player: str = "p1", game_id: str | None = None) -> Record:
    return Record(
        id=game_id or game_fields.new_id(),
        mode="daily",
        ruleset="maxi",
        options={},
        player_id=player,
        seed_ref=f"daily:{DAY}",
        created=NOON.timestamp(),
        day=DAY,
    )


def greedy(state: GameState) -> Move:
    """Holds the most common face once (unless all dice show it), then scores the best row."""
    face, count = Counter(state.dice).most_common(1)[0]
    if state.roll == 1 and state.rolls_left and count < len(state.dice):
        return Roll(tuple(i for i, d in enumerate(state.dice) if d == face))
    potential = state.potential()
    return Score(max(potential, key=lambda row: potential[row]))


def stored(client: redis.Redis, game_id: str) -> dict[str, Any]:
    return client.hgetall(keys.game(game_id))  # type: ignore[return-value]


def start_daily(client: redis.Redis, player: str = "p1") -> Record:
    index = [keys.player_daily(player, str(DAY))]
    record, created = saved_games.start(client, daily_record(player), LIFETIME_S, index)
    assert created
    return record


def test_start_and_load(client: redis.Redis) -> None:
    record = start_daily(client)
    assert saved_games.load(client, record.id) == record
    assert saved_games.games_of(client, "p1") == [record.id]
    assert saved_games.load(client, "nope") is None


def test_second_daily_start_returns_the_first(client: redis.Redis) -> None:
    first = start_daily(client)
    index = [keys.player_daily("p1", str(DAY))]
    again, created = saved_games.start(client, daily_record(), LIFETIME_S, index)
    assert not created and again == first
    assert saved_games.games_of(client, "p1") == [first.id]
    assert len(list(client.scan_iter(keys.game("*")))) == 1  # scans every cluster node


def test_index_keys_are_claimed_all_or_none(client: redis.Redis) -> None:
    first = start_daily(client)
    both = [keys.player_daily("p1", str(DAY)), keys.player_friend("p1", "K7P2QX9D")]
    again, created = saved_games.start(client, daily_record(), LIFETIME_S, both)
    assert not created and again == first
    assert client.get(both[1]) is None  # the code's index was not taken either
    assert saved_games.games_of(client, "p1") == [first.id]


def test_an_unfinished_game_expires_and_a_finished_one_stays(client: redis.Redis) -> None:
    record = start_daily(client)
    reveal = dice.Day(DAY, UTC).reveals_at
    left = client.pttl(keys.game(record.id))
    assert abs(left / 1000 - (reveal - NOON).total_seconds()) < 5
    state = record.state(SECRET)
    while not state.is_finished:
        record, state = games.play(client, settings(), record, greedy(state))
    assert client.ttl(keys.game(record.id)) == -1
    assert client.ttl(keys.player_daily("p1", str(DAY))) == -1


def test_play_appends_what_replays(client: redis.Redis) -> None:
    record = start_daily(client)
    state = record.state(SECRET)
    record, after = games.play(client, settings(), record, Roll((0, 1)), expected=0)
    assert record.moves == (Roll((0, 1)),)
    assert after.dice[:2] == state.dice[:2]
    loaded = saved_games.load(client, record.id)
    assert loaded is not None and loaded.state(SECRET) == after


@pytest.mark.parametrize(
    ("move", "error"),
    [
        (Roll((6,)), InvalidMoveError),
        (Roll((0, 0)), InvalidMoveError),
        (Score("nope"), RulesError),
    ],
    ids=["hold-out-of-range", "hold-repeated", "unknown-row"],
)
def test_bad_moves_change_nothing(client: redis.Redis, move: Move, error: type[Exception]) -> None:
    record = start_daily(client)
    before = stored(client, record.id)
    with pytest.raises(error):
        games.play(client, settings(), record, move)
    assert stored(client, record.id) == before


def test_no_rolls_left_and_used_row(client: redis.Redis) -> None:
    record = start_daily(client)
    record, _ = games.play(client, settings(), record, Roll(()))
    record, _ = games.play(client, settings(), record, Roll(()))
    before = stored(client, record.id)
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        games.play(client, settings(), record, Roll(()))
    record, _ = games.play(client, settings(), record, Score("chance"))
    before = stored(client, record.id)
    with pytest.raises(IllegalMoveError, match="already scored"):
        games.play(client, settings(), record, Score("chance"))
    assert stored(client, record.id) == before


def test_stale_move_is_a_conflict(client: redis.Redis) -> None:
    record = start_daily(client)
    games.play(client, settings(), record, Roll(()))
    before = stored(client, record.id)
    with pytest.raises(MoveConflict):
        games.play(client, settings(), record, Roll(()))  # built on the log before the move
    fresh = saved_games.load(client, record.id)
    assert fresh is not None
    with pytest.raises(MoveConflict):
        games.play(client, settings(), fresh, Roll(()), expected=0)
    assert stored(client, record.id) == before


def test_concurrent_duplicate_moves_land_once(client: redis.Redis) -> None:
    record = start_daily(client)
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def send() -> None:
        barrier.wait()  # one shared client is thread-safe: each call takes its own connection
        try:
            games.play(client, settings(), record, Score("chance"), expected=0)
            outcomes.append("ok")
        except MoveConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]
    loaded = saved_games.load(client, record.id)
    assert loaded is not None and loaded.moves == (Score("chance"),)


def play_out(client: redis.Redis, record: Record, at: datetime = NOON) -> Record:
    state = record.state(SECRET)
    while not state.is_finished:
        record, state = games.play(client, settings(at), record, greedy(state))
    return record


def test_finished_game_is_verified_counted_and_shared(client: redis.Redis) -> None:
    record = play_out(client, start_daily(client))
    loaded = saved_games.load(client, record.id)
    assert loaded is not None and loaded.finished and loaded.submitted
    assert loaded.total == loaded.state(SECRET).total == record.total
    assert loaded.finished_at == NOON.timestamp()
    assert client.zcard(keys.pending_results()) == 0
    share = friend_codes.load_code(client, loaded.share or "")
    assert share is not None and share.seed_ref == f"daily:{DAY}" and share.game_id == record.id
    with pytest.raises(MoveConflict, match="over"):
        games.play(client, settings(), loaded, Score("chance"))


def test_a_lost_count_is_recovered(client: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[boards.Result] = []

    def crash(*args: Any, **kwargs: Any) -> None:
        raise ConnectionResetError("the process died here")

    monkeypatch.setattr(board_counts, "submit", crash)
    record = start_daily(client)
    with pytest.raises(ConnectionResetError):
        play_out(client, record)
    loaded = saved_games.load(client, record.id)
    assert loaded is not None and loaded.finished and not loaded.submitted
    assert client.zrange(keys.pending_results(), 0, -1) == [record.id]

    monkeypatch.setattr(board_counts, "submit", lambda client, result, **kw: counted.append(result))
    assert games.retry_pending(client, settings()) == 1
    # The day's boards, then the board of the game's share code (its creator opens it).
    assert [(r.game_id, r.mode) for r in counted] == [(record.id, "daily"), (record.id, "friend")]
    assert counted[0].total == loaded.total and counted[0].day == DAY
    assert client.zcard(keys.pending_results()) == 0
    assert games.retry_pending(client, settings()) == 0


def test_a_later_finish_sweeps_up_a_lost_count(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[str] = []

    def crash(*args: Any, **kwargs: Any) -> None:
        raise ConnectionResetError("the process died here")

    monkeypatch.setattr(board_counts, "submit", crash)
    lost = start_daily(client, "p1")
    with pytest.raises(ConnectionResetError):
        play_out(client, lost)
    monkeypatch.setattr(  # each daily result (its share code's board counts it too)
        board_counts,
        "submit",
        lambda client, result, **kw: (
            counted.append(result.game_id) if result.mode == "daily" else 0
        ),
    )
    soon = start_daily(client, "p2")
    play_out(client, soon, NOON + timedelta(seconds=10))
    assert counted == [soon.id]  # too young to sweep: its own request may still be counting
    later = start_daily(client, "p3")
    play_out(client, later, NOON + timedelta(minutes=5))
    assert counted == [soon.id, later.id, lost.id]
    assert client.zcard(keys.pending_results()) == 0


def test_pending_entries_without_a_finish_expire(client: redis.Redis) -> None:
    record = start_daily(client)
    client.zadd(keys.pending_results(), {record.id: NOON.timestamp()})
    assert games.retry_pending(client, settings()) == 0
    assert client.zcard(keys.pending_results()) == 1  # may be a move in flight
    later = settings(NOON + timedelta(minutes=5))
    assert games.retry_pending(client, later) == 0
    assert client.zcard(keys.pending_results()) == 0


def test_daily_game_stops_when_the_seed_is_revealed(client: redis.Redis) -> None:
    record = start_daily(client)
    closed = dice.Day(DAY, UTC).reveals_at
    games.play(client, settings(closed - timedelta(seconds=1)), record, Roll(()))
    record = saved_games.load(client, record.id)  # type: ignore[assignment]
    before = stored(client, record.id)
    with pytest.raises(IllegalMoveError, match="is over"):
        games.play(client, settings(closed), record, Roll(()))
    assert stored(client, record.id) == before


def normalized(move: Move) -> Move:
    """A hold in ascending order, as legal_moves lists it (repeats kept: they stay illegal)."""
    return Roll(tuple(sorted(move.hold))) if isinstance(move, Roll) else move


def test_friend_codes(client: redis.Redis) -> None:
    code = friend_codes.create_code(client, settings(), "p1", "yatzy", {"forced": True}, None, "g1")
    found = friend_codes.load_code(client, code)
    made, closes = NOON.timestamp(), (NOON + timedelta(days=7)).timestamp()
    assert found == friend_codes.FriendCode(
        code, "yatzy", {"forced": True}, "p1", "g1", f"friend:{code}", made, closes
    )
    assert found.window.is_open(NOON) and not found.window.is_open(NOON + timedelta(days=7))
    assert friend_codes.load_code(client, "00000000") is None


@hypothesis.settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_any_mix_of_moves_keeps_a_log_that_replays(
    client: redis.Redis, data: st.DataObject
) -> None:
    """Legal moves are stored, anything else is refused; the log always replays to the state."""
    record = start_daily(client, player=f"p{game_fields.new_id()}")
    state = record.state(SECRET)
    for _ in range(data.draw(st.integers(1, 30), label="moves")):
        if state.is_finished:
            break
        move: Move = data.draw(
            st.one_of(
                st.sampled_from(legal_moves(state)),
                st.builds(Roll, st.lists(st.integers(-1, 7), max_size=7).map(tuple)),
                st.builds(Score, st.sampled_from([*state.ruleset.row_ids, "nope"])),
            ),
            label="move",
        )
        before = stored(client, record.id)
        is_legal = normalized(move) in legal_moves(state)
        try:
            record, state = games.play(client, settings(), record, move)
            assert is_legal and len(record.moves) == len(before["m"]) + 1
        except RulesError:
            assert not is_legal and stored(client, record.id) == before
        loaded = saved_games.load(client, record.id)
        assert loaded is not None and loaded.state(SECRET) == state


def test_a_game_id_never_starts_like_an_option() -> None:
    # One in 64 of urlsafe tokens starts with "-", which `daily review release ID` would
    # read as an option: in 2,000 ids the old draw makes such an id all but surely.
    assert not any(game_fields.new_id().startswith("-") for _ in range(2000))


def test_load_many_reads_games_in_order_in_one_pipeline(client: redis.Redis) -> None:
    first, second = start_daily(client, "p1"), start_daily(client, "p2")
    found = saved_games.load_many(client, [second.id, "missing", first.id])
    assert [r.id if r else None for r in found] == [second.id, None, first.id]
    assert found[0] == saved_games.load(client, second.id)


# -- storage that leaves ---------------------------------------------------------------------


def test_a_finished_daily_is_noted_on_its_players_dailies(client: redis.Redis) -> None:
    dated = daily_record(game_id=game_fields.new_id(NOON.timestamp()))
    index = [keys.player_daily("p1", str(DAY))]
    record = play_out(client, saved_games.start(client, dated, LIFETIME_S, index)[0])
    noted = archived_games.dailies_of(client, "p1", DAY, DAY, DAY).noted
    bonus = record.state(SECRET).bonus > 0
    assert list(noted) == [
        played_days.PlayedDay(DAY, record.total or 0, bonus, NOON.date(), archive_shard(record.id))
    ]
    key = keys.player_dailies("p1")
    assert client.hkeys(key) == ["2026-12a"]  # the first half of December
    assert client.hstrlen(key, "2026-12a") == 3 * DAY.day  # three bytes a day so far
    left = played_days.expires_at(DAY) - time.time()  # kept 430 days from its last note
    assert abs(client.ttl(key) - left) < 5


def test_a_code_names_its_day_and_expires_with_its_unfinished_game(client: redis.Redis) -> None:
    config = settings()
    code = friend_codes.create_code(client, config, "p1", "maxi", {}, None, "g1")
    assert friend_codes.code_day(code) == NOON.date()
    left = client.ttl(keys.friend_code(code))  # its game's idle life (the longest) and a day
    assert abs(left - (config.idle_lifetime + timedelta(days=1)).total_seconds()) < 5
    share = friend_codes.create_code(client, config, "p1", "maxi", {}, "daily:2026-12-03", "g2")
    assert client.ttl(keys.friend_code(share)) == -1  # a finished game's share code is kept


def _friend_record(code: str, game_id: str, practice: bool = False) -> Record:
    return Record(id=game_id, mode="friend", ruleset="maxi", options={}, player_id="p1",
                  seed_ref=f"friend:{code}", created=NOON.timestamp(),
                  on_code=OnCode(code, False, practice, None))  # fmt: skip


def test_a_code_lives_as_long_as_its_game(client: redis.Redis) -> None:
    config = settings()
    game_id = game_fields.new_id(NOON.timestamp())
    code = friend_codes.create_code(client, config, "p1", "maxi", {}, None, game_id)
    record = _friend_record(code, game_id, practice=True)
    record, _ = saved_games.start(client, record, 3600, [keys.player_friend("p1", code)])
    # A practice game's life moves on with each move, past its code's first: so does the code.
    year = timedelta(days=365).total_seconds()
    state = record.state(SECRET)
    record = saved_games.append(client, record, Roll(()), apply(state, Roll(())),
                                now=NOON.timestamp(), lifetime_s=year)  # fmt: skip
    assert client.ttl(keys.friend_code(code)) > year - 5
    assert client.ttl(keys.game(game_id)) > year - 5
    # Another game on the code moves nothing.
    other = _friend_record(code, game_fields.new_id(NOON.timestamp()), practice=True)
    client.expire(keys.friend_code(code), 100)
    other, _ = saved_games.start(client, other, 3600)
    saved_games.append(client, other, Roll(()), apply(other.state(SECRET), Roll(())),
                       now=NOON.timestamp(), lifetime_s=year)  # fmt: skip
    assert client.ttl(keys.friend_code(code)) <= 100
    # Finished, the game keeps its code for good (the archiver moves both out later).
    saved_games.keep(client, dataclasses.replace(record, finished=True, total=1,
                                                 finished_at=NOON.timestamp()))  # fmt: skip
    assert client.ttl(keys.friend_code(code)) == -1


def test_an_unfinished_game_off_the_players_list_goes(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(saved_games, "MAX_LISTED_GAMES", 2)

    def solo(n: int, finished: bool = False) -> Record:
        record = Record(id=game_fields.new_id(NOON.timestamp()), mode="solo", ruleset="maxi",
                        options={}, player_id="p1", seed_ref="hex:" + "00" * 32,
                        created=NOON.timestamp() + n, finished=finished,
                        total=1 if finished else None,
                        finished_at=NOON.timestamp() + n if finished else None)  # fmt: skip
        return saved_games.start(client, record, 3600)[0]

    unfinished, done = solo(0), solo(1, finished=True)
    later = dataclasses.replace(daily_record(), created=NOON.timestamp() + 2)
    daily = saved_games.start(client, later, LIFETIME_S, [keys.player_daily("p1", str(DAY))])[0]
    newer = [solo(3), solo(4)]
    assert saved_games.games_of(client, "p1") == [g.id for g in reversed(newer)]
    assert not client.exists(keys.game(unfinished.id))  # nothing led to it any more
    assert client.exists(keys.game(done.id))  # finished: kept, for the archiver
    assert client.exists(keys.game(daily.id))  # its day's index still names it


def test_every_index_key_is_listed_on_the_players_key_set(client: redis.Redis) -> None:
    practice = keys.player_practice("p1", "2026-11-30")
    record = dataclasses.replace(daily_record(), day=date(2026, 11, 30),
                                 seed_ref="daily:2026-11-30", replayed=True)  # fmt: skip
    saved_games.start(client, record, 3600, [practice])
    assert client.smembers(keys.player_keys("p1")) == {practice}
    players.create(client, "Ana", expires_in=timedelta(days=1))  # a guest's keys expire
    guest = next(k for k in client.scan_iter(keys.player("*")) if client.ttl(k) > 0)
    guest_id = guest.split("{")[1].split("}")[0]
    other = dataclasses.replace(record, id=game_fields.new_id(), player_id=guest_id)
    saved_games.start(client, other, 3 * 86400, [keys.player_practice(guest_id, "2026-11-30")])
    for key in (keys.player(guest_id), keys.player_games(guest_id), keys.player_keys(guest_id)):
        assert client.ttl(key) > 2 * 86400  # as long as its game, at least
