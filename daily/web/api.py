"""The JSON API of players, the daily puzzle and games, under ``/api/v1`` (see docs/api.md).

Views parse the request, call one function of the game service (:mod:`daily.service.games`) or
the store, and render JSON; every error is raised and turned into the error JSON in one
place (:mod:`daily.web.http_errors`). The server deals every die: a response carries only the
dice on the table, never one that a later hold decides.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, cast

from flask import Blueprint, Response, current_app, jsonify, request

from daily.core import dice, metrics
from daily.core.errors import ConflictError, NotFoundError, NotOpenError
from daily.core.modes import OnePer, find_mode
from daily.core.record import Record
from daily.core.rules import Roll, Score
from daily.service import accounts, friends, games, history
from daily.strategy import hints
from daily.web import (
    account,
    analysis_answers,
    answers,
    bodies,
    costs,
    creation,
    friend_sheets,
    game_answers,
    game_starts,
    openapi,
    strategy_answers,
)
from daily.web.auth import current_player_id, own_game, require_player_id
from daily.web.context import current_config, current_redis
from daily.web.http_errors import bad_request
from daily.web.limits import give_back, spending, take, take_build
from daily.web.routes import documented
from daily.web.tokens import token_for, unauthorized

bp = Blueprint("api", __name__, url_prefix="/api/v1")
STATE = "the game as its player sees it"
PLAYED = "the game after the move (its move count, not its log)"


@bp.get("/openapi.json", cost=costs.READ, api=documented(None, access="public"))
def openapi_document() -> Response:
    """The OpenAPI 3.1 description of this API (made once an app: its routes are fixed)."""
    made = current_app.extensions.get("daily.openapi")
    if made is None:  # about 30 ms of CPU to make: never again for this app
        made = current_app.extensions["daily.openapi"] = json.dumps(openapi.document(current_app))
    return Response(made, mimetype="application/json")


# Players


@bp.post(
    "/players",
    cost=costs.cost(
        costs.Cpu.WRITE, 700, costs.TTL, costs.PLAYER, limits=("players", "network_players")
    ),
    api=documented(
        answers.PlayerAnswer,
        status=201,
        body=bodies.NewPlayer,
        errors=(400, 413, 415),
        access="public",
        description="the player and token",
    ),
)
def create_player() -> tuple[Response, int]:
    """Creates a player; the token in the answer signs later calls."""
    name = bodies.name(_parse(bodies.NewPlayer).name)
    with creation.creating():  # free, or paid with a proof of work (429 with a challenge)
        player = accounts.create(current_redis(), name)
    body = answers.PlayerAnswer(player_id=player.id, name=player.name, token=token_for(player.id))
    return jsonify(body.model_dump()), 201


@bp.get(
    "/players/me",
    cost=costs.READ,
    api=documented(answers.Me, errors=(401, 404), description="the player and their figures"),
)
def get_me() -> Response:
    """The player making the request and their figures; a read never makes one (401 before
    the first game)."""
    player_id = current_player_id()
    if player_id is None:
        raise unauthorized("no player yet: play a game or create one with POST /api/v1/players")
    found = accounts.profile(current_redis(), current_config(), player_id)
    if found is None:
        raise NotFoundError("no such player")
    figures = answers.Figures(**dataclasses.asdict(found.figures))
    me = answers.Me(
        player_id=player_id, name=found.player.name, figures=figures, established=found.established
    )
    return jsonify(answers.dump(me))


@bp.patch(
    "/players/me",
    cost=costs.cost(costs.Cpu.WRITE, 300, costs.PLAYER),
    api=documented(
        answers.PlayerAnswer,
        body=bodies.NewPlayer,
        errors=(400, 401, 413, 415),
        description="the player",
    ),
)
def update_me() -> Response:
    """Changes the name of the player making the request."""
    name = bodies.name(_parse(bodies.NewPlayer).name)
    return _player(accounts.rename(current_redis(), require_player_id(), name))


def _player(player: accounts.Player) -> Response:
    answer = answers.PlayerAnswer(player_id=player.id, name=player.name)
    return jsonify(answer.model_dump(exclude_none=True))


@bp.get(
    "/players/me/challenges",
    cost=costs.READ,
    api=documented(
        friend_sheets.Challenges,
        errors=(401,),
        access="either",
        description="the codes, with the ETag to send back",
    ),
)
def my_challenges() -> Response:
    """The codes the asking player made lately and who played them (none without a player).

    A page polls it with ``If-None-Match``: an unchanged answer is a 304 without a body.
    """
    found = friends.challenges(current_redis(), current_config(), current_player_id())
    response = jsonify(friend_sheets.challenges_answer(found).model_dump())
    response.headers["Cache-Control"] = "private, no-cache"
    response.add_etag()
    response.make_conditional(request)  # a 304 without a body when it matches
    return response


# The daily puzzle


@bp.get(
    "/daily",
    cost=costs.READ,
    api=documented(answers.DailyAnswer, access="public", description="the puzzle"),
)
def today() -> Response:
    """Today's puzzle: its number, commitment and closing time."""
    config = current_config()
    return jsonify(answers.dump(_daily_answer(dice.today(config.now(), config.timezone))))


