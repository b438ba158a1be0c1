"""Luck: mean 0 and spread 1 for every honest player, and a bettor on it that no honest game
makes rich (a test supermartingale) while a clairvoyant one does.

Every sample here comes from a fixed seed (numpy generators, named dice streams), so the
statistical checks give the same figures on every run; their tolerances are several
standard errors wide, so a change of seed would not fail them either.
"""

from __future__ import annotations

import numpy as np
import pytest

from daily.core.dice import stream
from daily.core.errors import ReplayError, RulesError
from daily.core.rules import DiceSource, Roll, Score, find_ruleset
from daily.strategy import bots, clairvoyant, lockstep, luck
from daily.strategy.model import turn
from daily.strategy.solver import Table


def sources(count: int, salt: str) -> list[DiceSource]:
    return [stream(f"luck-{salt}-{i}".encode()) for i in range(count)]


def test_every_keeps_luck_has_mean_0_and_spread_1_exactly(yatzy_table: Table) -> None:
    # The martingale property itself, not a sample: over every roll a keep can deal, each
    # weighted by its chance, a roll's luck averages 0 with variance 1.
    model = yatzy_table.model
    c = model.combos
    chance = luck.transitions(c)
    state = np.array([[0b101101011010111, 20, 0]], dtype=np.int64)
    for keep in (0, c.index[(6, 6)], c.index[(1, 2, 3, 4)]):
        for i in (0, 1, 2):
            before = 0 if i == 0 else keep
            rolls = np.full((c.n_rolls, 3), -1, dtype=np.int64)
            keeps = np.full((c.n_rolls, 2), -1, dtype=np.int64)
            rolls[:, i] = np.arange(c.n_rolls)
            if i:
                keeps[:, i - 1] = keep
            batch = luck.Turns(np.repeat(state, c.n_rolls, axis=0), rolls, keeps)
            solved_many = turn(model, yatzy_table.values, batch.states, keep_all=True)
            got = luck.luck_of(model, solved_many.final, solved_many.keeps, rolls, keeps)[:, i]
            weights = chance[before]
            assert float(np.sum(weights * got)) == pytest.approx(0.0, abs=1e-9)
            assert float(np.sum(weights * got * got)) == pytest.approx(1.0, abs=1e-9)
            # The bettor's factor has mean at most 1 and stays above 1 - CAP: Ville applies.
            low = luck.luck_and_low(model, solved_many.final, solved_many.keeps, rolls, keeps)[1]
            dealt = weights > 0
            assert np.allclose(low[dealt, i], got[dealt].min())
            for stake in luck.STAKES:  # every family bets the same stakes (or nothing)
                bet = min(stake, luck.CAP / -got[dealt].min())
                factor = 1 + bet * np.minimum(got, luck.CLIP)
                assert float(np.sum(weights * factor)) <= 1 + 1e-9
                assert factor[dealt].min() >= 1 - luck.CAP - 1e-9


@pytest.mark.slow  # 11 styles of 3 s each; the quick loop keeps the lockstep tests of 1 s
@pytest.mark.parametrize("policy", lockstep.POLICIES)
def test_honest_players_luck_has_mean_0_whatever_their_skill(
    yatzy_table: Table, policy: str
) -> None:
    games = lockstep.play(yatzy_table, policy, 1500, np.random.default_rng(11))
    lucks = games.lucks[np.isfinite(games.lucks)]
    assert lucks.size > 1500 * 14  # "never" rolls once a turn
    # Standard error at most about 0.007: 0.035 is five of them.
    assert abs(lucks.mean()) < 0.035
    assert 0.97 < lucks.std() < 1.03
    assert games.evalues.max() < luck.THRESHOLD


@pytest.mark.slow  # 3,000 games: 9 s
def test_lockstep_expert_scores_the_optimum(yatzy_table: Table) -> None:
    # The simulation's own bookkeeping (rows, upper total, bonus) against the exact optimum.
    games = lockstep.play(yatzy_table, "expert", 3000, np.random.default_rng(3))
    error = games.totals.std() / np.sqrt(games.totals.size)
    assert abs(games.totals.mean() - yatzy_table.optimum) < 4 * error


@pytest.mark.slow  # 2,400 games: 4.5 s
def test_lockstep_levels_are_ordered(yatzy_table: Table) -> None:
    means = [
        lockstep.play(yatzy_table, p, 600, np.random.default_rng(5)).totals.mean()
        for p in ("expert", "medium", "easy", "random")
    ]
    assert means == sorted(means, reverse=True)
    assert means[-1] < 100 < means[-2]


def test_honest_real_games_are_not_flagged(yatzy_table: Table) -> None:
    scores = []
    for level in ("expert", "easy"):
        games = sources(60, level)
        played = bots.play_games(yatzy_table, bots.LEVELS[level], games, np.random.default_rng(2))
        for source, game in zip(games, played, strict=True):
            verdict = luck.check(yatzy_table, source, game.moves)
            assert not verdict.flagged
            scores.append(verdict.score)
    assert max(scores) < 3


def test_a_player_who_sees_the_dice_stream_is_flagged(yatzy_table: Table) -> None:
    ruleset = yatzy_table.model.ruleset
    every_turn = range(1, len(ruleset.rows) + 1)
    scores = []
    for source in sources(4, "clairvoyant"):
        played = clairvoyant.play(yatzy_table, source, every_turn)
        verdict = luck.check(yatzy_table, source, played.moves)
        scores.append(verdict.score)
        assert played.state.total > yatzy_table.optimum + 60
    # Scores 4.14, 5.59, 7.88 and 8.71: the bettors got 14,000 to 500 million times richer.
    assert min(scores) >= luck.THRESHOLD


