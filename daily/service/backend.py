"""The Redis behind the services: opened from the configuration, checked, shared.

The web layer holds the client it gets here and hands it to the service functions; it never
imports :mod:`redis` or :mod:`daily.store` itself (only the store talks to Redis).
"""

from __future__ import annotations

from typing import TypeAlias

from daily.core.config import Config
from daily.store import connection, dicekey, keys

#: The client every service function is handed (a server's, a cluster's or the embedded one's).
Client: TypeAlias = connection.Client


def connect(config: Config) -> Client:
    """A client for the configured Redis (``REDIS_URL``), or for the embedded one."""
    return connection.connect(config.redis_url, config.data_dir)


def release(client: Client) -> None:
    """Closes *client*, stopping the embedded Redis unless another process still uses it."""
    connection.release(client)


def unreachable(client: Client) -> str | None:
    """Why *client*'s Redis does not answer a PING, or None when it does."""
    return connection.unreachable(client)


def limiter_storage(config: Config, client: Client) -> tuple[str, dict[str, object]]:
    """The rate limiter's storage URL and options: its counters live in *client*'s Redis,
    under their own key prefix."""
    url, options = connection.limiter_storage(config.redis_url, client)
    return url, options | {"key_prefix": keys.rate_limits()}


def claim_dice_key(client: Client, fingerprint: str) -> str:
    """The dice key fingerprint the stored games were dealt with (*fingerprint* if none yet)."""
    return dicekey.claim(client, fingerprint)
