"""The rate limits' counters: which counters a request counts on, and counting them.

The web layer decides which limits a request meets and answers 429 (:mod:`daily.web.limits`);
this module names the counters (per player, per address, per network, each in its window),
and the store counts them atomically (:mod:`daily.store.counters`). An address and its
networks are counted under the hash tag of the widest network, so a request's budgets are
taken in one script, all or none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from daily.store import counters, keys
from daily.store.counters import Count, Counter

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

__all__ = ["Count", "Counter", "Window", "Holders"]

#: What a caller does with a request's counts before anything else is said (a 429).
CountCheck = Callable[[tuple[Count, ...]], None]


@dataclass(frozen=True, slots=True)
class Window:
    """One window of a limit: how many requests it allows, how long it lasts in seconds, and
    its name in a key (its seconds, or the puzzle day it counts)."""

    amount: int
    seconds: int
    label: str = ""

    @property
    def key_label(self) -> str:
        """The window's part of a counter's key."""
        return self.label or str(self.seconds)


@dataclass(frozen=True, slots=True)
class Holders:
    """Who a request is counted for: the client's address (an IPv4 address, or an IPv6
    address's /64), the networks it belongs to, widest last, and the player if known."""

    address: str
    networks: tuple[str, ...] = ()
    player_id: str | None = None

    @property
    def tag(self) -> str:
        """The hash tag the address's counters share: its widest network, else itself."""
        return self.networks[-1] if self.networks else self.address


def address_counters(
    name: str, holders: Holders, per_address: Sequence[Window], per_network: Sequence[Window]
) -> tuple[Counter, ...]:
    """The counters of limit *name* for the client's address and each of its networks."""
    found = [
        Counter(
            name, keys.quota(holders.tag, name, w.key_label, holders.address), w.seconds, w.amount
        )
        for w in per_address
    ]
    for network in holders.networks:
        found += [
            Counter(name, keys.quota(holders.tag, name, w.key_label, network), w.seconds, w.amount)
            for w in per_network
        ]
    return tuple(found)


def player_counters(name: str, player_id: str, per_player: Sequence[Window]) -> tuple[Counter, ...]:
    """The counters of limit *name* for one player."""
    return tuple(
        Counter(name, keys.player_quota(player_id, name, w.key_label), w.seconds, w.amount)
        for w in per_player
    )


def move_counters(
    player_id: str | None,
    address: str,
    per_player: Sequence[tuple[int, int]],
    per_address: Sequence[tuple[int, int]],
) -> tuple[Counter, ...]:
    """The counters a move counts on: ``moves``, the player's moves; without a player, the
    address's moves and ``pages``, the address's count of moves without a player; each limit
    a list of windows, each (moves, window in seconds); an empty list: off. A player's moves
    never count on their address: a class behind one address plays as freely as players at
    as many addresses."""
    if player_id:
        return tuple(
            Counter("moves", keys.player_moves(player_id, seconds), seconds, amount)
            for amount, seconds in per_player
        )
    found = [
        Counter("moves", keys.anonymous_moves(address, seconds), seconds, amount)
        for amount, seconds in per_player
    ]
    for amount, seconds in per_address:
        found.append(Counter("pages", keys.address_moves(address, seconds), seconds, amount))
    return tuple(found)


def count(client: redis.Redis, counting: Sequence[Counter]) -> tuple[Count, ...]:
    """Counts a request that reads no game on *counting*, in a round trip of its own."""
    return counters.count(client, counting)


def take(client: redis.Redis, counting: Sequence[Counter]) -> Count | None:
    """Counts one request on all of *counting*, or on none: the spent counter, else None."""
    return counters.take(client, counting) if counting else None


def give_back(client: redis.Redis, counting: Sequence[Counter]) -> None:
    """Gives back what :func:`take` counted for a request that did not use it."""
    if counting:
        counters.give_back(client, counting)
