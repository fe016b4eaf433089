"""The cache on Redis (django-redis), degrading to "no cache" when Redis is down.

Everything the site keeps in the cache can be computed again (public reads) or is a counter
whose loss only lets a request through (the API's throttles): so when Redis is unreachable a
read is a miss, a write is dropped, and the request goes on. django-redis does that
(``IGNORE_EXCEPTIONS`` in settings.CACHES) and logs each ignored error to the
``matrixhockey.cache.ignored`` logger, which :class:`OncePerInterval` thins to one line every
:data:`LOG_EVERY_SECONDS` per process. Short socket timeouts (settings.CACHES) keep a Redis that
hangs from holding a request for long.
"""

from __future__ import annotations

import logging
import time

import redis
from django.core.cache import cache, caches
from django_redis.cache import RedisCache

logger = logging.getLogger(__name__)

CACHE_ERRORS: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
"""What a raw Redis client (the throttles' pipeline, the health check's ping) raises when Redis
is down or unreachable."""
LOG_EVERY_SECONDS = 30.0


class OncePerInterval(logging.Filter):
    """Lets one record through every :data:`LOG_EVERY_SECONDS` (per process): a Redis that is
    down says so once in a while, not on every cache call of every request."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.last = -LOG_EVERY_SECONDS

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        if now - self.last < LOG_EVERY_SECONDS:
            return False
        self.last = now
        return True


def redis_client(alias: str = "default") -> redis.Redis | None:
    """The raw Redis client of cache ``alias`` (django-redis's, one per process), or ``None`` when
    that cache is not on Redis (the local memory cache without ``REDIS_URL``)."""
    backend = caches[alias]
    if not isinstance(backend, RedisCache):
        return None
    return backend.client.get_client(write=True)


def ping() -> bool:
    """Whether the cache's Redis answers now (for the health check); never raises."""
    client = redis_client()
    try:
        return client is not None and bool(client.ping())
    except CACHE_ERRORS:
        return False


def rate_exceeded(*, key: str, limit: int, seconds: int) -> bool:
    """Count one more use of ``key`` in its window of ``seconds`` (a fixed window, starting at
    its first use) and say whether it went over ``limit``. For the site's forms that send email
    (the waiting list, a forgotten password); a cache that is down lets the use through, as the
    API's throttles do (django-redis then answers ``None`` to ``add`` and ``incr``)."""
    cache_key = f"rate:{key}"
    try:
        if cache.add(cache_key, 1, timeout=seconds):
            return limit < 1
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr: a new window
        cache.set(cache_key, 1, timeout=seconds)
        return limit < 1
    if count is None:
        logger.warning("Rate limit %s not applied: its cache is unreachable", key)
        return False
    return count > limit
