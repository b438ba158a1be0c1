"""The play script's ES modules (``static/js``), served under a path that names the version.

A module imports its neighbours by relative path (``./net.js``), so under
``/js/<version>/`` every import resolves into the same version: a cache never mixes one
release's modules with another's. In production the current version's modules are cached for
a year; elsewhere (and for another version, a page from before a deploy) the browser revalidates.
"""

from __future__ import annotations

import functools
import re

from flask import Blueprint, send_from_directory
from werkzeug.wrappers import Response

from daily.core.version import VERSION
from daily.web import costs
from daily.web.context import current_config
from daily.web.http_errors import not_found
from daily.web.pages import STATIC

bp = Blueprint("assets", __name__)

#: The play script's modules; ``main.js`` is the one a page loads, it imports the rest.
MODULES = STATIC / "js"
ENTRY = "main.js"
YEAR = 365 * 24 * 3600
#: A static import (``import { api } from './net.js';``); ``import('./x.js')`` is not one.
_IMPORT = re.compile(r"^import .* from '\./([\w-]+\.js)';$", re.MULTILINE)


@functools.cache
def module_names() -> tuple[str, ...]:
    """Every module file, the entry first (what the service worker keeps for offline use)."""
    names = sorted(path.name for path in MODULES.glob("*.js"))
    return (ENTRY, *(name for name in names if name != ENTRY))


@functools.cache
def entry_closure() -> tuple[str, ...]:
    """The entry and every module it imports statically, depth first: what a page loads at once.

    A module the entry imports dynamically (``pages.js``) is fetched only on the pages that run it.
    """
    found: list[str] = []

    def visit(name: str) -> None:
        if name in found:
            return
        found.append(name)
        for imported in _IMPORT.findall((MODULES / name).read_text(encoding="utf-8")):
            visit(imported)

    visit(ENTRY)
    return tuple(found)


def module_url(name: str) -> str:
    """The URL of a module of this version."""
    return f"/js/{VERSION}/{name}"


@bp.app_template_global()
def script_modules() -> list[str]:
    """The URLs a page loads: the entry, then the modules to preload with it."""
    return [module_url(name) for name in entry_closure()]


@bp.get("/js/<version>/<name>", cost=costs.EXEMPT)
def module(version: str, name: str) -> Response:
    """One module of the play script, as JavaScript."""
    if name not in module_names():
        raise not_found(f"no such script module: {name!r}")
    cached = version == VERSION and current_config().is_production
    response = send_from_directory(
        MODULES, name, mimetype="text/javascript", max_age=YEAR if cached else None
    )
    if cached:
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    return response
