"""Counts the results a crash left uncounted and archives cold games: a sweep at most once a
minute, from requests.

Every finishing move already sweeps (:func:`daily.service.games.play`); this hook also runs
the sweep when nobody finishes a game. Each process checks its own clock first, so only one
request a minute per process asks Redis, and a Redis lock key keeps it to one sweep a
minute over every worker and host.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from flask import Flask, current_app

from daily.core.config import Config
from daily.core.errors import DailyError, StorageError
from daily.service import archive, games, reviews
from daily.web import current_config, current_redis

log = logging.getLogger(__name__)
_DUE = "daily.sweep_due"
_ARCHIVER = "daily.archiver"


def sweep() -> None:
    """Sweeps the pending results if this process has not tried for a minute."""
    now = time.monotonic()
    if now < current_app.extensions.get(_DUE, 0.0):
        return
    current_app.extensions[_DUE] = now + games.SWEEP_INTERVAL_S
    try:
        counted = games.sweep_pending(current_redis(), current_config())
        reviews.sweep_unchecked(current_redis(), current_config())  # games waiting for a table
        _archive_in_background()  # cold games leave Redis
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


def _archive_in_background() -> None:
    """Archives cold games in a thread of this process, unless its last one still runs: a
    batch rewrites day files (seconds), which no request should wait for. The archiver's
    Redis lock keeps it to one over every process and host."""
    running = current_app.extensions.get(_ARCHIVER)
    if running is not None and running.is_alive():
        return
    thread = threading.Thread(target=_archive, args=(current_redis(), current_config()),
                              name="daily-archive", daemon=True)  # fmt: skip
    current_app.extensions[_ARCHIVER] = thread
    thread.start()


def _archive(client: Any, config: Config) -> None:
    try:
        archive.sweep(client, config)
    except Exception:  # a thread's error reaches nobody else: said here, tried next sweep
        log.exception("archiving cold games failed")
