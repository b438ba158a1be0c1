"""The ledger: what a finished game counts toward, decided once.

When a game is counted (its finish, or its release after review) the game service reads the
player's :class:`Standing` and asks :func:`plan` for the whole :class:`Plan`: every board the
game counts on, the player's own :class:`Figures` after it, and the :class:`Cheer`\\ s it
earns. The store carries the plan out (:mod:`daily.store.board_counts`) and keeps the
figures and cheers with the game (:func:`tally_str`); the pages and the script show what the
answer says and decide nothing. Pure: no clock, no Redis, no configuration read here.

The rules, in one place (docs/rankings.md, "The ledger"):

- A practice game, a game held or removed after review, and a game no strategy table can
  check count nowhere. Any other finished game earns its cheers for the upper bonus and the
  all-of-a-kind row.
- A ranked daily counts on its day's board, which lists everyone who finished the day's
  puzzle; a daily of a player not yet *established* is marked new there and gets no number
  among the ranks. A player is established by the count of a ranked daily that makes
  ``established_days`` different days counted (and for good), unless the count may not
  establish them (the budget of new accounts that rank, a day).
- The world boards of one entry a player (best day, longest streak, the advent sum) list the
  established players only, each with their figures over every counted daily, new-player
  days included: becoming established brings those days along.
- A ranked daily counts on the friend code it was played on, and the game opens the board
  of the code it makes; a ranked friend game counts on its code's board.
- A ranked daily counts on each league its player is in when it is counted, new player's or
  not; a member who joins (or starts) a league later the same day brings that day's daily
  along, read from the day's board, which lists everyone
  (:func:`daily.store.league_boards.count_from_board`); earlier days do not count.
- A player's figures (days played, best day, mean, streak now, longest streak) come from their
  counted dailies alone, with one rounding (:func:`figures_of`); the cheers of a daily (a new
  best day, a streak milestone) compare the figures before and after it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from daily.core.errors import DailyError

#: Streak lengths that earn a cheer when a daily reaches them.
MILESTONES = (3, 7, 14, 30, 50, 100, 200, 365)
#: The days the mean of a player's dailies covers, today included.
MEAN_DAYS = 400
#: The advent doors: December 1 to 24.
ADVENT_DOORS = 24

#: What a cheer celebrates.
CheerKind = Literal["bonus", "all_same", "best", "streak"]


@dataclass(frozen=True, slots=True)
class Cheer:
    """Something a finished game earned: the upper *bonus*, the *all_same* row (a Maxi
    Yatzy), a new *best* day (*value*: the total), a *streak* milestone (*value*: its days)."""

    kind: CheerKind
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Figures:
    """A player's figures over their counted dailies: days played, best day, mean (of the last
    :data:`MEAN_DAYS` days, to one decimal), the streak alive and the longest one."""

    days: int
    best: int | None
    mean: float | None
    streak: int
    longest: int


NO_FIGURES = Figures(0, None, None, 0, 0)


@dataclass(frozen=True, slots=True)
class Standing:
    """The player as the ledger reads them before a game counts.

    *days*: the days of their counted ranked dailies (all time); *totals*: the totals their
    notes keep by day (a held game's day too: only counted days are read); *best*: the best
    total their best-days record keeps (it outlives the notes); *established*: whether
    their dailies rank on the world boards; *may_establish*: whether this count may
    establish them; *leagues*: the leagues they are in now.
    """

    days: frozenset[date] = frozenset()
    totals: Mapping[date, int] = dataclasses.field(default_factory=dict)
    best: int | None = None
    established: bool = False
    may_establish: bool = True
    leagues: tuple[str, ...] = ()

    def figures(self, today: date) -> Figures:
        """The player's figures on *today*: what home, ``/me`` and the history show."""
        return figures_of(self.days, self.totals, self.best, today)


@dataclass(frozen=True, slots=True)
class Game:
    """What the ledger needs of a finished game: whose, which day or codes, and its sheet.

    *day*: a daily's day (None for any other game); *codes*: the friend code boards it
    counts on; *counts*: False for a game that counts on no board (practice, or rules no
    table checks); *held*: a game held or removed after review, which earns nothing.
    """

    game_id: str
    player_id: str
    total: int
    finished_at: float
    day: date | None = None
    codes: tuple[str, ...] = ()
    bonus: bool = False
    all_same: bool = False
    counts: bool = True
    held: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one count writes: the day's board (*day*, marked *new* or ranked), the
    world boards (*world*: best day, streak, and the advent *doors*: each door's day to add),
    whether it *establishes* the player, the friend *codes*' boards, the *leagues*, the
    player's *figures* after it and the *cheers* it earns (kept with the game)."""

    game: Game
    day: date | None = None
    new: bool = False
    days_left: int = 0
    world: bool = False
    establishes: bool = False
    doors: tuple[date, ...] = ()
    codes: tuple[str, ...] = ()
    leagues: tuple[str, ...] = ()
    figures: Figures | None = None
    cheers: tuple[Cheer, ...] = ()


def plan(game: Game, standing: Standing, established_days: int, today: date) -> Plan:
    """The plan of counting *game* for a player of *standing* on *today*.

    >>> first = Game("g1", "p1", 300, 0.0, day=date(2026, 12, 5), bonus=True)
    >>> p = plan(first, Standing(), 3, date(2026, 12, 5))
    >>> p.new, p.days_left, p.world, p.figures.days, [c.kind for c in p.cheers]
    (True, 2, False, 1, ['bonus'])
    >>> seen = Standing(frozenset({date(2026, 12, 3), date(2026, 12, 4)}),
    ...                 {date(2026, 12, 3): 250, date(2026, 12, 4): 280}, best=280)
    >>> p = plan(first, seen, 3, date(2026, 12, 5))
    >>> p.new, p.establishes, p.world, p.doors[0], p.figures
    (False, True, True, datetime.date(2026, 12, 3), Figures(days=3, best=300, mean=276.7, streak=3, longest=3))
    >>> [(c.kind, c.value) for c in p.cheers]
    [('bonus', None), ('best', 300), ('streak', 3)]
    """  # noqa: E501
    if game.held:
        return Plan(game)
    cheers = _sheet_cheers(game)
    if not game.counts:
        return Plan(game, cheers=cheers)
    if game.day is None:  # a friend game or a code's first game: its codes' boards only
        return Plan(game, codes=game.codes, cheers=cheers)
    day = game.day
    before = standing.figures(today)
    days = standing.days | {day}
    totals = {**standing.totals, day: game.total}
    best = max(standing.best or 0, game.total)
    after = figures_of(days, totals, best, today)
    established = standing.established or (len(days) >= established_days and standing.may_establish)
    establishes = established and not standing.established
    doors = tuple(sorted(d for d in days if is_door(d))) if establishes else ()
    if established and not establishes and is_door(day):
        doors = (day,)
    return Plan(
        game,
        day=day,
        new=not established,
        days_left=0 if established else max(0, established_days - len(days)),
        world=established,
        establishes=establishes,
        doors=doors,
        codes=game.codes,
        leagues=standing.leagues,
        figures=after,
        cheers=cheers + _record_cheers(day, game.total, before, after, standing.days),
    )


def is_established(marked: bool, days: int, established_days: int) -> bool:
    """Whether a player whose record is *marked* established, or who has *days* dailies
    counted already, is established: a player counted on ``established_days`` days before
    the mark was kept is too.

    >>> is_established(True, 1, 3), is_established(False, 3, 3), is_established(False, 2, 3)
    (True, True, False)
    """
    return marked or days >= established_days


def _sheet_cheers(game: Game) -> tuple[Cheer, ...]:
    found = [Cheer("bonus")] if game.bonus else []
    return tuple(found + [Cheer("all_same")] if game.all_same else found)


def _record_cheers(
    day: date, total: int, before: Figures, after: Figures, counted: frozenset[date]
) -> tuple[Cheer, ...]:
    """A new best day (over at least one day before), and a streak milestone that this day
    reached (it ends the run alive, and the run grew with it)."""
    found = []
    if day in counted:  # counted before (a release repeats a count): nothing new
        return ()
    if before.best is not None and total > before.best:
        found.append(Cheer("best", total))
    if after.streak in MILESTONES and after.streak > before.streak:
        found.append(Cheer("streak", after.streak))
    return tuple(found)


def is_door(day: date) -> bool:
    """Whether *day* opens a door of its year's advent calendar (December 1 to 24).

    >>> is_door(date(2026, 12, 24)), is_door(date(2026, 12, 25))
    (True, False)
    """
    return day.month == 12 and day.day <= ADVENT_DOORS


def percentile(field: int, above: int, tied: int) -> int | None:
    """The share of a day's *field* that a score beats, in whole percent rounded down: those
    who scored less and half of the *tied* (the player among them); None on a field of one
    or with nobody beaten. *above*: how many scored more. The best of two beats 75 %, never
    100 %.

    >>> percentile(2, 0, 1), percentile(4, 0, 1), percentile(5, 1, 2)
    (75, 87, 60)
    >>> percentile(1, 0, 1), percentile(3, 2, 1)
    (None, None)
    """
    below = field - above - tied
    if field < 2 or below <= 0:
        return None
    return (100 * below + 50 * tied) // field


def figures_of(
    days: Iterable[date], totals: Mapping[date, int], best: int | None, today: date
) -> Figures:
    """The figures of a player whose counted dailies are on *days* (*totals*: what their notes
    keep; *best*: their best-days record's best) on *today*: rounded here, once.

    >>> d1, d2, d4 = date(2026, 12, 1), date(2026, 12, 2), date(2026, 12, 4)
    >>> figures_of({d1, d2, d4}, {d1: 300, d2: 291}, None, date(2026, 12, 5))
    Figures(days=3, best=300, mean=295.5, streak=1, longest=2)
    >>> figures_of(set(), {}, None, d1)
    Figures(days=0, best=None, mean=None, streak=0, longest=0)
    """
    counted = sorted(set(days))
    kept = [totals[d] for d in counted if d in totals and (today - d).days < MEAN_DAYS]
    known = [totals[d] for d in counted if d in totals] + ([best] if best is not None else [])
    return Figures(
        days=len(counted),
        best=max(known) if counted and known else None,
        mean=mean_of(kept),
        streak=_alive(counted, today),
        longest=max(_runs(counted), default=0),
    )


def mean_of(totals: list[int]) -> float | None:
    """The mean of *totals* to one decimal, halves rounded up; None for none.

    >>> mean_of([300, 291]), mean_of([1, 2, 2]), mean_of([])
    (295.5, 1.7, None)
    """
    if not totals:
        return None
    exact = Decimal(sum(totals)) / Decimal(len(totals))
    return float(exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _runs(days: list[date]) -> list[int]:
    """The lengths of the runs of consecutive *days* (sorted), in order."""
    runs: list[int] = []
    for i, day in enumerate(days):
        if i and (day - days[i - 1]).days == 1:
            runs[-1] += 1
        else:
            runs.append(1)
    return runs


def _alive(days: list[date], today: date) -> int:
    """The run that ends today or yesterday (a streak is alive until a day is missed)."""
    if not days or (today - days[-1]).days > 1:
        return 0
    return _runs(days)[-1]


# -- what a game keeps of its count -----------------------------------------------------------

#: The field of a game's record (an extra, kept by the archive too) that keeps its tally.
TALLY = "tally"


@dataclass(frozen=True, slots=True)
class Tally:
    """What a counted game keeps of its plan, to show at its finish and after: the player's
    *figures* then (a ranked daily), whether it was a *new* player's (and their *days_left*),
    and its *cheers*."""

    figures: Figures | None = None
    new: bool = False
    days_left: int = 0
    cheers: tuple[Cheer, ...] = ()


def tally_of(found: Plan) -> Tally:
    """What a game keeps of the plan that counted it."""
    return Tally(found.figures, found.new, found.days_left, found.cheers)


def tally_str(tally: Tally) -> str:
    """*tally* in a short string (a game's hash keeps it under 64 bytes).

    >>> tally_str(Tally(Figures(3, 300, 276.7, 3, 3), False, 0, (Cheer("best", 300),)))
    '3,300,2767,3,3,0,0;best:300'
    >>> tally_str(Tally(cheers=(Cheer("bonus"),)))
    ';bonus'
    """
    cheers = ",".join(c.kind if c.value is None else f"{c.kind}:{c.value}" for c in tally.cheers)
    figures = tally.figures
    if figures is None:
        return ";" + cheers
    mean = "" if figures.mean is None else str(round(figures.mean * 10))
    best = "" if figures.best is None else str(figures.best)
    parts = [
        figures.days,
        best,
        mean,
        figures.streak,
        figures.longest,
        int(tally.new),
        tally.days_left,
    ]
    return ",".join(str(p) for p in parts) + ";" + cheers


def parse_tally(text: str) -> Tally:
    """The :class:`Tally` that :func:`tally_str` wrote.

    >>> parse_tally('3,300,2767,3,3,0,0;best:300').figures.mean
    276.7
    >>> parse_tally(';bonus,all_same').cheers
    (Cheer(kind='bonus', value=None), Cheer(kind='all_same', value=None))
    """
    try:
        head, _, tail = text.partition(";")
        cheers = tuple(_cheer(part) for part in tail.split(",") if part)
        if not head:
            return Tally(cheers=cheers)
        days, best, mean, streak, longest, new, left = head.split(",")
        figures = Figures(
            int(days),
            int(best) if best else None,
            int(mean) / 10 if mean else None,
            int(streak),
            int(longest),
        )
        return Tally(figures, new == "1", int(left), cheers)
    except ValueError as e:
        raise DailyError(f"not a game's tally: {text!r}") from e


_KINDS: tuple[CheerKind, ...] = ("bonus", "all_same", "best", "streak")


def _cheer(text: str) -> Cheer:
    kind, _, value = text.partition(":")
    for known in _KINDS:
        if kind == known:
            return Cheer(known, int(value) if value else None)
    raise ValueError(f"unknown cheer: {kind!r}")
