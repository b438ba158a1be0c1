"""Every reader reads archived games: history, stats, the advent doors, a friend code's target
and a review's verdict; a game of the old id form keeps its marker; a game waiting for its
luck check stays in Redis. On a real Redis."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from daily.core.codes import new_code
from daily.core.errors import NotFoundError
from daily.service import (
    accounts,
    archive,
    archive_files,
    friends,
    history,
    results,
    reviews,
    stats,
)
from daily.store import archived_games, friend_codes, game_fields, keys, review_queue, saved_games
from daily.web.context import current_config, current_redis
from tests.store.test_archive import checked
from tests.web.test_integrity import finished_daily, play_out, player, start

pytestmark = pytest.mark.redis

DAYS = [datetime(2026, 12, d, 12, tzinfo=UTC) for d in (1, 2, 3)]
AFTER = datetime(2026, 12, 5, 12, tzinfo=UTC)  # two days on: archived with a 1-day window
API = "/api/v1"


def _dailies(make_app: Any, tmp_path: Path) -> tuple[dict[str, str], str, list[dict[str, Any]]]:
    """One player's dailies of DAYS, each given its luck verdict; their header, id, games."""
    who: dict[str, str] = {}
    played = []
    for day in DAYS:  # the 30-day window: no request's sweep archives them meanwhile
        app = make_app(now=day, archive_url=str(tmp_path / "archive"))
        client = app.test_client()
        who = who or player(client, "Ana")
        played.append(finished_daily(client, who))
        with app.app_context():
            checked(current_redis(), played[-1]["id"])
            stored = saved_games.load(current_redis(), played[-1]["id"])
    assert stored is not None
    return who, stored.player_id, played


def _archived(make_app: Any, tmp_path: Path, now: datetime = AFTER) -> Any:
    app = make_app(now=now, archive_url=str(tmp_path / "archive"), archive_days=1)
    with app.app_context():
        done = archive.archive_old(current_redis(), current_config())
        assert done is not None and done.games >= 1, done
    return app


def _settled(app: Any, *game_ids: str) -> None:
    """Gives each of these games waiting for its luck check an honest verdict (the archiver
    leaves a waiting game in Redis)."""
    with app.app_context():
        for game_id in game_ids:
            if current_redis().zscore(keys.reviews_unchecked(), game_id) is not None:
                checked(current_redis(), game_id)


def test_history_stats_and_advent_read_archived_dailies(make_app: Any, tmp_path: Path) -> None:
    who, player_id, played = _dailies(make_app, tmp_path)
    with make_app(now=AFTER, archive_url=str(tmp_path / "archive")).app_context():
        before = history.history_of(current_redis(), current_config(), player_id)
        figures_before = stats.stats_of(current_redis(), current_config(), player_id, AFTER.date())
    assert [p.game_id for p in before.played] == [g["id"] for g in reversed(played)]
    app = _archived(make_app, tmp_path)
    with app.app_context():
        client, config = current_redis(), current_config()
        assert not client.exists(*(keys.game(game["id"]) for game in played))
        assert client.zcard(keys.player_games(player_id)) == 0  # noted on the player's dailies
        assert not client.exists(keys.player_archived(player_id, "2026-12"))  # no month list
        first, last = DAYS[0].date(), DAYS[-1].date()
        noted = archived_games.dailies_of(client, player_id, first, last, last).noted
        assert [(d.day, d.total) for d in noted] == [
            (day.date(), game["total"]) for game, day in zip(played, DAYS, strict=True)
        ]
        # What each gave the best-day board folds into one field: nothing else can withdraw it.
        assert client.hkeys(keys.player_best_days(player_id)) == ["archived"]
        # History: every archived daily, newest first, with the figures it had in Redis;
        # each links by its day, which opens the player's game from its file.
        found = history.history_of(client, config, player_id)
        assert [p.game_id for p in found.played] == [d.date().isoformat() for d in DAYS[::-1]]
        assert [dataclasses.replace(p, game_id="") for p in found.played] == [
            dataclasses.replace(p, game_id="") for p in before.played
        ]
        assert found.figures == before.figures
        for entry, game in zip(found.played, reversed(played), strict=True):
            record = history.own_game(client, entry.game_id, player_id, config)
            assert (record.id, record.total) == (game["id"], game["total"])
        with pytest.raises(NotFoundError):  # nobody else's day, and no day without a game
            history.own_game(client, found.played[0].game_id, "someone-else", config)
        with pytest.raises(NotFoundError):
            history.own_game(client, "2026-12-04", player_id, config)
        # Stats count them.
        figures = stats.stats_of(client, config, player_id, AFTER.date())
        assert figures.figures.days == 3
        assert figures.figures.best == max(g["total"] for g in played)
        assert figures == figures_before
        # The advent doors light up for them (their day's index left Redis with them).
        doors = history.advent_doors(client, AFTER.date(), player_id, config)
        assert [d.score for d in doors[:3]] == [g["total"] for g in played]
        assert [d.state for d in doors[:5]] == ["played"] * 3 + ["missed", "today"]
        blind = history.advent_doors(client, AFTER.date(), player_id)  # the store alone
        assert [d.state for d in blind[:3]] == ["missed"] * 3
        assert history.daily_of(client, player_id, DAYS[0].date(), config) is not None
    page = app.test_client()
    assert page.get("/advent").status_code == 200
    link = f"/play/{DAYS[0].date().isoformat()}"
    assert page.get(link, headers=who).status_code == 200  # the history's link plays it back
    answer = page.get(f"{API}/games/{DAYS[0].date().isoformat()}", headers=who).get_json()
    assert (answer["id"], answer["total"]) == (played[0]["id"], played[0]["total"])
    assert page.get(link).status_code == 404  # another browser's player has none there
    with app.app_context():  # a deleted player's notes go with them (no scan)
        client = current_redis()
        accounts.delete(client, current_config(), player_id)
        assert not client.exists(keys.player_dailies(player_id))


