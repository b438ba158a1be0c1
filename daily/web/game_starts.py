"""Starting each mode: the body, read, then one call of the game service
(:mod:`daily.service.new_games`). :mod:`daily.web.api`'s ``create_game`` hands each body here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from daily.core.record import Record
from daily.service import establishment, new_games
from daily.web import bodies
from daily.web.context import current_config, current_redis
from daily.web.limits import counters_of, take


def start(body: bodies.Body, player_id: str) -> tuple[Record, bool]:
    """Starts the game *body* asks for, for *player_id*: (its record, whether it is new)."""
    return STARTERS[type(body)](body, player_id)


def _start_daily(body: bodies.NewDaily, player_id: str) -> tuple[Record, bool]:
    if body.day is not None:
        day = bodies.parse_date(body.day)
        return new_games.start_practice(current_redis(), current_config(), player_id, day)
    return new_games.start_daily(
        current_redis(), current_config(), player_id, _daily_quota(player_id)
    )


def _start_friend(body: bodies.NewFriend, player_id: str) -> tuple[Record, bool]:
    if body.code is None:  # a fresh code
        take("codes", player_id)
        rules = bodies.rules(body.ruleset or bodies.DEFAULT_RULESET, body.options)
        return new_games.start_code(current_redis(), current_config(), player_id, *rules)
    code = bodies.code(body.code)
    return new_games.join_code(
        current_redis(), current_config(), player_id, code, body.target, _daily_quota(player_id)
    )


def _start_solo(body: bodies.NewSolo, player_id: str) -> tuple[Record, bool]:
    rules = bodies.rules(body.ruleset, body.options)
    return new_games.start_solo(current_redis(), current_config(), player_id, *rules)


def _start_party(body: bodies.NewParty, player_id: str) -> tuple[Record, bool]:
    ruleset, options = bodies.rules(body.ruleset, body.options)
    names = [bodies.name(name) for name in body.players]
    return new_games.start_party(
        current_redis(), current_config(), player_id, ruleset, options, names
    )


def _start_computer(body: bodies.NewComputer, player_id: str) -> tuple[Record, bool]:
    ruleset, options = bodies.rules(body.ruleset, body.options)
    return new_games.start_computer(
        current_redis(), current_config(), player_id, ruleset, options, body.level
    )


def _daily_quota(player_id: str) -> new_games.Quota:
    """The budget of newcomers' dailies a new daily of *player_id* counts on: never a refusal
    (the day's puzzle is every player's), past it the daily counts not towards ranking."""

    def quota(day: date) -> Callable[[], None] | None:
        counting = counters_of("dailies", day=day)
        return establishment.take(current_redis(), current_config(), player_id, counting)

    return quota


#: Starts a game from its body and the player id: (record, is it new).
STARTERS: dict[type[bodies.Body], Callable[[Any, str], tuple[Record, bool]]] = {
    bodies.NewDaily: _start_daily,
    bodies.NewFriend: _start_friend,
    bodies.NewSolo: _start_solo,
    bodies.NewParty: _start_party,
    bodies.NewComputer: _start_computer,
}
