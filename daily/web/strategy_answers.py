"""The strategy engine as the API and the pages serve it: tables, analyses, the Expert's game.

Tables are opened once per process (:func:`~daily.tables.loader.table_for`) and never
built inside a request: a missing table starts its background build
(:mod:`daily.tables.background`), and until it is ready the request answers 503
``strategy_table_building`` with the progress and a ``Retry-After``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flask import request

from daily.core.record import Record
from daily.core.rules import Ruleset
from daily.core.rules.scoring import Dice
from daily.service import analyses, tables
from daily.strategy.analysis import Analysis, Decision
from daily.strategy.hints import Action, hold_positions
from daily.strategy.skill import Skill
from daily.strategy.solver import Table
from daily.strategy.specs import TableStatus
from daily.web import analysis_answers, answers
from daily.web.context import current_config, current_redis
from daily.web.http_errors import bad_request, retry_after


def strategy_table(rules: Ruleset) -> Table:
    """The exact table of *rules* (see :func:`daily.service.tables.exact_table`); the error
    table answers 503 naming ``daily solve`` when it is not built."""
    return tables.exact_table(current_config(), rules)


def analysis_of(record: Record) -> analysis_answers.Analysis:
    """The analysis of a finished game as the API answers it (see :func:`analysis_answer`):
    computed on the first ask, then kept; a party's, of the request's ``player``."""
    found = analyses.analyse(current_redis(), current_config(), record, party_player(record))
    return analysis_answer(found)


def party_player(record: Record) -> int:
    """The seat (from 0) of the party player whose own game the request asks for: its
    ``player`` argument, 0 without one; 400 for another game or a seat the party lacks."""
    text = request.args.get("player")
    if text is None:
        return 0
    seats = len(record.players)
    if not seats:
        raise bad_request("player: only a party game has players to choose")
    if not text.isdigit() or int(text) >= seats:
        raise bad_request(f"player: a seat from 0 to {seats - 1}, got {text!r}")
    return int(text)


def analysis_answer(found: analyses.GameAnalysis) -> analysis_answers.Analysis:
    """The answer of an analysed game: a daily game's ``expert`` is null until the day closes,
    and absent in other modes; a computer game's ``computer`` is the bot's own analysis."""
    record = found.record
    sides: dict[str, object] = {}  # the other sides only some games have, passed only then
    if found.computer is not None:
        sides["computer"] = analysed_answer(found.computer)
    if found.has_expert:
        sides["expert"] = None if found.expert is None else expert_answer(found.expert)
    if found.players:
        sides["player"] = found.player
        sides["players"] = [
            analysis_answers.PartySkill(name=name, total=skill.total, skill=skill_answer(skill))
            for name, skill in zip(record.players, found.players, strict=True)
        ]
    return answers.built(
        analysis_answers.Analysis, analysed_answer(found.mine),
        id=record.id, mode=record.kind.id, ruleset=record.ruleset, skill=skill_answer(found.skill),
        **sides,
    )  # fmt: skip


def skill_answer(skill: Skill) -> answers.Skill:
    """A game's skill and luck as the answers give them: skill and luck as shown (rounded
    once, here: whole percent and whole points, ``skill / 100 x optimum + luck`` is the total
    to half a point), the optimum and the points lost exact to 4 decimals.

    >>> skill_answer(Skill(307, 394.5575, 72.3, 390)).model_dump()
    {'skill': 82, 'luck': -17, 'optimum': 394.5575, 'lost': 72.3, 'expert': 390}
    """
    return answers.Skill(
        skill=skill.percent,
        luck=skill.shown_luck,
        optimum=round(skill.optimum, 4),
        lost=round(skill.lost, 4),
        expert=skill.expert,
    )


def analysed_answer(found: Analysis) -> analysis_answers.Analysed:
    """One side's decisions, valued, and the points lost in all."""
    return analysis_answers.Analysed(
        total=found.total,
        optimum=round(found.optimum, 4),
        lost=round(found.lost, 4),
        decisions=[decision_answer(d) for d in found.decisions],
    )


def decision_answer(decision: Decision) -> analysis_answers.Decision:
    """One decision: what was played, the best action and the loss."""
    return analysis_answers.Decision(
        index=decision.index,
        turn=decision.turn,
        roll=decision.roll,
        dice=list(decision.dice),
        played=action_answer(decision.played),
        best=action_answer(decision.best),
        loss=round(decision.loss, 4),
    )


def action_answer(action: Action, dice: Dice | None = None) -> analysis_answers.Action:
    """An action: ``keep`` (dice values) or ``score`` (a row), its value and loss; given the
    *dice* on the table, a re-roll also names the ``hold`` positions that play it.

    >>> action_answer(Action((6, 6), None, 250.123456, 1.5), (6, 2, 6)).model_dump(
    ...     exclude_unset=True)
    {'keep': [6, 6], 'hold': [0, 2], 'value': 250.1235, 'loss': 1.5}
    >>> action_answer(Action(None, "chance", 10.0)).model_dump(exclude_unset=True)
    {'score': 'chance', 'value': 10.0, 'loss': 0.0}
    """
    value, loss = round(action.value, 4), round(action.loss, 4)
    if action.row is not None:
        return analysis_answers.Action(score=action.row, value=value, loss=loss)
    keep = list(action.keep or ())
    if dice is None:
        return analysis_answers.Action(keep=keep, value=value, loss=loss)
    hold = list(hold_positions(dice, action.keep or ()))
    return analysis_answers.Action(keep=keep, hold=hold, value=value, loss=loss)


def expert_answer(game: analyses.ExpertGame) -> analysis_answers.Expert:
    """The Expert's own game on a day's dice."""
    return analysis_answers.Expert(
        date=game.day.isoformat(),
        ruleset=analyses.EXPERT_RULES,
        moves=[answers.Move.of(move) for move in game.moves],
        scorecard=dict(game.scorecard),
        total=game.total,
        optimum=round(game.optimum, 4),
    )


@dataclass(frozen=True, slots=True)
class Wait:
    """A strategy table being built, as a page shows it: progress and minutes left."""

    percent: str  # e.g. "42%"
    minutes: int  # rounded up, at least 1
    refresh: int  # seconds until the page reloads itself


def waiting(status: TableStatus) -> Wait:
    """How long the table of *status* is still to take (a missing one has just started)."""
    eta = status.eta if status.eta is not None else 60.0
    return Wait(f"{status.percent or 0:.0f}%", max(1, math.ceil(eta / 60)), retry_after(status))