def test_a_friend_codes_target_reads_the_archived_creators_game(
    make_app: Any, tmp_path: Path
) -> None:
    first = make_app(now=DAYS[0], archive_url=str(tmp_path / "archive"), archive_days=1)
    client = first.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    mine = start(client, ana, mode="friend", ruleset="maxi").get_json()
    final = play_out(client, ana, mine)
    _settled(first, mine["id"])
    later = _archived(make_app, tmp_path, DAYS[0] + timedelta(days=9))  # the code closed
    with later.app_context():
        assert not current_redis().exists(keys.game(mine["id"]))
    # Bo plays the closed code as practice, with Ana's archived game as his target.
    theirs = start(later.test_client(), bo, mode="friend", code=mine["code"], target=True)
    assert theirs.status_code == 201, theirs.get_json()
    answer = theirs.get_json()
    assert answer["target"]["total"] == final["total"]
    with later.app_context():
        record = saved_games.load(current_redis(), answer["id"])
        assert record is not None
        target = friends.target_of(current_redis(), current_config(), record)
        assert target is not None and target.by_turn[-1] == final["total"]
        page = friends.code_page(current_redis(), current_config(), mine["code"].replace("-", ""),
                                 None)  # fmt: skip
        assert page.theirs is not None and page.theirs.id == mine["id"]


