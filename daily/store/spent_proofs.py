"""Proofs of work spent on new players: each used once, and the paid creations they count.

A proof is spent by the signature of its challenge (``SET NX`` with the challenge's lifetime),
and in the same script the paid creations of the address and its networks are counted, each in
a window that starts with its first count (:func:`daily.store.keys.quota`): what the next
challenge's difficulty reads (:mod:`daily.service.proofs`). Every key shares the hash tag of
the address's widest network, so one script does both, on a cluster too.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis

from daily.store.guard import guarded

#: Spends KEYS[1] for ARGV[1] seconds, unless it was spent; then counts one on each other key
#: (its window ARGV[2] seconds, set by the count that opens it). Answers 0 for a proof spent
#: before, else 1.
_SPEND = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
for i = 2, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[2]) end
end
return 1
"""


@guarded
def spend(
    client: redis.Redis, proof: str, lifetime: int, counted: Sequence[str], window: int
) -> bool:
    """Spends the proof *proof* (kept *lifetime* seconds) and counts one paid creation on each
    key of *counted* (in a window of *window* seconds); False, counting nothing, when the
    proof was spent already."""
    return bool(client.eval(_SPEND, 1 + len(counted), proof, *counted, lifetime, window))


@guarded
def most(client: redis.Redis, counted: Sequence[str]) -> int:
    """The largest count of *counted* (keys of one hash tag), 0 where none is counted."""
    if not counted:
        return 0
    return max(int(value or 0) for value in client.mget(list(counted)))
