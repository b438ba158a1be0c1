"""gunicorn's settings for the daily service; the Procfile's web process runs with them.

A threaded worker (gthread): a request is short (a few Redis round trips and some Python), so
threads keep the app simple, and their number is the headroom for clients that send slowly.
A slow client holds one thread until its request is complete, so each worker keeps far more
threads than it has requests to run at once; a buffering reverse proxy in front (nginx)
takes slow clients off the workers entirely. docs/operations.md has the figures behind these
numbers and what to put in front.

Environment: ``WEB_CONCURRENCY`` (worker processes, default 2), ``DAILY_THREADS`` (threads a
worker, default 32), ``PORT`` (gunicorn binds 0.0.0.0:$PORT when it is set), and
``DAILY_TRUSTED_PROXIES`` (as for the app: the proxies in front, by address or CIDR). All are
read by the app's settings model (daily.core.config), once, as this file is read; a bad one
stops gunicorn with its name. Command-line options override these settings.

No log line carries a token: the app's access log and gunicorn's own loggers (its access log
too, should a command line turn it on) pass through :mod:`daily.core.redact`.

Metrics: every worker writes its Prometheus values to files in ``PROMETHEUS_MULTIPROC_DIR``
(a fresh temporary folder when it is unset), which a scrape of ``/metrics`` adds up.

Strategy tables: every worker, as it starts (``post_worker_init``: the app factory starts
nothing), asks for the tables still missing (:mod:`daily.service.upkeep`); one builder
process a host builds them (the first worker to ask hands it the build lock, the others find
it held), at a lower CPU priority than the workers, and the master stops it on exit.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

# gunicorn reads every public name of this module as a setting: helpers start with "_".
_METRICS_VAR = "PROMETHEUS_MULTIPROC_DIR"


def _settings() -> tuple[Any, Any]:
    # This server's settings and the app's, read by the app's own settings model (a blank
    # variable counts as unset; a bad one stops gunicorn with its name). daily.core.config
    # imports no prometheus_client.
    from pydantic import Field

    from daily.core.config import load
    from daily.core.environment import Settings
    from daily.core.errors import ConfigError
    from daily.core.parsed import Count

    class Server(Settings):
        workers: Count = Field(default=2, validation_alias="WEB_CONCURRENCY")
        threads: Count = Field(default=32, validation_alias="DAILY_THREADS")

    try:
        return Server.read(), load()
    except ConfigError as e:
        raise SystemExit(f"gunicorn.conf.py: {e}") from None


def _forwarded_allow_ips(proxies: tuple[Any, ...]) -> str:
    # The app trusts X-Forwarded-For and -Proto from the proxies DAILY_TRUSTED_PROXIES names.
    # gunicorn reads X-Forwarded-Proto itself from the addresses listed here: the same ones
    # (none without a proxy: a client could claim https), as the app's settings read them.
    # FORWARDED_ALLOW_IPS, gunicorn's own variable, still wins.
    if os.environ.get("FORWARDED_ALLOW_IPS"):
        return os.environ["FORWARDED_ALLOW_IPS"]
    # One address as itself (10.0.0.2), a block by its CIDR (10.1.0.0/16).
    return ",".join(str(p.network_address if p.num_addresses == 1 else p) for p in proxies)


def _metrics_dir() -> str:
    # Set here, while the file is read: before any process imports prometheus_client, which
    # reads the variable once (with --preload the master imports the app before any hook).
    folder = os.environ.get(_METRICS_VAR)
    if not folder:
        folder = tempfile.mkdtemp(prefix="daily-metrics-")
        os.environ[_METRICS_VAR] = folder
        # At the master's exit, whatever ends it (a failed bind too); never a worker's.
        atexit.register(_remove_folder, folder, os.getpid())
    return folder


def _remove_folder(folder: str, master: int) -> None:
    if os.getpid() == master:
        shutil.rmtree(folder, ignore_errors=True)


_server, _app = _settings()
wsgi_app = "daily:create_app()"
workers = _server.workers
worker_class = "gthread"
threads = _server.threads
# Workers that stop answering the arbiter for this long are restarted; a request itself
# takes milliseconds (a first hint of a 5-dice ruleset builds its table: a few seconds).
timeout = 30
graceful_timeout = 20
# Kept-alive connections wait this long for their next request (a proxy reuses them).
keepalive = 5
forwarded_allow_ips = _forwarded_allow_ips(_app.trusted_proxies)
# The app writes one JSON access line a request (daily.access); gunicorn's would repeat it.
accesslog = None
_metrics_dir()


def on_starting(server: Any) -> None:
    """Empties the metrics folder (values of an earlier run must not be added to this one's)
    and keeps tokens out of gunicorn's log lines (the workers inherit the filters)."""
    from daily.core import redact

    redact.install()
    for stale in Path(os.environ[_METRICS_VAR]).glob("*.db"):
        stale.unlink()


def child_exit(server: Any, worker: Any) -> None:
    """Drops a dead worker's live gauges (its counters keep counting in the totals)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker: Any) -> None:
    """Readies a worker: its admission control learns how many threads it has (requests
    waiting to run may hold only their share of them, so a move always finds one:
    daily.web.admission), and its upkeep starts with its app's settings (the strategy tables
    still missing are fetched or built in the background, one builder a host)."""
    from daily.service import upkeep
    from daily.web import admission
    from daily.web.context import config_of

    admission.bound_threads(worker.wsgi, worker.cfg.threads)
    upkeep.start(config_of(worker.wsgi))


def on_exit(server: Any) -> None:
    """Stops this host's strategy table builder (a worker started it, in a session of its
    own): it must not build on, at full speed, after the server is gone."""
    from daily.service import upkeep

    upkeep.stop(_app)  # the settings read above: the workers read the same environment
