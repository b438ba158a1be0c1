"""Who a league's owner removed: a sorted set on the league's slot (player -> when), written
by the removal itself (:func:`daily.store.league_boards.leave`) and read by every join, which
it refuses whatever link the player holds; gone when the owner readmits them, or with the
league."""

from __future__ import annotations

from typing import cast

import redis

from daily.store import keys
from daily.store.guard import guarded
from daily.store.league_boards import MISSING, NOT_MEMBER, NOT_OWNER
from daily.store.members import member, player_of

#: What :func:`readmit` answers when it took the player off the list.
READMITTED = "readmitted"

# Takes ARGV[2] off the removed (KEYS[2]) if the caller ARGV[1] owns the league (KEYS[1]).
# -1 no league, -2 not the owner, 0 not on the list, 1 readmitted.
_READMIT = """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if owner ~= ARGV[1] then return -2 end
return redis.call('ZREM', KEYS[2], ARGV[2])
"""
_ANSWERS = {-2: NOT_OWNER, -1: MISSING, 0: NOT_MEMBER, 1: READMITTED}


@guarded
def removed_of(client: redis.Redis, league_id: str) -> list[str]:
    """The ids of the players the owner removed from *league_id*, the latest first."""
    found = cast(list[str], client.zrevrange(keys.league_removed(league_id), 0, -1))
    return [player_of(name) for name in found]


@guarded
def readmit(client: redis.Redis, league_id: str, owner: str, player_id: str) -> str:
    """Takes *player_id* off the league's removed (its *owner* only): ``readmitted``,
    ``not_member`` (not on the list), ``not_owner`` or ``missing`` (no such league). They
    join again with the league's current link."""
    found = client.register_script(_READMIT)(
        keys=[keys.league(league_id), keys.league_removed(league_id)],
        args=[member(owner), member(player_id)],
    )
    return _ANSWERS[int(found)]
