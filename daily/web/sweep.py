"""The service's sweeps, run from requests: results a crash left uncounted, games that waited
for their table's luck check, and cold games to archive.

Every finishing move already sweeps its pending results (:func:`daily.service.games.play`);
this hook also runs that sweep when nobody finishes a game, at most once a minute. Waiting
games are checked every few seconds while any wait, and cold games archived, each in a
background thread of the process, never inside a request (their work is
:mod:`daily.service.upkeep`'s). Each process checks its own clock first, so few requests ask
Redis, and Redis locks keep each sweep to one over every worker and host.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app

from daily.core.config import Config
from daily.core.errors import DailyError, StorageError
from daily.service import games, reviews, upkeep
from daily.web.context import current_config, current_redis

log = logging.getLogger(__name__)
_DUE = "daily.sweep_due"
_REVIEWS_DUE = "daily.reviews_due"
_ARCHIVER = "daily.archiver"
_REVIEWER = "daily.reviewer"


def sweep() -> None:
    """Sweeps the pending results if this process has not tried for a minute; starts a check
    of the waiting games every few seconds."""
    now = time.monotonic()
    if now >= current_app.extensions.get(_REVIEWS_DUE, 0.0):
        current_app.extensions[_REVIEWS_DUE] = now + reviews.SWEEP_INTERVAL_S
        _in_background(_REVIEWER, upkeep.review_waiting)  # games waiting for their table's check
    if now < current_app.extensions.get(_DUE, 0.0):
        return
    current_app.extensions[_DUE] = now + games.SWEEP_INTERVAL_S
    try:
        counted = games.sweep_pending(current_redis(), current_config())
        _in_background(_ARCHIVER, upkeep.archive_cold)  # cold games leave Redis
    except StorageError as e:  # Redis down: the request answers 503 itself; one line here
        log.warning("the sweep of pending results failed: %s", e)
        return
    except DailyError:  # a bad record: the request itself must not fail
        log.exception("the sweep of pending results failed")
        return
    if counted:
        log.info("counted %d pending results", counted)


def init_app(app: Flask) -> None:
    """Runs :func:`sweep` before requests."""
    app.extensions[_DUE] = 0.0
    app.before_request(sweep)


def _in_background(name: str, work: Callable[[Any, Config], None]) -> None:
    """Runs *work* in a thread of this process, unless its last one still runs: a batch of
    archiving rewrites day files, a batch of checks takes seconds, and no request should wait
    for either. Each sweep's Redis lock keeps it to one over every process and host."""
    running = current_app.extensions.get(name)
    if running is not None and running.is_alive():
        return
    thread = threading.Thread(
        target=work, args=(current_redis(), current_config()), name=name, daemon=True
    )
    current_app.extensions[name] = thread
    thread.start()
