"""The service's Prometheus metrics, and one small function to record each event.

Only :mod:`prometheus_client` is imported here, so any layer may record an event without
pulling in Flask or Redis. Under gunicorn the workers write their values to files in
``PROMETHEUS_MULTIPROC_DIR`` (set up by ``gunicorn.conf.py``) and a scrape adds up every
worker's; the variable must be set before this module is first imported. Labels take only
bounded values (endpoint names, modes, rulesets, error codes), never a path or an id.
docs/operations.md describes every metric.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

#: A strategy table's states, for :func:`table_state`.
TABLE_STATES = ("missing", "building", "ready", "bad")
#: Where a Redis error was met, for :func:`redis_error`.
REDIS_SOURCES = ("store", "health", "limiter")

REQUESTS = Counter(
    "daily_http_requests",
    "HTTP requests answered, by Flask endpoint, method and status.",
    ["endpoint", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "daily_http_request_duration_seconds",
    "Time from the first hook to the answer, by Flask endpoint, method and status.",
    ["endpoint", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
GAMES_STARTED = Counter("daily_games_started", "Games started, by mode.", ["mode"])
GAMES_FINISHED = Counter("daily_games_finished", "Games finished, by mode.", ["mode"])
MOVES_REFUSED = Counter(
    "daily_moves_refused", "Rolls and scores refused, by the error JSON's code.", ["code"]
)
GAMES_HELD = Counter(
    "daily_games_held_for_review", "Finished games held back from a board for review.", ["mode"]
)
TABLE_STATE = Gauge(
    "daily_strategy_table_state",
    "1 for a strategy table's current state (missing, building, ready, bad), 0 for the others.",
    ["ruleset", "state"],
    # The last process to change a table's state knows it best; the others never saw it.
    multiprocess_mode="mostrecent",
)
TABLE_BUILDS = Counter(
    "daily_strategy_table_builds_started", "Strategy table builds started.", ["ruleset"]
)
TABLES_REFUSED = Counter(
    "daily_strategy_tables_refused",
    "Strategy tables refused by their digest check (never mapped; fetched or built again).",
    ["ruleset"],
)
TABLE_BUILD_SECONDS = Histogram(
    "daily_strategy_table_build_seconds",
    "Time taken by each finished strategy table build.",
    ["ruleset"],
    buckets=(1.0, 5.0, 15.0, 60.0, 180.0, 600.0, 1800.0),
)
REDIS_ERRORS = Counter(
    "daily_redis_errors", "Redis errors, by where they were met and by kind.", ["source", "kind"]
)
RATE_LIMITED = Counter(
    "daily_rate_limited", "Requests refused with 429, by the limit met.", ["limit"]
)

REQUESTS_SHED = Counter(
    "daily_requests_shed",
    "Requests shed with 503 busy while the worker was saturated, by lane (daily.web.admission).",
    ["lane"],
)
PROOFS = Counter(
    "daily_proofs_of_work",
    "Proofs of work sent for new players, by outcome (accepted, or why refused).",
    ["outcome"],
)


def request_answered(endpoint: str, method: str, status: int, seconds: float) -> None:
    """Counts one answered request and its duration."""
    REQUESTS.labels(endpoint, method, str(status)).inc()
    REQUEST_SECONDS.labels(endpoint, method, str(status)).observe(seconds)


def game_started(mode: str) -> None:
    """Counts a new game of *mode*."""
    GAMES_STARTED.labels(mode).inc()


def game_finished(mode: str) -> None:
    """Counts a game of *mode* whose last move was just stored."""
    GAMES_FINISHED.labels(mode).inc()


def move_refused(code: str) -> None:
    """Counts a roll or score refused with the error *code* (``illegal_move``, ...)."""
    MOVES_REFUSED.labels(code).inc()


def game_held_for_review(mode: str) -> None:
    """Counts a finished game of *mode* held back from its board for review."""
    GAMES_HELD.labels(mode).inc()


def table_state(ruleset: str, state: str) -> None:
    """Records that *ruleset*'s strategy table is now *state* (see :data:`TABLE_STATES`)."""
    if state not in TABLE_STATES:
        raise ValueError(f"unknown table state: {state!r} (known: {', '.join(TABLE_STATES)})")
    for each in TABLE_STATES:
        TABLE_STATE.labels(ruleset, each).set(1 if each == state else 0)


def table_build_started(ruleset: str) -> None:
    """Counts a strategy table build of *ruleset* and marks the table as building."""
    TABLE_BUILDS.labels(ruleset).inc()
    table_state(ruleset, "building")


def table_refused(ruleset: str) -> None:
    """Counts a table of *ruleset* refused by its digest check, and marks the table bad."""
    TABLES_REFUSED.labels(ruleset).inc()
    table_state(ruleset, "bad")


def table_build_finished(ruleset: str, seconds: float) -> None:
    """Records a finished build of *ruleset*'s table and marks it ready."""
    TABLE_BUILD_SECONDS.labels(ruleset).observe(seconds)
    table_state(ruleset, "ready")


def redis_error(source: str, error: BaseException) -> None:
    """Counts a Redis error met at *source* (see :data:`REDIS_SOURCES`), by its class."""
    REDIS_ERRORS.labels(source, type(error).__name__).inc()


def rate_limited(limit: str) -> None:
    """Counts a request refused by the rate limit *limit* (``players``, ``moves``, ``pages``)."""
    RATE_LIMITED.labels(limit).inc()


def request_shed(lane: str) -> None:
    """Counts a request of *lane* (``move``, ``write``, ``other``) shed while saturated."""
    REQUESTS_SHED.labels(lane).inc()


# Streak reminders: counted by ``daily remind`` (daily/service/remind.py).
REMINDERS_SENT = Counter("daily_reminders_sent", "Streak reminders a push service took.")
REMINDERS_FAILED = Counter(
    "daily_reminders_failed",
    "Streak reminders not delivered after their retries, by the last answer's class.",
    ["status"],
)
REMINDERS_SKIPPED = Counter(
    "daily_reminders_skipped",
    "Due reminders not sent: today's daily played, or the day already claimed.",
    ["reason"],
)
SUBSCRIPTIONS_REMOVED = Counter(
    "daily_reminder_subscriptions_removed",
    "Reminder subscriptions dropped by the sender: gone at the push service (404, 410), or "
    "expired or deleted with their player.",
    ["reason"],
)
REMINDER_LAG = Histogram(
    "daily_reminder_lag_seconds",
    "From a sent reminder's due time to its hand-over to the sender.",
    buckets=(1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0),
)


def reminder_sent(lag_s: float) -> None:
    """Counts a reminder delivered, handed to the sender *lag_s* seconds after it was due."""
    REMINDERS_SENT.inc()
    REMINDER_LAG.observe(max(0.0, lag_s))


def reminder_failed(status: int) -> None:
    """Counts a reminder that failed for good, its last answer *status* (0: none came)."""
    REMINDERS_FAILED.labels("none" if status == 0 else f"{status // 100}xx").inc()


def reminder_skipped(reason: str) -> None:
    """Counts a due reminder not sent (``played``, ``done``)."""
    REMINDERS_SKIPPED.labels(reason).inc()


def subscription_removed(reason: str) -> None:
    """Counts a subscription the sender dropped (``gone``: 404 or 410; ``expired``)."""
    SUBSCRIPTIONS_REMOVED.labels(reason).inc()


def proof_of_work(outcome: str) -> None:
    """Counts a proof of work sent for a new player: ``accepted``, or why it was refused."""
    PROOFS.labels(outcome).inc()
