"""The sheet as the pages and the play script show it: rows, examples, the bonus pace,
options; and the pages that show it (the rules, the solo setup) on the pages blueprint."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import TypedDict

from flask_babel import gettext

from daily.core.modes import Mode
from daily.core.rules import BASE_RULESETS, Option, Ruleset
from daily.web.i18n import option_name, row_name, row_rule, ruleset_name, value_str


@dataclass(frozen=True, slots=True)
class RowView:
    """A row of a rules table: its name, its rule in words and a worked example."""

    id: str
    name: str
    rule: str
    face: int
    example: tuple[int, ...]
    points: int
    best: int


def row_views(ruleset: Ruleset) -> list[RowView]:
    """Every row of *ruleset* with its example scored by the engine and its best score."""
    views = []
    for index, row in enumerate(ruleset.rows):
        example = row.example
        views.append(
            RowView(
                id=row.id,
                name=row_name(row.id),
                rule=row_rule(ruleset.id, row.id, is_upper=row.is_upper),
                face=row.face,
                example=example,
                points=ruleset.score(example)[index],
                best=max(points[index] for points in ruleset.table.values()),
            )
        )
    return views


def bonus_par(ruleset: Ruleset) -> float:
    """Dice of each face the bonus asks for on average: 4 in Maxi (84), 3 in Yatzy (63)."""
    faces = sum(row.face for row in ruleset.rows if row.is_upper)
    return ruleset.bonus_threshold / faces if faces else 0.0


class RowMeta(TypedDict):
    """A row as the play script draws it."""

    id: str
    name: str
    face: int


# upperRows: the script's own spelling of the field.
class SheetMeta(TypedDict):
    id: str
    name: str
    dice: int
    rows: list[RowMeta]
    bonus: int
    threshold: int
    par: float
    upperRows: int
    allSame: str


class PaceExample(TypedDict):
    """The rules page's worked bonus-pace example."""

    par: str
    count: int
    points: int
    text: str


def sheet_meta(ruleset: Ruleset) -> SheetMeta:
    """What the play script needs to draw a ruleset's sheet and the bonus pace."""
    return {
        "id": ruleset.id,
        "name": ruleset_name(ruleset.id),
        "dice": ruleset.dice,
        "rows": [{"id": r.id, "name": row_name(r.id), "face": r.face} for r in ruleset.rows],
        "bonus": ruleset.bonus,
        "threshold": ruleset.bonus_threshold,
        "par": bonus_par(ruleset),
        "upperRows": sum(1 for r in ruleset.rows if r.is_upper),
        "allSame": ruleset.all_same_row.id,
    }


def mode_meta(mode: Mode) -> dict[str, object]:
    """What the play script reads of a game's *mode*: its flags, without the id to compare.

    >>> from daily.core.modes import find_mode
    >>> flags = mode_meta(find_mode("computer"))
    >>> flags["opponent"] == "computer", flags["hints"], flags["board"], "id" in flags
    (True, True, None, False)
    """
    return {f.name: getattr(mode, f.name) for f in dataclasses.fields(mode) if f.name != "id"}


def pace_example(ruleset: Ruleset) -> PaceExample:
    """A worked bonus-pace example: one die above par in Sixes."""
    par = bonus_par(ruleset)
    count = round(par) + 1
    ahead = round((count - par) * 6)
    return {
        "par": f"{par:g}" if par == int(par) else f"{par:.1f}",
        "count": count,
        "points": count * 6,
        "text": pace_str(ahead),
    }


def pace_str(ahead: int) -> str:
    """How the sheet words a bonus pace: "+6 ahead of pace", "3 behind pace"."""
    if ahead > 0:
        return str(gettext("+%(n)s ahead of pace", n=ahead))
    if ahead < 0:
        return str(gettext("%(n)s behind pace", n=-ahead))
    return str(gettext("on pace"))


@dataclass(frozen=True, slots=True)
class OptionView:
    """An edition option as the rules and setup pages list it: labels and JSON values."""

    name: str
    name_text: str
    values: list[str]
    default: str
    choices: list[tuple[str, str]]  # (JSON value, label)


def option_view(option: Option) -> OptionView:
    """The view of *option* in the player's language."""
    return OptionView(
        option.name,
        option_name(option.name),
        [value_str(v) for v in option.values],
        value_str(option.default),
        [(json.dumps(v), value_str(v)) for v in option.values],
    )


def ruleset_choices() -> list[tuple[str, str]]:
    """Every base ruleset's id and name, for the pickers."""
    return [(r.id, ruleset_name(r.id)) for r in BASE_RULESETS.values()]
