"""The store boundary: Redis connection failures become :class:`~daily.core.errors.StorageError`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import redis

from daily.core import metrics
from daily.core.errors import StorageError

P = ParamSpec("P")
T = TypeVar("T")


def guarded(function: Callable[P, T]) -> Callable[P, T]:
    """Wraps a store function so that a Redis outage raises :class:`StorageError`."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return function(*args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError) as e:
            metrics.redis_error("store", e)
            raise StorageError(f"redis unavailable: {e}") from e
        except redis.RedisError as e:  # counted, then left to the caller as before
            metrics.redis_error("store", e)
            raise

    return wrapper
