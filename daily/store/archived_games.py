"""What Redis keeps of an archived game: the marker naming its day file, its player's notes.

The archive service (:mod:`daily.service.archive`) writes a finished game to a day file,
then takes it out of Redis here: a dated game leaves nothing, an older one a one-field
marker; a ranked daily stays noted on its player's dailies (:mod:`daily.store.played_days`),
which their history reads without opening a file, and what it gave the best-day board folds
into one field. The archiver's list of finished games and its lease live here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

import redis

from daily.core.modes import OnePer
from daily.core.record import (
    Record,
)
from daily.store import keys, played_days
from daily.store.connection import queue_script
from daily.store.game_fields import ARCHIVED, id_day, is_dated
from daily.store.guard import guarded

# Takes a finished, counted game's hash (KEYS[1]) out of Redis: a game whose id names its
# day (ARGV[2] '1') leaves nothing, any other is replaced by the archive marker, one field
# naming the day file ARGV[1] that holds it. A game not finished, not counted, held for
# review, or whose luck verdict came or went since the archiver read it (ARGV[3] '1': it had
# one) is left as it is (0); one archived already answers 1 again.
_ARCHIVE = """
local found = redis.call('HMGET', KEYS[1], 'a', 'h', 't', 'u', 'review', 'luck')
if found[1] then return 1 end
if not found[2] then
  if ARGV[2] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return 1 end
  return 0
end
if not found[3] or found[4] ~= '1' or found[5] == 'held' then return 0 end
if (found[6] and '1' or '0') ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] ~= '1' then redis.call('HSET', KEYS[1], 'a', ARGV[1]) end
return 1
"""


# Moves an archived game (ARGV[1]) off its player's live indexes, all on the player's slot:
# off their list of games (KEYS[1]). A ranked daily whose id names no day goes onto the
# month's list of archived dailies (KEYS[3], entry ARGV[2], '' for none, each followed by a
# space, listed once however often this runs), which the player's key set (KEYS[2]) names so
# that deleting the player finds it (any other stays noted on the player's dailies hash).
# What the day (ARGV[3]) gave the best-day board folds into the best-days hash's one
# 'archived' field (KEYS[4]): a game is archived only once no review can withdraw it, so the
# best left is all a withdrawal of a later day needs. The index keys (KEYS[5..]) that still
# name the game are deleted and leave the key set.
_UNINDEX = """
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then
  local listed = redis.call('GET', KEYS[3]) or ''
  if not string.find(' ' .. listed, ' ' .. ARGV[1] .. ':', 1, true) then
    -- SET, not APPEND: an appended string keeps up to twice its length allocated
    redis.call('SET', KEYS[3], listed .. ARGV[2] .. ' ')
  end
  redis.call('SADD', KEYS[2], KEYS[3])
end
if ARGV[3] ~= '' then
  local gave = redis.call('HGET', KEYS[4], ARGV[3])
  if gave then
    local best = redis.call('HGET', KEYS[4], 'archived')
    if not best or tonumber(gave) > tonumber(best) then
      redis.call('HSET', KEYS[4], 'archived', gave)
    end
    redis.call('HDEL', KEYS[4], ARGV[3])
  end
end
for i = 5, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    redis.call('SREM', KEYS[2], KEYS[i])
  end
