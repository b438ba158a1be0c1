"""What players and games cost in Redis, what of it leaves, and Redis after a month and a year.

Run as ``.venv/bin/python bench/bench_storage.py [--players N] [--month-players N]``. It
starts its own redis-server on a free loopback port (no saving) and measures, each part on
an empty server:

- guests (through the API, the Flask test client, rate limits off): N who only start the
  daily, N who leave a solo game unfinished, N who finish the daily; for each kind the bytes
  of its keys by ``MEMORY USAGE`` (``SAMPLES 0``: every element), which of them expire, and
  the growth of ``used_memory``. Board entries (bench_boards.py measures them) are printed
  apart. The finishers are then archived as 31 days later (``daily archive`` into a
  temporary folder): what their games keep in Redis then, and on disk;
- one address at every default limit for an hour: what each kind of request leaves in Redis
  a day later (keys without an expiry, or with more than a day left), times what the limits
  let one address make in an hour;
- a player's year of archived dailies and a year of archived share codes, as Redis kept
  them before (month lists, best-days hashes, shared code hashes) and as it keeps them now;
- a month of dailies (``--month-players`` players playing every day of a month through the
  API, nothing archived yet) and from it, with the year's figure, the load model: Redis at a
  million daily players after a month and after a year, boards aside;
- how long finding one game takes in a file as a busy day's shard holds it.
"""

from __future__ import annotations

import argparse
import gzip
import logging
import os
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
from daily.service import archive, archive_files, results
from daily.store import (
    archived_games,
    board_counts,
    friend_codes,
    game_fields,
    keys,
    played_days,
    review_queue,
)
from daily.web import limits

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
SECRET = "bench-" + "x" * 32
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
    "dailies noted": "daily:player:{*}:dailies",
    "month lists": "daily:player:{*}:archived:*",
    "best days": "daily:player:{*}:best-days",
    "finished list": "daily:games:finished",
    "share codes": "daily:code:*",
    "shared code hashes": "daily:codes:*",
}
#: A day, for what a request leaves "a day later": written in the hour, gone within a day.
DAY_S = 86_400
#: The code the joins of address_hour play on.
JOINED: dict[str, str] = {}


def usage(client: redis.Redis, pattern: str) -> tuple[int, int, int]:
    """Keys matching *pattern*: how many, their MEMORY USAGE in bytes, how many expire."""
    count = total = expiring = 0
    for key in client.scan_iter(pattern, count=1000):
        count += 1
        total += int(client.memory_usage(key, samples=0) or 0)
        expiring += client.ttl(key) > 0
    return count, total, expiring


def lasting(client: redis.Redis, pattern: str = "*") -> int:
    """The MEMORY USAGE of the keys matching *pattern* still there a day from now (no
    expiry, or more than a day left), the rate limiter's own counters aside."""
    total = 0
    for key in client.scan_iter(pattern, count=1000):
        ttl = client.ttl(key)
        if (ttl == -1 or ttl > DAY_S - 3600) and not str(key).startswith(keys.rate_limits()):
            total += int(client.memory_usage(key, samples=0) or 0)
    return total


def used(client: redis.Redis) -> int:
    """The allocator's view of the server's memory."""
    return int(client.info("memory")["used_memory"])


def app_on(url: str, clock: Any = None, **settings: Any) -> Any:
    """The service on *url*, its rate limits off, at *clock* (NOON by default), its access
    log quiet."""
    off = dict.fromkeys(limits.DEFAULTS, "off")
    app = create_app({"env": "testing", "secret_key": SECRET, "redis_url": url,
                      "rate_limits": off, "clock": clock or (lambda: NOON),
                      **settings})  # fmt: skip
    logging.getLogger("daily.access").disabled = True
    return app


def checked(client: redis.Redis) -> None:
    """Gives every finished game waiting for its luck check an honest verdict, as the check
    does once the maxi table is built (the bench builds none): a game waiting is not archived."""
    for game_id in client.zrange(keys.reviews_unchecked(), 0, -1):
        review_queue.save_verdict(client, str(game_id), 0.5, False, NOON.timestamp())
        review_queue.unlist_unchecked(client, str(game_id))


