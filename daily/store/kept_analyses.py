"""Analyses kept: a finished game's skill and luck, its decisions valued, and the Expert's
game of a day, each computed once (the analysis service decides when) and read back after.

A game's summary (optimum, points lost, the Expert's score: :func:`daily.strategy.skill.skill_str`)
is one short field of the game's own hash, ``analysed``, so every read of the game has it and
the archive keeps it with the record. Its decisions, a token each, are a key of their own
beside the game (the same hash tag): a long value would turn the game's compact hash into a
larger one. That key expires a while after the game is due for the archive, which copies it
into the game's archived line (:func:`fold`), so nothing here grows without bound. The
Expert's game of a day is one short string per day and stream, kept as long.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import cast

import redis

from daily.core.record import Record
from daily.store import keys
from daily.store.connection import queue_script
from daily.store.game_fields import HEADER
from daily.store.guard import guarded

#: The field of a game's hash (and of an archived record's extras) that holds its summary.
SUMMARY = "analysed"
#: The extra of an archived record that holds its decisions (copied by :func:`fold`).
DECISIONS = "decisions"

# Keeps a game's analysis: the summary ARGV[1] in the game's hash (KEYS[1]) while the game
# itself is there in the compact form (not once archived: its hash is then a marker, or
# gone), and the decisions ARGV[2] at KEYS[2] for ARGV[3] ms.
_KEEP = """
if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[5], ARGV[1])
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
"""


@guarded
def keep(
    client: redis.Redis, game_id: str, summary: str, decisions: str, lifetime_s: float
) -> None:
    """Keeps game *game_id*'s analysis: its *summary* with the game, its *decisions* for
    *lifetime_s* seconds."""
    pipe = client.pipeline(transaction=False)
    game_keys = [keys.game(game_id), keys.game_analysis(game_id)]
    args = [summary, decisions, max(1, int(lifetime_s * 1000)), HEADER, SUMMARY]
    queue_script(pipe, _KEEP, game_keys, args)
    pipe.execute()


@guarded
def decisions_of(client: redis.Redis, game_id: str) -> str | None:
    """Game *game_id*'s kept decisions, or None (never kept, or expired)."""
    found = client.get(keys.game_analysis(game_id))
    return None if found is None else str(found)


@guarded
def fold(client: redis.Redis, records: Sequence[Record]) -> list[Record]:
    """*records* with their kept decisions among their extras, as the archive writes them
    (a record with none kept, or with them already, as it is). One pipeline for all."""
    pipe = client.pipeline(transaction=False)
    for record in records:
        pipe.get(keys.game_analysis(record.id))
    found = []
    for record, decisions in zip(records, pipe.execute(), strict=True):
        if decisions is not None and DECISIONS not in record.extra:
            extra = {**record.extra, DECISIONS: str(decisions)}
            record = dataclasses.replace(record, extra=extra)
        found.append(record)
    return found


@guarded
def expert_of(client: redis.Redis, day: str, stream: str) -> str | None:
    """The Expert's game of *day* in *stream* as kept (``total optimum log``), or None."""
    found = client.get(keys.expert_game(day, stream))
    return None if found is None else cast(str, found)


@guarded
def keep_expert(client: redis.Redis, day: str, stream: str, text: str, lifetime_s: float) -> None:
    """Keeps the Expert's game of *day* in *stream* for *lifetime_s* seconds (the same for
    every player: any process that computes it writes the same)."""
    client.set(keys.expert_game(day, stream), text, px=max(1, int(lifetime_s * 1000)))
