"""What it costs to scout a day's line at the default limits, dice stream v1 against v2.

A *scout* is an account whose one daily tries one hold pattern, so that a clean account can
later play the line their games showed. Before counting, the bench checks on the real
streams what each version lets one scout game show: in v1 a turn's first re-roll under a
hold is the same whatever was played before (so one account holding pattern h every turn
sees h's re-roll on all 20 turns), in v2 it changes with any earlier move (so a scout sees
the line's re-roll at turn t only by replaying the line's every move up to t).

The cost then follows from the structure (63 hold patterns of 6 dice, 20 turns) and the
limits per address of :data:`daily.web.limits.DEFAULTS` (new players, dailies, moves). Every
scout game is a whole account's one daily of the day (docs/integrity.md), so games =
accounts = dailies.

Run: .venv/bin/python bench/bench_scouting.py
"""

from __future__ import annotations

import math
import random

from daily.core import dice
from daily.core.rules import Roll, apply, find_ruleset, legal_moves, new_game
from daily.strategy.clairvoyant import patterns
from daily.web.limits import DEFAULTS

TURNS = 20
PATTERNS = len(patterns(6))  # 63
UNITS = {"minute": 60, "hour": 3600, "day": 86400}


def per_second(limit: str) -> float:
    """``"30 per hour"`` as a rate a second.

    >>> per_second("120 per minute")
    2.0
    """
    count, _, unit = limit.split()
    return int(count) / UNITS[unit]


def same_reroll_after_other_paths(version: str, trials: int = 200) -> float:
    """The share of random earlier paths after which a hold's first re-roll is unchanged."""
    rng = random.Random(5)
    maxi = find_ruleset("maxi")
    same = 0
    for n in range(trials):
        seed = bytes([n % 256]) * 32
        turn = rng.randrange(2, 8)
        hold = rng.choice(patterns(6))
        dealt = []
        for _ in range(2):  # two random games up to that turn, then the same hold
            state = new_game(maxi, dice.stream(seed, version))
            while state.turn < turn:
                state = apply(state, rng.choice(legal_moves(state)))
            dealt.append(apply(state, Roll(hold)).dice)
        same += dealt[0] == dealt[1]
    return same / trials


def cost(games: int, moves: int, waves: int) -> dict[str, float]:
    """Addresses for one day, and hours from one address, at the default limits."""
    players, dailies = per_second(DEFAULTS["players"]), per_second(DEFAULTS["dailies"])
    move_rate = per_second(DEFAULTS["moves"])
    addresses = math.ceil(games / (dailies * 86400))  # the dailies limit is per day
    one_address_h = max(games / players, games / dailies, moves / move_rate) / 3600
    many_h = max(games / players, moves / move_rate) / addresses / 3600
    return {"games": games, "moves": moves, "waves": waves, "addresses": addresses,
            "hours_one_address": one_address_h, "hours_with_addresses": many_h}  # fmt: skip


def main() -> None:
    print("a hold's first re-roll unchanged after another random path up to its turn:")
    for version in dice.VERSIONS:
        print(f"  {version}: {same_reroll_after_other_paths(version):.0%} of 200 tries")
    # v1: one account per pattern holds it on every turn (and scores anything).
    before = cost(PATTERNS, PATTERNS * TURNS * 2, 1)
    # v2: wave t replays the line's moves of turns 1..t-1 (about 3 a turn: 2 re-rolls and
    # a score), then holds its own pattern; the line account plays once the waves are done.
    moves = sum(PATTERNS * (3 * (t - 1) + 1) for t in range(1, TURNS + 1))
    after = cost(PATTERNS * TURNS + 1, moves + 3 * TURNS, TURNS)
    print(f"\nscouting every first re-roll of a line, default limits {DEFAULTS}:")
    print("| stream | games (= accounts = dailies) | moves | waves | addresses for one day "
          "| hours from one address | hours with those addresses |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, c in (("v1 (and no friend games on the day)", before), ("v2", after)):
        print(f"| {name} | {c['games']:,} | {c['moves']:,} | {c['waves']} | {c['addresses']} | "
              f"{c['hours_one_address']:.1f} | {c['hours_with_addresses']:.1f} |")  # fmt: skip
    print(
        "\nthe hole of round two (v1, friend games on the day): 8 accounts, 64 games, one address"
    )


if __name__ == "__main__":
    main()
