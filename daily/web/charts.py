"""The history page's chart: the last 30 daily totals as an inline SVG bar chart, drawn on the
server (no script), its words in the reader's language.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from babel.dates import format_date
from flask_babel import get_locale, gettext
from markupsafe import Markup

from daily.service.history import Played

#: The room a date under the history chart takes ("30 Dec", "12. Dez."), in chart units.
DATE_ROOM = 48.0


@dataclass(frozen=True, slots=True)
class _Plot:
    """The plot area of a chart and its scale: *top* points reach the *roof*."""

    left: float
    right: float
    roof: float
    floor: float
    step: float  # from one bar to the next
    top: int

    def y(self, points: float) -> float:
        """The height in the chart of *points*."""
        return self.floor - (self.floor - self.roof) * points / self.top


def chart_svg(
    played: Sequence[Played], width: int = 320, height: int = 150, held: Collection[str] = ()
) -> Markup:
    """A bar chart of the last 30 daily totals (oldest left) with a score axis and dates; a
    game held for review (its id in *held*) is marked.

    >>> from datetime import date
    >>> svg = chart_svg([Played(date(2026, 12, 1), 1, 200, True, "a")])
    >>> svg.count("<rect"), 'role="img"' in svg, svg.count('class="label date"')
    (1, True, 1)
    """
    recent = list(reversed(played[:30]))
    top = max([p.total for p in recent] + [1])
    # A few days do not make fat bars: the step is at least that of 14.
    plot = _Plot(30, width - 4, 10, height - 20, (width - 34) / max(len(recent), 14), top)
    name = Markup.escape(gettext("Your last %(n)s daily scores", n=len(recent)))
    return Markup(
        f'<svg class="history-chart" viewBox="0 0 {width} {height}" role="img"'
        f' aria-label="{name}">'
        f'<line x1="{plot.left}" y1="{plot.roof}" x2="{plot.left}" y2="{plot.floor}"'
        ' class="axis"/>'
        + _ticks(plot)
        + _bars(plot, recent, held)
        + _dates(plot, recent, height)
        + "</svg>"
    )


def _bars(plot: _Plot, recent: Sequence[Played], held: Collection[str]) -> str:
    bars = []
    for i, p in enumerate(recent):
        h = max(2.0, plot.floor - plot.y(p.total))
        x, y = plot.left + i * plot.step + 1, plot.floor - h
        label = gettext("#%(number)s: %(total)s", number=p.number, total=p.total)
        kind = "held" if p.game_id in held else "bonus" if p.bonus else "plain"
        if p.game_id in held:
            label = f"{label} ({gettext('under review')})"
        bars.append(
            f'<rect class="{kind}" x="{x:.1f}" y="{y:.1f}"'
            f' width="{max(plot.step - 2, 1):.1f}" height="{h:.1f}" rx="2">'
            f"<title>{Markup.escape(label)}</title></rect>"
        )
    return "".join(bars)


def _ticks(plot: _Plot) -> str:
    # The score axis: 0, half and the best at the left.
    return "".join(
        f'<line x1="{plot.left}" y1="{plot.y(v):.1f}" x2="{plot.right}"'
        f' y2="{plot.y(v):.1f}" class="axis{"" if v == 0 else " top"}"/>'
        f'<text x="{plot.left - 4}" y="{plot.y(v) + 4:.1f}" class="label"'
        f' text-anchor="end">{v}</text>'
        for v in sorted({0, plot.top // 2, plot.top})
    )


def _dates(plot: _Plot, recent: Sequence[Played], height: int) -> str:
    # Dates under the first, middle and last bars, where they fit.
    dated = dated_bars(len(recent), plot.step)
    # The first date starts at its bar, the last ends at its bar, the middle one is centred.
    anchor = {0: ("start", 0.0), len(recent) - 1: ("end", plot.step)} if len(dated) > 1 else {}
    dates = []
    for i in dated:
        side, shift = anchor.get(i, ("middle", plot.step / 2))
        day = Markup.escape(format_date(recent[i].day, "d MMM", locale=get_locale() or "en"))
        dates.append(
            f'<text x="{plot.left + i * plot.step + shift:.1f}" y="{height - 4}"'
            f' class="label date" text-anchor="{side}">{day}</text>'
        )
    return "".join(dates)


def dated_bars(count: int, step: float, room: float = DATE_ROOM) -> list[int]:
    """Which of *count* bars *step* apart get a date: the newest, and the oldest and the middle
    one only where their dates keep clear of each other (a few days make narrow bars: three
    dates side by side ran into "5 D6cD7cDec").

    >>> dated_bars(3, 20.4), dated_bars(30, 9.5), dated_bars(5, 20.4), dated_bars(1, 20.4)
    ([2], [0, 15, 29], [0, 4], [0])
    """
    last = count - 1
    found = [last]
    if last * step >= room:
        found.insert(0, 0)
    middle = count // 2
    if len(found) == 2 and middle * step >= room and (last - middle) * step >= room:
        found.insert(1, middle)
    return found
