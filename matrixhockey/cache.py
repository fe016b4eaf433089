"""The cache on Redis, degrading to "no cache" when Redis is down.

Everything the site keeps in the cache can be computed again (public reads) or is a counter
whose loss only lets a request through (the API's throttles): so when Redis is unreachable a
read is a miss, a write is dropped, and the request goes on, logged (at most one warning every
:data:`LOG_EVERY_SECONDS` per process, not one per call). Short socket timeouts keep a Redis that
hangs from holding a request for long.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

CACHE_ERRORS: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
"""What a cache on a Redis that is down or unreachable raises."""
LOG_EVERY_SECONDS = 30.0
SOCKET_TIMEOUTS = {"socket_connect_timeout": 0.5, "socket_timeout": 1.0}
"""Passed to the Redis connection pool (``OPTIONS`` in the settings may override them)."""

T = TypeVar("T")


class ClientPerPool(RedisCacheClient):
    """Django's Redis client, keeping one ``redis.Redis`` per connection pool instead of making
    one per call: redis-py builds its table of reply callbacks each time one is made, which cost
    as much as the round trip itself on a page served from the cache."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ResilientRedisCache(RedisCache):
    """Django's Redis cache; when Redis is down: misses, dropped writes, a warning."""

    _last_warning = 0.0

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = {**SOCKET_TIMEOUTS, **params.get("OPTIONS", {})}
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = ClientPerPool

    def _degrade(self, what: str, call: Callable[[], T], fallback: T) -> T:
        try:
            return call()
        except CACHE_ERRORS as error:
            now = time.monotonic()
            if now - ResilientRedisCache._last_warning >= LOG_EVERY_SECONDS:
                ResilientRedisCache._last_warning = now
                logger.warning("Cache unreachable, going on without it (%s): %s", what, error)
            return fallback

    def add(self, *args: Any, **kwargs: Any) -> bool:
        return self._degrade(
            "add", lambda: super(ResilientRedisCache, self).add(*args, **kwargs), False
        )

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._degrade(
            "get", lambda: super(ResilientRedisCache, self).get(key, default, version), default
        )

    def set(self, *args: Any, **kwargs: Any) -> None:
        self._degrade("set", lambda: super(ResilientRedisCache, self).set(*args, **kwargs), None)

    def touch(self, *args: Any, **kwargs: Any) -> bool:
        return self._degrade(
            "touch", lambda: super(ResilientRedisCache, self).touch(*args, **kwargs), False
        )

    def delete(self, *args: Any, **kwargs: Any) -> bool:
        return self._degrade(
            "delete", lambda: super(ResilientRedisCache, self).delete(*args, **kwargs), False
        )

    def get_many(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return self._degrade(
            "get_many", lambda: super(ResilientRedisCache, self).get_many(*args, **kwargs), {}
        )

    def has_key(self, *args: Any, **kwargs: Any) -> bool:
        return self._degrade(
            "has_key", lambda: super(ResilientRedisCache, self).has_key(*args, **kwargs), False
        )

    def set_many(self, data: dict[Any, Any], *args: Any, **kwargs: Any) -> list[Any]:
        return self._degrade(
            "set_many",
            lambda: super(ResilientRedisCache, self).set_many(data, *args, **kwargs),
            list(data),
        )

    def delete_many(self, *args: Any, **kwargs: Any) -> None:
        self._degrade(
            "delete_many",
            lambda: super(ResilientRedisCache, self).delete_many(*args, **kwargs),
            None,
        )

    def clear(self) -> bool:
        return self._degrade("clear", lambda: super(ResilientRedisCache, self).clear(), False)

    def ping(self) -> bool:
        """Whether Redis answers now (for the health check); never raises."""
        return self._degrade("ping", lambda: bool(self._cache.get_client().ping()), False)


def rate_exceeded(*, key: str, limit: int, seconds: int) -> bool:
    """Count one more use of ``key`` in its window of ``seconds`` (a fixed window, starting at
    its first use) and say whether it went over ``limit``. For the site's forms that send email
    (the waiting list, a forgotten password); a cache that is down lets the use through, as the
    API's throttles do."""
    cache_key = f"rate:{key}"
    try:
        if cache.add(cache_key, 1, timeout=seconds):
            return limit < 1
        return cache.incr(cache_key) > limit
    except ValueError:  # expired between add and incr: a new window
        cache.set(cache_key, 1, timeout=seconds)
        return limit < 1
    except CACHE_ERRORS as error:
        logger.warning("Rate limit %s not applied: its cache is unreachable (%s)", key, error)
        return False
