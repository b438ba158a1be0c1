"""Party play: two to four named players on one device, a turn each, each on their own dice.

One game seed is stored; player *i* plays the game's dice stream (v1 or v2) of
``HMAC-SHA256(seed, "party:v1:<i>")`` (:func:`player_seed`), so no player's dice
depend on another's holds and every sheet replays on its own. The move log is
one list: moves apply to the player whose turn it is, and a Score passes the
turn to the next player. Everything here is pure.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from daily.core.dice import stream
from daily.core.errors import ReplayError, RulesError
from daily.core.rules import (
    DiceSource,
    GameState,
    Move,
    Roll,
    Ruleset,
    Score,
    apply,
    new_game,
    parse_move,
)

#: How many players a party has: at least, at most.
MIN_PLAYERS = 2
MAX_PLAYERS = 4


@dataclass(frozen=True, slots=True)
class Party:
    """Every player's sheet and whose turn it is."""

    names: tuple[str, ...]
    sheets: tuple[GameState, ...]
    current: int  # index of the player to move (back at 0 once the game is over)

    @property
    def state(self) -> GameState:
        """The sheet of the player whose turn it is."""
        return self.sheets[self.current]

    @property
    def is_finished(self) -> bool:
        """Whether every player has filled their sheet."""
        return all(sheet.is_finished for sheet in self.sheets)

    @property
    def total(self) -> int:
        """The best total so far (the winning score once finished)."""
        return max(sheet.total for sheet in self.sheets)

    @property
    def winners(self) -> tuple[int, ...]:
        """The players with the best total once finished (more than one is a tie), else ()."""
        if not self.is_finished:
            return ()
        best = self.total
        return tuple(i for i, sheet in enumerate(self.sheets) if sheet.total == best)


def player_seed(seed: bytes, index: int) -> bytes:
    """Player *index*'s seed: HMAC-SHA256(seed, ``"party:v1:<index>"``).

    >>> player_seed(bytes(32), 0).hex()[:16] != player_seed(bytes(32), 1).hex()[:16]
    True
    """
    return hmac.digest(seed, f"party:v1:{index}".encode(), "sha256")


def new_party(ruleset: Ruleset, names: Sequence[str], seed: bytes, version: str = "v1") -> Party:
    """A new party game in dice stream *version*: every player's first roll dealt, the
    first player to move.

    >>> from daily.core.rules import find_ruleset
    >>> party = new_party(find_ruleset("yatzy"), ["Ana", "Bo"], bytes(32))
    >>> party.current, [sheet.turn for sheet in party.sheets]
    (0, [1, 1])
    """
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise RulesError(f"a party has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(names)}")
    sheets = tuple(new_game(ruleset, player_source(seed, i, version)) for i in range(len(names)))
    return Party(tuple(names), sheets, 0)


def play(party: Party, move: Move) -> Party:
    """Applies *move* to the current player's sheet; a Score passes the turn on.

    >>> from daily.core.rules import find_ruleset
    >>> party = new_party(find_ruleset("yatzy"), ["Ana", "Bo"], bytes(32))
    >>> play(party, Score("chance")).current
    1
    """
    if party.is_finished:
        raise RulesError("the party game is over")
    sheet = apply(party.state, move)  # raises RulesError: nothing changes
    sheets = (*party.sheets[: party.current], sheet, *party.sheets[party.current + 1 :])
    current = party.current
    if isinstance(move, Score):
        current = (current + 1) % len(sheets)
    return Party(party.names, sheets, current)


def replay(
    ruleset: Ruleset,
    names: Sequence[str],
    seed: bytes,
    moves: Iterable[object],
    version: str = "v1",
) -> Party:
    """Replays a party's move log (dicts or moves) in dice stream *version*; raises
    :class:`ReplayError`."""
    party = new_party(ruleset, names, seed, version)
    for index, entry in enumerate(moves):
        try:
            move = entry if isinstance(entry, Roll | Score) else parse_move(entry)
            party = play(party, move)
        except RulesError as e:
            raise ReplayError(index, str(e)) from e
    return party


def player_moves(moves: Iterable[Move], players: int) -> tuple[tuple[Move, ...], ...]:
    """Each player's own moves in a party's log, in seat order: a Score passes the turn, so
    every sheet is a game of its own on that player's dice (its analysis reads it so).

    >>> player_moves([Roll((0,)), Score("chance"), Score("ones"), Score("twos")], 2)
    ((Roll(hold=(0,)), Score(row='chance'), Score(row='twos')), (Score(row='ones'),))
    """
    found: list[list[Move]] = [[] for _ in range(players)]
    current = 0
    for move in moves:
        found[current].append(move)
        if isinstance(move, Score):
            current = (current + 1) % players
    return tuple(tuple(own) for own in found)


def player_source(seed: bytes, index: int, version: str = "v1") -> DiceSource:
    """Player *index*'s dice: the game's dice stream *version* of :func:`player_seed`."""
    return stream(player_seed(seed, index), version)
