"""The answers a client gets about a game: its sheet, the other sides and the result, built
from the game service's :class:`~daily.service.games.View` into the typed models of
:mod:`daily.web.answers`.

Rendering only: the game service (:mod:`daily.service.games`) says what there is to see. A field
that only some games have is passed only when the game has it, so the answer leaves it out
(``exclude_unset``); a null that is passed stays a null.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TypedDict

from daily.core import dice
from daily.core.codes import code_str
from daily.core.modes import BoardKind, SeedKind
from daily.core.party import Party
from daily.core.record import Record
from daily.core.rules import GameState, Move, MoveEntry, Roll, Score
from daily.service import analyses, games, leagues, results
from daily.strategy import computer
from daily.web import answers, current_config, current_redis, strategy_answers

#: The keyword arguments of an answer being built, each field only when the game has it.
Fields = dict[str, object]


class Totals(TypedDict):
    """A sheet without the dice on the table (:class:`answers.Totals`' fields)."""

    turn: int
    scorecard: dict[str, int | None]
    upper: int
    bonus: int
    extra_bonus: int
    total: int
    finished: bool


def game_answer(found: games.View) -> answers.GameState:
    """The game as its player sees it: settings, sheet, moves, result and the other sides."""
    record, state = found.record, found.state
    fields: Fields = {"mode": record.mode, "ruleset": record.ruleset,
                      "options": state.ruleset.options_dict()}  # fmt: skip
    if record.day:
        fields["date"] = record.day.isoformat()
        fields["number"] = dice.Day(record.day, current_config().timezone).number
    if record.code:
        fields["code"] = code_str(record.code)
    fields["ranked"] = record.is_ranked
    fields["practice"] = record.practice
    if record.code:  # published from the code's first game; the seed waits for its reveal
        seed = dice.seed_from_ref(record.seed_ref, current_config().secret_key)
        fields["commitment"] = dice.commitment(seed)
    if record.closes_at is not None:
        fields["closes_at"] = datetime.fromtimestamp(record.closes_at, UTC).isoformat()
    fields |= _changed(found)
    fields["moves"] = moves_answer(record.moves)
    return answers.GameState.model_validate(fields)


def played_answer(found: games.View, move: Move) -> answers.Played:
    """The answer to *move*: what it changed, and the number of moves (not the log).

    Of the scorecard only the row the move scored is given (a party's sheet is the next
    player's: given whole); a client keeps the rest from the game it has.
    """
    fields = _changed(found)
    if found.party is None:
        rows = [move.row] if isinstance(move, Score) else []
        scorecard = found.state.scorecard()
        fields["scorecard"] = {row: scorecard[row] for row in rows}
    return answers.Played.model_validate(fields)


def moves_answer(moves: tuple[Move, ...]) -> list[MoveEntry]:
    """A move log as the answers write it (each entry read into :class:`answers.Move` by the
    answer's model, in one pass)."""
    return [move.to_dict() for move in moves]


def _changed(found: games.View) -> Fields:
    """What a move may change: the sheet, the move count, the result and the other sides."""
    record = found.record
    fields: Fields = {"id": record.id, **_sheet(found.state)}
    fields["move_count"] = len(record.moves)
    if record.finished:
        share = record.share or record.code
        fields["share_code"] = code_str(share) if share else None
        fields["board"] = results.board_id(record)
        fields["rank"] = found.rank
        if found.newcomer is not None:
            fields["newcomer"] = answers.Newcomer(
                would_rank=found.newcomer.would_rank, days_left=found.newcomer.days_left
            )
        fields["review"] = results.review_of(current_redis(), record.id, record)
        skill = analyses.kept_skill(record)
        if skill is not None:  # the result asks for the analysis once; kept, it comes along
            fields["skill"] = strategy_answers.skill_answer(skill)
        if record.is_ranked and record.kind.board is BoardKind.DAILY and record.day:
            fields["leagues"] = _leagues(record.player_id, record.day)
    if record.code and (record.target or record.finished):
        fields["target"] = _target(found.target)
    if found.party is not None:
        fields |= _party(found.party)
    if found.computer is not None:
        fields["computer"] = _computer(found, found.computer)
        fields["winner"] = computer.outcome(found.state, found.computer.state)
    return fields


def _leagues(player_id: str, day: date) -> list[answers.LeaguePlace]:
    """The player's place in each of their leagues on *day* (members who played it)."""
    found = leagues.standings_of(current_redis(), current_config(), player_id, day)
    return [answers.LeaguePlace(league=s.league_id, name=s.name, rank=s.rank, members=s.members,
                                played=s.played) for s in found]  # fmt: skip


def _computer(found: games.View, side: computer.Side) -> answers.ComputerSide:
    """The computer's sheet and its last turn step by step."""
    # The record holds the level and engine as strings: the model checks them.
    fields: Fields = {"level": found.record.level, "engine": found.record.engine,
                      **_totals(side.state), "turns": found.computer_turns,
                      "last_turn": [_step(step) for step in side.last_turn]}  # fmt: skip
    return answers.ComputerSide.model_validate(fields)


def _step(step: computer.Step) -> answers.Step:
    """One step of the computer's turn: the dice, then the hold or the row and its points."""
    dice_ = list(step.dice)
    if isinstance(step.move, Roll):
        return answers.Step(dice=dice_, hold=list(step.move.hold))
    if step.points is None:
        return answers.Step(dice=dice_, score=step.move.row)
    return answers.Step(dice=dice_, score=step.move.row, points=step.points)


def _party(party: Party) -> Fields:
    """Every player's sheet, whose turn it is, and the winners (several: a tie) at the end."""
    sheets = [
        answers.PartySheet(name=name, **_totals(sheet))
        for name, sheet in zip(party.names, party.sheets, strict=True)
    ]
    return {
        "players": sheets,
        "current": None if party.is_finished else party.current,
        "winners": list(party.winners) if party.is_finished else None,
    }


def _totals(state: GameState) -> Totals:
    """A sheet without the dice on the table: the rows and the totals."""
    return {
        "turn": state.turn,
        "scorecard": state.scorecard(),
        "upper": state.upper,
        "bonus": state.bonus,
        "extra_bonus": state.extra_bonus,
        "total": state.total,
        "finished": state.is_finished,
    }


def _sheet(state: GameState) -> Fields:
    """One sheet: the turn, the dice on the table, the rows and the totals."""
    return {
        **_totals(state),
        "roll": state.roll,
        "rolls_left": state.rolls_left,
        "dice": list(state.dice),
        "potential": state.potential(),
    }


def _target(target: games.Target | None) -> answers.Target | None:
    """The creator's game of a friend code: their name, sheet and total so far."""
    if target is None:
        return None
    state = target.state
    fields: Fields = {  # a creator without a name is refused by the model
        "player_id": target.record.player_id,
        "name": target.name,
        "scorecard": state.scorecard(),
        "upper": state.upper,
        "bonus": state.bonus,
        "total": state.total,
        "finished": state.is_finished,
    }
    return answers.Target.model_validate(fields)


def record_answer(found: Record) -> answers.Record:
    """The record ``daily verify`` reads: the moves and the seed once it may be published."""
    config = current_config()
    fields: Fields = {"id": found.id, "mode": found.mode, "ruleset": found.ruleset,
                      "options": dict(found.options)}  # fmt: skip
    ref = dice.SeedRef.parse(found.seed_ref)
    seed = ref.seed(config.secret_key)
    # Only once no ranked game can be played on these dice any more (see seed_reveals_at).
    if results.is_seed_public(current_redis(), config, found):
        fields["seed"] = seed.hex()
    elif ref.kind != SeedKind.RANDOM:  # named, not given: `daily verify` derives it
        fields["date" if ref.kind == SeedKind.DAILY else "code"] = ref.value
    fields |= {"commitment": dice.commitment(seed), "moves": moves_answer(found.moves),
               "total": found.total}  # fmt: skip
    if found.stream != "v1":  # a record without it is v1, as every game before v2 was
        fields["stream"] = found.stream
    if found.kind.is_party:  # `daily verify` replays the log as one party in this order
        fields["players"] = list(found.players)
    if found.kind.is_computer:
        computer_fields: Fields = {"level": found.level, "engine": found.engine,
                                   "moves": moves_answer(found.computer_moves)}  # fmt: skip
        fields["computer"] = answers.RecordComputer.model_validate(computer_fields)
    return answers.Record.model_validate(fields)