def play(test: Any, kind: str) -> dict[str, Any]:
    """Plays one game of *kind* as the browser *test*: a new guest unless it has one."""
    mode = "solo" if kind.startswith("solo") else "daily"
    state: dict[str, Any] = test.post("/api/v1/games", json={"mode": mode}).get_json()
    if kind not in ("finisher", "solo finisher"):
        return state
    while not state["finished"]:
        row = next(iter(state["potential"]))
        path = f"/api/v1/games/{state['id']}/score"
        state = test.post(path, json={"category": row, "move": state["move_count"]}).get_json()
    return state


def measure(url: str, kind: str, n: int) -> None:
    """Makes *n* guests of *kind* on an empty server and prints what they cost."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    app = app_on(url)
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
        config = app.extensions["daily.config"].model_copy(
            update={"clock": lambda: later, "archive_url": folder}
        )
        checked(client)
        before = used(client)
        done = archive.archive_old(client, config)
        assert done is not None and done.games == n, done
        games = list(Path(folder).glob("*/*.jsonl.gz"))
        codes = list(Path(folder).glob("*/codes/*.jsonl.gz"))
        disk = sum(p.stat().st_size for p in games)
        code_disk = sum(p.stat().st_size for p in codes)
        lines: dict[str, Any] = {}
        for path in games:
            lines.update(archive_files.decode(path.read_bytes()))
        one = len(archive_files.encode(lines))  # as a busy day's shard holds them
        raw = len(gzip.decompress(archive_files.encode(lines)))
        _, in_redis, _ = usage(client, "daily:game:*")
        kept = {name: usage(client, pattern) for name, pattern in KEPT.items()}
        print(f"  archived: {done.games} games in {len(games)} files, {disk / n:.0f} bytes "
              f"each on disk; in Redis a game keeps {in_redis / n:.0f} bytes (MEMORY USAGE), "
              f"used_memory {(used(client) - before) / n:+.0f} bytes each; {one / n:.0f} bytes "
              f"each in one file ({raw / n:.0f} uncompressed); their share codes in "
              f"{len(codes)} files, {code_disk / n:.0f} bytes each")  # fmt: skip
        for name, (count, total, _) in kept.items():
            print(f"    then {name:18} {count:6} keys {total / n:8.1f} bytes per game")


def _per_hour(name: str) -> int:
    """How many of limit *name* one address may spend in an hour at the defaults (the
    fewest its windows allow: ``10 per second;600 per minute`` is 36,000)."""
    found = []
    for one in limits.DEFAULTS[name].split(";"):
        amount, _, period = one.strip().partition(" per ")
        seconds = {"second": 1, "minute": 60, "hour": 3600, "day": DAY_S}[period.strip()]
        found.append(int(amount) * max(1, 3600 // seconds))
    return min(found)


#: Each kind of request that writes what may outlive a day, and the limit that bounds how
#: many one address makes in an hour (every request also spends ``pages``).
HOURLY = {
    "a new guest": "players",
    "a solo game started": "games",
    "a daily started": "dailies",
    "a friend code made (its game started)": "codes",
    "a friend code joined": "joins",
    "a solo game finished (its moves too)": "games",
    "a daily finished (its moves too)": "dailies",
}


def address_hour(url: str, n: int = 20) -> float:
    """What one address at every default limit for an hour leaves in Redis a day later:
    each kind of request made *n* times on an empty server (limits off), the bytes still
    there in a day (boards aside: their retention is theirs), times the limit's hourly
    allowance, summed as if every limit were spent in full. Returns the total in MB."""
    client = redis.Redis.from_url(url, decode_responses=True)
    print("one address at every default limit for an hour, what it leaves a day later:")
    total = 0.0
    for kind, limit in HOURLY.items():
        client.flushall()
        app = app_on(url)
        test = app.test_client()
        test.post("/api/v1/games", json={"mode": "solo"})  # the browser's guest, made once
        JOINED.clear()
        if kind == "a friend code joined":
            _one(app, test, "a friend code joined")  # the code, and a first join
        base = lasting(client)
        for _ in range(n):
            _one(app, test, kind)
        each = (lasting(client) - base) / n
        allowed = _per_hour(limit)
        total += each * allowed
        print(f"  {kind:40} {each:7.0f} bytes each, {allowed:6} an hour ({limit}): "
              f"{each * allowed / 1e6:6.2f} MB")  # fmt: skip
        app.extensions["daily.redis"].close()
    pages = _per_hour("pages")
    print(f"  at most {total / 1e6:.1f} MB a day later (aim: 50), every limit spent in full; "
          f"the {pages} requests an hour of the address's page limit bound them all")  # fmt: skip
    return total / 1e6


def _one(app: Any, test: Any, kind: str) -> None:
    """One request (or game) of *kind*: a new guest is a new browser's first game."""
    if kind == "a new guest":  # a named API player, kept: more than a browser's guest
        app.test_client().post("/api/v1/players", json={"name": "Ana"})
    elif kind == "a solo game started":
        play(test, "solo")
    elif kind == "a daily started":
        play(app.test_client(), "daily")  # a daily a player: each from a guest of its own
    elif kind.startswith("a friend code made"):
        test.post("/api/v1/games", json={"mode": "friend", "ruleset": "maxi"})
    elif kind == "a friend code joined":  # each by a guest of its own, on the one code
        if "code" not in JOINED:
            made = test.post("/api/v1/games", json={"mode": "friend", "ruleset": "maxi"})
            JOINED["code"] = made.get_json()["code"]
        body = {"mode": "friend", "code": JOINED["code"]}
        app.test_client().post("/api/v1/games", json=body)
    elif kind.startswith("a solo game finished"):
        play(test, "solo finisher")
    else:
        play(app.test_client(), "finisher")