def test_scouting_every_first_reroll_is_far_luckier_than_honest_play(yatzy_table: Table) -> None:
    # v1-style scouting (every first re-roll of every turn known): 5.64 to 7.70, all flagged
    # (the first re-roll's own bettors), where honest games stay under 3
    # (test_honest_real_games_are_not_flagged).
    every_turn = range(1, len(yatzy_table.model.ruleset.rows) + 1)
    scores = []
    for source in sources(4, "scout"):
        played = clairvoyant.play(yatzy_table, source, every_turn, scouting=True)
        scores.append(luck.check(yatzy_table, source, played.moves).score)
    assert min(scores) >= luck.THRESHOLD


@pytest.mark.slow  # 3.5 s
def test_lockstep_clairvoyants_are_far_luckier_than_honest_players(yatzy_table: Table) -> None:
    rows = yatzy_table.model.rows
    rng = np.random.default_rng(8)
    honest = lockstep.play(yatzy_table, "expert", 500, rng).evalues
    seer = lockstep.play(yatzy_table, "expert", 500, rng, known=np.ones((500, rows), bool))
    scout = lockstep.play(
        yatzy_table, "expert", 500, rng, known=np.ones((500, rows), bool), scouting=True
    )
    threshold = luck.THRESHOLD
    assert np.mean(honest >= threshold) == 0
    assert np.mean(seer.evalues >= threshold) > 0.95  # all 500
    assert np.mean(scout.evalues >= threshold) > 0.95  # all 500 (round two: 0.23 of 300)
    assert seer.totals.mean() > scout.totals.mean() > yatzy_table.optimum + 30


def test_trace_lists_each_turn_its_rolls_and_keeps(yatzy_table: Table) -> None:
    model = yatzy_table.model
    c = model.combos
    source = stream(b"trace")
    moves = [Roll((0, 1)), Roll(()), Score("chance")] + [
        Score(row.id) for row in model.ruleset.rows if row.id != "chance"
    ]
    turns = luck.trace(model, source, moves)
    assert turns.states.shape == (15, 3)
    assert turns.states[0].tolist() == [(1 << 15) - 1, 0, 0]
    assert (turns.rolls[0] >= 0).all() and (turns.rolls[1:, 1:] == -1).all()
    first = source(1, (), 5)
    assert turns.keeps[0, 0] == c.index[tuple(sorted(first[:2]))] and turns.keeps[0, 1] == 0


def test_an_unfinished_or_illegal_log_is_a_replay_error(yatzy_table: Table) -> None:
    source = stream(b"bad")
    with pytest.raises(ReplayError, match="not finished"):
        luck.check(yatzy_table, source, [{"score": "chance"}])
    with pytest.raises(ReplayError) as caught:
        luck.check(yatzy_table, source, [{"score": "chance"}, {"score": "chance"}])
    assert caught.value.index == 1


def test_the_bettors_wealth_is_bounded_for_honest_rolls_and_grows_on_lucky_ones() -> None:
    assert luck.THRESHOLD == 4.0  # wealth 1/ALPHA = 10,000
    # Honest rolls drawn from a known outcome distribution: luck -1 or +1 (a fair coin,
    # mean 0, spread 1), three rolls a turn. Over 2,000 games of 60 rolls the wealth's running
    # highest stays far below 10,000 (Ville: it passes 100 in at most 1 game in 100).
    rng = np.random.default_rng(4)
    coin = rng.choice([-1.0, 1.0], size=(2000, 60))
    steps = np.arange(60) % 3
    scores = luck.evalues_of(coin, np.full_like(coin, -1.0), steps)
    assert scores.max() < luck.THRESHOLD and np.mean(scores >= 2) <= 0.01
    # A jackpot (luck 216, clipped to 8) moves each bettor that bets on it by at most
    # 1 + 8 * its stake (cut to CAP / |low|), and the others not at all.
    bets = [min(s, luck.CAP) * first_roll for s in luck.STAKES
            for first_roll in (first == 0 for first, _ in luck.BETS)]  # fmt: skip
    assert luck.evalue_of([216.0], [-1.0], [0]) == pytest.approx(np.log10(np.mean(
        [1 + 8 * s for s in bets])))  # fmt: skip
    # The same coin, won 54 times of 60, makes the bettors rich; won only on each turn's first
    # re-roll (what a scout knows) and fair elsewhere, too: the first re-roll's bettors see it.
    lucky = np.where(np.arange(60) % 10 == 0, -1.0, 1.0)
    assert luck.evalue_of(lucky, np.full(60, -1.0), steps) >= luck.THRESHOLD
    scouted = np.where(steps == 1, 1.0, rng.choice([-1.0, 1.0], size=60))
    assert luck.evalue_of(scouted, np.full(60, -1.0), steps) >= luck.THRESHOLD


def test_lockstep_refuses_the_joker_and_unknown_policies(
    yatzy_table: Table, end_table: object
) -> None:
    with pytest.raises(RulesError, match="policy"):
        lockstep.play(yatzy_table, "psychic", 1, np.random.default_rng(0))
    yahtzee = end_table(find_ruleset("yahtzee"))  # type: ignore[operator]
    with pytest.raises(RulesError, match="joker"):
        lockstep.play(yahtzee, "expert", 1, np.random.default_rng(0))
