"""The JSON API of players, the daily puzzle and games, under ``/api/v1`` (see API.md).

Views parse the request, call the pure rules and the store, and return JSON;
every error is raised and turned into the error JSON in one place
(:mod:`daily.web.errors`). The server deals every die: a response carries only
the dice on the table, never one that a later hold decides.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from typing import Any

from flask import Blueprint, Response, jsonify, request

from daily import computer, dice, metrics
from daily import party as parties
from daily.codes import CodeError, code_str, parse_code
from daily.errors import RulesError
from daily.modes import ModeError, SeedKind, find_mode
from daily.rules import GameState, Roll, Score, find_ruleset, parse_options
from daily.store import games, keys, players, reviews
from daily.store.games import MoveConflict, Record
from daily.strategy import bots, builder, hints
from daily.strategy.model import model_of
from daily.strategy.solver import Table, default_cache_dir
from daily.web import current_config, current_redis, openapi, strategy
from daily.web.auth import (
    current_player_id,
    own_game,
    require_player_id,
    token_for,
    unauthorized,
)
from daily.web.errors import HttpError, bad_request, conflict, not_found
from daily.web.limits import (
    ARRIVED,
    check_daily_limit,
    check_new_player,
    count_daily,
    count_new_player,
)

bp = Blueprint("api", __name__, url_prefix="/api/v1")

#: Starts a game of one mode from the request body and the player id: (record, is it new).
Starter = Callable[[Mapping[str, Any], str], tuple[Record, bool]]


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """The OpenAPI 3.1 description of this API."""
    return jsonify(openapi.document())


# Players


@bp.post("/players")
def create_player() -> tuple[Response, int]:
    """Creates a player; the token in the answer signs later calls."""
    data = _body(required={"name"})
    name = _name(data["name"])
    check_new_player()
    player = players.create(current_redis(), name)
    count_new_player()
    body = {"player_id": player.id, "name": player.name, "token": token_for(player.id)}
    return jsonify(body), 201


@bp.get("/players/me")
def get_me() -> Response:
    """The player making the request; a read never makes one (401 before the first game)."""
    player_id = current_player_id()
    if player_id is None:
        raise unauthorized("no player yet: play a game or create one with POST /api/v1/players")
    return jsonify(_player_json(player_id))


@bp.patch("/players/me")
def update_me() -> Response:
    """Changes the name of the player making the request."""
    data = _body(required={"name"})
    player = players.rename(current_redis(), require_player_id(), _name(data["name"]))
    return jsonify({"player_id": player.id, "name": player.name})


def _player_json(player_id: str) -> dict[str, Any]:
    player = players.get(current_redis(), player_id)
    if player is None:
        raise not_found("no such player")
    return {"player_id": player.id, "name": player.name}


def _name(value: object) -> str:
    try:
        return players.parse_name(value)
    except players.ConfusableNameError as e:
        raise HttpError(400, "confusable_name", str(e)) from None
    except players.InvalidNameError as e:
        raise bad_request(str(e)) from None


# The daily puzzle


@bp.get("/daily")
def today() -> Response:
    """Today's puzzle: its number, commitment and closing time."""
    config = current_config()
    return jsonify(_daily_json(dice.today(config.now(), config.timezone)))


@bp.get("/daily/<day>")
def daily(day: str) -> Response:
    """The puzzle of *day*; its seed once the day has closed, 404 for a day not open yet."""
    config = current_config()
    puzzle = dice.Day(_date(day), config.timezone)
    if not puzzle.is_open(config.now()):
        raise HttpError(404, "not_open", f"the puzzle of {day} is not open")
    return jsonify(_daily_json(puzzle))


def _daily_json(puzzle: dice.Day) -> dict[str, Any]:
    config = current_config()
    seed = dice.daily_seed(config.secret_key, puzzle.date)
    revealed = puzzle.is_revealed(config.now())
    player_id = current_player_id()
    mine = None
    if player_id is not None:
        index = keys.player_daily(player_id, puzzle.date.isoformat())
        mine = games.index_lookup(current_redis(), index)
    return {
        "date": puzzle.date.isoformat(),
        "number": puzzle.number,
        "ruleset": "maxi",
        "commitment": dice.commitment(seed),
        "closes_at": puzzle.closes_at.isoformat(),
        "reveals_at": puzzle.reveals_at.isoformat(),
        "advent_door": puzzle.advent_door,
        "seed": seed.hex() if revealed else None,
        "game": _summary(mine) if mine else None,
    }