def _daily(player_id: str, day: date, total: int = 250) -> Record:
    at = datetime(day.year, day.month, day.day, 9, tzinfo=UTC).timestamp()
    return Record(id=game_fields.new_id(at), mode="daily", ruleset="maxi", options={},
                  player_id=player_id, seed_ref=f"daily:{day.isoformat()}", created=at,
                  day=day, finished=True, total=total, finished_at=at + 600)  # fmt: skip


def player_year(url: str) -> float:
    """A year of one player's archived dailies: what Redis kept of them before (month lists
    on the key set, the best-days hash whole) and what it keeps now (the year's three bytes
    a day, the best-days hash folded), per game, with the player's other board helpers.
    Returns the bytes per archived daily now."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    player = "0123456789abcdef"
    records = [_daily(player, date(2026, 1, 1) + timedelta(days=n)) for n in range(365)]
    for record in records:
        board_counts.submit(client, results.result_of(record))  # the player's board helpers
    patterns = {**KEPT, **HELPERS}
    for record in records:  # before: each archived daily on its month's list, kept whole
        month = keys.player_archived(player, archived_games.month_of(record))
        assert record.day is not None and record.total is not None
        entry = archived_games.ArchivedDaily(record.id, record.day, record.total, True).entry()
        client.set(month, (client.get(month) or "") + entry + " ")
        client.sadd(keys.player_keys(player), month)
    before = {name: usage(client, pattern)[1] for name, pattern in patterns.items()}
    client.delete(keys.player_keys(player), *client.scan_iter(keys.player_archived(player, "*")))
    for record in records:  # now: noted as it finished, then archived
        played = played_days.of_record(record, True)
        assert played is not None
        assert record.day is not None
        played_days.note(client, player, played, record.day)
        later = record.day + timedelta(days=31)
        archived_games.unindex_archived(client, record, drop_index=True, bonus=True, today=later)
    after = {name: usage(client, pattern) for name, pattern in patterns.items()}
    print("a player's year of 365 archived dailies, bytes per game (MEMORY USAGE):")
    print(f"  {'':18} {'before':>7} {'now':>7}")
    for name, (count, total, _) in after.items():
        if before[name] or total:
            print(f"  {name:18} {before[name] / 365:7.1f} {total / 365:7.1f}   ({count} keys now)")
    now = sum(t for _, t, _ in after.values()) / 365
    print(f"  {'all':18} {sum(before.values()) / 365:7.1f} {now:7.1f}")
    return now


def code_year(url: str, buckets: int = 400, per_file: int = 3900) -> None:
    """A year of archived share codes at a million finished dailies a day: before, each an
    entry in the Redis hash of its first five characters, as full as a year leaves those
    hashes (365 million over 32**5: 11 each); now, a line of its day's files on disk (a
    million codes a day over 256 files: *per_file* a file), none in Redis."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    per_bucket = round(365e6 / 32**5)
    at = NOON.timestamp()
    made = 0
    for _ in range(buckets):
        prefix = new_code()[: friend_codes.CODE_BUCKET]
        for _ in range(per_bucket):
            code = prefix + new_code()[friend_codes.CODE_BUCKET :]
            found = friend_codes.FriendCode(code, "maxi", {}, secrets.token_hex(8),
                                            game_fields.new_id(at), "daily:2026-12-03", at,
                                            at + 50_000.0)  # fmt: skip
            friend_codes.archive_code(client, found)
            made += 1
    count, total, _ = usage(client, "daily:codes:*")
    lines = {}
    for _ in range(per_file):
        code = friend_codes.dated_code(NOON)
        lines[code] = {"id": code, "game": game_fields.new_id(at), "made": at,
                       "closes": at + 50_000.0}  # fmt: skip
    disk = len(archive_files.encode(lines))
    print(f"archived share codes: before, {total / made:.1f} bytes a code in Redis ({per_bucket} "
          f"a shared hash, {made} codes in {count} hashes); now none in Redis, "
          f"{disk / per_file:.1f} bytes a code on disk ({per_file} in one file)")  # fmt: skip


