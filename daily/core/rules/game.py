"""The game state machine: rolls, holds, scoring, and replay of a move log.

A :class:`GameState` is immutable; :func:`apply` returns the next state, so a
replay is a fold of :func:`apply` over the moves. Dice come from the state's
injected :data:`DiceSource`, never from a global random state, so the same
source and the same moves always give the same game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

from daily.core.errors import IllegalMoveError, InvalidMoveError, ReplayError, RulesError
from daily.core.rules.rulesets import Ruleset
from daily.core.rules.scoring import Dice

Hold = tuple[int, ...]
#: ``source(turn, holds, count)`` gives *count* fresh dice for a roll of *turn*
#: (1-based) after the holds made so far in that turn; the game keeps the held
#: positions and takes the fresh die at every other position.
DiceSource = Callable[[int, tuple[Hold, ...], int], Dice]


class PathSource(ABC):
    """A dice source whose re-rolls are keyed on the game's whole path so far.

    Its first rolls come from calling it like any :data:`DiceSource` (with no holds); a
    re-roll comes from :meth:`reroll` on a running key that :meth:`step` extends by every
    move, hold or score, so a replay pays for each move once (dice stream v2,
    :mod:`daily.core.dice`). The key is opaque to the rules; a step never changes its argument.
    """

    @abstractmethod
    def __call__(self, turn: int, holds: tuple[Hold, ...], count: int) -> Dice:
        """The *count* dice of *turn*'s first roll (*holds* is empty)."""

    @abstractmethod
    def start(self) -> Any:
        """The key of a new game: no move made."""

    @abstractmethod
    def step(self, path: Any, move: Move) -> Any:
        """The key after *move* (a legal one) on *path*; *path* itself stays as it was."""

    @abstractmethod
    def reroll(self, path: Any, count: int) -> Dice:
        """The *count* fresh dice of the re-roll whose hold is the last step of *path*."""


class HoldEntry(TypedDict):
    """A re-roll as a move log writes it: ``{"hold": [0, 2]}``."""

    hold: list[int]


class ScoreEntry(TypedDict):
    """A score as a move log writes it: ``{"score": "chance"}``."""

    score: str


#: One move of a move log (what :func:`parse_move` reads back).
MoveEntry = HoldEntry | ScoreEntry


@dataclass(frozen=True, slots=True)
class Roll:
    """Re-roll every die except those at the *hold* positions."""

    hold: Hold

    def to_dict(self) -> HoldEntry:
        """The move as it is written in a move log."""
        return {"hold": list(self.hold)}


@dataclass(frozen=True, slots=True)
class Score:
    """Score the dice on the table in *row*, ending the turn."""

    row: str

    def to_dict(self) -> ScoreEntry:
        """The move as it is written in a move log."""
        return {"score": self.row}


Move = Roll | Score


def parse_move(data: Any) -> Move:
    """Reads a move-log entry: ``{"hold": [positions]}`` or ``{"score": "row"}``.

    >>> parse_move({"hold": [0, 3]})
    Roll(hold=(0, 3))
    >>> parse_move({"score": "chance"})
    Score(row='chance')
    """
    if isinstance(data, Mapping) and set(data) == {"hold"}:
        hold = data["hold"]
        if not isinstance(hold, list) or any(type(p) is not int for p in hold):
            raise InvalidMoveError(f"hold must be a list of dice positions, got {hold!r}")
        return Roll(tuple(hold))
    if isinstance(data, Mapping) and set(data) == {"score"}:
        if not isinstance(data["score"], str):
            raise InvalidMoveError(f"score must name a row, got {data['score']!r}")
        return Score(data["score"])
    raise InvalidMoveError(f'a move is {{"hold": [...]}} or {{"score": "row"}}, got {data!r}')


