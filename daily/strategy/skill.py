"""Skill and luck: a finished game's score split by the exact solver, and its analysis kept.

The analysis (:mod:`daily.strategy.analysis`) values every decision at its expected final
score; what the player's decisions gave away is the sum of their losses. From the optimum's
expectation *E* (optimal play from a new game), the points given away *L* and the total *T*:

- **skill** is the share of *E* the decisions kept, ``(E - L) / E`` (1 when every decision
  was a best one; 0 at the least);
- **luck** is what the dice gave beyond what those decisions expected, ``T - skill x E``
  (``T - (E - L)`` while the decisions kept any of *E*);

so ``skill x E + luck == T`` exactly, clamped or not: skill and luck together with the
optimum are the total. The figures a player reads are rounded once, here
(:attr:`Skill.percent`, :attr:`Skill.shown_luck`): the luck shown is the total less the
*shown* skill's share of the optimum, so the identity holds on what is shown to half a point.

An analysis is computed once per game and kept as text (:func:`skill_str`, :func:`decisions_str`):
the summary fits a game's hash as one short field, and the decisions are a token each (the best
action as a move log character, its value and the played move's loss), read back by replaying
the game's own moves (:func:`parse_decisions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from daily.core.errors import ReplayError, RulesError
from daily.core.record import decode_moves, encode_move
from daily.core.rules import DiceSource, Move, Roll, Ruleset, Score, apply, new_game
from daily.strategy.analysis import Analysis, Decision
from daily.strategy.hints import Action, hold_positions

#: What a kept summary writes for a game with no Expert's score beside it.
_NONE = "-"


@dataclass(frozen=True, slots=True)
class Skill:
    """A finished game's score split into what its decisions kept and what the dice did.

    *expert* is the Expert's score on the same dice (a daily's), where there is one.
    """

    total: int
    optimum: float  # the expected final score of optimal play from the start
    lost: float  # the expected points the decisions gave away
    expert: int | None = None

    @property
    def kept(self) -> float:
        """The expected score of the player's own decisions: the optimum less what they lost."""
        return self.optimum - self.lost

    @property
    def share(self) -> float:
        """The share of the optimum's expectation the decisions kept (1.0: all optimal), never
        below 0 (decisions can give away more than the optimum expected where the dice had
        offered more: the luck then says it).

        >>> Skill(300, 400.0, 40.0).share, Skill(40, 248.4, 256.6).share
        (0.9, 0.0)
        """
        return max(0.0, self.kept / self.optimum) if self.optimum > 0 else 1.0

    @property
    def luck(self) -> float:
        """What the dice gave beyond what the decisions expected (negative: below it): the
        total less the skill's share of the optimum, so that ``share x optimum + luck`` is the
        total even where the share is clamped at 0 (then the luck is the whole total).

        >>> Skill(300, 400.0, 40.0).luck, Skill(36, 248.44, 271.44).luck
        (-60.0, 36.0)
        """
        return self.total - self.share * self.optimum

    @property
    def percent(self) -> int:
        """The skill as shown: a whole percent (the one rounding of it, on the server).

        >>> Skill(300, 400.0, 40.0).percent, Skill(256, 371.0, 118.72).percent
        (90, 68)
        """
        return round(100 * self.share)

    @property
    def shown_luck(self) -> int:
        """The luck as shown: whole points, the total less the *shown* skill's share of the
        optimum, so that ``percent / 100 x optimum + shown_luck`` is the total to half a point
        (a luck rounded on its own would miss it by up to ``optimum / 200``, 2 points in Maxi).

        >>> Skill(256, 371.0, 118.72).shown_luck, Skill(36, 248.44, 271.44).shown_luck
        (4, 36)
        """
        return round(self.total - self.percent * self.optimum / 100)


def skill_of(analysis: Analysis, expert: int | None = None) -> Skill:
    """The skill and luck of an analysed game (*expert*: the Expert's score beside it)."""
    return Skill(analysis.total, analysis.optimum, analysis.lost, expert)


def skill_str(skill: Skill) -> str:
    """The kept summary of *skill*: optimum, points lost and the Expert's score (short
    enough for one field of a game's hash); :func:`parse_skill` reads it.

    >>> skill_str(Skill(307, 394.55752, 72.3, 390))
    '394.5575 72.3000 390'
    >>> skill_str(Skill(250, 248.44, 0.0))
    '248.4400 0.0000 -'
    """
    expert = _NONE if skill.expert is None else str(skill.expert)
    return f"{skill.optimum:.4f} {skill.lost:.4f} {expert}"


def parse_skill(text: str, total: int) -> Skill:
    """The summary kept by :func:`skill_str` of a game whose score is *total*.

    >>> round(parse_skill("394.5575 72.3000 390", 307).luck, 4)
    -15.2575
    >>> parse_skill("248.4400 0.0000 -", 250).expert is None
    True
    """
    try:
        optimum, lost, expert = text.split()
        return Skill(total, float(optimum), float(lost), None if expert == _NONE else int(expert))
    except ValueError:
        raise ValueError(f"not a kept skill summary: {text!r}") from None


def decisions_str(ruleset: Ruleset, analysis: Analysis) -> str:
    """The decisions of *analysis* as kept: one token each, the best action as the move log
    writes it (a keep as the held positions of the dice then), its value and the loss of
    the move played; :func:`parse_decisions` reads them back."""
    return " ".join(_token(ruleset, decision) for decision in analysis.decisions)


def _token(ruleset: Ruleset, decision: Decision) -> str:
    best = decision.best
    move: Move = (
        Score(best.row)
        if best.row is not None
        else Roll(hold_positions(decision.dice, best.keep or ()))
    )
    loss = f"{decision.loss:.6f}".rstrip("0").rstrip(".")
    return f"{encode_move(ruleset, move)}{best.value:.4f},{loss}"


def parse_decisions(text: str, ruleset: Ruleset, source: DiceSource, moves: Sequence[Move],
                    optimum: float) -> Analysis:  # fmt: skip
    """The analysis kept by :func:`decisions_str` of the game *moves* played on *source*
    (whose *optimum* the summary keeps): the game is replayed for its dice, played actions
    and total; raises :class:`ReplayError` when the text does not fit the moves."""
    tokens = text.split()
    if len(tokens) != len(moves):
        raise ReplayError(min(len(tokens), len(moves)), "the kept analysis does not fit the moves")
    state = new_game(ruleset, source)
    found = []
    for index, (token, move) in enumerate(zip(tokens, moves, strict=True)):
        try:
            value, loss = (float(part) for part in token[1:].split(","))
            (best_move,) = decode_moves(ruleset, token[0])
        except ValueError:
            raise ReplayError(index, f"not a kept decision: {token!r}") from None
        best = _action(state.dice, best_move, value, 0.0)
        played = _action(state.dice, move, value - loss, loss)
        found.append(Decision(index, state.turn, state.roll, state.dice, played, best))
        try:
            state = apply(state, move)
        except RulesError as e:
            raise ReplayError(index, str(e)) from e
    return Analysis(tuple(found), state.total, optimum)


def _action(dice: tuple[int, ...], move: Move, value: float, loss: float) -> Action:
    if isinstance(move, Score):
        return Action(None, move.row, value, loss)
    return Action(tuple(sorted(dice[p] for p in move.hold)), None, value, loss)
