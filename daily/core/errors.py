"""The package's error hierarchy, as itsdangerous keeps its in ``exc.py``: the root,
:class:`DailyError`, and every error the core, the strategy engine, the services, the store
and the command line raise, each subclassing the built-in its callers already catch and
carrying its context. The web layer's own, ``HttpError``, is in :mod:`daily.web.http_errors`,
whose ``TABLE`` maps each error a request can meet to its status and :class:`ErrorCode`;
``tests/test_layers.py`` fails on an error class anywhere else.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


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


class SignInLinkError(DailyError):
    """A sign-in link that is forged, expired, revoked, or names a player who is gone."""


class InvalidNameError(DailyError, ValueError):
    """A display name that is empty, too long, not printable or blank to the eye."""


class ConfusableNameError(InvalidNameError):
    """A display name that spells a Latin name with letters of another script."""


class BoardError(DailyError, ValueError):
    """A result or a board request that the rankings cannot take."""


class DeletedTodayError(DailyError):
    """A ranked game started on a browser whose player was deleted earlier that day."""


# Errors of one module each: its caller meets them, or the command line names them.


class ConfigError(DailyError):
    """A setting is missing or invalid; the app refuses to start."""


class ModeError(DailyError, ValueError):
    """A mode name that no mode has."""


class CodeError(DailyError, ValueError):
    """Text that is not a friend code."""


class VerifyError(DailyError, ValueError):
    """A record that cannot be read, or that does not replay to what it claims."""


class ReviewError(DailyError, ValueError):
    """An operator's review command that does not apply (an unknown or unheld game)."""


class AlreadyApplied(DailyError):
    """The request's idempotency key is the one of the last move stored: it was applied."""


class ArchiveError(DailyError):
    """An archive file that cannot be read back as written (a checksum that does not match)."""


class TableMissingError(RulesError):
    """The strategy table of a ruleset is not built (and nobody is building it)."""

    def __init__(self, ruleset: Any, message: str) -> None:
        super().__init__(message)
        #: The :class:`daily.core.rules.Ruleset` (typed loosely: this module imports none).
        self.ruleset = ruleset


class TableBuildingError(TableMissingError):
    """The strategy table of a ruleset is being built; ``status`` tells how far it has got."""

    def __init__(self, ruleset: Any, status: Any) -> None:
        super().__init__(ruleset, f"the strategy table of {ruleset.id} is being built")
        #: The build's :class:`daily.strategy.specs.TableStatus`.
        self.status = status


class UsageError(DailyError):
    """Bad input to a ``daily`` command; its message is the one line the user sees."""


class TableStoreError(DailyError, OSError):
    """The strategy tables' store (``DAILY_TABLES_URL``, :mod:`daily.tables.shelf`) failed."""


class BadTableError(DailyError):
    """A strategy table that does not pass its digest check (its size or SHA-256 differs, or
    its digest's record is missing or not signed with the service's key): never mapped."""


class ErrorCode(StrEnum):
    """Every machine-readable code of the API's error JSON (``{"error": {"code": ...}}``).

    The API raises them, the OpenAPI document lists them and the pages' script has a
    translated message for each (see :data:`daily.web.i18n.ERROR_MESSAGES`).
    """

    BAD_REQUEST = "bad_request"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    REQUEST_ENTITY_TOO_LARGE = "request_entity_too_large"
    INVALID_MOVE = "invalid_move"
    CONFUSABLE_NAME = "confusable_name"
    UNAUTHORIZED = "unauthorized"
    CROSS_SITE = "cross_site"
    HINTS_NOT_ALLOWED = "hints_not_allowed"
    NOT_FOUND = "not_found"
    NOT_OPEN = "not_open"
    CONFLICT = "conflict"
    ILLEGAL_MOVE = "illegal_move"
    NO_STRATEGY = "no_strategy"
    CODE_CLOSED = "code_closed"
    TOO_MANY_REQUESTS = "too_many_requests"
    STORAGE_UNAVAILABLE = "storage_unavailable"
    STRATEGY_TABLE_MISSING = "strategy_table_missing"
    STRATEGY_TABLE_BUILDING = "strategy_table_building"
    REPLAY_FAILED = "replay_failed"
    INTERNAL = "internal"
    BAD_LINK = "bad_link"
    DELETED_TODAY = "deleted_today"
    LEAGUE_FULL = "league_full"
    TOO_MANY_LEAGUES = "too_many_leagues"
    NOT_OWNER = "not_owner"
    REMOVED_FROM_LEAGUE = "removed_from_league"
    BUSY = "busy"


class DetailedError(DailyError):
    """A domain error whose answer carries more than its message (``details``)."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.details = details


class BadInputError(DetailedError, ValueError):
    """Input that the service cannot read (a bad field, an unknown mode or level)."""


class NotFoundError(DetailedError):
    """Something that does not exist, or is not the asker's to see."""


class NotOpenError(DetailedError):
    """A daily puzzle whose day has not started."""


class ConflictError(DetailedError):
    """A move or start that clashes with what is stored (details: the game's id or moves)."""


class MoveConflict(ConflictError):
    """The move does not follow the stored log (a stale, repeated or concurrent move)."""


class CodeClosedError(DetailedError):
    """A friend code whose ranked games are over while its dice are not public yet."""


class NotAllowedError(DetailedError):
    """Something the game's mode does not allow; ``code`` says what (hints, analysis)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class NoStrategyError(DetailedError):
    """A ruleset the strategy model cannot play (no hints, analysis or computer for it)."""


class LeagueFullError(DetailedError):
    """A league that holds as many members as it may (details: the ``limit``)."""


class TooManyLeaguesError(DetailedError):
    """A player who is in as many leagues as they may be (details: the ``limit``)."""


class NotOwnerError(DetailedError):
    """Something only a league's owner may do: rename it, remove a member."""


class RemovedError(DetailedError):
    """A player the league's owner removed, joining again before the owner readmits them."""