@bp.get(
    "/daily/<day>",
    cost=costs.READ,
    api=documented(
        answers.DailyAnswer, errors=(400, 404), access="public", description="the puzzle"
    ),
)
def daily(day: str) -> Response:
    """The puzzle of *day*; its seed once the day has closed, 404 for a day not open yet."""
    config = current_config()
    puzzle = dice.Day(bodies.parse_date(day), config.timezone)
    if not puzzle.is_open(config.now()):
        raise NotOpenError(f"the puzzle of {day} is not open")
    return jsonify(answers.dump(_daily_answer(puzzle)))


def _daily_answer(puzzle: dice.Day) -> answers.DailyAnswer:
    config = current_config()
    seed = dice.daily_seed(config.secret_key, puzzle.date)
    mine = history.daily_of(current_redis(), current_player_id(), puzzle.date)
    return answers.DailyAnswer(
        date=puzzle.date.isoformat(),
        number=puzzle.number,
        ruleset="maxi",
        commitment=dice.commitment(seed),
        closes_at=puzzle.closes_at.isoformat(),
        reveals_at=puzzle.reveals_at.isoformat(),
        advent_door=puzzle.advent_door,
        seed=seed.hex() if puzzle.is_revealed(config.now()) else None,
        game=_summary(mine) if mine else None,
    )


def _summary(record: Record) -> answers.DailyGame:
    return answers.DailyGame(id=record.id, finished=record.finished, total=record.total)


# Games


@bp.post(
    "/games",
    cost=costs.NEW_GAME,
    api=documented(
        answers.GameState,
        status=201,
        body=bodies.NewGame,
        errors=(400, 401, 404, 409, 413, 415),
        description=STATE,
    ),
)
def create_game() -> tuple[Response, int]:
    """Starts a game; 409 with the existing id for a second daily or friend game."""
    data = bodies.json_object()
    if "mode" not in data:
        raise bad_request("missing field: 'mode'")
    mode = find_mode(cast(str, data["mode"]))  # any other value is named in its error
    today = history.today(current_config())
    accounts.check_may_start(mode, account.deleted_on(), today)
    model = bodies.new_game_model(mode.id)
    player_id = require_player_id()  # a guest is made before the body's own fields are read
    body = bodies.parse(model, data)
    # A ranked daily counts on a budget of its own, the puzzle day's (see game_starts).
    budget = "games" if mode.one_per is not OnePer.DAY or getattr(body, "day", None) else None
    with spending(budget, player_id) as counted:
        record, created = game_starts.start(body, player_id)
    if not created:
        give_back(counted)
        raise ConflictError("you already have this game", game_id=record.id)
    metrics.game_started(record.mode)
    return jsonify(answers.dump(game_answers.game_answer(_view(record)))), 201


@bp.get(
    "/games/<game_id>",
    cost=costs.cost(costs.Cpu.READ, 2_500, costs.GAME, costs.PLAYER, costs.BOARD),
    api=documented(answers.GameState, errors=(401, 404), description=STATE),
)
def get_game(game_id: str) -> Response:
    """The game as its player sees it now (a finished game's lost count heals)."""
    return jsonify(answers.dump(game_answers.game_answer(_view(own_game(game_id), heal=True))))


