"""Cold games leave Redis: the archive's files, the archiver (killed midway too), and the
record, verify and history reading archived games back, on a real Redis."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from daily.cli import main
from daily.core.config import load
from daily.core.errors import ArchiveError, ConfigError
from daily.core.modes import BoardKind
from daily.core.record import Record
from daily.core.verify import verify
from daily.service import archive, archive_files, history
from daily.store import (
    archived_games,
    board_counts,
    boards,
    game_fields,
    keys,
    members,
    review_queue,
    saved_games,
)
from daily.store.connection import connect
from daily.web.context import current_config, current_redis
from tests.tables import s3
from tests.web.test_integrity import finished_daily, player

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
LATER = NOON + timedelta(days=31)
SECRET = "test-secret-" + "x" * 32
API = "/api/v1"


# -- the files -------------------------------------------------------------------------------


def test_a_file_reads_back_and_a_damaged_one_is_refused(tmp_path: Path) -> None:
    store = archive_files.Archive(str(tmp_path))
    day = NOON.date()
    lines = {"g2": {"id": "g2", "total": 2}, "g1": {"id": "g1", "total": 1}}
    store.write(day, 7, lines)
    assert store.read(day, 7) == lines
    assert store.read(day, 8) == {}
    path = Path(store.path(day, 7))
    # The file and its list of ids, no temporary left.
    assert sorted(p.name for p in path.parent.iterdir()) == ["07.ids", "07.jsonl.gz"]
    text = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert [json.loads(line)["id"] for line in text[:2]] == ["g1", "g2"]
    assert json.loads(text[-1])["games"] == 2
    damaged = "\n".join([text[0].replace('"total":1', '"total":9'), *text[1:]]) + "\n"
    path.write_bytes(gzip.compress(damaged.encode()))
    with pytest.raises(ArchiveError, match="does not match its checksum"):
        store.read(day, 7)
    path.write_bytes(b"not gzip")
    with pytest.raises(ArchiveError, match="not gzip"):
        store.read(day, 7)


def test_an_id_no_file_lists_is_not_looked_for_in_the_file(tmp_path: Path) -> None:
    store = archive_files.Archive(str(tmp_path))
    day = NOON.date()
    real = "05OAbCdEfGhIjKlM"
    made_up = next(
        f"05O{n:013d}"
        for n in range(10_000)
        if archive_files.shard_of(f"05O{n:013d}") == archive_files.shard_of(real)
    )
    store.write(day, archive_files.shard_of(real), {real: {"id": real}})
    path = Path(store.path(day, archive_files.shard_of(real)))
    path.write_bytes(b"not gzip")  # a file that would be refused if it were read
    assert store.find_many([(made_up, day)]) == {}  # its list of ids does not name it
    with pytest.raises(ArchiveError, match="not gzip"):
        store.find(real, day)
    Path(store.ids_path(str(path))).unlink()  # a file written before there were lists
    with pytest.raises(ArchiveError, match="not gzip"):
        store.find(made_up, day)


def test_the_archive_location_is_a_setting(tmp_path: Path) -> None:
    assert load({"DAILY_DATA": str(tmp_path)}).archive_location == str(tmp_path / "archive")
    found = load({"DAILY_ARCHIVE": "s3://bucket/daily", "DAILY_ARCHIVE_DAYS": "7"})
    assert (found.archive_location, found.archive_days) == ("s3://bucket/daily", 7)
    with pytest.raises(ConfigError, match="DAILY_ARCHIVE_DAYS"):
        load({"DAILY_ARCHIVE_DAYS": "0"})


# -- the archiver ----------------------------------------------------------------------------


def _finish(make_app: Any, tmp_path: Path, players: int) -> tuple[Any, list[dict[str, Any]]]:
    app = make_app(now=NOON, archive_url=str(tmp_path / "archive"))
    client = app.test_client()
    found = []
    for n in range(players):
        who = player(client, f"Ana{n}")
        game = finished_daily(client, who)
        record = client.get(f"{API}/games/{game['id']}/record", headers=who).get_json()
        with app.app_context():
            stored = saved_games.load(current_redis(), game["id"])
            checked(current_redis(), game["id"])
        assert stored is not None
        found.append({"who": who, "game": game, "record": record, "player": stored.player_id})
    return app, found


def checked(client: Any, game_id: str, luck: float = 0.5) -> None:
    """Gives a game waiting for its luck check its verdict, as the check does once the maxi
    table is built (the tests never build it): a game waiting is never archived."""
    assert client.zscore(keys.reviews_unchecked(), game_id) is not None
    review_queue.save_verdict(client, game_id, luck, False, NOON.timestamp())
    review_queue.unlist_unchecked(client, game_id)


def _lines(root: Path) -> Counter[str]:
    ids: Counter[str] = Counter()
    for path in root.glob("*/*.jsonl.gz"):  # the games' files (the codes' are in codes/)
        ids.update(list(archive_files.decode(path.read_bytes())))
    return ids


def _codes(root: Path) -> Counter[str]:
    return Counter(c for p in root.glob("*/codes/*.jsonl.gz") for c in archive_files.decode(
        p.read_bytes()))  # fmt: skip


def test_old_games_leave_redis_and_still_read_back(make_app: Any, tmp_path: Path) -> None:
    _, played = _finish(make_app, tmp_path, 2)
    later = make_app(now=LATER, archive_url=str(tmp_path / "archive"))
    with later.app_context():
        client, config = current_redis(), current_config()
        board = boards.Board.daily(NOON.date())
        ranked = client.zcard(board.key)
        # Not old enough a day before the window closes: nothing moves.
        early = config.model_copy(update={"clock": lambda: NOON + timedelta(days=29)})
        assert archive.archive_old(client, early) == archive.Archived(0, 0, 0)
        done = archive.archive_old(client, config)
        assert done is not None and (done.games, done.skipped) == (2, 0)
        for entry in played:
            game_id = entry["game"]["id"]
            assert game_fields.id_day(game_id) == NOON.date()  # its id names its file's day
            assert left_in_redis(client, game_id, entry["player"]) == []
            assert saved_games.load(client, game_id) is None  # the store alone: nothing
        assert client.zcard(board.key) == ranked  # the boards keep their entries
        assert archive.archive_old(client, config) == archive.Archived(0, 0, 0)  # idempotent
        found = archive.load(client, config, game_id)
        assert found is not None and found.total == entry["game"]["total"]
        listed = history.history_of(client, config, found.player_id).played
        assert [p.game_id for p in listed] == [NOON.date().isoformat()]  # its day: its link
        assert history.own_game(client, listed[0].game_id, found.player_id, config) == found
    assert _lines(tmp_path / "archive") == Counter(e["game"]["id"] for e in played)
    shared = Counter(e["game"]["share_code"].replace("-", "") for e in played)
    assert _codes(tmp_path / "archive") == shared  # their share codes, beside them
    web = later.test_client()
    for entry in played:
        url = f"{API}/games/{entry['game']['id']}/record"
        record = web.get(url, headers=entry["who"]).get_json()
        before = {k: v for k, v in entry["record"].items() if k != "date"}
        assert record == before | {"seed": record["seed"]}  # the day's seed is public now
        assert verify(json.dumps(record), (SECRET,)).total == entry["game"]["total"]
        game = web.get(f"{API}/games/{entry['game']['id']}", headers=entry["who"])
        assert game.status_code == 200 and game.get_json()["total"] == entry["game"]["total"]
        move = web.post(f"{API}/games/{entry['game']['id']}/score", json={"category": "ones"},
                        headers=entry["who"])  # fmt: skip
        assert move.status_code == 409  # finished: an archived game takes no move
    with later.app_context():  # reads wrote nothing back
        assert not any(current_redis().exists(keys.game(e["game"]["id"])) for e in played)


def left_in_redis(client: Any, game_id: str, player_id: str) -> list[str]:
    """What of an archived game Redis still holds, its board entries aside (none: [])."""
    found = []
    if client.exists(keys.game(game_id)):
        found.append(f"hash {client.hgetall(keys.game(game_id))}")
    if client.zscore(keys.games_finished(), game_id) is not None:
        found.append("on the finished list")
    if client.zscore(keys.player_games(player_id), game_id) is not None:
        found.append("on the player's list of games")
    index = keys.player_daily(player_id, NOON.date().isoformat())
    if client.get(index) == game_id:
        found.append("its day's index")
    if index in client.smembers(keys.player_keys(player_id)):
        found.append("its index on the player's key set")
    if client.exists(keys.player_archived(player_id, NOON.date().isoformat()[:7])):
        found.append("a month list")  # a dated game is noted on its player's dailies instead
    day = NOON.date()
    noted = archived_games.dailies_of(client, player_id, day, day, day).noted
    if [(d.day, d.shard) for d in noted] != [(day, archive_files.shard_of(game_id))]:
        found.append(f"noted as {noted} on the player's dailies")
    if client.hexists(keys.player_best_days(player_id), day.isoformat()):
        found.append("its day on the best-days hash (it folds into one field)")
    share = client.hget(keys.game(game_id), "s") or ""
    for code in client.scan_iter(keys.friend_code("*")):
        if client.hget(code, "game") == game_id:
            found.append(f"its code's hash {code} {share}")
    return found


def test_the_archivers_lease_is_short_and_renewed_as_it_works(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert archive.LOCK_S <= 60  # a killed archiver keeps others out a minute at most
    _, played = _finish(make_app, tmp_path, 3)
    later = make_app(now=LATER, archive_url=str(tmp_path / "archive"))
    with later.app_context():
        client, config = current_redis(), current_config()
        held: list[int] = []
        write = archive_files.Archive.write

        def slow(self: archive_files.Archive, day: Any, shard: int, lines: Any) -> None:
            time.sleep(1.1)  # the files together take longer than one lease
            held.append(client.pttl(keys.archive_lock()))
            assert not archived_games.claim_archiver(client, "another", 10)  # still kept out
            write(self, day, shard, lines)

        monkeypatch.setattr(archive_files.Archive, "write", slow)
        done = archive.archive_old(client, config, lock_s=2)
        assert done is not None and done.games == 3 and done.files >= 2
        assert len(held) == done.files and all(0 < left <= 2000 for left in held), held
        assert not client.exists(keys.archive_lock())  # freed at the end


def test_an_archiver_that_lost_its_lease_stops_and_the_next_finishes(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, played = _finish(make_app, tmp_path, 3)
    later = make_app(now=LATER, archive_url=str(tmp_path / "archive"))
    with later.app_context():
        client, config = current_redis(), current_config()
        write = archive_files.Archive.write

        def stolen(self: archive_files.Archive, day: Any, shard: int, lines: Any) -> None:
            client.set(keys.archive_lock(), "another")  # its lease ran out; another took it
            write(self, day, shard, lines)

        monkeypatch.setattr(archive_files.Archive, "write", stolen)
        with pytest.raises(ArchiveError, match="lease ran out"):
            archive.archive_old(client, config)
        assert client.get(keys.archive_lock()) == "another"  # not freed: it is the other's
        assert client.zcard(keys.games_finished()) == 3  # all still listed: none left half-done
        monkeypatch.undo()
        client.delete(keys.archive_lock())
        assert archive.archive_old(client, config) is not None  # finishes what was begun
        for entry in played:
            assert left_in_redis(client, entry["game"]["id"], entry["player"]) == []
    assert _lines(tmp_path / "archive") == Counter(e["game"]["id"] for e in played)


def test_what_an_archived_day_gave_the_best_day_folds_and_a_withdrawal_falls_back(
    redis_url: str,
) -> None:
    client = connect(redis_url, Path("unused"))
    player_id = "0123456789abcdef"

    def daily(day: int, total: int) -> Record:
        at = datetime(2026, 12, day, 9, tzinfo=UTC).timestamp()
        return Record(id=game_fields.new_id(at), mode="daily", ruleset="maxi", options={},
                      player_id=player_id, seed_ref=f"daily:2026-12-{day:02d}", created=at,
                      day=date(2026, 12, day), finished=True, total=total,
                      finished_at=at + 600)  # fmt: skip

    old, older, last = daily(1, 300), daily(2, 250), daily(3, 400)

    def result_of(record: Record) -> boards.Result:
        assert record.total is not None and record.finished_at is not None
        return boards.Result(record.id, player_id, BoardKind.DAILY, record.total,
                             record.finished_at, day=record.day)  # fmt: skip

    for record in (old, older, last):
        board_counts.submit(client, result_of(record))
    for record in (old, older, old):  # archived (once more: nothing changes)
        archived_games.unindex_archived(client, record, drop_index=True, today=date(2027, 1, 5))
    kept = client.hgetall(keys.player_best_days(player_id))
    assert sorted(kept) == ["2026-12-03", "archived"]  # one field for every archived day
    assert int(kept["archived"]) == boards.pack(300, old.finished_at or 0)
    # Only a game in Redis can be withdrawn; the best day falls back to the best left.
    board_counts.withdraw(client, result_of(last))
    best = client.zscore(keys.board_best_day(), members.member(player_id))
    assert best == boards.pack(300, old.finished_at or 0)
    client.close()


KILLER = """
import sys
from daily.core.config import load
from daily.service import archive, backend
config = load()
archive.archive_old(backend.connect(config), config, lock_s=float(sys.argv[1]))
"""


@pytest.mark.slow
def test_a_killed_archiver_loses_and_duplicates_nothing(make_app: Any, tmp_path: Path) -> None:
    app, played = _finish(make_app, tmp_path, 3)
    root = tmp_path / "archive"
    env = {**os.environ, "REDIS_URL": _url(app), "DAILY_ENV": "testing", "SECRET_KEY": SECRET,
           "DAILY_NOW": LATER.isoformat(), "DAILY_ARCHIVE": str(root),
           "DAILY_DATA": str(tmp_path / "data")}  # fmt: skip
    for step in ("loaded", "written", "marked", "unindexed", "written", "marked"):
        dying = {**env, archive.KILL_AT: step}
        killed = subprocess.run([sys.executable, "-c", KILLER, "1"], env=dying,
                                capture_output=True, timeout=60, check=False)  # fmt: skip
        assert killed.returncode == -9, killed.stderr.decode()  # work was left at each step
        time.sleep(1.1)  # the dead archiver's lock runs out
    finished = subprocess.run([sys.executable, "-c", KILLER, "5"], env=env,
                              capture_output=True, timeout=60, check=False)  # fmt: skip
    assert finished.returncode == 0, finished.stderr.decode()
    assert _lines(root) == Counter(e["game"]["id"] for e in played)  # each exactly once
    assert _codes(root) == Counter(e["game"]["share_code"].replace("-", "") for e in played)
    web = make_app(now=LATER, archive_url=str(root)).test_client()
    with web.application.app_context():
        for entry in played:
            assert left_in_redis(current_redis(), entry["game"]["id"], entry["player"]) == []
    for entry in played:
        url = f"{API}/games/{entry['game']['id']}/record"
        record = web.get(url, headers=entry["who"]).get_json()
        assert verify(json.dumps(record), (SECRET,)).total == entry["game"]["total"]


def _url(app: Any) -> str:
    with app.app_context():
        return str(current_config().redis_url)


# -- an object store shared by several hosts ------------------------------------------------


@pytest.fixture
def s3_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An archive URL in a fresh bucket of the process's one local S3 server (the tables'
    store tests share it: s3fs keeps one client per process)."""
    with s3.bucket(monkeypatch) as url:
        yield url


