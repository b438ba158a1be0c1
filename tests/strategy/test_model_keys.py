"""A table's name (:attr:`Model.key`): the names every host has built and shared stay as they
are, and a ruleset's option changes the name without a word of the solver's model.

Tables are built and cached, on disk and in the tables' store, under these names: a name that
changed would build every table again, and a name that did not change with the rules would
serve a table of other rules.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from daily.core.rules import BASE_RULESETS, Option, Ruleset, find_ruleset, scoring
from daily.core.rules.rulesets import RULE_FIELDS
from daily.strategy.model import model_of, with_layout
from daily.strategy.specs import solvable_options, unsolved

#: The names of the tables built before options were data (main at b958e98).
NAMES: list[tuple[str, dict[str, object], str]] = [
    ("maxi", {}, "maxi-529c60cefb1525f2"),
    ("maxi", {"bonus": "50@75"}, "maxi-0ecfef449e1bf6f0"),
    ("maxi", {"full_straight": 25}, "maxi-2a5f781288ec3972"),
    ("maxi", {"full_straight": 30}, "maxi-a8d69588f2a54c56"),
    ("maxi", {"forced": True}, "maxi-93b83c93e47d3b25"),
    ("maxi", {"bonus": "50@75", "full_straight": 30}, "maxi-a793cc6003c5b937"),
    ("yatzy", {}, "yatzy-684776d7dd87c50e"),
    ("yatzy", {"forced": True}, "yatzy-7768622f91bfe9d1"),
    ("yacht", {}, "yacht-43748b1283640444"),
    ("yacht", {"forced": True}, "yacht-c2b538e168d7231b"),
    ("yahtzee", {}, "yahtzee-d045c89b01b00d75"),
    ("yahtzee", {"forced": True}, "yahtzee-6a520c623c330958"),
]


@pytest.mark.parametrize(("ruleset", "options", "name"), NAMES, ids=[n for _, _, n in NAMES])
def test_the_tables_keep_their_names(ruleset: str, options: dict[str, object], name: str) -> None:
    assert model_of(find_ruleset(ruleset, options)).key == name


def test_the_dense_reference_tables_keep_their_names() -> None:
    dense = with_layout(model_of(find_ruleset("yatzy")), "dense")
    assert dense.key == "yatzy-ea6f2ccac58cd5aa"
    maxi = find_ruleset("maxi", {"bonus": "50@75", "full_straight": 30})
    assert with_layout(model_of(maxi), "dense").key == "maxi-317bf2c084398adc"


def _with_option(monkeypatch: pytest.MonkeyPatch, base: Ruleset, option: Option) -> None:
    """Registers *option* on *base* for this test: a new edition option, declared as data."""
    changed = dataclasses.replace(base, option_specs=(*base.option_specs, option))
    monkeypatch.setitem(BASE_RULESETS, base.id, changed)


def test_a_new_option_changes_the_table_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # The joker's fixed points were a global the key never named: an option on them must
    # still name another table, and strategy/model.py is not told of it.
    def no_joker_points(rules: Ruleset, value: object) -> dict[str, object]:
        return {"joker_points": ()} if value else {}

    base = BASE_RULESETS["yahtzee"]
    _with_option(monkeypatch, base, Option("plain_joker", (False, True), no_joker_points))
    plain = find_ruleset("yahtzee")
    varied = find_ruleset("yahtzee", {"plain_joker": True})
    assert model_of(plain).key == "yahtzee-d045c89b01b00d75"  # its default: the same table
    assert model_of(varied).key != model_of(plain).key
    assert varied.joker_points_of("full_house", 17) == 17 != plain.joker_points_of("full_house", 1)


@pytest.mark.parametrize("name", sorted(RULE_FIELDS))
def test_every_rule_field_is_in_the_key(name: str) -> None:
    # Whatever field of the rules an option sets, the table it names is another one.
    rules = find_ruleset("yahtzee")
    value = getattr(rules, name)
    other: Any
    if name == "rows":  # chance scored as a Yahtzee is: another scorer, the same ids
        chance = scoring.all_equal(50)
        other = tuple(
            dataclasses.replace(row, scorer=chance) if row.id == "chance" else row for row in value
        )
    elif isinstance(value, bool):
        other = not value
    elif isinstance(value, int):
        other = value + 1
    elif isinstance(value, str):
        other = "chance"
    else:
        other = ()
    changes: dict[str, Any] = {name: other}
    changed = dataclasses.replace(rules, **changes)
    if unsolved(changed) is not None:
        pytest.skip(f"{name}: the solver refuses it ({unsolved(changed)})")
    # Uncached: a ruleset's rows compare by id, not by scorer (model_of caches by ruleset).
    assert model_of.__wrapped__(changed).key != model_of(rules).key


def test_the_solver_says_which_options_it_plays() -> None:
    maxi = BASE_RULESETS["maxi"]
    assert [o.name for o in solvable_options(maxi)] == ["bonus", "full_straight", "forced"]
    assert unsolved(find_ruleset("maxi", {"saved_rolls": True})) is not None
    assert unsolved(maxi) is None
