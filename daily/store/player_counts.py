"""What the rankings keep of each player: the days their dailies counted, what each gave the
best-day board, whether they are established, their leagues.

The ledger (:mod:`daily.core.ledger`) reads these as the player's standing before a game
counts; :mod:`daily.store.board_counts` writes them as it carries a plan out. Every key is on
the player's slot, so the standing is one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import redis

from daily.store import keys
from daily.store.boards import DAY_EPOCH, unpack
from daily.store.guard import guarded

#: The player record's field that keeps the day they became established.
ESTABLISHED = "established"
#: The best-days hash's field that folds the days archived already (their best).
ARCHIVED = "archived"


@dataclass(frozen=True, slots=True)
class Counted:
    """A player's counts as stored: the days of their counted dailies, each kept day's packed
    score (the best-days hash), their best true score ever, whether they are established, and
    the ids of their leagues."""

    days: frozenset[date]
    kept: dict[date, int]
    best: int | None
    established: bool
    leagues: tuple[str, ...]


def days_of(bits: bytes) -> frozenset[date]:
    """The days a days-played bitmap marks (bit n, from the first byte's highest bit, is
    :data:`DAY_EPOCH` plus n days).

    >>> sorted(days_of(bytes([0b1010_0000, 0b0000_0001])))
    [datetime.date(2026, 1, 1), datetime.date(2026, 1, 3), datetime.date(2026, 1, 16)]
    """
    found = set()
    for i, byte in enumerate(bits):
        for bit in range(8):
            if byte & (0x80 >> bit):
                found.add(DAY_EPOCH + timedelta(days=8 * i + bit))
    return frozenset(found)


@guarded
def counted(client: redis.Redis, player_id: str) -> Counted:
    """*player_id*'s counts: one round trip on the player's slot."""
    pipe: Any = client.pipeline(transaction=False)  # every key on the player's slot
    pipe.execute_command("GET", keys.player_days(player_id), NEVER_DECODE=[])  # bits, not text
    pipe.hgetall(keys.player_best_days(player_id))
    pipe.hexists(keys.player(player_id), ESTABLISHED)
    pipe.smembers(keys.player_leagues(player_id))
    bits, best_days, established, leagues = pipe.execute()
    kept = {
        date.fromisoformat(str(day)): int(float(packed))
        for day, packed in best_days.items()
        if day != ARCHIVED
    }
    packed_all = [int(float(v)) for v in best_days.values()]
    return Counted(
        days=days_of(bits or b""),
        kept=kept,
        best=unpack(max(packed_all)) if packed_all else None,
        established=bool(established),
        leagues=tuple(sorted(str(i) for i in leagues)),
    )


@guarded
def mark_established(client: redis.Redis, player_id: str, day: date) -> None:
    """Keeps on the player's record that they became established on *day* (the first stands)."""
    client.hsetnx(keys.player(player_id), ESTABLISHED, day.isoformat())


@guarded
def is_established(client: redis.Redis, player_id: str) -> bool:
    """Whether *player_id* is established (their dailies rank on the world boards)."""
    return bool(client.hexists(keys.player(player_id), ESTABLISHED))


@guarded
def days_counted(client: redis.Redis, player_ids: Sequence[str]) -> dict[str, tuple[int, bool]]:
    """Each player's count of days counted and whether they are established: one pipeline."""
    pipe = client.pipeline(transaction=False)
    for player_id in player_ids:
        pipe.bitcount(keys.player_days(player_id))
        pipe.hexists(keys.player(player_id), ESTABLISHED)
    found = pipe.execute()
    return {
        player_id: (int(found[2 * i]), bool(found[2 * i + 1]))
        for i, player_id in enumerate(player_ids)
    }
