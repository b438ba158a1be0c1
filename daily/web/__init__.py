"""The web package: the only one that talks to Flask.

:func:`create_app` wires the config, the Redis client and the blueprints, and starts
nothing: the servers start what runs beside the requests (:mod:`daily.service.upkeep`).
The views read the config and the client through :mod:`daily.web.context`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask

from daily.core.config import Config, load
from daily.service import backend
from daily.web import context, http_errors

MAX_BODY = 16 * 1024


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Builds the app; *overrides* replace settings read from the environment."""
    from daily.web.routes import App  # the routes module reads the cost rows

    config = load(**(overrides or {}))
    app = App("daily", template_folder=str(template_dir()))
    app.config.update(_flask_settings(config))
    # Keep scorecards in sheet order, not alphabetical (Flask 3 reads this, not JSON_SORT_KEYS).
    app.json.sort_keys = False  # type: ignore[attr-defined]
    context.init_app(app, config, backend.connect(config))
    http_errors.register(app)
    _install(app)
    return app


def _flask_settings(config: Config) -> dict[str, object]:
    return {
        # Cookies are signed with the newest key and still read under the older ones.
        "SECRET_KEY": config.signing_keys[0],
        "SECRET_KEY_FALLBACKS": list(config.signing_keys[1:]),
        "MAX_CONTENT_LENGTH": MAX_BODY,
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": config.is_production,
        # A guest player lives in the cookie: keep it for a year and more of absence.
        "PERMANENT_SESSION_LIFETIME": timedelta(days=400),
    }


def _install(app: Flask) -> None:
    """Installs the hooks and blueprints, in the order their hooks must run."""
    # Imported here, not at the top: the views import this module's helpers.
    from daily.web import (
        access_log,
        account,
        admission,
        analysis_views,
        api,
        archive_views,
        assets,
        auth,
        board_views,
        computer_views,
        health,
        i18n,
        league_views,
        limits,
        metrics_views,
        pages,
        party_views,
        reminder_views,
        security,
        sweep,
    )

    access_log.init_app(app)  # first: its timer starts before any other hook runs
    metrics_views.init_app(app)
    admission.init_app(app)  # before any other work: a shed request costs little
    security.init_app(app)
    app.session_interface = auth.SessionCookies()
    app.register_blueprint(api.bp)
    app.register_blueprint(health.bp)
    i18n.init_app(app)
    for blueprint in (pages.bp, board_views.bp, party_views.bp, computer_views.bp,
                      analysis_views.bp, account.bp, assets.bp, league_views.bp,
                      archive_views.bp, reminder_views.bp):  # fmt: skip
        app.register_blueprint(blueprint)
    reminder_views.init_app(app)
    sweep.init_app(app)
    limits.init_app(app)  # last: it wraps the registered views


def template_dir() -> Path:
    """The templates: top-level ``templates/`` in a checkout, ``daily/templates`` in a wheel."""
    package = Path(__file__).resolve().parents[1]
    checkout = package.parent / "templates"
    return checkout if (package.parent / "pyproject.toml").is_file() else package / "templates"
