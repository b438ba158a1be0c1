"""The JSON a client sees of a game: its sheet, the other sides and the result.

Rendering only: the game service (:mod:`daily.games`) says what there is to see.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from daily import computer, dice, results
from daily import games as service
from daily import party as parties
from daily.codes import code_str
from daily.modes import SeedKind
from daily.record import Record
from daily.rules import GameState, Move, Score
from daily.web import answers, current_config, current_redis

# A party's sheets leave out the dice on the table: only the current player has them.
_TABLE = {"roll", "rolls_left", "dice", "potential"}


def game_json(found: service.View) -> dict[str, Any]:
    """The game as its player sees it: settings, sheet, moves, result and the other sides."""
    record, state = found.record, found.state
    body: dict[str, Any] = {"id": record.id, "mode": record.mode, "ruleset": record.ruleset,
                            "options": state.ruleset.options_dict()}  # fmt: skip
    if record.day:
        body["date"] = record.day.isoformat()
        body["number"] = dice.Day(record.day, current_config().timezone).number
    if record.code:
        body["code"] = code_str(record.code)
    body["ranked"] = record.is_ranked
    body["practice"] = record.practice
    if record.code:  # published from the code's first game; the seed waits for its reveal
        seed = dice.seed_from_ref(record.seed_ref, current_config().secret_key)
        body["commitment"] = dice.commitment(seed)
    if record.closes_at is not None:
        body["closes_at"] = datetime.fromtimestamp(record.closes_at, UTC).isoformat()
    body.update(_changed(found))
    body["moves"] = [move.to_dict() for move in record.moves]
    return answers.dump(answers.GameState, body)


def played_json(found: service.View, move: Move) -> dict[str, Any]:
    """The answer to *move*: what it changed, and the number of moves (not the log).

    Of the scorecard only the row the move scored is given (a party's sheet is the next
    player's: given whole); a client keeps the rest from the game it has.
    """
    body = _changed(found)
    if found.party is None:
        rows = [move.row] if isinstance(move, Score) else []
        body["scorecard"] = {row: body["scorecard"][row] for row in rows}
    return answers.dump(answers.Played, body)


def _changed(found: service.View) -> dict[str, Any]:
    """What a move may change: the sheet, the move count, the result and the other sides."""
    record = found.record
    body: dict[str, Any] = {"id": record.id, **sheet_json(found.state)}
    body["move_count"] = len(record.moves)
    if record.finished:
        body.update(_result_json(found))
    if record.code and (record.target or record.finished):
        body["target"] = _target_json(found.target)
    if found.party is not None:
        body.update(_party_json(found.party))
    if found.computer is not None:
        body.update(_computer_json(found, found.computer))
    return body


def _result_json(found: service.View) -> dict[str, Any]:
    record = found.record
    share = record.share or record.code
    return {
        "share_code": code_str(share) if share else None,
        "board": results.board_id(record),
        "rank": found.rank,
        "review": results.review_of(current_redis(), record.id, record),
    }


def _computer_json(found: service.View, side: computer.Side) -> dict[str, Any]:
    """The computer's sheet, its last turn step by step, and the winner at the end."""
    sheet = {k: v for k, v in sheet_json(side.state).items() if k not in _TABLE}
    return {
        "computer": {
            "level": found.record.level,
            "engine": found.record.engine,
            **sheet,
            "turns": found.computer_turns,
            "last_turn": [step.to_dict() for step in side.last_turn],
        },
        "winner": computer.outcome(found.state, side.state),
    }


def _party_json(party: parties.Party) -> dict[str, Any]:
    """Every player's sheet, whose turn it is, and the winners (several: a tie) at the end."""
    sheets = [
        {"name": name, **{k: v for k, v in sheet_json(sheet).items() if k not in _TABLE}}
        for name, sheet in zip(party.names, party.sheets, strict=True)
    ]
    return {
        "players": sheets,
        "current": None if party.is_finished else party.current,
        "winners": list(party.winners) if party.is_finished else None,
    }


def sheet_json(state: GameState) -> dict[str, Any]:
    """One sheet: the turn, the dice on the table, the rows and the totals."""
    return {
        "turn": state.turn,
        "roll": state.roll,
        "rolls_left": state.rolls_left,
        "dice": list(state.dice),
        "scorecard": state.scorecard(),
        "potential": state.potential(),
        "upper": state.upper,
        "bonus": state.bonus,
        "extra_bonus": state.extra_bonus,
        "total": state.total,
        "finished": state.is_finished,
    }


def _target_json(target: service.Target | None) -> dict[str, Any] | None:
    """The creator's game of a friend code: their name, sheet and total so far."""
    if target is None:
        return None
    state = target.state
    return {
        "player_id": target.record.player_id,
        "name": target.name,
        "scorecard": state.scorecard(),
        "upper": state.upper,
        "bonus": state.bonus,
        "total": state.total,
        "finished": state.is_finished,
    }


def record_json(found: Record) -> dict[str, Any]:
    """The record ``daily verify`` reads: the moves and the seed once it may be published."""
    config = current_config()
    body: dict[str, Any] = {"id": found.id, "mode": found.mode, "ruleset": found.ruleset,
                            "options": dict(found.options)}  # fmt: skip
    ref = dice.SeedRef.parse(found.seed_ref)
    seed = ref.seed(config.secret_key)
    # Only once no ranked game can be played on these dice any more (see seed_reveals_at).
    if results.is_seed_public(current_redis(), config, found):
        body["seed"] = seed.hex()
    elif ref.kind != SeedKind.RANDOM:  # named, not given: `daily verify` derives it
        body["date" if ref.kind == SeedKind.DAILY else "code"] = ref.value
    moves = [move.to_dict() for move in found.moves]
    body.update(commitment=dice.commitment(seed), moves=moves, total=found.total)
    if found.stream != "v1":  # a record without it is v1, as every game before v2 was
        body["stream"] = found.stream
    if found.kind.is_party:  # `daily verify` replays the log as one party in this order
        body["players"] = list(found.players)
    if found.kind.is_computer:
        body["computer"] = {"level": found.level, "engine": found.engine,
                            "moves": [move.to_dict() for move in found.computer_moves]}  # fmt: skip
    return answers.dump(answers.Record, body)
