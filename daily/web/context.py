"""The running app's settings and Redis client, for the views (as flaskr's ``db.py``).

:func:`daily.web.create_app` puts both in the app's extensions; every web module reads them
here, so no module of the package imports the package's factory back.
"""

from __future__ import annotations

from typing import cast

from flask import Flask, current_app

from daily.core.config import Config
from daily.service import backend

_CONFIG = "daily.config"
_REDIS = "daily.redis"


def init_app(app: Flask, config: Config, client: backend.Client) -> None:
    """Keeps *config* and *client* in *app* for :func:`current_config` and
    :func:`current_redis`."""
    app.extensions[_CONFIG] = config
    app.extensions[_REDIS] = client


def config_of(app: Flask) -> Config:
    """*app*'s :class:`~daily.core.config.Config` (outside a request: a server starting)."""
    return cast(Config, app.extensions[_CONFIG])


def redis_of(app: Flask) -> backend.Client:
    """*app*'s Redis client (outside a request: a server stopping)."""
    return cast(backend.Client, app.extensions[_REDIS])


def current_config() -> Config:
    """The running app's :class:`~daily.core.config.Config`."""
    return config_of(current_app)


def current_redis() -> backend.Client:
    """The running app's Redis client, handed to the service functions."""
    return redis_of(current_app)
