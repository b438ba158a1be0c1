"""Browser tests: the app on a live loopback server, driven by Playwright in Debian's chromium.

Playwright's own browser download does not work here, so the tests launch the system
chromium (``.ci/run`` installs it) and skip, saying so, only when it is absent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import BaseWSGIServer, make_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

Serve = Callable[..., str]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skips the browser tests, with the reason, where the system chromium is missing."""
    if CHROMIUM.exists():
        return
    here = Path(__file__).parent
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed (.ci/run installs chromium)")
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(skip)


def closing(app: Any) -> Any:
    """*app*, its every answer closed by itself however the server ends the request.

    werkzeug's development server closes an answer after it has drained the request socket;
    when the browser drops the connection first (a navigation cancels a script's download),
    that read raises and a static file's answer is left open: a ResourceWarning, an error
    under ``-W error``, in whichever test the collector then runs.
    """

    def answer(body: Any) -> Iterator[bytes]:
        try:
            yield from body
        finally:  # exhausted, or dropped half-way (a generator is closed when collected)
            if hasattr(body, "close"):
                body.close()

    def wsgi(environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        return answer(app(environ, start_response))  # the app runs now, as the server expects

    return wsgi


@pytest.fixture
def serve(make_app: Any) -> Iterator[Serve]:
    """Runs the app (``make_app`` settings, e.g. ``now=``) on a free loopback port: its URL."""
    servers: list[tuple[BaseWSGIServer, threading.Thread]] = []

    def start(**overrides: Any) -> str:
        server = make_server("127.0.0.1", 0, closing(make_app(**overrides)), threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless chromium for the session."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


#: How long a browser test waits for a page, an element or a request before it fails.
WAIT_MS = 30_000


@pytest.fixture
def new_context(browser: Any) -> Iterator[Callable[..., Any]]:
    """Makes fresh browser contexts (a new player each: own cookies), closed after the test."""
    contexts: list[Any] = []

    def make(**options: Any) -> Any:
        options.setdefault("viewport", {"width": 1100, "height": 900})
        # The page skips its roll animation for reduced motion: tests need not wait for it.
        options.setdefault("reduced_motion", "reduce")
        context = browser.new_context(**options)
        # What a browser test checks is what the page does, not how fast: a wait only ends
        # early when the test fails. At the end of a CI run (the Maxi tests, four workers on
        # two cores) a page took 1.5 s to render and a computer game's first move over 10 s.
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def shoot() -> Callable[..., None]:
    """Saves a screenshot (the full page unless told) under artifacts/screenshots/ (gitignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(page: Any, name: str, full_page: bool = True) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)

    return save
