"""What a server keeps doing beside its requests: the strategy tables it gets as it starts,
and the sweeps' background work.

Started by the servers, never by the app factory: ``daily serve`` (:mod:`daily.cli`) and
gunicorn's hooks (``gunicorn.conf.py``: each worker as it starts, the master as it stops)
call :func:`start` and :func:`stop`, so that building an app (a test's, a benchmark's, a
script's) starts nothing. The sweeps are run from requests (:mod:`daily.web.sweep` decides
when); their work, each in a thread of its own, is here.
"""

from __future__ import annotations

import logging

from daily.core.config import Config
from daily.core.errors import StorageError
from daily.service import archive, backend, reviews, tables

log = logging.getLogger(__name__)


def start(config: Config) -> None:
    """Starts what a server runs beside its requests: the configured strategy tables still
    missing here are fetched or built in the background (no request waits for a table)."""
    tables.start_builds(config)


def stop(config: Config) -> None:
    """Stops what :func:`start` left running on this host: the table builder (it runs in a
    session of its own, and would build on, at full speed, after the server is gone)."""
    tables.stop_builds(config)


def review_waiting(client: backend.Client, config: Config) -> None:
    """Checks the games that waited for their table (a sweep's thread: it raises nothing)."""
    try:
        held = reviews.sweep_unchecked(client, config)
    except StorageError:  # Redis down: every request says so (503), and the pending sweep
        return  # logs it once a minute; the checks wait for the next sweep
    except Exception:  # a thread's error reaches nobody else: said here, tried next sweep
        log.exception("checking the games that waited for their table failed")
        return
    if held:
        log.info("held %d games for review after their table came", held)


def archive_cold(client: backend.Client, config: Config) -> None:
    """Moves cold games to the archive (a sweep's thread: it raises nothing)."""
    try:
        archive.sweep(client, config)
    except Exception:  # a thread's error reaches nobody else: said here, tried next sweep
        log.exception("archiving cold games failed")