def test_an_archived_games_codes_leave_their_hashes_and_still_work(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = make_app(now=DAYS[0], archive_url=str(tmp_path / "archive"), archive_days=1)
    client = first.test_client()
    ana, bo = player(client, "Ana"), player(client, "Bo")
    daily = finished_daily(client, ana)
    made = play_out(client, ana, start(client, ana, mode="friend", ruleset="maxi").get_json())
    codes = [daily["share_code"].replace("-", ""), made["code"].replace("-", "")]
    _settled(first, daily["id"], made["id"])
    with first.app_context():
        before = [friend_codes.load_code(current_redis(), code) for code in codes]
    with first.app_context():  # kept as long as their games, which finished
        assert all(current_redis().ttl(keys.friend_code(code)) == -1 for code in codes)
    later = _archived(make_app, tmp_path, DAYS[0] + timedelta(days=9))  # both codes closed
    with later.app_context():
        redis, config = current_redis(), current_config()
        files = archive_files.open_archive(config.archive_location)
        for code, was in zip(codes, before, strict=True):
            assert friend_codes.code_day(code) == DAYS[0].date()  # a code names its day
            assert not redis.exists(keys.friend_code(code), keys.code_bucket(code))
            assert files.find_code(code, DAYS[0].date()) is not None  # in its day's files
            assert friend_codes.load_code(redis, code) is None  # the store alone cannot rebuild it
            assert archive.load_code(redis, config, code) == was  # every field, as it was
        finds: list[str] = []
        find = archive_files.Archive.find

        def counted(self: archive_files.Archive, game_id: str, day: date) -> Any:
            finds.append(game_id)
            return find(self, game_id, day)

        monkeypatch.setattr(archive_files.Archive, "find", counted)
        page = friends.code_page(redis, config, codes[0], None)
        monkeypatch.undo()
        assert page.theirs is not None and page.theirs.id == daily["id"]
        assert finds == [daily["id"]]  # the code rebuilt from the game it then shows: one read
        assert archive.archive_old(redis, config) is not None  # again: nothing changes
        assert [archive.load_code(redis, config, code) for code in codes] == before
    web = later.test_client()
    for code in codes:  # each code's board is still there, and the code plays as practice
        assert web.get(f"{API}/leaderboards/friend/{code}").status_code == 200
    theirs = start(web, bo, mode="friend", code=codes[0], target=True)
    assert theirs.status_code == 201, theirs.get_json()
    answer = theirs.get_json()
    assert answer["practice"] and answer["target"]["total"] == daily["total"]


def test_an_archived_removed_game_still_says_removed(make_app: Any, tmp_path: Path) -> None:
    app = make_app(now=DAYS[0], archive_url=str(tmp_path / "archive"), archive_days=1)
    client = app.test_client()
    who = player(client, "Ana")
    game = finished_daily(client, who)
    with app.app_context():
        redis = current_redis()
        review_queue.save_verdict(redis, game["id"], 9.9, True, DAYS[0].timestamp())  # flagged
        review_queue.unlist_unchecked(redis, game["id"])
    later = make_app(now=AFTER, archive_url=str(tmp_path / "archive"), archive_days=1)
    with later.app_context():
        redis, config = current_redis(), current_config()
        assert archive.archive_old(redis, config) == archive.Archived(0, 0, 1)  # held: stays
        reviews.remove(redis, game["id"])
        done = archive.archive_old(redis, config)
        assert done is not None and done.games == 1
        assert not redis.exists(keys.game(game["id"]))
        record = archive.load(redis, config, game["id"])
        assert record is not None and results.review_of(redis, game["id"], record) == "removed"
    answer = later.test_client().get(f"{API}/games/{game['id']}", headers=who).get_json()
    assert answer["review"] == "removed"


def test_a_game_waiting_for_its_luck_check_is_never_archived(make_app: Any, tmp_path: Path) -> None:
    app = make_app(now=DAYS[0], archive_url=str(tmp_path / "archive"), archive_days=1)
    game = finished_daily(app.test_client(), player(app.test_client(), "Ana"))
    later = make_app(now=AFTER, archive_url=str(tmp_path / "archive"), archive_days=1)
    with later.app_context():
        redis, config = current_redis(), current_config()
        # The maxi table is never built in the tests: the game waits for its check.
        assert redis.zscore(keys.reviews_unchecked(), game["id"]) is not None
        assert archive.archive_old(redis, config) == archive.Archived(0, 0, 1)
        assert redis.exists(keys.game(game["id"]))
        # A verdict that lands between the archiver's read and its removal stops the removal.
        before = saved_games.load(redis, game["id"])
        assert before is not None
        checked(redis, game["id"])
        assert not archived_games.mark_archived(redis, before, DAYS[0].date())
        assert redis.exists(keys.game(game["id"]))
        # Once checked it goes, with its verdict.
        done = archive.archive_old(redis, config)
        assert done is not None and done.games == 1
        record = archive.load(redis, config, game["id"])
        assert record is not None and "luck" in record.extra


def test_a_game_of_the_old_id_form_keeps_its_marker(make_app: Any, tmp_path: Path) -> None:
    app = make_app(now=DAYS[0], archive_url=str(tmp_path / "archive"), archive_days=1)
    who = player(app.test_client(), "Ana")
    game = finished_daily(app.test_client(), who)
    # Stored again under an id of the form made before ids were dated (one that names a
    # day by chance, not its own), as such a game is: its hash, its lists, its index.
    old = "zzzOldRandomId01"
    assert game_fields.id_day(old) is not None and game_fields.id_day(old) != DAYS[0].date()
    with app.app_context():
        redis = current_redis()
        checked(redis, game["id"])
        record = saved_games.load(redis, game["id"])
        assert record is not None
        player_id, finished_at = record.player_id, record.finished_at
        assert finished_at is not None
        fields = redis.hgetall(keys.game(game["id"]))  # hset's mapping refuses its key type
        redis.hset(keys.game(old), mapping=cast(Mapping[Any, Any], fields))
        redis.delete(keys.game(game["id"]))
        redis.zrem(keys.games_finished(), game["id"])
        redis.zadd(keys.games_finished(), {old: finished_at})
        redis.zrem(keys.player_games(player_id), game["id"])
        redis.zadd(keys.player_games(player_id), {old: record.created})
        redis.set(keys.player_daily(player_id, DAYS[0].date().isoformat()), old)
    later = _archived(make_app, tmp_path)
    with later.app_context():
        redis, config = current_redis(), current_config()
        assert redis.hgetall(keys.game(old)) == {"a": DAYS[0].date().isoformat()}  # a marker
        assert archived_games.archived_day(redis, old) == DAYS[0].date()
        assert redis.get(keys.player_daily(player_id, DAYS[0].date().isoformat())) is None
        assert [d.game_id for d in archived_games.archived_of(redis, player_id, ["2026-12"])] == [
            old
        ]
        found = history.history_of(redis, config, player_id).played
        assert [(p.game_id, p.total) for p in found] == [(old, game["total"])]
    answer = later.test_client().get(f"{API}/games/{old}/record", headers=who)
    assert answer.status_code == 200 and answer.get_json()["total"] == game["total"]


def test_daily_archive_goes_a_batch_at_a_time_past_the_games_that_wait(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, player_id, played = _dailies(make_app, tmp_path)
    monkeypatch.setattr(archive, "SWEEP_BATCH", 1)  # a batch of one game: three batches
    app = make_app(now=AFTER, archive_url=str(tmp_path / "archive"), archive_days=1)
    with app.app_context():
        redis, config = current_redis(), current_config()
        review_queue.queue_unchecked(redis, played[0]["id"], AFTER.timestamp())  # the oldest waits
        assert archive.archive_old(redis, config) == archive.Archived(2, 2, 1)
        assert redis.exists(keys.game(played[0]["id"]))
        assert not redis.exists(*(keys.game(game["id"]) for game in played[1:]))
        first, last = DAYS[0].date(), DAYS[-1].date()  # each noted as it finished
        noted = archived_games.dailies_of(redis, player_id, first, last, last).noted
        assert [d.day for d in noted] == [day.date() for day in DAYS]


def test_a_code_that_names_no_day_goes_to_a_shared_hash(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A code made before codes were dated: random characters, naming a day far off by chance.
    monkeypatch.setattr(friend_codes, "dated_code", lambda made: "ZZZ" + new_code()[3:])
    first = make_app(now=DAYS[0], archive_url=str(tmp_path / "archive"), archive_days=1)
    client = first.test_client()
    ana = player(client, "Ana")
    made = play_out(client, ana, start(client, ana, mode="friend", ruleset="maxi").get_json())
    code = made["code"].replace("-", "")
    _settled(first, made["id"])
    with first.app_context():
        was = friend_codes.load_code(current_redis(), code)
    assert was is not None and not friend_codes.is_dated(was)
    later = _archived(make_app, tmp_path, DAYS[0] + timedelta(days=9))
    with later.app_context():
        redis, config = current_redis(), current_config()
        assert not redis.exists(keys.friend_code(code))
        assert redis.hexists(keys.code_bucket(code), code[friend_codes.CODE_BUCKET :])
        assert archive.load_code(redis, config, code) == was


def test_a_daily_finished_before_dailies_were_noted_is_read_once_then_noted(
    make_app: Any, tmp_path: Path
) -> None:
    _, player_id, played = _dailies(make_app, tmp_path)
    with make_app(now=AFTER, archive_url=str(tmp_path / "archive")).app_context():
        client, config = current_redis(), current_config()
        noted = history.history_of(client, config, player_id)
        client.delete(keys.player_dailies(player_id))  # as before dailies were noted
        again = history.history_of(client, config, player_id)  # read from the games
        assert again == noted and [p.game_id for p in again.played] == [
            g["id"] for g in reversed(played)
        ]
        first, last = DAYS[0].date(), DAYS[-1].date()
        healed = archived_games.dailies_of(client, player_id, first, last, last).noted
        assert [d.day for d in healed] == [day.date() for day in DAYS]  # noted as they were read
