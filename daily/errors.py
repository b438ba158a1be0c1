"""The one error hierarchy of the package: every error the code raises on purpose."""

from __future__ import annotations


class DailyError(Exception):
    """Base of every error raised on purpose by :mod:`daily`."""


class RulesError(DailyError, ValueError):
    """Something the rules do not know: an unknown ruleset, row or option."""


class InvalidMoveError(RulesError):
    """A malformed move: unknown row, hold positions out of range or repeated."""


class IllegalMoveError(RulesError):
    """A well-formed move that the rules do not allow now: row used, no rolls left."""


class ReplayError(DailyError):
    """A move log that does not replay; ``index`` is the first bad move."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"move {index}: {message}")
        self.index = index
        self.reason = message


class StorageError(DailyError):
    """The store could not be reached or answered something unexpected."""
