"""Verifying a game record: replay its moves on its seed's dice and print the sheet.

A record is JSON: ``{"ruleset", "options", "seed": hex, "moves": [...]}``; instead of
``seed`` it may name ``date`` (a daily puzzle) or ``code`` (a friend code), whose seeds
are derived from the service's secret. ``total`` and ``commitment``, when present, are
checked too. ``stream`` names the dice stream, ``v1`` (the default: every game before v2)
or ``v2`` (docs/dice.md). A party record also names its ``players`` in turn order; its
moves replay as one party (:mod:`daily.core.party`) and its ``total`` is the winning score.
This module is pure: the secret comes in as an argument.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import date
from typing import Any

from daily.core import dice, party
from daily.core.codes import parse_code
from daily.core.errors import CodeError, ReplayError, VerifyError
from daily.core.rules import GameState, find_ruleset, replay

#: Fields a record may carry besides the ones read (golden files pin the dice, say; a
#: computer game's record carries the computer's moves, which the server derives itself).
IGNORED = {"description", "dice", "scorecard", "id", "mode", "computer"}
FIELDS = {
    "ruleset",
    "options",
    "seed",
    "date",
    "code",
    "moves",
    "total",
    "commitment",
    "players",
    "stream",
}


def verify(text: str, keys: tuple[str, ...] = ()) -> GameState | party.Party:
    """Replays the record in *text*: its final sheet, or every sheet of a party record.

    *keys* are SECRET_KEY's keys, newest first, as the settings read them
    (:attr:`daily.core.config.Config.secret_keys`): a record that names its dice by a date or
    a code needs them, to derive its seed from the oldest.

    Raises :class:`VerifyError` if the record cannot be read or does not replay to what it
    claims.
    """
    record = _parse(text)
    rules = find_ruleset(_str(record, "ruleset"), _options(record))
    names = _players(record)
    seed = _seed(record, keys)
    if "commitment" in record and hashlib.sha256(seed).hexdigest() != record["commitment"]:
        raise VerifyError("the seed does not match the commitment")
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise VerifyError('"moves" must be a list of {"hold": [...]} or {"score": "row"}')
    version = record.get("stream", "v1")
    if version not in dice.VERSIONS:
        raise VerifyError(f'"stream" must be one of {", ".join(dice.VERSIONS)}, got {version!r}')
    state: GameState | party.Party
    try:
        if names is None:
            state = replay(rules, dice.stream(seed, version), moves)
        else:
            state = party.replay(rules, names, seed, moves, version)
    except ReplayError as e:
        raise VerifyError(f"bad move {e.index} {json.dumps(moves[e.index])}: {e.reason}") from e
    claimed = record.get("total")
    if claimed is not None and claimed != state.total:
        raise VerifyError(
            f"the record claims a total of {claimed} but the moves make {state.total}"
        )
    return state


def sheet_str(state: GameState) -> str:
    """The scorecard as text, one row a line, with the upper bonus and the total.

    >>> from daily.core.rules import find_ruleset, replay
    >>> print(sheet_str(replay(find_ruleset("yacht"), lambda t, h, n: (6,) * n, [])))
    ones                 -
    twos                 -
    threes               -
    fours                -
    fives                -
    sixes                -
    choice               -
    four_of_a_kind       -
    full_house           -
    small_straight       -
    large_straight       -
    yacht                -
    upper                0
    bonus                0
    total                0
    unfinished: turn 1, roll 1
    """
    lines = [f"{row:<16}{'-' if p is None else p:>6}" for row, p in state.scorecard().items()]
    lines += [f"{'upper':<16}{state.upper:>6}", f"{'bonus':<16}{state.bonus:>6}"]
    if state.extra_bonus:
        lines.append(f"{'extra bonus':<16}{state.extra_bonus:>6}")
    lines.append(f"{'total':<16}{state.total:>6}")
    if not state.is_finished:
        lines.append(f"unfinished: turn {state.turn}, roll {state.roll}")
    return "\n".join(lines)


def party_str(game: party.Party) -> str:
    """Every player's sheet under their name, then the winners once the game is over."""
    blocks = [
        f"{name}\n{sheet_str(sheet)}" for name, sheet in zip(game.names, game.sheets, strict=True)
    ]
    if game.winners:
        blocks.append("winner: " + ", ".join(game.names[i] for i in game.winners))
    else:
        blocks.append(f"unfinished: {game.names[game.current]} to move")
    return "\n\n".join(blocks)


def _parse(text: str) -> Mapping[str, Any]:
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise VerifyError(f"not JSON: {e}") from None
    if not isinstance(record, dict):
        raise VerifyError("a record is a JSON object")
    unknown = sorted(set(record) - FIELDS - IGNORED)
    if unknown:
        raise VerifyError(f"unknown field: {unknown[0]!r}")
    return record


def _str(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise VerifyError(f"{name!r} must be a string, got {value!r}")
    return value


def _players(record: Mapping[str, Any]) -> list[str] | None:
    """A party record's player names; None for a one-player record."""
    names = record.get("players")
    if names is None:
        if record.get("mode") == "party":
            raise VerifyError('a party record names its "players"')
        return None
    low, high = party.MIN_PLAYERS, party.MAX_PLAYERS
    if (
        not isinstance(names, list)
        or not low <= len(names) <= high
        or not all(isinstance(name, str) for name in names)
    ):
        raise VerifyError(f'"players" must be a list of {low} to {high} names, got {names!r}')
    return names


def _options(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    options = record.get("options")
    if options is not None and not isinstance(options, dict):
        raise VerifyError(f'"options" must be an object, got {options!r}')
    return options


def _seed(record: Mapping[str, Any], keys: tuple[str, ...]) -> bytes:
    given = [name for name in ("seed", "date", "code") if name in record]
    if len(given) != 1:
        raise VerifyError('a record names its dice by exactly one of "seed", "date" or "code"')
    if given == ["seed"]:
        try:
            seed = bytes.fromhex(_str(record, "seed"))
        except ValueError:
            raise VerifyError("the seed must be hex") from None
        if len(seed) != 32:
            raise VerifyError(f"the seed must be 32 bytes (64 hex digits), got {len(seed)}")
        return seed
    if not keys:
        raise VerifyError(f'a record with "{given[0]}" needs SECRET_KEY to derive its seed')
    secret = keys[-1]  # the dice key: SECRET_KEY's last (oldest) key, see docs/dice.md
    if given == ["date"]:
        try:
            return dice.daily_seed(secret, date.fromisoformat(_str(record, "date")))
        except ValueError:
            raise VerifyError(f"not a date: {record['date']!r}") from None
    try:
        return dice.friend_seed(secret, parse_code(record["code"]))
    except CodeError as e:
        raise VerifyError(str(e)) from None
