"""A push service on loopback for the tests and the benchmark: an HTTP server that records
every message posted to it (path, headers, body) and answers 201, or the statuses a test
queued for a path (a 410 for a subscription gone, a 503 to be retried).

Its subscriptions are real: :func:`subscription` makes a P-256 key pair and a secret the way a
browser does, and :func:`decrypt` opens a message with them (RFC 8291, by ``http_ece``).
"""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    """*data* in base64url without padding, as browsers write keys."""
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass(frozen=True)
class Browser:
    """A browser's side of a subscription: the JSON it sends, and its private key and secret."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    def to_json(self) -> dict[str, Any]:
        """The subscription as ``PushSubscription.toJSON()`` gives it."""
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}  # fmt: skip


@dataclass(frozen=True)
class Message:
    """One post the push service received."""

    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes


def decrypt(browser: Browser, message: Message) -> dict[str, Any]:
    """The JSON a message carries, opened with the browser's private key and secret."""
    plain = http_ece.decrypt(
        message.body, private_key=browser.private_key, auth_secret=browser.auth,
        version="aes128gcm",
    )  # fmt: skip
    found: dict[str, Any] = json.loads(plain)
    return found


@dataclass
class PushService:
    """The recording server: its origin, what it received, and the answers queued by path."""

    origin: str
    received: list[Message] = field(default_factory=list)
    queued: dict[str, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def subscription(self, name: str) -> Browser:
        """A new browser subscribed under ``/push/<name>``, with a fresh key pair."""
        key = ec.generate_private_key(ec.SECP256R1())
        return Browser(f"{self.origin}/push/{name}", key, os.urandom(16))

    def to(self, browser: Browser) -> list[Message]:
        """The messages posted to *browser*'s endpoint."""
        path = browser.endpoint.removeprefix(self.origin)
        with self.lock:
            return [m for m in self.received if m.path == path]

    def answer(self, path: str) -> int:
        """The status for a post to *path*: the next one queued, else 201."""
        with self.lock:
            waiting = self.queued.get(path)
            return waiting.pop(0) if waiting else 201


def _handler(service: PushService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real push service

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with service.lock:
                service.received.append(
                    Message(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
            self.send_response(service.answer(self.path))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Writes nothing: the tests read what was received."""

    return Handler


@contextmanager
def push_service() -> Iterator[PushService]:
    """A push service listening on a free loopback port while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(PushService("")))
    service = PushService(f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(service)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
