"""Bots: legal moves only, through the rules engine; Expert strongest, Easy still sensible."""

from __future__ import annotations

import numpy as np
import pytest

from daily.core.dice import stream
from daily.core.errors import RulesError
from daily.core.rules import DiceSource, apply, find_ruleset, legal_moves, new_game, replay
from daily.strategy.bots import LEVELS, choose, find_bot, play_games, play_turn
from daily.strategy.solver import Table


def sources(count: int, salt: str) -> list[DiceSource]:
    return [stream(f"{salt}-{i}".encode()) for i in range(count)]


@pytest.mark.parametrize("level", list(LEVELS))
def test_every_bot_plays_only_legal_moves(yatzy_table: Table, level: str) -> None:
    ruleset = find_ruleset("yatzy")
    games = sources(3, level)
    played = play_games(yatzy_table, find_bot(level), games, np.random.default_rng(7))
    for source, game in zip(games, played, strict=True):
        state = new_game(ruleset, source)
        for move in game.moves:
            assert move in legal_moves(state)
            state = apply(state, move)
        assert state.is_finished
        assert state.total == game.state.total == replay(ruleset, source, game.moves).total


def test_levels_are_ordered_and_easy_is_sensible(yatzy_table: Table) -> None:
    # The same 60 dice streams for every level (common random numbers).
    games = sources(60, "strength")
    means = {
        level: np.mean(
            [g.state.total for g in play_games(yatzy_table, bot, games, np.random.default_rng(1))]
        )
        for level, bot in LEVELS.items()
    }
    assert means["expert"] > means["medium"] > means["easy"]
    assert means["easy"] > 170  # a sensible beginner; random play scores far less


def test_bots_are_reproducible_from_their_seed(yatzy_table: Table) -> None:
    games = sources(2, "seeded")
    first = play_games(yatzy_table, find_bot("easy"), games, np.random.default_rng(3))
    again = play_games(yatzy_table, find_bot("easy"), games, np.random.default_rng(3))
    assert [g.moves for g in first] == [g.moves for g in again]


def test_expert_takes_the_best_hint(yatzy_table: Table) -> None:
    state = new_game(find_ruleset("yatzy"), stream(b"expert"))
    action = choose(yatzy_table, find_bot("expert"), state, np.random.default_rng(0))
    assert action.loss == 0


def test_play_turn_plays_exactly_one_turn(yatzy_table: Table) -> None:
    state = new_game(find_ruleset("yatzy"), stream(b"turn"))
    played = play_turn(yatzy_table, find_bot("hard"), state, np.random.default_rng(0))
    assert played.state.turn == 2 and played.state.roll == 1
    assert sum(p is not None for p in played.state.scores) == 1
    assert 1 <= len(played.moves) <= 3


def test_unknown_level() -> None:
    with pytest.raises(RulesError, match="unknown level: 'godlike'"):
        find_bot("godlike")
