"""Helpers the operations tests share: waiting, and whether a process is gone."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import redis


def wait_until(ready: Callable[[], object], what: str, timeout: float = 15.0) -> None:
    """Polls *ready* until it is true; fails saying *what* did not happen in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except (OSError, redis.RedisError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {timeout} s")


def is_gone(pid: int) -> bool:
    """Whether process *pid* has ended (a zombie nobody reaped yet counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"