@bp.post(
    "/games/<game_id>/roll",
    cost=costs.MOVE,
    api=documented(
        answers.Played,
        body=bodies.RollBody,
        errors=(400, 401, 404, 409, 413, 415),
        headers=("Idempotency-Key",),
        description=PLAYED,
    ),
)
def roll(game_id: str) -> Response:
    """Re-rolls every die except the held positions."""
    body = _parse(bodies.RollBody)
    return _play(game_id, Roll(tuple(body.hold)), body.move)


@bp.post(
    "/games/<game_id>/score",
    cost=costs.MOVE,
    api=documented(
        answers.Played,
        body=bodies.ScoreBody,
        errors=(400, 401, 404, 409, 413, 415),
        headers=("Idempotency-Key",),
        description=PLAYED,
    ),
)
def score(game_id: str) -> Response:
    """Scores the dice in a row; the next turn's first roll is dealt at once."""
    body = _parse(bodies.ScoreBody)
    return _play(game_id, Score(body.category), body.move)


def _parse(model: type[bodies.B]) -> bodies.B:
    return bodies.parse(model, bodies.json_object())


def _play(game_id: str, move: Roll | Score, expected: int | None) -> Response:
    config = current_config()
    key = request.headers.get("Idempotency-Key")
    before = own_game(game_id, moving=True)
    record, state = games.play(current_redis(), config, before, move, expected, key)
    if record.finished and not before.finished:  # this move finished it
        metrics.game_finished(record.mode)
    # A retried request (its key is the last move's) is answered for the move that key
    # applied, whatever its body now says: the log's last move.
    applied = record.moves[-1] if record.moves else move
    return jsonify(answers.dump(game_answers.played_answer(_view(record, state), applied)))


def _view(record: Record, state: Any = None, heal: bool = False) -> games.View:
    return games.view(current_redis(), current_config(), record, state, heal=heal)


@bp.get(
    "/games/<game_id>/record",
    cost=costs.READ,
    api=documented(answers.Record, errors=(401, 404, 409), description="the record"),
)
def record(game_id: str) -> Response:
    """The record ``daily verify`` reads; the seed once it may be published."""
    found = own_game(game_id)
    if not found.finished:
        raise ConflictError("the game is not finished yet")
    return jsonify(answers.dump(game_answers.record_answer(found)))


@bp.get(
    "/games/<game_id>/hint",
    cost=costs.cost(costs.Cpu.SOLVER, 200, costs.TTL, limits=("hints", "builds")),
    api=documented(
        analysis_answers.Hint, errors=(401, 403, 404, 409, 503), description="the ranked actions"
    ),
)
def hint(game_id: str) -> Response:
    """Every legal action now with its expected final score, best first (solo, computer)."""
    found = own_game(game_id)
    state = games.hint_state(current_config(), found)  # 403 or 409 before any work
    take_build(found.rules, found.player_id)
    table = strategy_answers.strategy_table(found.rules)  # a 503 while it is built: free
    take("hints", found.player_id)
    actions = hints.hint(table, state)
    answer = analysis_answers.Hint(
        id=found.id,
        turn=state.turn,
        roll=state.roll,
        rolls_left=state.rolls_left,
        dice=list(state.dice),
        actions=[strategy_answers.action_answer(action, state.dice) for action in actions],
    )
    return jsonify(answers.dump(answer))


@bp.get(
    "/games/<game_id>/analysis",
    cost=costs.ANALYSIS,
    api=documented(
        analysis_answers.Analysis, errors=(401, 403, 404, 409, 503), description="the analysis"
    ),
)
def analysis(game_id: str) -> Response:
    """Each decision of a finished game against the best one, and the expected points lost.

    A daily game also gets the Expert's own game on the same dice, once the day has closed.
    """
    found = own_game(game_id)
    take("analyses", found.player_id)
    take_build(found.rules, found.player_id)
    return jsonify(answers.dump(strategy_answers.analysis_of(found)))
