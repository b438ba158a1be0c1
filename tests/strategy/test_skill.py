"""Skill and luck from the exact solver, and an analysis kept as text and read back."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daily.core.dice import stream
from daily.core.errors import ReplayError
from daily.core.rules import Move, Roll, Score, find_ruleset, legal_moves, new_game
from daily.core.rules.game import apply
from daily.strategy.analysis import analyse
from daily.strategy.bots import find_bot, play_games
from daily.strategy.hints import hint, hold_positions
from daily.strategy.skill import (
    Skill,
    decisions_str,
    parse_decisions,
    parse_skill,
    skill_of,
    skill_str,
)
from daily.strategy.solver import Table

YATZY = find_ruleset("yatzy")


def random_game(seed: int) -> tuple[bytes, list[Move]]:
    """A legal yatzy game of random moves (any hold, any open row) on the dice of *seed*."""
    chooser = random.Random(seed)
    name = f"skill-{seed}".encode()
    state = new_game(YATZY, stream(name))
    moves: list[Move] = []
    while not state.is_finished:
        move = chooser.choice(list(legal_moves(state)))
        moves.append(move)
        state = apply(state, move)
    return name, moves


def test_the_experts_own_game_scores_full_skill(yatzy_table: Table) -> None:
    for n in range(3):
        source = stream(f"skill-expert-{n}".encode())
        (game,) = play_games(yatzy_table, find_bot("expert"), [source], np.random.default_rng(n))
        skill = skill_of(analyse(yatzy_table, source, game.moves))
        assert skill.share == pytest.approx(1.0, abs=1e-9)
        assert skill.lost == pytest.approx(0.0, abs=1e-9)
        assert skill.luck == pytest.approx(game.state.total - yatzy_table.optimum)


def test_skill_and_luck_add_up_with_the_optimum_to_the_total(yatzy_table: Table) -> None:
    @settings(max_examples=25, deadline=None)
    @given(seed=st.integers(0, 2**32 - 1))
    def check(seed: int) -> None:
        name, moves = random_game(seed)
        skill = skill_of(analyse(yatzy_table, stream(name), moves))
        assert skill.share * skill.optimum + skill.luck == pytest.approx(skill.total, abs=1e-9)
        assert 0.0 <= skill.share <= 1.0
        if skill.kept >= 0:  # the share is never below 0: play that gave away more is 0 %
            assert skill.optimum - skill.lost + skill.luck == pytest.approx(skill.total, abs=1e-9)
        _shown_add_up(skill)
        # Kept as text, the figures still add up (to the kept rounding).
        kept = parse_skill(skill_str(skill), skill.total)
        assert kept.share * kept.optimum + kept.luck == pytest.approx(skill.total, abs=1e-9)
        assert kept.lost == pytest.approx(skill.lost, abs=1e-4)

    check()


def _shown_add_up(skill: Skill) -> None:
    # The figures shown: skill in whole percent, luck in whole points, one rounding each.
    assert isinstance(skill.percent, int) and isinstance(skill.shown_luck, int)
    shown = skill.percent / 100 * skill.optimum + skill.shown_luck
    assert shown == pytest.approx(skill.total, abs=0.5)


def wasteful_game(table: Table, seed: int) -> tuple[bytes, list[Move]]:
    """A yatzy game that keeps the best dice and then scores the worst row for them: its
    decisions give away more than the optimum expected whenever the dice were generous."""
    name = f"waste-{seed}".encode()
    state = new_game(YATZY, stream(name))
    moves: list[Move] = []
    while not state.is_finished:
        actions = hint(table, state)
        keeps = [a for a in actions if a.row is None]
        rows = [a for a in actions if a.row is not None]
        if keeps and keeps[0].value > rows[0].value:
            move: Move = Roll(hold_positions(state.dice, keeps[0].keep or ()))
        else:
            move = Score(rows[-1].row or "")
        moves.append(move)
        state = apply(state, move)
    return name, moves


def test_the_figures_shown_add_up_where_the_decisions_gave_away_more_than_the_optimum(
    yatzy_table: Table,
) -> None:
    """Skill is clamped at 0 % where the decisions gave away more than the optimum; the luck
    then is the whole total, so skill x optimum + luck = total still, on the figures shown."""
    clamped = 0
    for seed in range(12):
        name, moves = wasteful_game(yatzy_table, seed)
        skill = skill_of(analyse(yatzy_table, stream(name), moves))
        _shown_add_up(skill)
        if skill.kept < 0:
            clamped += 1
            assert (skill.share, skill.percent) == (0.0, 0)
            assert skill.luck == skill.shown_luck == skill.total  # not total - kept: more
    assert clamped >= 2  # these seeds give three: 1, 2 and 10


def test_a_kept_analysis_reads_back_as_it_was(yatzy_table: Table) -> None:
    @settings(max_examples=10, deadline=None)
    @given(seed=st.integers(0, 2**32 - 1))
    def check(seed: int) -> None:
        name, moves = random_game(seed)
        analysis = analyse(yatzy_table, stream(name), moves)
        text = decisions_str(YATZY, analysis)
        assert len(text.split()) == len(moves)
        back = parse_decisions(text, YATZY, stream(name), moves, analysis.optimum)
        assert (back.total, back.optimum) == (analysis.total, analysis.optimum)
        assert back.lost == pytest.approx(analysis.lost, abs=1e-4)
        for kept, was in zip(back.decisions, analysis.decisions, strict=True):
            assert (kept.index, kept.turn, kept.roll) == (was.index, was.turn, was.roll)
            assert kept.dice == was.dice
            assert (kept.played.keep, kept.played.row) == (was.played.keep, was.played.row)
            assert (kept.best.keep, kept.best.row) == (was.best.keep, was.best.row)
            assert kept.best.value == pytest.approx(was.best.value, abs=1e-4)
            assert kept.played.value == pytest.approx(was.played.value, abs=1e-4)
            assert kept.loss == pytest.approx(was.loss, abs=1e-6)

    check()


def test_a_kept_analysis_that_does_not_fit_its_moves_is_refused(yatzy_table: Table) -> None:
    name, moves = random_game(7)
    analysis = analyse(yatzy_table, stream(name), moves)
    text = decisions_str(YATZY, analysis)
    with pytest.raises(ReplayError):
        parse_decisions(text, YATZY, stream(name), moves[:-1], analysis.optimum)
    with pytest.raises(ReplayError) as error:
        parse_decisions("x" + text[1:], YATZY, stream(name), moves, analysis.optimum)
    assert error.value.index == 0
    with pytest.raises(ValueError, match="not a kept skill summary: 'nonsense'"):
        parse_skill("nonsense", 200)


def test_a_skill_without_an_optimum_is_whole() -> None:
    assert Skill(0, 0.0, 0.0).share == 1.0