def _summary(record: Record) -> dict[str, Any]:
    return {"id": record.id, "finished": record.finished, "total": record.total}


def _date(text: str) -> date:
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise bad_request(f"not a date (YYYY-MM-DD): {text!r}") from None


# Games


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    """Starts a game; 409 with the existing id for a second daily or friend game."""
    data = _body(
        required={"mode"}, optional={"ruleset", "options", "code", "target", "players", "level"}
    )
    try:
        starter = STARTERS[find_mode(data["mode"]).id]
    except ModeError as e:
        raise bad_request(str(e)) from None
    record, created = starter(data, require_player_id())
    if not created:
        raise conflict("you already have this game", game_id=record.id)
    metrics.game_started(record.mode)
    return jsonify(_state_json(record, _state(record))), 201


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    """The game as its player sees it now."""
    record = own_game(game_id)
    if record.finished and not record.submitted:
        record = games.finish(current_redis(), current_config(), record)  # a lost count heals
    return jsonify(_state_json(record, _state(record)))


@bp.post("/games/<game_id>/roll")
def roll(game_id: str) -> Response:
    """Re-rolls every die except the held positions."""
    data = _body(required={"hold"}, optional={"move"})
    hold = data["hold"]
    if not isinstance(hold, list) or any(type(p) is not int for p in hold):
        raise bad_request(f"hold must be a list of dice positions, got {hold!r}")
    return _play(game_id, Roll(tuple(hold)), data.get("move"))


@bp.post("/games/<game_id>/score")
def score(game_id: str) -> Response:
    """Scores the dice in a row; the next turn's first roll is dealt at once."""
    data = _body(required={"category"}, optional={"move"})
    if not isinstance(data["category"], str):
        raise bad_request(f"category must name a row, got {data['category']!r}")
    return _play(game_id, Score(data["category"]), data.get("move"))


@bp.get("/games/<game_id>/record")
def record(game_id: str) -> Response:
    """The record ``daily verify`` reads; the seed once it may be published."""
    found = own_game(game_id)
    if not found.finished:
        raise conflict("the game is not finished yet")
    body: dict[str, Any] = {"id": found.id, "mode": found.mode, "ruleset": found.ruleset,
                            "options": dict(found.options)}  # fmt: skip
    seed = _public_seed(found)
    ref = dice.SeedRef.parse(found.seed_ref)
    if seed is not None:
        body["seed"] = seed
    elif ref.kind != SeedKind.RANDOM:  # named, not given: `daily verify` derives it
        body["date" if ref.kind == SeedKind.DAILY else "code"] = ref.value
    body.update(commitment=dice.commitment(_seed(found)), moves=list(found.moves),
                total=found.total)  # fmt: skip
    if found.kind.is_party:  # `daily verify` replays the log as one party in this order
        body["players"] = list(found.players)
    if found.kind.is_computer:
        body["computer"] = {"level": found.level, "engine": found.engine,
                            "moves": list(found.computer_moves)}  # fmt: skip
    return jsonify(body)


@bp.get("/games/<game_id>/hint")
def hint(game_id: str) -> Response:
    """Every legal action now with its expected final score, best first (solo, computer)."""
    found = own_game(game_id)
    if not found.kind.hints:
        raise HttpError(403, "hints_not_allowed", f"no hints in {found.mode} games")
    if found.finished:
        raise conflict("the game is over")
    state = _state(found)
    actions = hints.hint(strategy.strategy_table(found.rules), state)
    return jsonify(
        {
            "id": found.id,
            "turn": state.turn,
            "roll": state.roll,
            "rolls_left": state.rolls_left,
            "dice": list(state.dice),
            "actions": [action.to_dict(state.dice) for action in actions],
        }
    )


@bp.get("/games/<game_id>/analysis")
def analysis(game_id: str) -> Response:
    """Each decision of a finished game against the best one, and the expected points lost.

    A daily game also gets the Expert's own game on the same dice, once the day has closed.
    """
    return jsonify(strategy.analysis_json(own_game(game_id)))


def _play(game_id: str, move: Roll | Score, expected: object) -> Response:
    if expected is not None and (type(expected) is not int or expected < 0):
        raise bad_request(f"move must be the number of moves made so far, got {expected!r}")
    record = own_game(game_id)
    arrived = request.environ.get(ARRIVED)
    try:
        record, state = games.play(
            current_redis(), current_config(), record, move, expected, arrived
        )
    except MoveConflict as e:
        raise conflict(str(e), moves=len(record.moves)) from None
    if record.finished:  # play() refuses a finished game: this move finished it
        metrics.game_finished(record.mode)
    return jsonify(_state_json(record, state))


