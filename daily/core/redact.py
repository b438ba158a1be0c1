"""Secrets kept out of the logs: sign-in link tokens and bearer tokens in any log line.

A sign-in link (``/signin/<token>``) opens a player's account on any browser for a day, and a
bearer token for good: neither may reach a log, where whoever reads the logs could use it.
:class:`RedactFilter` goes on every logger that writes request lines (the app's access
log, werkzeug's development server, gunicorn's error and access logs).
"""

from __future__ import annotations

import logging
import re

#: What stands for a secret in a log line.
REDACTED = "[redacted]"
_SECRETS = re.compile(
    r"(?P<keep>/signin/|[Bb]earer\s+|\btoken=)(?P<secret>[^\s\"'&?#/]+)",
)
#: The loggers that write request lines.
LOGGERS = ("daily.access", "werkzeug", "gunicorn.access", "gunicorn.error")


def redact(text: str) -> str:
    """*text* with every sign-in link token and bearer token replaced by ``[redacted]``.

    >>> redact('"GET /signin/eyJhIjoxfQ.ZmK9.abc HTTP/1.1" 200')
    '"GET /signin/[redacted] HTTP/1.1" 200'
    >>> redact("Authorization: Bearer abc.def"), redact("/rules/maxi")
    ('Authorization: Bearer [redacted]', '/rules/maxi')
    """
    return _SECRETS.sub(lambda m: m.group("keep") + REDACTED, text)


class RedactFilter(logging.Filter):
    """Rewrites a log record whose message carries a token (see :func:`redact`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redacts *record* in place; never drops it."""
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def install(names: tuple[str, ...] = LOGGERS) -> None:
    """Puts one :class:`RedactFilter` on each logger of *names* (again: a no-op)."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactFilter) for f in logger.filters):
            logger.addFilter(RedactFilter())
