"""Counts the results a crash left uncounted and archives cold games: a sweep at most once a
minute, from requests.

Every finishing move already sweeps (:func:`daily.games.play`); this hook also runs
the sweep when nobody finishes a game. Each process checks its own clock first, so only one
request a minute per process asks Redis, and a Redis lock key keeps it to one sweep a
minute over every worker and host.
"""

from __future__ import annotations

import logging
import time

from flask import Flask, current_app

from daily import archive, reviews
from daily import games as service
from daily.errors import DailyError, StorageError
from daily.web import current_config, current_redis

log = logging.getLogger(__name__)
_DUE = "daily.sweep_due"


def sweep() -> None:
    """Sweeps the pending results if this process has not tried for a minute."""
    now = time.monotonic()
    if now < current_app.extensions.get(_DUE, 0.0):
        return
    current_app.extensions[_DUE] = now + service.SWEEP_INTERVAL_S
    try:
        counted = service.sweep_pending(current_redis(), current_config())
        reviews.sweep_unchecked(current_redis(), current_config())  # games waiting for a table
        archive.sweep(current_redis(), current_config())  # cold games leave Redis
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
