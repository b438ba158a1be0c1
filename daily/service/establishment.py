"""How many new players of an address and a network may become established a day.

The day's puzzle is never refused to a player, and an established player's daily ranks from
any address. What an address and a network budget is a new player's progress: each day, at
most ``DAILY_LIMIT_DAILIES`` dailies of players not yet established started from an address
(``DAILY_LIMIT_NETWORK_DAILIES`` from a network) count towards their becoming established
(``DAILY_ESTABLISHED_DAYS`` days of ranked dailies). A newcomer's daily past the budget is
played and counted for their own figures, friends' codes and leagues, and marked
(:data:`OVER`) so that it does not count towards ranking on the world boards; the player is
told (:func:`counts_towards`). So the price of rank 1 in accounts x days x networks stays
as docs/integrity.md states it.

Whether a player is established is the ledger's (:mod:`daily.core.ledger`): a daily marked
:data:`OVER` may not establish its player (:func:`counts_towards`, read into the standing the
ledger plans with: :func:`daily.service.results.plan_of`); they become established with a
later daily that is within its network's budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from daily.core import ledger
from daily.core.config import Config
from daily.core.record import Record
from daily.service import quotas
from daily.service.quotas import Counter
from daily.store import player_counts

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The extra field of a daily started past its address's or network's budget of newcomers'
#: dailies: its value is the day; it does not count towards its player's being established.
OVER = "over_budget"


def is_newcomer(client: redis.Redis, config: Config, player_id: str) -> bool:
    """Whether *player_id* is not established yet (as the ledger's standing reads it)."""
    days, established = player_counts.days_counted(client, [player_id])[player_id]
    return not ledger.is_established(established, days, config.established_days)


def take(
    client: redis.Redis, config: Config, player_id: str, counting: Sequence[Counter]
) -> Callable[[], None] | None:
    """Takes one of the newcomers' dailies on *counting* (the address's and its networks'
    counters of the day) for *player_id*'s new daily: what gives it back (a start that made
    nothing new), or None when the budget is spent (the daily is played, marked
    :data:`OVER`). An established player spends nothing."""
    if not counting or not is_newcomer(client, config, player_id):
        return _nothing
    if quotas.take(client, counting) is not None:
        return None
    return lambda: quotas.give_back(client, counting)


def _nothing() -> None:
    return None


def mark_over(record: Record) -> Record:
    """*record*, marked as a newcomer's daily past its network's budget (:data:`OVER`)."""
    day = record.day.isoformat() if record.day else ""
    return dataclasses.replace(record, extra={**record.extra, OVER: day})


def counts_towards(record: Record) -> bool:
    """Whether a newcomer's daily counts towards their becoming established: False for one
    started past its address's or network's budget (the result says so)."""
    return OVER not in record.extra