def _seed(record: Record) -> bytes:
    return dice.seed_from_ref(record.seed_ref, current_config().secret_key)


def _public_seed(record: Record) -> str | None:
    # Only once no ranked game can be played on these dice any more (see games.seed_reveals_at).
    if games.is_seed_public(current_redis(), current_config(), record):
        return _seed(record).hex()
    return None


def _state(record: Record) -> GameState:
    return record.state(current_config().secret_key)


# Starting each mode


def _start_daily(data: Mapping[str, Any], player_id: str) -> tuple[Record, bool]:
    _only(data, {"mode"})
    config = current_config()
    puzzle = dice.today(config.now(), config.timezone)
    if not puzzle.is_open(config.now()):
        raise HttpError(404, "not_open", f"the first puzzle is on {dice.EPOCH}")
    day = puzzle.date
    record = _new_record(data, player_id, "maxi", {}, str(dice.SeedRef.daily(day)), day=day)
    return _start_ranked_daily(record)


def _start_ranked_daily(record: Record, *index_keys: str) -> tuple[Record, bool]:
    """Starts a daily game (counted against the address's dailies a day, once it is new)."""
    assert record.day is not None
    check_daily_limit()
    daily_key = keys.player_daily(record.player_id, record.day.isoformat())
    index = [daily_key, *index_keys]
    found, created = games.start(current_redis(), current_config(), record, index)
    if created:
        count_daily()
    return found, created


def _start_friend(data: Mapping[str, Any], player_id: str) -> tuple[Record, bool]:
    if "code" in data:
        return _join_friend(data, player_id)
    _only(data, {"mode", "ruleset", "options"})
    ruleset, options = _rules(data)
    game_id = games.new_id()
    config = current_config()
    code = games.create_code(current_redis(), config, player_id, ruleset, options, None, game_id)
    found = games.load_code(current_redis(), code)
    assert found is not None
    seed_ref = str(dice.SeedRef.friend(code))
    record = _new_record(data, player_id, ruleset, options, seed_ref, game_id, code=code,
                         closes_at=found.closes)  # fmt: skip
    return games.start(current_redis(), config, record, [keys.player_friend(player_id, code)])


def _join_friend(data: Mapping[str, Any], player_id: str) -> tuple[Record, bool]:
    """Plays a code: ranked on its board while it is open (a daily's code as the player's
    daily, if they have not played it), practice once its seed is public, else 409."""
    _only(data, {"mode", "code", "target"})
    target = data.get("target", False)
    if not isinstance(target, bool):
        raise bad_request(f"target must be true or false, got {target!r}")
    code = _code(data["code"])
    client, config = current_redis(), current_config()
    found = games.load_code(client, code)
    if found is None:
        raise not_found(f"no such friend code: {code_str(code)}")
    friend_key = keys.player_friend(player_id, code)
    mine = games.index_lookup(client, friend_key)
    if mine is not None:
        return mine, False
    now = config.now()
    ranked = found.window.is_open(now)
    if not ranked and now < found.practice_at(config.timezone):
        raise code_closed(found)
    if ranked and found.day is not None:
        daily = games.index_lookup(client, keys.player_daily(player_id, found.day.isoformat()))
        if daily is None or not daily.finished:
            return _join_as_daily(data, player_id, found, daily)
    record = _new_record(data, player_id, found.ruleset, found.options, found.seed_ref,
                         mode="friend", code=code, target=target, practice=not ranked,
                         closes_at=found.closes)  # fmt: skip
    return games.start(client, config, record, [friend_key])


def _join_as_daily(
    data: Mapping[str, Any], player_id: str, found: games.FriendCode, daily: Record | None
) -> tuple[Record, bool]:
    """A daily's code while its day is open, for a player who has not finished that daily:
    it is their daily (one game, on the day's boards and the code's), or the one under way."""
    if daily is not None:
        return daily, False  # a daily of that day under way: finish that one
    assert found.day is not None
    # Blind: the creator's turn-by-turn totals would tell the dice of a ranked daily.
    record = _new_record(data, player_id, "maxi", {}, found.seed_ref, mode="daily",
                         day=found.day, code=found.code, closes_at=found.closes)  # fmt: skip
    return _start_ranked_daily(record, keys.player_friend(player_id, found.code))


