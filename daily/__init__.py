"""daily: the daily Maxi Yatzy service.

The rules engine (:mod:`daily.core.rules`) is pure; :func:`create_app` builds the web
application and is imported lazily so that the core never pulls in Flask.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

from daily.core.version import VERSION

__version__ = VERSION


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Builds the Flask application (the WSGI entry point for gunicorn)."""
    from daily.web import create_app as _create_app

    return _create_app(config)
