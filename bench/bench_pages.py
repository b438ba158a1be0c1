"""The play page: server time to render it, and the bytes a first visit downloads.

Server time is the WSGI call of ``GET /play/<id>`` for a daily game in progress (store
read, replay for the sheet, template), on the embedded Redis, measured in-process so
network time does not blur it. Bytes are the page's HTML plus every script and stylesheet
it links or preloads (the dice are an inline SVG sprite, counted in the HTML), uncompressed
and gzipped one by one. Aim: under 100 KB uncompressed.

Run: .venv/bin/python bench/bench_pages.py [--requests 300]
"""

from __future__ import annotations

import argparse
import gzip
import re
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from daily import create_app
from daily.web import limits

AIM_BYTES = 100 * 1024
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)


def started_daily(client: Any) -> str:
    """A browser player with a daily game a few turns in: its id."""
    state = client.post("/api/v1/games", json={"mode": "daily"}).get_json()
    for _ in range(5):
        row = next(iter(state["potential"]))
        state = client.post(f"/api/v1/games/{state['id']}/score", json={"category": row}).get_json()
    return str(state["id"])


def time_page(client: Any, path: str, requests: int) -> tuple[list[float], float]:
    """Wall milliseconds per request of *path* after a warm-up, and CPU ms per request.

    On a shared machine the wall time carries other processes' load; the CPU time
    (this process, Redis excluded) does not.
    """
    for _ in range(10):
        assert client.get(path).status_code == 200
    times = []
    cpu = time.process_time()
    for _ in range(requests):
        began = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200
    return times, (time.process_time() - cpu) * 1000 / requests


def page_bytes(client: Any, path: str) -> dict[str, bytes]:
    """The page and every script and stylesheet it links, by URL."""
    html = client.get(path).get_data()
    parts = {path: html}
    # The stylesheets, the classic scripts, and the play script's modules (the entry and its
    # modulepreload links, which name every module it imports).
    for url in re.findall(rb'(?:src|href)="(/(?:static|js)/[^"?]+\.(?:js|css))', html):
        parts[url.decode()] = client.get(url.decode()).get_data()
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        # The limits off: one client asks for one page hundreds of times a second.
        app = create_app({"env": "testing", "data_dir": Path(folder), "clock": lambda: NOW,
                          "rate_limits": dict.fromkeys(limits.DEFAULTS, "off")})  # fmt: skip
        client = app.test_client()
        path = f"/play/{started_daily(client)}"
        times, cpu_ms = time_page(client, path, args.requests)
        parts = page_bytes(client, path)
        state = client.get(f"/api/v1/games/{path.rsplit('/', 1)[1]}").get_data()
        app.extensions["daily.redis"].shutdown(nosave=True)  # before its folder goes
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"GET {path.split('/')[1]}/<id>: {len(times)} requests on the embedded Redis")
    print(f"  server time: median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms wall;")
    print(f"               {cpu_ms:.2f} ms CPU per request (the app's process)")
    total = sum(len(b) for b in parts.values())
    zipped = sum(len(gzip.compress(b)) for b in parts.values())
    for url, body in parts.items():
        zipped_part = len(gzip.compress(body))
        print(f"  {url[:40]:<40} {len(body):>7,} B  gzip {zipped_part:>6,} B")
    print(f"  HTML+JS+CSS: {total:,} B ({total / 1024:.1f} KiB), gzip {zipped:,} B")
    print(f"  then the game state JSON the script loads: {len(state):,} B")
    verdict = "within" if total < AIM_BYTES else "OVER"
    print(f"  aim < {AIM_BYTES // 1024} KiB uncompressed: {verdict}")


if __name__ == "__main__":
    main()