def code_closed(found: games.FriendCode) -> HttpError:
    """A 409 for a code whose ranked games are over but whose dice are not public yet."""
    at = found.practice_at(current_config().timezone)
    return HttpError(
        409,
        "code_closed",
        f"code {code_str(found.code)} is closed; it can be played as practice from "
        f"{at.isoformat()}",
        practice_at=at.isoformat(),
    )


def _start_solo(data: Mapping[str, Any], player_id: str) -> tuple[Record, bool]:
    _only(data, {"mode", "ruleset", "options"})
    ruleset, options = _rules(data)
    record = _new_record(data, player_id, ruleset, options, _random_seed())
    return games.start(current_redis(), current_config(), record)


def _start_party(data: Mapping[str, Any], player_id: str) -> tuple[Record, bool]:
    _only(data, {"mode", "ruleset", "options", "players"})
    if "players" not in data:
        raise bad_request("missing field: 'players'")
    names = _party_names(data["players"])
    ruleset, options = _rules(data)
    record = _new_record(data, player_id, ruleset, options, _random_seed(), players=tuple(names))
    return games.start(current_redis(), current_config(), record)


def _party_names(value: object) -> list[str]:
    low, high = parties.MIN_PLAYERS, parties.MAX_PLAYERS
    if not isinstance(value, list) or not low <= len(value) <= high:
        raise bad_request(f"players must be a list of {low} to {high} names, got {value!r}")
    names = [_name(name) for name in value]
    folded = [name.casefold() for name in names]
    for name in names:
        if folded.count(name.casefold()) > 1:
            raise bad_request(f"two players are named {name!r}: give each a different name")
    return names


def _start_computer(data: Mapping[str, Any], player_id: str) -> tuple[Record, bool]:
    _only(data, {"mode", "ruleset", "options", "level"})
    level = data.get("level", "medium")
    if not isinstance(level, str) or level not in bots.LEVELS:
        raise bad_request(f"level must be one of {', '.join(bots.LEVELS)}, got {level!r}")
    ruleset, options = _rules(data)
    rules = find_ruleset(ruleset, options)
    try:
        model_of(rules)
    except RulesError as e:
        raise bad_request(f"the computer cannot play this ruleset: {e}") from None
    # Chosen once: a table built later must not change the moves of a game under way.
    engine = "exact" if strategy.table_status(rules).state == "ready" else "heuristic"
    if engine == "heuristic" and builder.may_build(rules):
        builder.start([rules], default_cache_dir())  # the next game gets the exact one
    record = _new_record(data, player_id, ruleset, options, _random_seed(), level=level,
                         engine=engine)  # fmt: skip
    return games.start(current_redis(), current_config(), record)


def _random_seed() -> str:
    return str(dice.SeedRef.random(secrets.token_bytes(32)))


STARTERS: dict[str, Starter] = {
    "daily": _start_daily,
    "friend": _start_friend,
    "solo": _start_solo,
    "party": _start_party,
    "computer": _start_computer,
}


def _new_record(
    data: Mapping[str, Any],
    player_id: str,
    ruleset: str,
    options: Mapping[str, Any],
    seed_ref: str,
    game_id: str | None = None,
    mode: str | None = None,
    **extra: Any,
) -> Record:
    return Record(
        id=game_id or games.new_id(),
        mode=mode or str(data["mode"]),
        ruleset=ruleset,
        options=dict(options),
        player_id=player_id,
        seed_ref=seed_ref,
        created=current_config().now().timestamp(),
        **extra,
    )


