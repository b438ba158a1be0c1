"""Players in Redis: an id and a display name, nothing else about a person."""

from __future__ import annotations

import secrets
import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

import redis
from confusable_homoglyphs import categories, confusables

from daily.core.errors import ConfusableNameError, InvalidNameError
from daily.store import keys
from daily.store.guard import guarded
from daily.store.members import member

MAX_NAME = 24


#: Characters that print as nothing although Unicode calls them letters or symbols
#: (Hangul fillers, the blank Braille pattern, Khmer inherent vowels).
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
#: Unicode categories that show nothing alone: spaces and combining marks.
_BLANK_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Mn", "Mc", "Me", "Cf", "Cc"})
#: Scripts that never count as a look-alike by themselves (digits, punctuation, accents).
_NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED", "LATIN"})


@dataclass(frozen=True, slots=True)
class Player:
    """A player: the id that signs their token and the name shown on boards."""

    id: str
    name: str


def parse_name(text: object) -> str:
    """Normalizes a display name (NFKC, trimmed) and checks it: 1 to 24 printable
    characters, at least one visible, not a Latin name spelled in other letters.

    >>> parse_name("  Ａｎａ ")
    'Ana'
    >>> parse_name(chr(0x3164))  # a Hangul filler  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daily.core.errors.InvalidNameError: name must show at least one character, got ...
    """
    if not isinstance(text, str):
        raise InvalidNameError(f"name must be a string, got {text!r}")
    # NFKC first: full-width and styled letters become the plain ones they look like.
    name = unicodedata.normalize("NFKC", text).strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise InvalidNameError(f"name must be 1 to {MAX_NAME} characters, got {len(name)}")
    if not name.isprintable():
        raise InvalidNameError(f"name must be printable characters only, got {name!r}")
    if not any(is_visible(c) for c in name):
        raise InvalidNameError(f"name must show at least one character, got {name!r}")
    lookalike = latin_lookalike(name)
    if lookalike is not None:
        raise ConfusableNameError(
            f"name {name!r} looks like {lookalike!r} written with letters of another script:"
            " write it in one script, or with letters that look like no other"
        )
    return name


def is_visible(char: str) -> bool:
    """Whether *char* shows on its own (not a space, a lone mark or a blank filler).

    >>> is_visible("a"), is_visible("\u2800"), is_visible("\u0301")
    (True, False, False)
    """
    return char not in BLANK_LOOKING and unicodedata.category(char) not in _BLANK_CATEGORIES


def latin_lookalike(name: str) -> str | None:
    """The Latin name that *name* imitates with letters of other scripts, or None.

    A letter of another script that looks like a plain Latin letter is read as that letter;
    if every such letter does, and there is one, *name* is taken for a Latin spelling.

    >>> latin_lookalike("\u0410n\u0430")  # Cyrillic A and a around a Latin n
    'Ana'
    >>> latin_lookalike("\u041c\u0430\u0440\u0438\u044f"), latin_lookalike("Ana")  # Мария
    (None, None)
    """
    read, foreign = [], False
    for char in name:
        if categories.alias(char) in _NEUTRAL_SCRIPTS:
            read.append(char)
            continue
        latin = _latin_twin(char)
        if latin is None:
            return None  # a letter no Latin one imitates: the name is its own script's
        read.append(latin)
        foreign = True
    return "".join(read) if foreign else None


def _latin_twin(char: str) -> str | None:
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"])
    for entry in found or ():
        for glyph in entry["homoglyphs"]:
            if glyph["c"].isascii() and glyph["c"].isalpha():
                return str(glyph["c"])
    return None


def guest_name(player_id: str) -> str:
    """The name of a player who never chose one.

    >>> guest_name("0123456789abcdef")
    'Guest 0123'
    """
    return f"Guest {player_id[:4]}"


@guarded
def create(
    client: redis.Redis, name: str | None = None, expires_in: timedelta | None = None
) -> Player:
    """Stores a new player named *name* (checked by :func:`parse_name`), or a guest.

    A player made with *expires_in* (a browser's guest) is dropped after that long
    unless a game started renews it or a finished game keeps it for good.
    """
    player_id = secrets.token_hex(8)
    player = Player(player_id, guest_name(player_id) if name is None else parse_name(name))
    pipe = client.pipeline(transaction=True)
    pipe.hset(keys.player(player_id), mapping={"name": player.name, "created": time.time()})
    if expires_in is not None:
        pipe.expire(keys.player(player_id), expires_in)
    pipe.execute()
    return player


