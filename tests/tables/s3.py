"""A local S3 server (moto's server mode) for the tests of the tables' store, and a fresh
bucket on it for each test, with the ``AWS_*`` settings that point everything at it."""

from __future__ import annotations

import atexit
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

_SERVER: list[str] = []


def endpoint() -> str:
    """The URL of this process's moto server, started on first use (skips without moto)."""
    if not _SERVER:
        server_mode = pytest.importorskip("moto.server")
        pytest.importorskip("s3fs")
        server = server_mode.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        try:
            server.start()
        except OSError as e:
            pytest.skip(f"moto's S3 server did not start: {e}")
        atexit.register(server.stop)
        host, port = server.get_host_and_port()
        _SERVER.append(f"http://{host}:{port}")
    return _SERVER[0]


@contextmanager
def bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A store URL in a fresh bucket; the ``AWS_*`` variables point at the server meanwhile
    (child processes inherit them), whatever another module's S3 server set before."""
    import fsspec

    settings = {"AWS_ENDPOINT_URL": endpoint(), "AWS_ACCESS_KEY_ID": "test",
                "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    name = f"tables-{secrets.token_hex(4)}"
    fs, _ = fsspec.core.url_to_fs(f"s3://{name}", skip_instance_cache=True)
    fs.mkdir(name)
    yield f"s3://{name}/daily"
    # moto keeps every bucket in the process's memory: a table is 4 to 134 MB.
    fs.rm(name, recursive=True)