def _rules(data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    ruleset = data.get("ruleset", "maxi")
    options = data.get("options", {})
    if not isinstance(ruleset, str):
        raise bad_request(f"ruleset must be a string, got {ruleset!r}")
    if not isinstance(options, dict):
        raise bad_request(f"options must be an object, got {options!r}")
    try:
        return ruleset, dict(parse_options(ruleset, options))
    except RulesError as e:
        raise bad_request(str(e)) from None


def _code(text: object) -> str:
    try:
        return parse_code(text)
    except CodeError as e:
        raise bad_request(str(e)) from None


# The game state a client sees


def _state_json(record: Record, state: GameState) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": record.id,
        "mode": record.mode,
        "ruleset": record.ruleset,
        "options": state.ruleset.options_dict(),
    }
    if record.day:
        body["date"] = record.day.isoformat()
        body["number"] = dice.Day(record.day, current_config().timezone).number
    if record.code:
        body["code"] = code_str(record.code)
    body["ranked"] = record.is_ranked
    body["practice"] = record.practice
    if record.code:  # published from the code's first game; the seed waits for its reveal
        body["commitment"] = dice.commitment(_seed(record))
    if record.closes_at is not None:
        body["closes_at"] = datetime.fromtimestamp(record.closes_at, UTC).isoformat()
    body.update(_sheet_json(state))
    body["moves"] = list(record.moves)
    if record.finished:
        share = record.share or record.code
        body["share_code"] = code_str(share) if share else None
        board = games.board_of(record)
        body["board"] = board.id if board else None
        body["rank"] = games.rank_of(current_redis(), record)
        body["review"] = reviews.shown_status_of(current_redis(), record.id)
    if record.code and (record.target or record.finished):
        body["target"] = _target_json(record)
    if record.kind.is_party:
        body.update(_party_json(record.party(current_config().secret_key)))
    if record.kind.is_computer:
        body.update(_computer_json(record, state))
    return body


def _computer_json(record: Record, state: GameState) -> dict[str, Any]:
    """The computer's sheet, its last turn step by step, and the winner at the end."""
    moves = computer.parse_moves(record.computer_moves)
    source = dice.stream(_seed(record))
    scored = sum(1 for entry in record.moves if "score" in entry)
    # It plays each turn once the player has scored it; a lost write is simply redone.
    if sum(isinstance(move, Score) for move in moves) < scored:
        table = _computer_table(record)
        bot = bots.find_bot(record.level or "medium")
        moves = computer.catch_up(table, bot, source, record.id, moves, scored)
        record = games.set_computer(current_redis(), record, moves)
    side = computer.replay_side(state.ruleset, source, moves)
    sheet = {k: v for k, v in _sheet_json(side.state).items() if k not in _TABLE}
    return {
        "computer": {
            "level": record.level,
            "engine": record.engine,
            **sheet,
            "turns": sum(isinstance(move, Score) for move in moves),
            "last_turn": [step.to_dict() for step in side.last_turn],
        },
        "winner": computer.outcome(state, side.state),
    }


def _computer_table(record: Record) -> Table:
    if record.engine == "heuristic":
        return computer.heuristic_table(record.rules)
    return strategy.strategy_table(record.rules)


def _party_json(party: parties.Party) -> dict[str, Any]:
    """Every player's sheet, whose turn it is, and the winners (several: a tie) at the end."""
    sheets = [
        {"name": name, **{k: v for k, v in _sheet_json(sheet).items() if k not in _TABLE}}
        for name, sheet in zip(party.names, party.sheets, strict=True)
    ]
    return {
        "players": sheets,
        "current": None if party.is_finished else party.current,
        "winners": list(party.winners) if party.is_finished else None,
    }


# A party's sheets leave out the dice on the table: only the current player has them.
_TABLE = {"roll", "rolls_left", "dice", "potential"}


def _sheet_json(state: GameState) -> dict[str, Any]:
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


def _target_json(record: Record) -> dict[str, Any] | None:
    """The creator's game of a friend code: their name, sheet and total so far."""
    code = games.load_code(current_redis(), record.code or "")
    if code is None or code.game_id == record.id:
        return None
    theirs = games.load(current_redis(), code.game_id)
    if theirs is None:
        return None
    player = players.get(current_redis(), theirs.player_id)
    state = _state(theirs)
    return {
        "player_id": theirs.player_id,
        "name": player.name if player else None,
        "scorecard": state.scorecard(),
        "upper": state.upper,
        "bonus": state.bonus,
        "total": state.total,
        "finished": state.is_finished,
    }


# Reading request bodies


def _body(required: set[str], optional: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """The JSON object of the request, with exactly the *required* and some *optional* keys."""
    if not request.is_json:
        raise HttpError(415, "unsupported_media_type", "send JSON (Content-Type: application/json)")
    try:
        data = json.loads(request.get_data(), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise bad_request(f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise bad_request("the body must be a JSON object")
    missing = sorted(required - set(data))
    if missing:
        raise bad_request(f"missing field: {missing[0]!r}")
    _only(data, required | set(optional))
    return data


def _only(data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise bad_request(f"unknown field: {unknown[0]!r}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
