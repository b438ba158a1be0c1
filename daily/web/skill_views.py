"""A game's skill, luck and the Expert's score as the pages write them.

The figures are the API's (:func:`daily.web.strategy_answers.skill_answer`, rounded once on
the server); a page only writes them in its language, with the same signs as the script and
the shared text (docs/strategy.md, "Skill and luck").
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext

from daily.web import answers


@dataclass(frozen=True, slots=True)
class SkillView:
    """A game's skill and luck as a page writes them (the script writes them the same way)."""

    share: str  # "93%", in the page's language
    luck: str  # whole points with a sign: "+12", "−41" (U+2212, as the script and share write)
    expert: int | None


def signed(points: int) -> str:
    """Whole points with their sign, the minus a true one (U+2212) as everywhere shown.

    >>> signed(12), signed(-41), signed(0)
    ('+12', '\u221241', '0')
    """
    return f"+{points}" if points > 0 else str(points).replace("-", "\u2212")


def skill_view(skill: answers.Skill | None) -> SkillView | None:
    """How a page shows the API's *skill* (None: not kept yet, the script asks for it)."""
    if skill is None:
        return None
    return SkillView(gettext("%(n)s%%", n=skill.skill), signed(skill.luck), skill.expert)