def month(url: str, players: int, days: int = 30) -> tuple[float, float]:
    """*players* browser guests finish the daily on each of *days* days through the API,
    nothing archived yet (``archive_days`` is 30): Redis's bytes per player then, boards
    aside, by ``MEMORY USAGE`` of every key (the finished list's entries included) and by
    ``used_memory``. Returns both."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    at = [NOON]
    app = app_on(url, clock=lambda: at[0])
    browsers = [app.test_client() for _ in range(players)]
    before = used(client)
    for day in range(days):
        at[0] = NOON + timedelta(days=day)
        for browser in browsers:
            play(browser, "finisher")
    grown = (used(client) - before) / players
    _, boards, _ = usage(client, "daily:board:*")
    _, every, _ = usage(client, "*")
    per_player = (every - boards) / players
    print(
        f"a month: {players} players finished the daily on {days} days each: "
        f"{per_player:.0f} bytes a player in Redis, boards aside (MEMORY USAGE; "
        f"{per_player / days:.0f} a game), used_memory +{grown:.0f} a player with the boards"
    )
    groups = {"players": "daily:player:{*}", **KEPT, **HELPERS}
    groups["codes lists"] = "daily:player:{*}:codes"
    for name, pattern in groups.items():
        count, total, _ = usage(client, pattern)
        if count:
            print(f"  {name:18} {count:6} keys {total / players / days:8.1f} bytes a game")
    app.extensions["daily.redis"].close()
    return per_player, grown


def load_model(per_player_month: float, per_archived: float, days: int = 30) -> None:
    """Redis at a million daily players after a month and after a year, boards aside: a
    month's games in Redis, then each day past the month one archived daily a player."""
    million = 1e6
    after_month = million * per_player_month
    after_year = after_month + million * (365 - days) * per_archived
    print(f"load model, a million players every day, boards aside: after a month "
          f"{after_month / 1e9:.1f} GB, after a year {after_year / 1e9:.1f} GB "
          f"({after_year / after_month - 1:+.1%})")  # fmt: skip


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
    data = archive_files.encode(lines)
    wanted = {next(iter(lines))}
    player = next(iter(lines.values()))["player"]
    rounds = 20
    timed = {}
    for name, kwargs in (("one game found by id", {"wanted": wanted}),
                         ("a player's games found", {"player": player}),
                         ("every line parsed", {})):  # fmt: skip
        start = time.perf_counter()
        for _ in range(rounds):
            archive_files.decode(data, "bench", **kwargs)
        timed[name] = (time.perf_counter() - start) / rounds * 1000
    print(
        f"a file of {games_in_file} games ({len(data)} bytes): "
        + ", ".join(f"{name} in {ms:.1f} ms" for name, ms in timed.items())
    )


def main() -> None:
    """Measures each part in turn."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--month-players", type=int, default=10)
    args = parser.parse_args()
    # No strategy table is built or read: the luck checks wait (checked() settles them).
    os.environ["DAILY_TABLES"] = ""
    os.environ["DAILY_CACHE"] = tempfile.mkdtemp(prefix="bench-cache-")
    with open("/proc/loadavg") as f:
        print(f"load average {f.read().split()[0]}")
    with redis_server() as url:
        version = redis.Redis.from_url(url).info()["redis_version"]
        print(f"redis-server {version}, {args.players} guests of each kind")
        for kind in ("starter", "solo", "finisher"):
            measure(url, kind, args.players)
        address_hour(url)
        per_archived = player_year(url)
        code_year(url)
        per_player, _ = month(url, args.month_players)
        load_model(per_player, per_archived)
    shard_search()


if __name__ == "__main__":
    main()
