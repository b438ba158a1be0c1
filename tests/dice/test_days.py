"""The day arithmetic is total: every date a request can name (year 1 to 9999, leap days,
the calendar's last day) has an opening, a close and a reveal, in every time zone, and the
days tile the calendar (issue 39: 9999-12-31 raised OverflowError, and answered 500)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import example, given, settings
from hypothesis import strategies as st

from daily.core import dice

#: UTC, the zones furthest behind and ahead of it, one with summer time at 02:00 and one
#: half an hour off the hour.
ZONES = [UTC, ZoneInfo("Etc/GMT+12"), ZoneInfo("Pacific/Kiritimati"),
         ZoneInfo("Europe/Copenhagen"), ZoneInfo("America/St_Johns")]  # fmt: skip
EDGES = [date.min, date(1, 1, 2), dice.EPOCH, date(2028, 2, 29), date(2100, 2, 28),
         date(9999, 12, 30), date.max]  # fmt: skip
days = st.dates(min_value=date.min, max_value=date.max)
zones = st.sampled_from(ZONES)


@settings(max_examples=300, deadline=None)
@given(days, zones)
@example(date.max, UTC)
@example(date.min, ZoneInfo("Pacific/Kiritimati"))
@example(date.max, ZoneInfo("Etc/GMT+12"))
def test_every_day_opens_closes_and_reveals_in_order(day: date, zone: ZoneInfo) -> None:
    puzzle = dice.Day(day, zone)
    assert puzzle.opens_at < puzzle.closes_at <= puzzle.reveals_at
    length = puzzle.closes_at - puzzle.opens_at
    if day == date.max:  # the calendar's last moment: no midnight after it, nor an hour
        assert length == timedelta(days=1, microseconds=-1)
        assert puzzle.reveals_at == puzzle.closes_at
    else:
        assert timedelta(hours=22) <= length <= timedelta(hours=26)  # summer time, or not
        assert puzzle.reveals_at - puzzle.closes_at == dice.REVEAL_GRACE
    for moment in (puzzle.opens_at, puzzle.closes_at, puzzle.reveals_at):
        moment.isoformat()
        moment.timestamp()  # what a key's lifetime is computed from
    assert puzzle.window.is_open(puzzle.opens_at)
    assert not puzzle.is_revealed(puzzle.opens_at)


@settings(max_examples=200, deadline=None)
@given(st.dates(min_value=date.min, max_value=date(9999, 12, 30)), zones)
@example(date(9999, 12, 30), UTC)
@example(date(2028, 2, 28), ZoneInfo("Europe/Copenhagen"))
@example(date(2026, 3, 28), ZoneInfo("Europe/Copenhagen"))  # the night the clocks go forward
def test_the_days_tile_the_calendar(day: date, zone: ZoneInfo) -> None:
    one, two = dice.Day(day, zone), dice.Day(day + timedelta(days=1), zone)
    assert one.closes_at == two.opens_at
    assert two.number == one.number + 1
    assert dice.today(one.opens_at, zone).date == day


@given(days, zones, st.datetimes(min_value=datetime.min, max_value=datetime.max))
def test_any_moment_is_before_during_or_after_any_day(
    day: date, zone: ZoneInfo, at: datetime
) -> None:
    puzzle, now = dice.Day(day, zone), at.replace(tzinfo=UTC)
    assert puzzle.is_open(now) == (day >= dice.EPOCH and now >= puzzle.opens_at)
    assert puzzle.is_revealed(now) == (now >= puzzle.reveals_at)
    window = dice.code_window(now, timedelta(days=7), puzzle)
    assert window.closes_at <= puzzle.closes_at and window.reveals_at <= puzzle.reveals_at


def test_the_edges_of_the_calendar() -> None:
    numbers = [dice.Day(day, UTC).number for day in EDGES]
    assert numbers == sorted(numbers) and dice.Day(dice.EPOCH, UTC).number == 1
    assert dice.Day(date(2028, 2, 29), UTC).number + 1 == dice.Day(date(2028, 3, 1), UTC).number
    last = dice.Day(date.max, UTC)
    assert last.closes_at == last.reveals_at == datetime.max.replace(tzinfo=UTC)
