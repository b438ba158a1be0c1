"""Benchmark of a player's league standings, and of taking a daily off their leagues.

Run as ``.venv/bin/python bench/bench_standings.py [--league-size N] [--leagues N] [--ops N]``.
Like ``bench_boards.py`` (whose throwaway redis-server and filled leagues it reuses) it times
on the Redis side, by SLOWLOG with every command logged: players in ``--leagues`` leagues
(default 10, the most a player may be in), one of them of ``--league-size`` members (default
10,000) with a day board for each day of the week so far, and

- :func:`daily.service.leagues.standings_of`: the SMEMBERS of the player's leagues, then one
  EVALSHA a league (name, size, players of the day, the player's rank), in one pipeline;
- a withdrawal's league step (:func:`daily.store.league_boards.uncount`, what
  :func:`daily.store.board_counts.withdraw` runs last): one EVALSHA a league, in one pipeline;
- joining after playing (:func:`daily.store.league_boards.count_from_board`): a ZSCORE of the
  public day board, the count's EVALSHA on the league, the ZSCORE again.

Aim: each under 1 ms of Redis time whatever the size of the leagues.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import time
from datetime import UTC

import redis
from bench_boards import DAY, at, fill_league, redis_server, slowlog, summary

from daily.core.config import Config
from daily.service import leagues
from daily.store import board_counts, league_boards
from daily.store.boards import Result


def join_all(client: redis.Redis, players: list[str], ids: list[str], size: int) -> None:
    for player_id in players:
        for league_id in ids:
            league_boards.claim(client, player_id, league_id, len(ids))
            league_boards.join(client, league_id, player_id, 0, size + len(players))


def redis_time(found: dict[str, list[float]], sent: tuple[str, ...], count: int) -> float:
    """The Redis time (µs) of the commands *sent* by the client, per call of *count*: what
    a script runs shows in SLOWLOG too, inside its EVALSHA's time."""
    return sum(sum(found[name]) for name in sent) / count


def measure_standings(client: redis.Redis, players: list[str], per_player: int) -> None:
    config = Config()
    leagues.standings_of(client, config, players[0], DAY)  # the script cached
    found: dict[str, list[float]] = {}
    began = time.perf_counter()
    with slowlog(client, found):
        for player_id in players:
            assert len(leagues.standings_of(client, config, player_id, DAY)) == per_player
    wall = (time.perf_counter() - began) / len(players) * 1e6
    print(f"standings_of, a player in {per_player} leagues:")
    summary("SMEMBERS of the player's leagues", found["smembers"])
    summary("EVALSHA: a league's line, per league", found["evalsha"])
    whole = redis_time(found, ("smembers", "evalsha"), len(players))
    print(f"  {'a whole standings_of':<34} {whole:7.1f} µs of Redis "
          f"time ({wall:,.0f} µs wall, two round trips)")  # fmt: skip


def measure_withdraw(client: redis.Redis, results: list[Result], per_player: int) -> None:
    board_counts.uncount_leagues(client, results[0])  # the script cached
    for result in results:
        assert league_boards.count(client, result, zone=UTC) == per_player
    found: dict[str, list[float]] = {}
    with slowlog(client, found):
        for result in results:
            board_counts.uncount_leagues(client, result)
    print(f"a withdrawal's league step, {per_player} leagues:")
    summary("EVALSHA: a day off, its week again", found["evalsha"])
    whole = redis_time(found, ("smembers", "evalsha"), len(results))
    print(f"  {'the whole step':<34} {whole:7.1f} µs of Redis time")


def measure_join(client: redis.Redis, results: list[Result], big: str) -> None:
    for result in results:
        board_counts.count_daily(client, result, 400, UTC)
    found: dict[str, list[float]] = {}
    with slowlog(client, found):
        for result in results:
            assert league_boards.count_from_board(client, big, result.player_id, DAY, zone=UTC)
    print("joining after playing, the big league:")
    # The script's own ZSCOREs show beside the client's two: take a typical one twice.
    zscore = statistics.median(found["zscore"])
    summary("EVALSHA: the day and its week", found["evalsha"])
    whole = redis_time(found, ("evalsha",), len(results)) + 2 * zscore
    print(f"  {'the whole count, two ZSCOREs too':<34} {whole:7.1f} µs of Redis time")


def main() -> None:
    """Fills the leagues, prints the figures and whether each aim is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--league-size", type=int, default=10_000, help="members of a league")
    parser.add_argument("--leagues", type=int, default=leagues.MAX_LEAGUES)
    parser.add_argument("--ops", type=int, default=500, help="players timed")
    parser.add_argument("--deadline", type=float, default=300, help="kill Redis after this")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    rng = random.Random(5)
    with redis_server(args.deadline) as client:
        client.config_set("slowlog-log-slower-than", 0)
        client.config_set("slowlog-max-len", 1_000_000)
        crowd = [secrets.token_hex(8) for _ in range(args.league_size)]
        big, small = "benchleague", [f"benchsmall{n}" for n in range(args.leagues - 1)]
        fill_league(client, big, crowd)
        for league_id in small:
            fill_league(client, league_id, crowd[:40])
        players = [secrets.token_hex(8) for _ in range(args.ops)]
        join_all(client, players, [big, *small], args.league_size)
        results = [
            Result(f"g-{p}", p, "daily", rng.randrange(650), at(DAY, rng), DAY) for p in players
        ]
        for result in results:
            league_boards.count(client, result, zone=UTC)
        print(f"{args.ops} players, one of the leagues of {args.league_size:,} members")
        measure_standings(client, players, args.leagues)
        measure_withdraw(client, results, args.leagues)
        measure_join(client, results, big)
        print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
