"""The record of which key deals the dice, so that a rotation can never change dealt dice."""

from __future__ import annotations

import redis

from daily.store import keys
from daily.store.guard import guarded


@guarded
def claim(client: redis.Redis, fingerprint: str) -> str:
    """Records *fingerprint* unless one is recorded already; returns the recorded one."""
    client.set(keys.dice_key(), fingerprint, nx=True)
    return str(client.get(keys.dice_key()))
