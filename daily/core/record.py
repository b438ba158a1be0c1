"""The game record: what a game is made of (its settings, its typed parts, its moves) and
its replay. Pure: the store only reads and writes records (:mod:`daily.store.saved_games`).

The moves are kept as a compact string, one printable ASCII character a move, so a whole
Maxi game fits in 60 bytes and a move is appended without reading the log back:

- a re-roll is the bit mask of its held positions, from ``!`` (hold nothing) up;
- a score is the row's index in its ruleset, from ``a`` (the first row) up.

>>> from daily.core.rules import Roll, Score, find_ruleset
>>> yatzy = find_ruleset("yatzy")
>>> encode_moves(yatzy, [Roll((0, 2)), Score("chance")])
'&n'
>>> decode_moves(yatzy, "&n")
(Roll(hold=(0, 2)), Score(row='chance'))
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from daily.core import dice, party
from daily.core.errors import ReplayError
from daily.core.ledger import TALLY, Tally, parse_tally
from daily.core.modes import Engine, Level, Mode, engine_of, find_mode, level_of
from daily.core.party import Party
from daily.core.rules import (
    DiceSource,
    GameState,
    Move,
    Options,
    Roll,
    Ruleset,
    Score,
    find_ruleset,
    replay,
)

#: The dice stream of a record that names none (records written before streams had versions).
DEFAULT_STREAM: dice.Version = "v1"

_ROLL0 = 0x21  # "!": a re-roll holding nothing; 64 masks up to "`"
_SCORE0 = 0x61  # "a": the first row; 30 rows up to "~"
_MASKS = _SCORE0 - _ROLL0
_ROWS = 0x7F - _SCORE0


def encode_move(ruleset: Ruleset, move: Move) -> str:
    """The one character that stands for *move* (a legal move of *ruleset*).

    >>> from daily.core.rules import Roll, Score, find_ruleset
    >>> maxi = find_ruleset("maxi")
    >>> [encode_move(maxi, move) for move in (Roll(()), Roll((0, 5)), Score("ones"))]
    ['!', 'B', 'a']
    """
    if isinstance(move, Roll):
        mask = sum(1 << p for p in move.hold)
        if not 0 <= mask < _MASKS:
            raise ValueError(f"a hold past the sixth die cannot be encoded: {move.hold!r}")
        return chr(_ROLL0 + mask)
    index = ruleset.row_index[move.row]
    if index >= _ROWS:
        raise ValueError(f"row {move.row!r} is past the thirtieth: it cannot be encoded")
    return chr(_SCORE0 + index)


def encode_moves(ruleset: Ruleset, moves: Iterable[Move]) -> str:
    """The compact form of a move log (see the module's docstring)."""
    return "".join(encode_move(ruleset, move) for move in moves)


def decode_moves(ruleset: Ruleset, text: str) -> tuple[Move, ...]:
    """The moves of a compact log; raises :class:`ReplayError` at a character it cannot read.

    >>> from daily.core.rules import find_ruleset
    >>> decode_moves(find_ruleset("yatzy"), "(a")
    (Roll(hold=(0, 1, 2)), Score(row='ones'))
    """
    # Every move is read on every request of its game: one lookup a character, the moves
    # themselves made once a ruleset (they are immutable, so every log can share them).
    table = _DECODINGS.get((ruleset.id, ruleset.options))
    if table is None:
        table = _decoding(ruleset)
    try:
        return tuple(table[char] for char in text)
    except KeyError:
        index = next(i for i, char in enumerate(text) if char not in table)
        raise ReplayError(index, f"not a move of {ruleset.id}: {text[index]!r}") from None


#: Each ruleset's decoding table, by its id and options (what its rows follow from: hashing
#: the rows themselves would cost half a decode). A few dozen rulesets at most are played.
_DECODINGS: dict[tuple[str, tuple[tuple[str, object], ...]], dict[str, Move]] = {}
_DECODINGS_MOST = 64


def _decoding(ruleset: Ruleset) -> dict[str, Move]:
    table: dict[str, Move] = {}
    for mask in range(_MASKS):
        table[chr(_ROLL0 + mask)] = Roll(tuple(p for p in range(6) if mask >> p & 1))
    for index, row in enumerate(ruleset.rows[:_ROWS]):
        table[chr(_SCORE0 + index)] = Score(row.id)
    if len(_DECODINGS) >= _DECODINGS_MOST:
        _DECODINGS.clear()
    _DECODINGS[(ruleset.id, ruleset.options)] = table
    return table


@dataclass(frozen=True, slots=True)
class OnCode:
    """A game played on a friend code: the code, and how it counts there."""

    code: str  # normalized
    target: bool = False  # the creator's score is shown
    practice: bool = False  # played once the code closed: on no board
    closes_at: float | None = None  # when the code stopped being ranked (unix seconds)


@dataclass(frozen=True, slots=True)
class PartyPart:
    """A party game's players, in turn order."""

    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ComputerPart:
    """A computer game's opponent: its level, its engine (fixed at the start) and its moves."""

    level: Level
    engine: Engine = "exact"
    moves: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class Record:
    """A game: its mode, ruleset, seed reference, player, typed parts and move log."""

    id: str
    mode: str
    ruleset: str
    options: Options  # as given when it started (the defaults filled in by find_ruleset)
    player_id: str
    seed_ref: str  # see daily.core.dice.seed_from_ref
    created: float
    moves: tuple[Move, ...] = ()
    day: date | None = None  # daily games
    on_code: OnCode | None = None
    party_part: PartyPart | None = None
    computer_part: ComputerPart | None = None
    stream: dice.Version = DEFAULT_STREAM
    finished: bool = False
    total: int | None = None
    finished_at: float | None = None
    share: str | None = None  # the friend code that replays this game's dice
    submitted: bool = False  # the result has been counted by the rankings
    extra: Mapping[str, str] = field(default_factory=dict)  # other fields (review, luck...)
    last_key: str | None = None  # the idempotency digest of the last move, if it had one
    replayed: bool = False  # a past day's daily played again after its reveal: practice

    @property
    def kind(self) -> Mode:
        """The description of the game's mode."""
        return find_mode(self.mode)

    @property
    def code(self) -> str | None:
        """The friend code the game is played on (normalized), if any."""
        return self.on_code.code if self.on_code else None

    @property
    def target(self) -> bool:
        """Whether the code's creator's score is shown to the player."""
        return self.on_code.target if self.on_code else False

    @property
    def practice(self) -> bool:
        """Whether the game is practice, on no board: played on a closed code, or a past
        day's daily replayed after its reveal."""
        return self.replayed or (self.on_code.practice if self.on_code else False)

    @property
    def closes_at(self) -> float | None:
        """When the game's code stopped being ranked (unix seconds), if on a code."""
        return self.on_code.closes_at if self.on_code else None

    @property
    def players(self) -> tuple[str, ...]:
        """A party's player names in turn order; empty for other games."""
        return self.party_part.players if self.party_part else ()

    @property
    def level(self) -> Level | None:
        """A computer game's level."""
        return self.computer_part.level if self.computer_part else None

    @property
    def engine(self) -> Engine | None:
        """A computer game's engine: "exact" or "heuristic"."""
        return self.computer_part.engine if self.computer_part else None

    @property
    def turns(self) -> tuple[str, ...]:
        """The rows scored, in the order the game's turns scored them (the share grid's)."""
        return tuple(move.row for move in self.moves if isinstance(move, Score))

    @property
    def computer_moves(self) -> tuple[Move, ...]:
        """A computer game's moves of the computer so far."""
        return self.computer_part.moves if self.computer_part else ()

    @property
    def tally(self) -> Tally | None:
        """What the ledger kept of the game's count (its player's figures then, its cheers);
        None before it was counted."""
        text = self.extra.get(TALLY)
        return parse_tally(text) if text is not None else None

    @property
    def is_ranked(self) -> bool:
        """Whether the game counts on a board (a daily, or a friend game on an open code)."""
        return self.kind.is_ranked and not self.practice

    @property
    def rules(self) -> Ruleset:
        """The ruleset with the game's options applied."""
        return find_ruleset(self.ruleset, self.options)

    def state(self, secret: str) -> GameState:
        """Replays the move log; raises :class:`~daily.core.errors.ReplayError` if it is corrupt.

        A party game's state is the sheet of the player whose turn it is.
        """
        if self.kind.is_party:
            return self.party(secret).state
        key = self._memo_key(secret, self.moves)
        found = _REPLAYED.get(key)
        if found is None:
            found = replay(self.rules, self.source(secret), self.moves)
            remember(key, found)
        return found

    def after(self, secret: str, move: Move, state: GameState) -> None:
        """Notes that the log of this record and *move* replays to *state* (a move just
        applied), so the next move of the game in this process replays nothing."""
        if not self.kind.is_party:  # as the log keeps it: a hold's positions in order
            stored = Roll(tuple(sorted(move.hold))) if isinstance(move, Roll) else move
            remember(self._memo_key(secret, (*self.moves, stored)), state)

    def _memo_key(self, secret: str, moves: tuple[Move, ...]) -> tuple[object, ...]:
        options = tuple(sorted(self.options.items())) if self.options else ()
        return (secret, self.seed_ref, self.stream, self.ruleset, options, moves)

    def source(self, secret: str) -> DiceSource:
        """The game's dice: its seed in its stream version (a party's are per player)."""
        return dice.stream(dice.seed_from_ref(self.seed_ref, secret), self.stream)

    def party(self, secret: str) -> Party:
        """Replays a party game's log: every player's sheet and whose turn it is."""
        seed = dice.seed_from_ref(self.seed_ref, secret)
        return party.replay(self.rules, list(self.players), seed, list(self.moves), self.stream)

    def log(self) -> str:
        """The move log in its compact form."""
        return encode_moves(self.rules, self.moves)

    def to_dict(self) -> dict[str, Any]:
        """The record as one JSON object (an archive's line); :meth:`from_dict` reads it."""
        body: dict[str, Any] = {
            "id": self.id, "mode": self.mode, "ruleset": self.ruleset,
            "options": dict(self.options), "player": self.player_id, "seed": self.seed_ref,
            "created": self.created, "moves": self.log(), "stream": self.stream,
            "finished": self.finished, "total": self.total, "finished_at": self.finished_at,
            "share": self.share, "submitted": self.submitted, "extra": dict(self.extra),
        }  # fmt: skip
        if self.day is not None:
            body["date"] = self.day.isoformat()
        if self.on_code is not None:
            on = self.on_code
            body["code"] = {"code": on.code, "target": on.target, "practice": on.practice,
                            "closes_at": on.closes_at}  # fmt: skip
        if self.replayed:
            body["replayed"] = True
        if self.party_part is not None:
            body["players"] = list(self.party_part.players)
        if self.computer_part is not None:
            part = self.computer_part
            body["computer"] = {"level": part.level, "engine": part.engine,
                                "moves": encode_moves(self.rules, part.moves)}  # fmt: skip
        return body

    @classmethod
    def from_dict(cls, body: Mapping[str, Any]) -> Record:
        """Reads a record written by :meth:`to_dict`."""
        rules = find_ruleset(body["ruleset"], body["options"])
        on = body.get("code")
        computer = body.get("computer")
        return cls(
            id=body["id"], mode=body["mode"], ruleset=body["ruleset"],
            options=body["options"], player_id=body["player"], seed_ref=body["seed"],
            created=body["created"], moves=decode_moves(rules, body["moves"]),
            day=date.fromisoformat(body["date"]) if body.get("date") else None,
            on_code=OnCode(on["code"], on["target"], on["practice"], on["closes_at"]) if on
            else None,
            party_part=PartyPart(tuple(body["players"])) if "players" in body else None,
            computer_part=ComputerPart(level_of(computer["level"]), engine_of(computer["engine"]),
                                       decode_moves(rules, computer["moves"]))
            if computer else None,
            stream=dice.version_of(body.get("stream", DEFAULT_STREAM)), finished=body["finished"],
            total=body["total"], finished_at=body["finished_at"], share=body["share"],
            submitted=body["submitted"], extra=body.get("extra", {}),
            replayed=body.get("replayed", False),
        )  # fmt: skip


#: How many replayed states a process keeps: the games moving through it right now.
MEMO_SIZE = 4096
_REPLAYED: dict[tuple[object, ...], GameState] = {}
_MEMO_LOCK = threading.Lock()


def remember(key: tuple[object, ...], state: GameState) -> None:
    """Keeps *state* as the replay of *key* (a pure function's memo: the same log and seed
    always replay to the same state), dropping the oldest past :data:`MEMO_SIZE`."""
    with _MEMO_LOCK:
        _REPLAYED[key] = state
        while len(_REPLAYED) > MEMO_SIZE:
            del _REPLAYED[next(iter(_REPLAYED))]


def dumps(record: Record) -> str:
    """The record as one line of JSON (no spaces)."""
    return json.dumps(record.to_dict(), separators=(",", ":"), sort_keys=True)