@guarded
def get(client: redis.Redis, player_id: str) -> Player | None:
    """The player *player_id*, or None if there is none."""
    name = client.hget(keys.player(player_id), "name")
    return None if name is None else Player(player_id, str(name))


@guarded
def rename(client: redis.Redis, player_id: str, name: str) -> Player:
    """Changes a player's name; every board shows the new one at once."""
    player = Player(player_id, parse_name(name))
    client.hset(keys.player(player_id), "name", player.name)
    return player


@guarded
def names_of(client: redis.Redis, player_ids: Iterable[str]) -> dict[str, str]:
    """The names of the players that exist among *player_ids*."""
    ids = list(player_ids)
    pipe = client.pipeline(transaction=False)
    for player_id in ids:
        pipe.hget(keys.player(player_id), "name")
    return {i: str(n) for i, n in zip(ids, pipe.execute(), strict=True) if n is not None}


# -- sign-in links and deletion --------------------------------------------------------------

#: The field of the player hash that counts the sign-in links made: a link names the count
#: it was made under, so making a new one revokes every older one.
_LINK_FIELD = "link"


@guarded
def link_generation(client: redis.Redis, player_id: str) -> int:
    """The generation of *player_id*'s current sign-in link (0: none made yet)."""
    return int(client.hget(keys.player(player_id), _LINK_FIELD) or 0)


@guarded
def next_link_generation(client: redis.Redis, player_id: str) -> int:
    """Starts a new sign-in link generation, revoking every link made before."""
    return int(client.hincrby(keys.player(player_id), _LINK_FIELD, 1))


@guarded
def keep(client: redis.Redis, player_id: str) -> None:
    """Keeps a player for good (a guest signed in on another browser is no longer temporary)."""
    pipe = client.pipeline(transaction=True)  # one slot: the player's tag
    pipe.persist(keys.player(player_id))
    pipe.persist(keys.player_keys(player_id))
    pipe.execute()


# Notes index keys on the player's key set (KEYS[2]) with the lifetime of the player's
# record (KEYS[1]): at least ARGV[1] seconds while the record expires, for good once kept.
_NOTE = """
redis.call('SADD', KEYS[2], unpack(ARGV, 2))
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[2], math.max(ttl, tonumber(ARGV[1])))
else
  redis.call('PERSIST', KEYS[2])
end
return 1
"""


@guarded
def note_keys(client: redis.Redis, player_id: str, index_keys: Sequence[str], ttl_s: int) -> None:
    """Lists *index_keys* among the player's keys, before they are claimed: a crash between
    leaves a listed key that does not exist, never an unlisted one."""
    if index_keys:
        note = client.register_script(_NOTE)
        note(keys=[keys.player(player_id), keys.player_keys(player_id)], args=[ttl_s, *index_keys])


#: The field of a deleted player's record: when it was deleted. Nothing else stays.
DELETED = "deleted"


def own_keys(player_id: str) -> list[str]:
    """The keys every player may have, whatever they played (the index keys are listed apart)."""
    return [
        keys.player(player_id),
        keys.player_games(player_id),
        keys.player_days(player_id),
        keys.player_streak(player_id),
        keys.player_best_days(player_id),
        keys.player_dailies(player_id),
        keys.player_codes(player_id),
        keys.player_keys(player_id),
        keys.player_reminder(player_id),
    ]


@guarded
def delete(
    client: redis.Redis, player_id: str, now: float, personal_boards: Iterable[str] = ()
) -> int:
    """Deletes a player's name, history indexes and streak; their games stay, anonymous.

    Only the player's own keys are touched: the fixed ones (their dailies' notes too) and
    the index keys listed on their key set (practice ones too), all on the player's slot,
    deleted in one transaction. What stays is a
    tombstone (the record with its ``deleted`` time alone), so the player's token and
    cookie are refused for good. *personal_boards* are the sorted sets that hold one entry
    per player (best day, longest streak): the player leaves those. Returns the number of
    keys removed.
    """
    listed = sorted(str(k) for k in client.smembers(keys.player_keys(player_id)))
    doomed = [*own_keys(player_id), *listed]
    pipe = client.pipeline(transaction=True)
    pipe.delete(*doomed)
    pipe.hset(keys.player(player_id), DELETED, f"{now:.3f}")
    removed = int(pipe.execute()[0])
    for board in personal_boards:
        client.zrem(board, member(player_id))
    return removed


@guarded
def is_deleted(client: redis.Redis, player_id: str) -> bool:
    """Whether *player_id* was deleted (its token and cookie are refused)."""
    return bool(client.hexists(keys.player(player_id), DELETED))