@dataclass(frozen=True, slots=True)
class GameState:
    """One moment of a game: the sheet, the dice on the table and the rolls left."""

    ruleset: Ruleset
    scores: tuple[int | None, ...]
    dice: Dice  # empty once the game is over
    turn: int  # 1-based; stays at the last turn once the game is over
    roll: int  # rolls made this turn, the first included
    rolls_left: int
    holds: tuple[Hold, ...]  # the holds made so far this turn
    extra_bonuses: int = 0  # extra five-of-a-kinds scored (Yahtzee)
    source: DiceSource = field(default=lambda t, h, n: (), compare=False, repr=False)
    path: Any = field(default=None, compare=False, repr=False)  # a PathSource's running key

    @property
    def is_finished(self) -> bool:
        """Whether every row has been scored."""
        return not self.dice

    @property
    def upper(self) -> int:
        """The sum of the upper rows scored so far."""
        rows = self.ruleset.rows
        return sum(p for row, p in zip(rows, self.scores, strict=True) if row.face and p)

    @property
    def bonus(self) -> int:
        """The upper bonus, once earned."""
        return self.ruleset.bonus if self.upper >= self.ruleset.bonus_threshold else 0

    @property
    def extra_bonus(self) -> int:
        """The points of the extra five-of-a-kind bonuses (Yahtzee)."""
        return self.extra_bonuses * self.ruleset.extra_bonus

    @property
    def total(self) -> int:
        """Every scored row plus the upper bonus and any extra bonuses."""
        return sum(p for p in self.scores if p) + self.bonus + self.extra_bonus

    def scorecard(self) -> dict[str, int | None]:
        """Every row id with its points, or None while open."""
        return dict(zip(self.ruleset.row_ids, self.scores, strict=True))

    def open_rows(self) -> list[str]:
        """The rows that may be scored now, in sheet order."""
        if self.is_finished:
            return []
        return [self.ruleset.rows[i].id for i in _scorable(self)]

    def potential(self) -> dict[str, int]:
        """Points each row open now would score with the dice on the table."""
        joker = _is_joker(self)
        return {self.ruleset.rows[i].id: _points(self, i, joker) for i in _scorable(self)}


def new_game(ruleset: Ruleset, source: DiceSource) -> GameState:
    """Starts a game: an empty sheet and the first roll of turn 1 dealt.

    >>> from daily.core.rules import find_ruleset
    >>> state = new_game(find_ruleset("yatzy"), lambda turn, holds, count: (6,) * count)
    >>> state.dice, state.turn, state.rolls_left
    ((6, 6, 6, 6, 6), 1, 2)
    """
    return GameState(
        ruleset=ruleset,
        scores=(None,) * len(ruleset.rows),
        dice=source(1, (), ruleset.dice),
        turn=1,
        roll=1,
        rolls_left=ruleset.rerolls,
        holds=(),
        source=source,
        path=source.start() if isinstance(source, PathSource) else None,
    )


def legal_moves(state: GameState) -> list[Move]:
    """Every move :func:`apply` accepts now: each re-roll hold, then each row.

    >>> from daily.core.rules import find_ruleset
    >>> forced = find_ruleset("yatzy", {"forced": True})
    >>> moves = legal_moves(new_game(forced, lambda turn, holds, count: (1, 2, 3, 4, 6)))
    >>> len(moves), moves[0], moves[-1]
    (32, Roll(hold=()), Score(row='ones'))
    """
    if state.is_finished:
        return []
    moves: list[Move] = []
    if state.rolls_left > 0:
        n = len(state.dice)
        # Holding every die re-rolls nothing, so it is not a roll.
        moves.extend(Roll(tuple(i for i in range(n) if mask >> i & 1)) for mask in range(2**n - 1))
    moves.extend(Score(state.ruleset.rows[i].id) for i in _scorable(state))
    return moves


def apply(state: GameState, move: Move) -> GameState:
    """Returns the state after *move*, or raises :class:`RulesError` if it is not legal.

    >>> from daily.core.rules import find_ruleset
    >>> state = new_game(find_ruleset("yatzy"), lambda turn, holds, count: (turn,) * count)
    >>> state = apply(state, Score("ones"))
    >>> state.scorecard()["ones"], state.turn, state.dice
    (5, 2, (2, 2, 2, 2, 2))
    >>> apply(state, Score("ones"))
    Traceback (most recent call last):
    daily.core.errors.IllegalMoveError: row already scored: 'ones'
    """
    if state.is_finished:
        raise IllegalMoveError("the game is over")
    if isinstance(move, Roll):
        return _roll(state, move.hold)
    if isinstance(move, Score):
        return _score(state, move.row)
    raise InvalidMoveError(f"not a move: {move!r}")


def replay(ruleset: Ruleset, source: DiceSource, moves: Iterable[Any]) -> GameState:
    """Replays a move log (dicts or moves) from a new game; raises :class:`ReplayError`.

    >>> from daily.core.rules import find_ruleset
    >>> log = [{"hold": [0, 1]}, {"score": "twos"}]
    >>> replay(find_ruleset("yacht"), lambda turn, holds, count: (2,) * count, log).total
    10
    """
    state = new_game(ruleset, source)
    for index, entry in enumerate(moves):
        try:
            move = entry if isinstance(entry, Roll | Score) else parse_move(entry)
            state = apply(state, move)
        except RulesError as e:
            raise ReplayError(index, str(e)) from e
    return state


