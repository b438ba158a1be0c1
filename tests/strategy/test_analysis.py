"""Analysis of a finished game: each decision against the best, and the expected loss."""

from __future__ import annotations

import numpy as np
import pytest

from daily.core.dice import stream
from daily.core.errors import ReplayError
from daily.core.rules import Move, Score, apply, find_ruleset, new_game
from daily.strategy.analysis import analyse
from daily.strategy.bots import find_bot, play_games, play_turn
from daily.strategy.hints import hint
from daily.strategy.solver import Table


def test_an_expert_game_loses_nothing(yatzy_table: Table) -> None:
    source = stream(b"analysis-expert")
    (game,) = play_games(yatzy_table, find_bot("expert"), [source], np.random.default_rng(0))
    analysis = analyse(yatzy_table, source, [m.to_dict() for m in game.moves])
    assert len(analysis.decisions) == len(game.moves)
    assert analysis.lost == pytest.approx(0, abs=1e-9)
    assert analysis.total == game.state.total
    assert all(d.played.value == d.best.value for d in analysis.decisions)


def test_a_careless_game_shows_its_losses(yatzy_table: Table) -> None:
    source = stream(b"analysis-easy")
    (game,) = play_games(yatzy_table, find_bot("easy"), [source], np.random.default_rng(5))
    analysis = analyse(yatzy_table, source, game.moves)
    assert analysis.lost > 0
    assert analysis.lost == pytest.approx(sum(d.loss for d in analysis.decisions))
    worst = max(analysis.decisions, key=lambda d: d.loss)
    assert worst.best.value - worst.played.value == pytest.approx(worst.loss)
    assert analysis.decisions[worst.index] is worst  # a decision's index is its place in the log


def test_a_bad_first_move_costs_what_the_hint_says(yatzy_table: Table) -> None:
    source = stream(b"analysis-bad")
    ruleset = find_ruleset("yatzy")
    first = new_game(ruleset, source)
    # Throw away the yatzy row at once, then play on as the Expert would.
    bad = next(a for a in hint(yatzy_table, first) if a.row == "yatzy")
    assert bad.loss > 0
    moves: list[Move] = [Score("yatzy")]
    state = apply(first, moves[0])
    while not state.is_finished:
        played = play_turn(yatzy_table, find_bot("expert"), state, np.random.default_rng(0))
        moves += played.moves
        state = played.state
    analysis = analyse(yatzy_table, source, moves)
    assert analysis.decisions[0].loss == pytest.approx(bad.loss)
    assert analysis.lost == pytest.approx(bad.loss, abs=1e-9)


def test_bad_logs_are_replay_errors(yatzy_table: Table) -> None:
    source = stream(b"analysis-errors")
    with pytest.raises(ReplayError) as error:
        analyse(yatzy_table, source, [{"hold": [0, 1, 2, 3, 4]}])
    assert error.value.index == 0
    with pytest.raises(ReplayError, match="not finished"):
        analyse(yatzy_table, source, [{"score": "chance"}])
