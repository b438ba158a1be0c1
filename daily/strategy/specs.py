"""A strategy table as the rest of the service names it: where the table stands (missing,
building, ready, or bad: refused by its digest check), and which rulesets and options the
solver plays (a table's ruleset is named by its :attr:`~daily.core.rules.Ruleset.spec`).

Pure values: :mod:`daily.tables` finds the files behind them, and the web layer shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from daily.core.rules import Option, Ruleset, find_ruleset

State = Literal["missing", "building", "ready", "bad"]


@dataclass(frozen=True, slots=True)
class TableStatus:
    """Where one table stands: missing, building (with its progress), ready, or bad (a table
    was found and refused by its digest check, and nothing has replaced it yet)."""

    ruleset: str  # the ruleset as a spec, e.g. ``maxi`` or ``maxi:bonus=50@75``
    state: State
    percent: float | None = None  # while building
    seconds: float | None = None  # building: spent so far; ready: what the build took
    eta: float | None = None  # building: the estimated seconds left, once it can be told
    #: Why the last table found here was refused (``bad``, or ``building`` its replacement).
    problem: str | None = None


def unsolved(ruleset: Ruleset) -> str | None:
    """Why the solver cannot play *ruleset*, or None when it can (nothing is computed)."""
    if ruleset.saved_rolls:
        return (
            "the solver does not handle saved_rolls: banked rolls multiply the states "
            "beyond what a table can hold"
        )
    if tuple(row.face for row in ruleset.rows[:6]) != (1, 2, 3, 4, 5, 6):  # the upper rows
        return f"{ruleset.id}: the solver needs the upper rows first"
    return None


def solvable_options(base: Ruleset) -> tuple[Option, ...]:
    """The options of *base* the solver plays with every one of their values (the computer
    offers those)."""
    return tuple(
        option
        for option in base.option_specs
        if all(unsolved(find_ruleset(base.id, {option.name: v})) is None for v in option.values)
    )
