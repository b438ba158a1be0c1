"""How soon a clairvoyant game is held once its table exists, behind a backlog of waiting games.

The scene of the bounded-cost issue, on a throw-away redis-server: ranked games finished
while no table could check them wait on the unchecked list, oldest first: ``--variants``
games of a variant whose table nobody builds, then ``--games`` honest games of the ruleset
whose table is about to come, then one clairvoyant game of it (every turn foreseen). Then
the table appears, and the service's sweep runs as a web process runs it: every
``reviews.SWEEP_INTERVAL_S`` seconds, one sweep at a time. The bench prints how long each
sweep took, how many games it checked, and the seconds from the table's arrival until the
clairvoyant game was held, counting the wait for the next sweep at its worst (a full
interval). Aim: within 60 s.

Run: .venv/bin/python bench/bench_sweep.py [--ruleset maxi] [--variants 250] [--games 150]

The ruleset's table must be in ``$DAILY_CACHE`` (``daily solve maxi`` builds it; ``yatzy``
builds in seconds and is built here if missing).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import servers
from servers import redis_server

from daily.core import config, dice
from daily.core.record import OnCode, Record
from daily.core.rules import Move, Roll, Score, find_ruleset
from daily.service import games, reviews
from daily.store import game_fields, keys, review_queue, saved_games
from daily.store.connection import connect
from daily.strategy import clairvoyant

#: The key of this environment (``SECRET_KEY``): the one that signed the table's digest.
SECRET = config.load().secret_key
NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)


def settings() -> config.Config:
    # The cache folder as it is now: empty at first, then the one where the table is.
    tables = {"DAILY_CACHE": os.environ["DAILY_CACHE"], "DAILY_TABLES": ""}
    return config.load(tables, env="testing", secret_key=SECRET, clock=lambda: NOON,
                       established_days=1)  # fmt: skip


def record_on(code: str, player: str, ruleset: str, options: dict[str, object]) -> Record:
    return Record(id=game_fields.new_id(), mode="friend", ruleset=ruleset, options=options,
                  player_id=player, seed_ref=f"friend:{code}", created=NOON.timestamp(),
                  on_code=OnCode(code))  # fmt: skip


def play(client: Any, record: Record, moves: list[Move] | None) -> None:
    """Stores *record* and plays it out (*moves*, else the first open row each turn)."""
    lifetime = games.expires_in(record, settings())
    code = record.code or ""
    record, _ = saved_games.start(client, record, lifetime,
                                  [keys.player_friend(record.player_id, code)])  # fmt: skip
    state = record.state(SECRET)
    todo = list(moves or ())
    while not state.is_finished:
        move = todo.pop(0) if todo else Score(state.open_rows()[0])
        if moves is None and state.rolls_left and state.roll == 1:
            move = Roll(())
        record, state = games.play(client, settings(), record, move)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="maxi")
    parser.add_argument("--variants", type=int, default=250)
    parser.add_argument("--games", type=int, default=150)
    args = parser.parse_args()
    rules = find_ruleset(args.ruleset)
    cache = servers.site().cache
    table = servers.table_of(args.ruleset, build=args.ruleset == "yatzy")
    variant = {"forced": True} if args.ruleset == "yatzy" else {"bonus": "50@75"}
    print(f"load before: {os.getloadavg()[0]:.1f}")
    with redis_server() as url, tempfile.TemporaryDirectory() as empty:
        client = connect(url, Path("unused"))
        os.environ["DAILY_CACHE"], os.environ["DAILY_TABLES"] = empty, ""
        started = time.perf_counter()
        for n in range(args.variants):
            play(client, record_on(f"VAR{n:05d}", f"v{n}", args.ruleset, variant), None)
        code = "K7P2QX9D"
        for n in range(args.games):
            play(client, record_on(code, f"h{n}", args.ruleset, {}), None)
        source = dice.stream(dice.friend_seed(SECRET, code))
        turns = range(1, len(rules.rows) + 1)
        seer = list(clairvoyant.play(table, source, turns).moves)
        play(client, record_on(code, "seer", args.ruleset, {}), seer)
        waiting = review_queue.unchecked(client)
        print(f"{waiting} games wait ({time.perf_counter() - started:.0f} s to play them)")
        os.environ["DAILY_CACHE"] = str(cache)  # the table arrives
        arrived = time.perf_counter()
        sweeps = 0
        while not reviews.held(client):
            began = time.perf_counter()
            held = reviews.sweep_unchecked(client, settings())
            sweeps += 1
            print(f"sweep {sweeps}: {time.perf_counter() - began:.2f} s, held {held}, "
                  f"{review_queue.unchecked(client)} still wait")  # fmt: skip
            if sweeps > 20:
                sys.exit("the clairvoyant game was never held")
        spent = time.perf_counter() - arrived
        worst = spent + reviews.SWEEP_INTERVAL_S * sweeps
        print(
            f"held {spent:.1f} s of sweeping after its table came; with the wait for each "
            f"sweep at its worst ({reviews.SWEEP_INTERVAL_S} s): {worst:.1f} s (aim: 60 s)"
        )
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