def test_an_object_store_archive_is_read_back(make_app: Any, tmp_path: Path, s3_url: str) -> None:
    app = make_app(now=NOON, archive_url=s3_url)
    client = app.test_client()
    played = []
    for name in ("Ana", "Bo"):
        who = player(client, name)
        played.append((who, finished_daily(client, who)))
        with app.app_context():
            checked(current_redis(), played[-1][1]["id"])
    later = make_app(now=LATER, archive_url=s3_url)
    ids = [game["id"] for _, game in played]
    with later.app_context():
        done = archive.archive_old(current_redis(), current_config())
        assert done is not None and done.games == 2
        assert not current_redis().exists(*(keys.game(game_id) for game_id in ids))
        # Both files fetched in one go (s3fs: concurrently), each game found by its id's day.
        found = archive.load_many(current_redis(), current_config(), [*ids, "nope"])
        assert [r.id if r else None for r in found] == [*ids, None]
    store = archive_files.open_archive(s3_url)
    assert not store._local  # one put per file, no rename
    first = ids[0]
    assert first in store.read(NOON.date(), archive_files.shard_of(first))
    shards = {archive_files.shard_of(game_id) for game_id in ids}
    assert store.read(NOON.date(), next(n for n in range(9) if n not in shards)) == {}
    for who, game in played:
        url = f"{API}/games/{game['id']}/record"
        record = later.test_client().get(url, headers=who).get_json()
        assert verify(json.dumps(record), (SECRET,)).total == game["total"]


def test_daily_archive_and_the_sweep_move_old_games(
    make_app: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app, played = _finish(make_app, tmp_path, 2)
    root = tmp_path / "archive"
    first, second = (entry["game"]["id"] for entry in played)
    # The service's sweep moves old games too, from any request once a minute, in a thread
    # of its own (the request does not wait for it).
    swept = make_app(now=LATER, archive_url=str(root))
    assert swept.test_client().get("/").status_code in (200, 302)
    swept.extensions["daily.archiver"].join(timeout=30)
    with swept.app_context():
        assert not current_redis().exists(keys.game(first), keys.game(second))
    # `daily archive` finds nothing left, and says where it looked.
    env = {"REDIS_URL": _url(app), "DAILY_ENV": "testing", "SECRET_KEY": SECRET,
           "DAILY_NOW": LATER.isoformat(), "DAILY_ARCHIVE": str(root)}  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["archive"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"archived 0 games in 0 files to {root}; 0 due games left"), said
