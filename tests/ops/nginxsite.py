"""deploy/nginx.conf run as it ships, by a user without root, in a folder of its own: the
harness of tests/ops/test_nginx.py and of ``bench/bench_flood.py --nginx``.

Only the file's lines marked ``# MARK`` change (gunicorn's address, the port to listen on,
the static folder); everything else, the ``limit_req`` and ``limit_conn`` zones included,
runs as written, inside a minimal main configuration (one worker, no daemon, its pid, logs
and temporary files in the folder).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.ops.procs import wait_until
from tests.redis_servers import free_port

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MAIN = """
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/daily.conf;
}}
"""


def available() -> bool:
    """Whether this machine has an nginx to run."""
    return Path(NGINX).exists()


def site(upstream: int, listen: int, rate: str | None = None) -> str:
    """deploy/nginx.conf with its marked lines set for this machine; nothing else changed,
    unless *rate* (``"25r/s burst=50 delay=10"``) replaces the rate and the burst of the zone
    of the requests other than moves (a bench's what-if; the tests run the file's own)."""
    text = CONF.read_text()
    if rate:
        per_second, burst = rate.split(maxsplit=1)
        text, rates = re.subn(
            r"(zone=daily_other:\w+) rate=\d+r/s;", rf"\1 rate={per_second};", text
        )
        text, bursts = re.subn(r"(limit_req zone=daily_other) [^;]*;", rf"\1 {burst};", text)
        assert rates == bursts == 1, "deploy/nginx.conf's daily_other lines changed"
    marked = {
        "upstream": f"server 127.0.0.1:{upstream};",
        "listen": f"listen 127.0.0.1:{listen};",
        "server_name": "server_name _;",
        "static": f"alias {ROOT / 'daily' / 'static'}/;",
    }
    for mark, line in marked.items():
        text, count = re.subn(rf"^(\s*)\S[^\n]*;\s*# MARK {mark}\b[^\n]*$",
                              rf"\g<1>{line}", text, flags=re.M)  # fmt: skip
        assert count >= 1, f"deploy/nginx.conf lost its '# MARK {mark}' line"
    return text


def answers(port: int) -> bool:
    """Whether ``GET /healthz`` through *port* answers 200."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:  # refused, timed out, or an HTTP error
        return False


@contextmanager
def nginx(upstream: int, folder: Path, rate: str | None = None) -> Iterator[int]:
    """nginx with deploy/nginx.conf (*rate*: see :func:`site`) in front of gunicorn on
    *upstream*, its files in *folder*, answering; yields the port it listens on (loopback)."""
    port = free_port()
    (folder / "daily.conf").write_text(site(upstream, port, rate))
    (folder / "nginx.conf").write_text(MAIN.format(tmp=folder))
    command = [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: answers(port), "nginx answering")
        yield port
    finally:
        process.terminate()
        process.wait(10)
