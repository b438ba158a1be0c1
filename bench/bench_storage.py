"""What players and games cost in Redis, and what of it expires.

Run as ``.venv/bin/python bench/bench_storage.py [--players N]``. It starts its own
redis-server on a free loopback port (no saving), and through the API (the Flask test
client, rate limits off) makes N browser guests who only start the daily, N guests who
finish it, and N solo games left unfinished. For each kind it prints the bytes of its keys
by ``MEMORY USAGE`` (``SAMPLES 0``: every element), which of them carry an expiry, and the
growth of ``used_memory`` (what the allocator really gave). Board entries, which
bench_boards.py measures, are left out of the per-game figure and printed apart. The
finishers are then archived as 31 days later (``daily archive`` into a temporary folder):
what their games keep in Redis then, and what the archive holds on disk per game.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import secrets
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from servers import redis_server

from daily import create_app
from daily.core.codes import new_code
from daily.core.record import Record
from daily.service import archive, results
from daily.store import archived_games, board_counts, friend_codes, game_fields, keys

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
#: The player's board helpers: kept for good, one bit, a hash, a field a counted daily.
HELPERS = {
    "days bitmap": "daily:player:{*}:days",
    "streak": "daily:player:{*}:streak",
    "best days": "daily:player:{*}:best-days",
}
#: What an archived game may still hold in Redis, its board entries aside.
KEPT = {
    "games": "daily:game:*",
    "day indexes": "daily:player:{*}:daily:*",
    "code indexes": "daily:player:{*}:friend:*",
    "game lists": "daily:player:{*}:games",
    "key sets": "daily:player:{*}:keys",
    "archived lists": "daily:player:{*}:archived:*",
    "finished list": "daily:games:finished",
    "share codes": "daily:code:*",
    "archived codes": "daily:codes:*",
}


def usage(client: redis.Redis, pattern: str) -> tuple[int, int, int]:
    """Keys matching *pattern*: how many, their MEMORY USAGE in bytes, how many expire."""
    count = total = expiring = 0
    for key in client.scan_iter(pattern, count=1000):
        count += 1
        total += int(client.memory_usage(key, samples=0) or 0)
        expiring += client.ttl(key) > 0
    return count, total, expiring


def used(client: redis.Redis) -> int:
    """The allocator's view of the server's memory."""
    return int(client.info("memory")["used_memory"])


def play(test: Any, kind: str) -> None:
    """Plays one game of *kind* as a fresh browser guest."""
    mode = "solo" if kind == "solo" else "daily"
    state = test.post("/api/v1/games", json={"mode": mode}).get_json()
    if kind != "finisher":
        return
    while not state["finished"]:
        row = next(iter(state["potential"]))
        path = f"/api/v1/games/{state['id']}/score"
        state = test.post(path, json={"category": row, "move": state["move_count"]}).get_json()


def measure(url: str, kind: str, n: int) -> None:
    """Makes *n* guests of *kind* on an empty server and prints what they cost."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    off = dict.fromkeys(("players", "moves", "pages", "dailies"), "off")
    app = create_app({"env": "testing", "secret_key": "bench-" + "x" * 32, "redis_url": url,
                      "rate_limits": off, "clock": lambda: NOON})  # fmt: skip
    before = used(client)
    for _ in range(n):
        play(app.test_client(), kind)
    grown = used(client) - before
    print(f"{kind}: {n} guests, used_memory +{grown / n:.0f} bytes each")
    groups = {
        "player": "daily:player:{*}",
        "player keys": "daily:player:{*}:*",
        "game": "daily:game:*",
        "code": "daily:code:*",
        "boards": "daily:board:*",
    }
    for name, pattern in groups.items():
        count, total, expiring = usage(client, pattern)
        if count:
            print(f"  {name:12} {count:6} keys {total / n:8.0f} bytes per guest, "
                  f"{expiring} of them expire")  # fmt: skip
    if kind == "finisher":
        archived(app, client, n)
    app.extensions["daily.redis"].close()


def archived(app: Any, client: redis.Redis, n: int) -> None:
    """Archives the finished games as 31 days later; prints what they keep, here and on disk."""
    later = NOON + timedelta(days=31)
    with tempfile.TemporaryDirectory() as folder:
        config = dataclasses.replace(app.extensions["daily.config"], clock=lambda: later,
                                     archive_url=folder)  # fmt: skip
        before = used(client)
        done = archive.archive_old(client, config)
        assert done is not None and done.games == n, done
        disk = sum(p.stat().st_size for p in Path(folder).rglob("*.jsonl.gz"))
        files = len(list(Path(folder).rglob("*.jsonl.gz")))
        lines: dict[str, Any] = {}
        for path in Path(folder).rglob("*.jsonl.gz"):
            lines.update(archive.decode(path.read_bytes()))
        one = len(archive.encode(lines))  # as a busy day's shard holds them: thousands a file
        raw = len(gzip.decompress(archive.encode(lines)))
        _, games, _ = usage(client, "daily:game:*")
        kept = {name: usage(client, pattern) for name, pattern in KEPT.items()}
        print(f"  archived: {done.games} games in {files} files, {disk / n:.0f} bytes each on "
              f"disk; in Redis a game keeps {games / n:.0f} bytes (MEMORY USAGE), "
              f"used_memory {(used(client) - before) / n:+.0f} bytes each; "
              f"{one / n:.0f} bytes each in one file ({raw / n:.0f} uncompressed)")  # fmt: skip
        for name, (count, total, _) in kept.items():
            print(f"    then {name:16} {count:6} keys {total / n:8.1f} bytes per game")