end
return 1
"""


# Deletes a lock (KEYS[1]) only if it still holds this holder's token (ARGV[1]).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# Renews a lease (KEYS[1]) for ARGV[2] ms if it still holds this holder's token (ARGV[1]).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


@guarded
def archived_day(client: redis.Redis, game_id: str) -> date | None:
    """The day file an archived game is in; None if it is not archived."""
    day = client.hget(keys.game(game_id), ARCHIVED)
    return date.fromisoformat(str(day)) if day else None


@guarded
def finished_before(client: redis.Redis, before: float, limit: int, skip: int = 0) -> list[str]:
    """Up to *limit* finished, unarchived game ids that finished before *before* (unix s),
    oldest first, after the *skip* oldest."""
    found = client.zrangebyscore(keys.games_finished(), "-inf", before, start=skip, num=limit)
    return [str(game_id) for game_id in cast(list[str], found)]


@guarded
def mark_archived(client: redis.Redis, record: Record, day: date) -> bool:
    """Takes a finished, counted game out of Redis, archived in *day*'s file: a dated game
    (:func:`is_dated`, filed on its id's day) leaves nothing, any other a marker naming
    *day*. False (nothing changed) for a game not finished, not counted, held for review,
    or whose luck verdict changed since *record* was read."""
    dated = is_dated(record) and id_day(record.id) == day
    args = [day.isoformat(), "1" if dated else "0", "1" if "luck" in record.extra else "0"]
    script = client.register_script(_ARCHIVE)
    return bool(script(keys=[keys.game(record.id)], args=args))


def index_keys_of(record: Record) -> list[str]:
    """The player's index keys that may name *record* (its day's, its code's)."""
    found = []
    if record.day is not None:
        found.append(keys.player_daily(record.player_id, record.day.isoformat()))
        found.append(keys.player_practice(record.player_id, record.day.isoformat()))
    if record.code is not None:
        found.append(keys.player_friend(record.player_id, record.code))
    return found


def month_of(record: Record) -> str:
    """The month (``YYYY-MM``) whose list of archived dailies holds *record*: its puzzle's
    day's, else the UTC day it was made."""
    day = record.day or datetime.fromtimestamp(record.created, UTC).date()
    return day.isoformat()[:7]


def is_listed_archived(record: Record) -> bool:
    """Whether the player's month list keeps *record* once archived: a ranked daily, what
    their history, stats and advent doors read; any other game is found by its id alone."""
    return record.kind.one_per is OnePer.DAY and not record.practice


@dataclass(frozen=True, slots=True)
class ArchivedDaily:
    """What a player's month list keeps of an archived ranked daily: what their history,
    stats and advent doors show, so that they read no archive file."""

    game_id: str
    day: date
    total: int
    bonus: bool  # the upper section's bonus reached

    def entry(self) -> str:
        """The entry on the month list: ``id:day of the month:total:bonus``.

        >>> ArchivedDaily("05OAbCdEfGhIjKlM", date(2026, 12, 3), 287, True).entry()
        '05OAbCdEfGhIjKlM:03:287:1'
        """
        return f"{self.game_id}:{self.day.day:02d}:{self.total}:{int(self.bonus)}"

    @classmethod
    def parse(cls, entry: str, month: str) -> ArchivedDaily:
        """An entry of the list of *month* (``YYYY-MM``) read back.

        >>> ArchivedDaily.parse("05OAbCdEfGhIjKlM:03:287:1", "2026-12").day
        datetime.date(2026, 12, 3)
        """
        game_id, day, total, bonus = entry.rsplit(":", 3)
        return cls(game_id, date.fromisoformat(f"{month}-{day}"), int(total), bonus == "1")


@guarded
def unindex_archived(
    client: redis.Redis, record: Record, drop_index: bool, bonus: bool = False, *, today: date
) -> None:
    """Moves an archived game off its player's list of games, on *today*; a ranked daily
    (its upper *bonus* reached or not) stays noted on its player's dailies hash, one whose id
    names no day on their month's list of archived dailies too, and what it gave the
    best-day board folds into one field. With *drop_index*, its index keys (its day's, its
    code's) go too. Idempotent: a game is listed once however often this runs."""
    player = record.player_id
    played = played_days.of_record(record, bonus)
    entry = ""
    if is_listed_archived(record) and record.day and record.total is not None:
        if played is None or played.file_day is None:  # the history's link needs its id
            entry = ArchivedDaily(record.id, record.day, record.total, bonus).entry()
    player_keys = [
        keys.player_games(player),
        keys.player_keys(player),
        keys.player_archived(player, month_of(record)),
        keys.player_best_days(player),
    ]
    index = index_keys_of(record) if drop_index else []
    best_day = record.day.isoformat() if played is not None and record.day else ""
    pipe = client.pipeline(transaction=True)  # every key on the player's slot
    if played is not None:
        played_days.queue_note(pipe, player, played, today)
    queue_script(pipe, _UNINDEX, [*player_keys, *index], [record.id, entry, best_day])
    pipe.execute()


@dataclass(frozen=True, slots=True)
class Dailies:
    """What Redis holds of a player's dailies over some days: the days noted on their hash,
    the games their day's index keys name (in Redis still), and the archived dailies listed
    before dailies were noted."""

    noted: tuple[played_days.PlayedDay, ...]
    live: Mapping[date, str]
    listed: tuple[ArchivedDaily, ...]


@guarded
def dailies_of(
    client: redis.Redis, player_id: str, first: date, last: date, live_from: date
) -> Dailies:
    """*player_id*'s dailies from *first* to *last*: the noted ones, the ids their day's
    index keys name from *live_from* on, and those listed on their month lists; one round
    trip whatever the number of games they stored."""
    pipe: Any = client.pipeline(transaction=False)  # every key on the player's slot
    halves = played_days.queue_read(pipe, player_id, first, last)
    start = max(first, live_from)
    live = [start + timedelta(days=n) for n in range((last - start).days + 1)]
    # MGET by name: a cluster pipeline blocks its mget method (these keys share one slot).
    if live:
        pipe.execute_command("MGET", *(keys.player_daily(player_id, d.isoformat()) for d in live))
    months = _months(first, last)
    pipe.execute_command("MGET", *(keys.player_archived(player_id, month) for month in months))
    cells, *replies = pipe.execute()
    noted = [d for d in played_days.decode(halves, cells) if first <= d.day <= last]
    named = replies[0] if live else []
    lists = replies[-1]
    listed = [
        ArchivedDaily.parse(entry, month)
        for month, text in zip(months, lists, strict=True)
        if text
        for entry in str(text).split()
    ]
    ids = {day: str(game_id) for day, game_id in zip(live, named, strict=True) if game_id}
    return Dailies(tuple(noted), ids, tuple(d for d in listed if first <= d.day <= last))


def _months(first: date, last: date) -> list[str]:
    """The months (``YYYY-MM``) from *first*'s to *last*'s.

    >>> _months(date(2026, 11, 30), date(2027, 1, 1))
    ['2026-11', '2026-12', '2027-01']
    """
    found, day = [], first.replace(day=1)
    while day <= last:
        found.append(day.isoformat()[:7])
        day = (day + timedelta(days=32)).replace(day=1)
    return found


@guarded
def archived_of(client: redis.Redis, player_id: str, months: Sequence[str]) -> list[ArchivedDaily]:
    """*player_id*'s archived dailies of *months* (``YYYY-MM``) as their month lists keep
    them (those archived before dailies were noted, and those whose id names no day), in
    their order, each month's in the order archived."""
    if not months:
        return []
    lists = client.mget([keys.player_archived(player_id, month) for month in months])
    return [
        ArchivedDaily.parse(entry, month)
        for month, listed in zip(months, lists, strict=True)
        if listed
        for entry in str(listed).split()
    ]


@guarded
def unlist_finished(client: redis.Redis, game_ids: Sequence[str]) -> None:
    """Takes archived (or vanished) games off the list the archiver reads."""
    if game_ids:
        client.zrem(keys.games_finished(), *game_ids)


@guarded
def claim_archiver(client: redis.Redis, token: str, lease_s: float) -> bool:
    """Whether this process may archive now: one lease over every host, for *lease_s*
    unless renewed (:func:`renew_archiver`), so a killed holder frees it soon."""
    return bool(client.set(keys.archive_lock(), token, nx=True, px=int(lease_s * 1000)))


@guarded
def renew_archiver(client: redis.Redis, token: str, lease_s: float) -> bool:
    """Renews this process's (*token*'s) lease for *lease_s* from now; False if it lost it
    (it ran out, and another archiver may hold it now)."""
    script = client.register_script(_RENEW)
    return bool(script(keys=[keys.archive_lock()], args=[token, int(lease_s * 1000)]))


@guarded
def release_archiver(client: redis.Redis, token: str) -> None:
    """Frees the archiver's lease if this process (*token*) still holds it."""
    script = client.register_script(_RELEASE)
    script(keys=[keys.archive_lock()], args=[token])
