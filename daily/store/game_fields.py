"""A game's hash fields: its record in the compact form and back, and its id.

A game's hash keeps every value short, so Redis holds it as one small listpack; a game
written before the compact form (long field names, a JSON move list) is still read. A game id
names the UTC day it was made, so an archived game's file is found from its id alone.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import string
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from daily.core import dice
from daily.core.modes import OnePer, engine_of, find_mode, level_of
from daily.core.record import (
    DEFAULT_STREAM,
    ComputerPart,
    OnCode,
    PartyPart,
    Record,
    decode_moves,
    encode_moves,
)
from daily.core.rules import find_ruleset, parse_move

# The compact form of a game's hash: every value short, so Redis keeps the hash as one
# small listpack (values up to 64 bytes). What never changes: the header h (mode, ruleset,
# start), player p, seed reference r, and where they apply options o, the code part k,
# the party's players n, the computer's level and engine l, the dice stream v, and the
# date d when the seed does not name it. Then the move log m, and what a game gains as it
# goes: total t and end e once finished, submitted u, share code s, the computer's moves
# c, the idempotency digest of the last move i, x for a past day replayed as practice.
# Any other field (review, luck) keeps its own name.
HEADER, _PLAYER, _SEED, _OPTIONS, _CODE, _PLAYERS, _LEVEL, _STREAM, _DAY = "hproknlvd"


_LOG, _TOTAL, _ENDED, SUBMITTED, SHARE, COMPUTER, _KEY, _REPLAYED = "mteuscix"


_COMPACT = set("hproknlvdmteuscix")


# An archived game's hash holds this one field, the day of the file that holds it.
ARCHIVED = "a"


#: The day a dated game id's first characters count from.
ID_EPOCH = date(2026, 1, 1)


_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


# A dated id: three base-62 characters of its UTC day since ID_EPOCH (62**3 days, over six
# centuries), then 13 random ones of the URL-safe alphabet (78 bits): 16 characters, as
# long as the ids made before, and of the same alphabet, so routes and checks stay.
_DAY_CHARS, _RANDOM_CHARS = 3, 13


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _seed_day(mode: str, seed_ref: str) -> date | None:
    # A daily's date is its seed's: stored only where it is not (none so far).
    return dice.SeedRef.parse(seed_ref).day if find_mode(mode).one_per is OnePer.DAY else None


def _short_seed(seed_ref: str) -> str:
    # A random seed's 64 hex digits as 43 base64 ones: the value stays under 64 bytes.
    if seed_ref.startswith("hex:"):
        return "b64:" + base64.urlsafe_b64encode(bytes.fromhex(seed_ref[4:])).decode().rstrip("=")
    return seed_ref


def _long_seed(stored: str) -> str:
    if stored.startswith("b64:"):
        return "hex:" + base64.urlsafe_b64decode(stored[4:] + "=").hex()
    return stored


def to_fields(record: Record) -> dict[str, str]:
    """The hash fields that store *record* in the compact form."""
    fields = {
        HEADER: _json([record.mode, record.ruleset, round(record.created, 3)]),
        _PLAYER: record.player_id,
        _SEED: _short_seed(record.seed_ref),
        _LOG: record.log(),
        **record.extra,
    }
    if record.options:
        fields[_OPTIONS] = _json(dict(record.options))
    if record.day != _seed_day(record.mode, record.seed_ref):
        fields[_DAY] = record.day.isoformat() if record.day else ""
    if record.on_code is not None:
        on = record.on_code
        fields[_CODE] = _json([on.code, int(on.target), int(on.practice), on.closes_at])
    if record.party_part is not None:
        fields[_PLAYERS] = _json(list(record.party_part.players))
    if record.computer_part is not None:
        fields[_LEVEL] = _json([record.computer_part.level, record.computer_part.engine])
        if record.computer_part.moves:
            fields[COMPUTER] = encode_moves(record.rules, record.computer_part.moves)
    if record.stream != DEFAULT_STREAM:
        fields[_STREAM] = record.stream
    if record.finished_at is not None and record.total is not None:
        fields[_TOTAL] = str(record.total)
        fields[_ENDED] = repr(round(record.finished_at, 3))
    if record.submitted:
        fields[SUBMITTED] = "1"
    if record.replayed:
        fields[_REPLAYED] = "1"
    if record.share:
        fields[SHARE] = record.share
    return fields


def from_fields(game_id: str, fields: Mapping[str, str], moves: Sequence[str] = ()) -> Record:
    """Reads a record back from its hash fields (either form; the first form's JSON move
    list is *moves*)."""
    if HEADER not in fields:
        return _from_first_form(game_id, fields, moves)
    mode, ruleset, created = json.loads(fields[HEADER])
    options = json.loads(fields[_OPTIONS]) if _OPTIONS in fields else {}
    rules = find_ruleset(ruleset, options)
    day = _seed_day(mode, _long_seed(fields[_SEED]))
    if _DAY in fields:
        day = date.fromisoformat(fields[_DAY]) if fields[_DAY] else None
    code = json.loads(fields[_CODE]) if _CODE in fields else None
    level = json.loads(fields[_LEVEL]) if _LEVEL in fields else None
    return Record(
        id=game_id,
        mode=mode,
        ruleset=ruleset,
        options=options,
        player_id=fields[_PLAYER],
        seed_ref=_long_seed(fields[_SEED]),
        created=float(created),
        moves=decode_moves(rules, fields.get(_LOG, "")),
        day=day,
        on_code=OnCode(code[0], bool(code[1]), bool(code[2]), code[3]) if code else None,
        party_part=PartyPart(tuple(json.loads(fields[_PLAYERS]))) if _PLAYERS in fields else None,
        computer_part=ComputerPart(
            level_of(level[0]), engine_of(level[1]), decode_moves(rules, fields.get(COMPUTER, ""))
        )
        if level
        else None,
        stream=dice.version_of(fields.get(_STREAM, DEFAULT_STREAM)),
        finished=_TOTAL in fields,
        total=int(fields[_TOTAL]) if _TOTAL in fields else None,
        finished_at=float(fields[_ENDED]) if _ENDED in fields else None,
        share=fields.get(SHARE),
        submitted=fields.get(SUBMITTED) == "1",
        extra={k: v for k, v in fields.items() if k not in _COMPACT},
        last_key=fields.get(_KEY),
        replayed=fields.get(_REPLAYED) == "1",
    )


#: The fields of the first form that are not kept as extras.
_FIRST_FORM = {
    "mode",
    "ruleset",
    "options",
    "player",
    "seed",
    "created",
    "target",
    "finished",
    "submitted",
    "date",
    "code",
    "total",
    "finished_at",
    "share",
    "practice",
    "closes_at",
    "moved_at",
    "players",
    "computer",
    "level",
    "engine",
}


def _from_first_form(game_id: str, fields: Mapping[str, str], moves: Sequence[str]) -> Record:
    # Games written before the compact form: long field names, a JSON move list.
    code = fields.get("code")
    closes = fields.get("closes_at")
    on_code = None
    if code is not None:
        on_code = OnCode(
            code,
            fields.get("target") == "1",
            fields.get("practice") == "1",
            float(closes) if closes is not None else None,
        )
    mode = fields["mode"]
    computer = None
    if find_mode(mode).is_computer:
        entries = json.loads(fields.get("computer", "[]"))
        computer = ComputerPart(
            level_of(fields.get("level") or "medium"),
            engine_of(fields.get("engine")),
            tuple(parse_move(e) for e in entries),
        )
    players = json.loads(fields["players"]) if "players" in fields else None
    return Record(
        id=game_id,
        mode=mode,
        ruleset=fields["ruleset"],
        options=json.loads(fields["options"]),
        player_id=fields["player"],
        seed_ref=fields["seed"],
        created=float(fields["created"]),
        moves=tuple(parse_move(json.loads(m)) for m in moves),
        day=date.fromisoformat(fields["date"]) if "date" in fields else None,
        on_code=on_code,
        party_part=PartyPart(tuple(players)) if players else None,
        computer_part=computer,
        finished=fields.get("finished") == "1",
        total=int(fields["total"]) if "total" in fields else None,
        finished_at=float(fields["finished_at"]) if "finished_at" in fields else None,
        share=fields.get("share"),
        submitted=fields.get("submitted") == "1",
        extra={k: v for k, v in fields.items() if k not in _FIRST_FORM},
    )


def new_id(created: float | None = None) -> str:
    """A fresh unguessable game id that names the UTC day of *created* (unix seconds), so an
    archived game's file is found from its id alone; never starting with ``-`` (a command
    line would read it as an option: ``daily review release ID``). Without *created*, an id
    whose first characters are random, as ids were before they were dated.

    >>> at = datetime(2026, 12, 1, 9, tzinfo=UTC).timestamp()
    >>> game_id = new_id(at)
    >>> len(game_id), game_id[:3], id_day(game_id)
    (16, '05O', datetime.date(2026, 12, 1))
    """
    days = len(_BASE62) ** _DAY_CHARS
    number = -1
    if created is not None:
        number = (datetime.fromtimestamp(created, UTC).date() - ID_EPOCH).days
    if not 0 <= number < days:  # no day, or a clock before the epoch: undated
        number = secrets.randbelow(days)
    prefix = ""
    for _ in range(_DAY_CHARS):
        number, digit = divmod(number, len(_BASE62))
        prefix = _BASE62[digit] + prefix
    return prefix + secrets.token_urlsafe(10)[:_RANDOM_CHARS]


def id_day(game_id: str) -> date | None:
    """The day a game id of the dated form names, or None for an id of no such form.

    An id made before ids were dated (random characters) names a day too, by chance; such a
    game is archived with a marker (see :func:`is_dated`), so its id's day is never used.

    >>> id_day("05OAbCdEfGhIjKlM"), id_day("g1")
    (datetime.date(2026, 12, 1), None)
    """
    if len(game_id) != _DAY_CHARS + _RANDOM_CHARS:
        return None
    number = 0
    for char in game_id[:_DAY_CHARS]:
        digit = _BASE62.find(char)
        if digit < 0:
            return None
        number = number * len(_BASE62) + digit
    return ID_EPOCH + timedelta(days=number)


#: How many files an archived day's games are spread over (by the first byte of a hash).
SHARDS = 256


def archive_shard(name: str) -> int:
    """The file of its day that holds the archived game (or code) *name*: the first byte of
    its SHA-256.

    >>> archive_shard("g1")
    113
    """
    return hashlib.sha256(name.encode()).digest()[0] % SHARDS


def file_day(record: Record) -> date | None:
    """The day whose archive files hold *record* once archived when its id names it (its
    file is found from its id alone); None for an id made before ids were dated.

    >>> at = datetime(2026, 12, 1, 9, tzinfo=UTC).timestamp()
    >>> dated = Record(new_id(at), "solo", "maxi", {}, "p1", "hex:00", at)
    >>> file_day(dated), file_day(Record("g1", "solo", "maxi", {}, "p1", "hex:00", at))
    (datetime.date(2026, 12, 1), None)
    """
    return id_day(record.id) if is_dated(record) else None


def is_dated(record: Record) -> bool:
    """Whether *record*'s id names the UTC day it was made (an id made by :func:`new_id`;
    an older random id names it only by a chance of one in 238,328)."""
    return id_day(record.id) == datetime.fromtimestamp(record.created, UTC).date()