def player_year(url: str) -> None:
    """A year of one player's archived dailies: what they kept in Redis as the archiver
    left them before (a marker, the day index, its key set entry, the list of games) and
    as it leaves them now (the month lists), per game, the per-key overhead spread over
    365 games; with the player's board helpers, kept for good either way."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    first = date(2026, 1, 1)
    records = []
    for n in range(365):
        day = first + timedelta(days=n)
        at = datetime(day.year, day.month, day.day, 9, tzinfo=UTC).timestamp()
        record = Record(id=game_fields.new_id(at), mode="daily", ruleset="maxi", options={},
                        player_id="p1", seed_ref=f"daily:{day.isoformat()}", created=at,
                        day=day, finished=True, total=250, finished_at=at + 600)  # fmt: skip
        records.append(record)
        board_counts.submit(client, results.result_of(record))  # the player's board helpers too
        client.set(keys.player_daily("p1", day.isoformat()), record.id)
        client.sadd(keys.player_keys("p1"), keys.player_daily("p1", day.isoformat()))
        client.zadd(keys.player_games("p1"), {record.id: at})
        client.hset(keys.game(record.id), "a", day.isoformat())  # the marker of before
    patterns = {**KEPT, **HELPERS}
    before = {name: usage(client, pattern)[1] for name, pattern in patterns.items()}
    for record in records:
        client.delete(keys.game(record.id))  # a dated game leaves no marker
        archived_games.unindex_archived(client, record, drop_index=True)
    after = {name: usage(client, pattern) for name, pattern in patterns.items()}
    print("a player's year of 365 archived dailies, bytes per game (MEMORY USAGE):")
    print(f"  {'':16} {'before':>7} {'now':>7}")
    for name, (count, total, _) in after.items():
        print(f"  {name:16} {before[name] / 365:7.1f} {total / 365:7.1f}   ({count} keys now)")
    print(f"  {'all':16} {sum(before.values()) / 365:7.1f} "
          f"{sum(t for _, t, _ in after.values()) / 365:7.1f}")  # fmt: skip


def code_year(url: str, buckets: int = 400) -> None:
    """A year of archived share codes at a million finished dailies a day: each code's
    entry in the hash of its first five characters, as full as a year leaves those hashes
    (365 million codes over 32**5 of them: 11 entries each), against a code's own hash."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    per_bucket = round(365e6 / 32**5)
    at = NOON.timestamp()
    made = 0
    for b in range(buckets):
        prefix = new_code()[: friend_codes.CODE_BUCKET]
        for n in range(per_bucket):
            code = prefix + new_code()[friend_codes.CODE_BUCKET :]
            found = friend_codes.FriendCode(code, "maxi", {}, secrets.token_hex(8),
                                            game_fields.new_id(at), "daily:2026-12-03", at + b,
                                            at + 50_000.0)  # fmt: skip
            if n == 0 and b == 0:  # one code as its own hash, before it is archived
                client.hset(keys.friend_code(code), mapping={
                    "ruleset": "maxi", "options": "{}", "creator": found.creator,
                    "game": found.game_id, "seed": found.seed_ref, "made": repr(found.made),
                    "closes": repr(found.closes)})  # fmt: skip
                own = int(client.memory_usage(keys.friend_code(code), samples=0) or 0)
            friend_codes.archive_code(client, found)
            made += 1
    count, total, _ = usage(client, "daily:codes:*")
    print(f"archived share codes, {per_bucket} a hash as a year of a million a day leaves "
          f"them ({made} codes, {count} hashes): {total / made:.1f} bytes a code (MEMORY "
          f"USAGE), against {own} for a code's own hash")  # fmt: skip


def shard_search(games_in_file: int = 3900) -> None:
    """How long finding one game takes in a file as a busy day's shard holds it (a million
    games a day over 256 files), against parsing every line."""
    moves = "abcdefghijklmnopqrstuvwxyz"
    at = NOON.timestamp()
    lines = {}
    for _ in range(games_in_file):
        game_id = game_fields.new_id(at)
        lines[game_id] = {"id": game_id, "mode": "daily", "ruleset": "maxi", "options": {},
                          "player": secrets.token_hex(8), "seed": "daily:2026-12-03",
                          "created": at, "total": 250, "finished_at": at + 600,
                          "moves": "".join(secrets.choice(moves) for _ in range(60))}  # fmt: skip
    data = archive.encode(lines)
    wanted = {next(iter(lines))}
    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        archive.decode(data, "bench", wanted)
    one = (time.perf_counter() - start) / rounds
    start = time.perf_counter()
    for _ in range(rounds):
        archive.decode(data, "bench")
    every = (time.perf_counter() - start) / rounds
    print(f"a file of {games_in_file} games ({len(data)} bytes): one game found in "
          f"{one * 1000:.1f} ms, every line parsed in {every * 1000:.1f} ms")  # fmt: skip


def main() -> None:
    """Measures each kind of guest in turn."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    args = parser.parse_args()
    with redis_server() as url:
        version = redis.Redis.from_url(url).info()["redis_version"]
        print(f"redis-server {version}, {args.players} guests of each kind")
        for kind in ("starter", "solo", "finisher"):
            measure(url, kind, args.players)
        player_year(url)
        code_year(url)
    shard_search()


if __name__ == "__main__":
    main()
