"""The answers a client gets about a game: its sheet, the other sides and the result, built
from the game service's :class:`~daily.service.games.View` into the typed models of
:mod:`daily.web.answers`.

Rendering only: the game service (:mod:`daily.service.games`) says what there is to see. A field
that only some games have is passed only when the game has it, so the answer leaves it out
(``exclude_unset``); a null that is passed stays a null. Each field is declared once, in its
model: a larger answer is built of the smaller ones it extends (a :class:`answers.Totals` in a
:class:`answers.Played`) and the fields gathered for it (:func:`answers.built`), which
validates the names and the types, once, where the answer is made.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime

from daily.core import dice, ledger
from daily.core.codes import code_str
from daily.core.modes import BoardKind, SeedKind
from daily.core.party import Party
from daily.core.record import Record
from daily.core.rules import GameState, Move, Roll, Score
from daily.service import analyses, games, leagues, results
from daily.strategy import computer
from daily.web import answers, strategy_answers
from daily.web.context import current_config, current_redis


def game_answer(found: games.View) -> answers.GameState:
    """The game as its player sees it: settings, sheet, moves, result and the other sides."""
    record, state = found.record, found.state
    return answers.built(
        answers.GameState,
        _played(state, _changed(found)),
        mode=record.kind.id,
        ruleset=record.ruleset,
        options=state.ruleset.options_dict(),
        ranked=record.is_ranked,
        practice=record.practice,
        moves=moves_answer(record.moves),
        **_settings(record),
    )


def played_answer(found: games.View, move: Move) -> answers.Played:
    """The answer to *move*: what it changed, and the number of moves (not the log).

    Of the scorecard only the row the move scored is given (a party's sheet is the next
    player's: given whole); a client keeps the rest from the game it has.
    """
    scorecard = found.state.scorecard()
    if found.party is None:
        rows = [move.row] if isinstance(move, Score) else []
        scorecard = {row: scorecard[row] for row in rows}
    changed = _changed(found)
    if found.record.finished and found.tally is not None and not changed.get("review"):
        # A game's cheers are shown at its finish alone, never when it is opened again.
        changed["cheers"] = [answers.Cheer(kind=c.kind, value=c.value) for c in found.tally.cheers]
    return _played(found.state, changed, scorecard=scorecard)


def _played(state: GameState, changed: dict[str, object], **sheet: object) -> answers.Played:
    """The sheet of *state* with the dice on the table (its fields in *sheet* given instead)
    and what else a move *changed* (:func:`_changed`)."""
    return answers.built(
        answers.Played,
        _totals(state),
        roll=state.roll,
        rolls_left=state.rolls_left,
        dice=list(state.dice),
        potential=state.potential(),
        **changed,
        **sheet,
    )


def _settings(record: Record) -> dict[str, object]:
    """A game's settings that only some games have (of :class:`answers.GameState`), present
    only when the game has them."""
    settings: dict[str, object] = {}
    if record.day:
        settings["date"] = record.day.isoformat()
        settings["number"] = dice.Day(record.day, current_config().timezone).number
    if record.code:
        settings["code"] = code_str(record.code)
        # Published from the code's first game; the seed waits for its reveal.
        seed = dice.seed_from_ref(record.seed_ref, current_config().secret_key)
        settings["commitment"] = dice.commitment(seed)
    if record.closes_at is not None:
        settings["closes_at"] = datetime.fromtimestamp(record.closes_at, UTC).isoformat()
    return settings


def moves_answer(moves: tuple[Move, ...]) -> list[answers.Move]:
    """A move log as the answers write it."""
    return [answers.Move.of(move) for move in moves]


def _changed(found: games.View) -> dict[str, object]:
    """What a move may change besides the sheet (of :class:`answers.Played`): the move count,
    and the result and the other sides, present only when the game has them."""
    record = found.record
    fields: dict[str, object] = {"id": record.id, "move_count": len(record.moves)}
    if record.finished:
        share = record.share or record.code
        fields["share_code"] = code_str(share) if share else None
        fields["board"] = results.board_id(record)
        fields["rank"] = found.rank
        fields["review"] = results.review_of(current_redis(), record.id, record)
        if found.place is not None:
            fields["standing"] = _standing(found.place, found.tally)
        if found.tally and found.tally.figures and not fields["review"]:
            fields["records"] = answers.Figures(**dataclasses.asdict(found.tally.figures))
        skill = analyses.kept_skill(record)
        if skill is not None:  # the result asks for the analysis once; kept, it comes along
            fields["skill"] = strategy_answers.skill_answer(skill)
        if record.is_ranked and record.kind.board is BoardKind.DAILY and record.day:
            fields["leagues"] = _leagues(record.player_id, record.day)
    if record.code and (record.target or record.finished):
        fields["target"] = _target(found.target)
    if found.party is not None:
        party = found.party
        fields["players"] = _party_sheets(party)
        fields["current"] = None if party.is_finished else party.current
        fields["winners"] = list(party.winners) if party.is_finished else None
    if found.computer is not None:
        fields["computer"] = _computer(found, found.computer)
        fields["winner"] = computer.outcome(found.state, found.computer.state)
    return fields


def _standing(place: results.DayPlace, tally: ledger.Tally | None) -> answers.DayStanding:
    """Where a counted daily stands on its day's board; a new player's, with the days they
    still had to play when it counted."""
    days_left = tally.days_left if place.new and tally is not None else None
    return answers.DayStanding(**dataclasses.asdict(place), days_left=days_left)


def _leagues(player_id: str, day: date) -> list[answers.LeaguePlace]:
    """The player's place in each of their leagues on *day* (members who played it)."""
    found = leagues.standings_of(current_redis(), current_config(), player_id, day)
    return [
        answers.LeaguePlace(
            league=s.league_id, name=s.name, rank=s.rank, members=s.members, played=s.played
        )
        for s in found
    ]


def _computer(found: games.View, side: computer.Side) -> answers.ComputerSide:
    """The computer's sheet and its last turn step by step."""
    part = found.record.computer_part
    assert part is not None  # a view has a computer side only for a computer game
    return answers.built(
        answers.ComputerSide,
        _totals(side.state),
        level=part.level,
        engine=part.engine,
        turns=found.computer_turns,
        last_turn=[_step(step) for step in side.last_turn],
    )


def _step(step: computer.Step) -> answers.Step:
    """One step of the computer's turn: the dice, then the hold or the row and its points."""
    dice_ = list(step.dice)
    if isinstance(step.move, Roll):
        return answers.Step(dice=dice_, hold=list(step.move.hold))
    if step.points is None:
        return answers.Step(dice=dice_, score=step.move.row)
    return answers.Step(dice=dice_, score=step.move.row, points=step.points)


def _party_sheets(party: Party) -> list[answers.PartySheet]:
    """Every party player's name and sheet, in turn order."""
    return [
        answers.built(answers.PartySheet, _totals(sheet), name=name)
        for name, sheet in zip(party.names, party.sheets, strict=True)
    ]


def _totals(state: GameState) -> answers.Totals:
    """A sheet without the dice on the table: the rows and the totals."""
    return answers.Totals(
        turn=state.turn,
        scorecard=state.scorecard(),
        upper=state.upper,
        bonus=state.bonus,
        extra_bonus=state.extra_bonus,
        total=state.total,
        finished=state.is_finished,
    )


def _target(target: games.Target | None) -> answers.Target | None:
    """The creator's game of a friend code: their name, sheet and total so far."""
    if target is None:
        return None
    state = target.state
    return answers.Target(
        player_id=target.record.player_id,
        name=target.name,
        scorecard=state.scorecard(),
        upper=state.upper,
        bonus=state.bonus,
        total=state.total,
        finished=state.is_finished,
    )


def record_answer(found: Record) -> answers.Record:
    """The record ``daily verify`` reads: the moves and the seed once it may be published."""
    config = current_config()
    ref = dice.SeedRef.parse(found.seed_ref)
    seed = ref.seed(config.secret_key)
    extra: dict[str, object] = {}  # what only some records have, present only then
    # Only once no ranked game can be played on these dice any more (see seed_reveals_at).
    if results.is_seed_public(current_redis(), config, found):
        extra["seed"] = seed.hex()
    elif ref.kind == SeedKind.DAILY:  # named, not given: `daily verify` derives it
        extra["date"] = ref.value
    elif ref.kind != SeedKind.RANDOM:
        extra["code"] = ref.value
    if found.stream != "v1":  # a record without it is v1, as every game before v2 was
        extra["stream"] = found.stream
    if found.kind.is_party:  # `daily verify` replays the log as one party in this order
        extra["players"] = list(found.players)
    if found.computer_part is not None:
        part = found.computer_part
        extra["computer"] = answers.RecordComputer(
            level=part.level, engine=part.engine, moves=moves_answer(part.moves)
        )
    return answers.built(
        answers.Record,
        id=found.id,
        mode=found.kind.id,
        ruleset=found.ruleset,
        options=dict(found.options),
        commitment=dice.commitment(seed),
        moves=moves_answer(found.moves),
        total=found.total,
        **extra,
    )
