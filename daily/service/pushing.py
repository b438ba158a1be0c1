"""Posting Web Push messages: RFC 8291 encryption and RFC 8030 delivery by ``pywebpush``,
VAPID headers (RFC 8292) by ``py-vapid``, on a bounded pool of threads with retries.

A message goes to a subscription's endpoint, which :func:`daily.core.push.parse_subscription`
checked when it was kept; redirects are never followed, so the server posts to the push
services ``DAILY_PUSH_SERVICES`` allows and nowhere else. A 429 or a 5xx (or no answer) is
retried after a backoff (or the service's ``Retry-After``, capped); a 404 or 410 means the
subscription is gone, which the caller removes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
from py_vapid import Vapid02
from pywebpush import WebPusher

from daily.core.push import Subscription

#: Threads posting at once.
CONCURRENCY = 16
#: Tries of one message (the first and its retries).
TRIES = 4
#: The first retry's wait; each next one waits twice as long.
BACKOFF_S = 1.0
#: The longest wait a ``Retry-After`` may ask for before a retry.
MOST_WAIT_S = 30.0
#: Connect and read time-outs of one post.
TIMEOUTS = (5.0, 10.0)
#: How long a VAPID header is used, and how long its token is valid (RFC 8292 allows 24 hours;
#: some services want fresher ones).
VAPID_REUSE_S = 30 * 60
VAPID_VALID_S = 12 * 3600


@dataclass(frozen=True, slots=True)
class Delivery:
    """What became of one message: the push service's last answer (0: none came) and the
    tries it took."""

    status: int
    tries: int

    @property
    def is_sent(self) -> bool:
        """Whether the push service took the message (a 2xx)."""
        return 200 <= self.status < 300

    @property
    def is_gone(self) -> bool:
        """Whether the service says the subscription no longer exists (404, 410)."""
        return self.status in (404, 410)


def is_retried(status: int) -> bool:
    """Whether an answer is worth another try: none came, a 429 or a server's error.

    >>> [is_retried(s) for s in (0, 201, 400, 410, 429, 500, 503)]
    [True, False, False, False, True, True, True]
    """
    return status == 0 or status == 429 or status >= 500


class _NoRedirects(requests.Session):
    """A session that never follows a redirect: a push service does not send one, and a
    redirect must not take the server's post to another address."""

    def request(
        self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any
    ) -> requests.Response:
        # (bytes are never passed here: pywebpush posts to a str endpoint)
        """Sends a request as :class:`requests.Session` does, with redirects off."""
        kwargs["allow_redirects"] = False
        return super().request(str(method), str(url), *args, **kwargs)


class Pusher:
    """Encrypts and posts Web Push messages on a pool of *concurrency* threads."""

    def __init__(
        self,
        private_key: str,
        subject: str,
        concurrency: int = CONCURRENCY,
        tries: int = TRIES,
        backoff_s: float = BACKOFF_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.vapid = Vapid02.from_raw(private_key.encode())
        self.subject = subject
        self.tries = tries
        self.backoff_s = backoff_s
        self.sleep = sleep
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix="push")
        self._local = threading.local()
        self._headers: dict[str, tuple[float, dict[str, str]]] = {}
        self._lock = threading.Lock()

    def submit(self, subscription: Subscription, payload: bytes, ttl_s: int) -> Future[Delivery]:
        """Hands a message to the pool; its future gives the :class:`Delivery`."""
        return self.pool.submit(self.deliver, subscription, payload, ttl_s)

    def deliver(self, subscription: Subscription, payload: bytes, ttl_s: int) -> Delivery:
        """Posts *payload* to *subscription* (kept by the push service *ttl_s* seconds while the
        browser is away), retrying a 429, a 5xx or no answer with backoff."""
        status, wait = 0, self.backoff_s
        for attempt in range(1, self.tries + 1):
            status, retry_after = self._post(subscription, payload, ttl_s)
            if not is_retried(status) or attempt == self.tries:
                return Delivery(status, attempt)
            self.sleep(min(MOST_WAIT_S, retry_after if retry_after is not None else wait))
            wait *= 2
        return Delivery(status, self.tries)  # pragma: no cover (the loop returns)

    def _post(
        self, subscription: Subscription, payload: bytes, ttl_s: int
    ) -> tuple[int, float | None]:
        info = {
            "endpoint": subscription.endpoint,
            "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
        }
        sender = WebPusher(info, requests_session=self._session())
        try:
            answer = sender.send(
                payload,
                headers=self.headers_for(subscription.endpoint),
                ttl=ttl_s,
                timeout=TIMEOUTS,
            )
        except requests.RequestException:
            return 0, None
        return int(answer.status_code), _seconds(answer.headers.get("Retry-After"))

    def headers_for(self, endpoint: str) -> dict[str, str]:
        """The VAPID header for *endpoint*'s push service, signed once every few hours."""
        url = urlsplit(endpoint)
        audience = f"{url.scheme}://{url.netloc}"
        now = time.time()
        with self._lock:
            made = self._headers.get(audience)
            if made is None or now - made[0] > VAPID_REUSE_S:
                claims = {"aud": audience, "sub": self.subject, "exp": int(now) + VAPID_VALID_S}
                made = (now, dict(self.vapid.sign(claims)))
                self._headers[audience] = made
            return dict(made[1])

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = _NoRedirects()
        return session

    def close(self) -> None:
        """Waits for the messages handed over, then stops the threads."""
        self.pool.shutdown(wait=True)


def _seconds(text: str | None) -> float | None:
    """A ``Retry-After`` in seconds (its date form is taken as no advice).

    >>> _seconds("7"), _seconds(None), _seconds("Wed, 21 Oct 2026 07:28:00 GMT")
    (7.0, None, None)
    """
    try:
        return max(0.0, float(text)) if text is not None else None
    except ValueError:
        return None