def _roll(state: GameState, hold: Hold) -> GameState:
    n = len(state.dice)
    try:
        kept = frozenset(hold)
    except TypeError:
        kept = frozenset()
    # One subset test covers the usual move; the slow checks only name what is wrong.
    if len(kept) != len(hold) or not kept <= _positions(n) or _has_non_int(hold):
        _check_hold(hold, n)
    if len(kept) == n:
        raise IllegalMoveError("every die is held: nothing to roll")
    if state.rolls_left <= 0:
        raise IllegalMoveError("no rolls left this turn")
    sorted_hold = tuple(sorted(kept))
    holds = (*state.holds, sorted_hold)
    path = state.path
    if path is None:
        dice = list(state.source(state.turn, holds, n))
    else:
        source = cast(PathSource, state.source)
        path = source.step(path, Roll(sorted_hold))
        dice = list(source.reroll(path, n))
    for i in kept:
        dice[i] = state.dice[i]
    return GameState(
        state.ruleset,
        state.scores,
        tuple(dice),
        state.turn,
        state.roll + 1,
        state.rolls_left - 1,
        holds,
        state.extra_bonuses,
        state.source,
        path,
    )


_POSITIONS = {n: frozenset(range(n)) for n in range(1, 11)}


def _positions(n: int) -> frozenset[int]:
    return _POSITIONS.get(n) or frozenset(range(n))


def _has_non_int(hold: Hold) -> bool:
    # 1.0 == 1 and True == 1 would pass the subset test: positions must be true ints.
    for p in hold:
        if type(p) is not int:
            return True
    return False


def _check_hold(hold: Any, n: int) -> None:
    if not isinstance(hold, tuple) or _has_non_int(hold):
        raise InvalidMoveError(f"hold must be a tuple of dice positions, got {hold!r}")
    if any(not 0 <= p < n for p in hold):
        raise InvalidMoveError(f"hold positions must be 0 to {n - 1}, got {list(hold)}")
    if len(set(hold)) != len(hold):
        raise InvalidMoveError(f"hold positions repeated: {list(hold)}")


def _score(state: GameState, row: str) -> GameState:
    ruleset = state.ruleset
    index = ruleset.row_index.get(row) if isinstance(row, str) else None
    if index is None:
        raise InvalidMoveError(f"unknown row for {ruleset.id}: {row!r}")
    if state.scores[index] is not None:
        raise IllegalMoveError(f"row already scored: {row!r}")
    joker = _is_joker(state)
    if not _may_score(state, index, joker):
        if ruleset.forced:
            raise IllegalMoveError(f"forced order: the next row is {state.open_rows()[0]!r}")
        raise IllegalMoveError(f"joker rule: {row!r} may not be scored with five equal now")
    scores = list(state.scores)
    scores[index] = _points(state, index, joker)
    # A joker earns the extra bonus only if the joker row holds points (not scratched).
    extra = state.extra_bonuses + (joker and state.scores[_joker_index(ruleset)] != 0)
    path = state.path
    if path is not None:
        path = cast(PathSource, state.source).step(path, Score(row))
    return _next_turn(state, tuple(scores), extra, path)


def _next_turn(
    state: GameState, scores: tuple[int | None, ...], extra: int, path: Any
) -> GameState:
    ruleset = state.ruleset
    source = state.source
    if None not in scores:
        return GameState(ruleset, scores, (), state.turn, state.roll, 0, (), extra, source, path)
    turn = state.turn + 1
    banked = state.rolls_left if ruleset.saved_rolls else 0
    dice = source(turn, (), ruleset.dice)
    return GameState(
        ruleset, scores, dice, turn, 1, ruleset.rerolls + banked, (), extra, source, path
    )


def _joker_index(ruleset: Ruleset) -> int:
    return ruleset.row_index[ruleset.joker_row]


def _is_joker(state: GameState) -> bool:
    """Whether five equal are on the table after the joker row was filled (Yahtzee)."""
    ruleset = state.ruleset
    if not ruleset.joker_row or len(set(state.dice)) != 1:
        return False
    return state.scores[_joker_index(ruleset)] is not None


def _may_score(state: GameState, index: int, joker: bool) -> bool:
    """Whether the open row at *index* may be scored now (forced order, forced joker)."""
    if state.ruleset.forced or joker:
        return index in _scorable(state)
    return True


def _scorable(state: GameState) -> list[int]:
    open_ = [i for i, points in enumerate(state.scores) if points is None]
    if state.ruleset.forced:
        return open_[:1]
    if not _is_joker(state):
        return open_
    rows = state.ruleset.rows
    # The forced joker: the matching upper row if open, else any lower row, else any upper.
    matching = [i for i in open_ if rows[i].face == state.dice[0]]
    lower = [i for i in open_ if not rows[i].is_upper]
    return matching or lower or open_


def _points(state: GameState, index: int, joker: bool) -> int:
    row = state.ruleset.rows[index]
    if joker and not row.face:
        return state.ruleset.joker_points_of(row.id, sum(state.dice))
    return state.ruleset.score(state.dice)[index]
