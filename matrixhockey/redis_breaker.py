"""One circuit breaker per process for Redis (the cache, the throttles, the task broker): a Redis
that fails once is left alone for ``REDIS_RETRY_SECONDS``.

A Redis that is stopped refuses a connection at once, but one that hangs (stopped by SIGSTOP, a
full network queue, a machine gone) lets every call wait its whole socket timeout
(``REDIS_SOCKET_TIMEOUT``): a request that makes several calls — the throttle, the public
cache's version, the wake-up of the outbox's worker — would wait for each. So the first call
that fails opens the breaker (pybreaker's ``CircuitBreaker`` with ``fail_max=1``), and until
``REDIS_RETRY_SECONDS`` have passed every call fails at once, as if Redis had refused it: the
cache misses (django-redis's ``IGNORE_EXCEPTIONS``), a task is left to beat's sweep (its work is
a row), ``/healthz`` says "down". The first call after that tries Redis again (half-open): it
closes the breaker when it succeeds, opens it for another while when it fails.

The cache's connections go through :class:`BreakerConnection` (``CONNECTION_POOL_KWARGS`` in
settings.CACHES); a task published from a request or a staff action goes through
:func:`task_publish`, the health check's broker probe through :func:`redis_call`. A worker's
own connection to the broker is Celery's, which reconnects by itself (``matrixhockey.worker``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import pybreaker
import redis
from celery import Task
from celery.result import AsyncResult
from django.conf import settings
from kombu.exceptions import OperationalError as BrokerUnavailable
from redis.connection import AbstractConnection

logger = logging.getLogger(__name__)

T = TypeVar("T")

REDIS_DOWN: tuple[type[BaseException], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    BrokerUnavailable,
    OSError,
)
"""What a call raises when Redis is down, hung or unreachable (a refused, reset or timed-out
connection; kombu's wrapping of these): only these open the breaker. An answer Redis gives (a
wrong type, a script error) says it is up."""


class BreakerOpen(redis.ConnectionError):
    """Redis failed a moment ago: the call was not tried. A ``ConnectionError`` so that what
    already handles Redis being down (django-redis, the throttles, the health check) handles it."""


class _Log(pybreaker.CircuitBreakerListener):
    def state_change(
        self,
        cb: pybreaker.CircuitBreaker,
        old_state: pybreaker.CircuitBreakerState | None,
        new_state: pybreaker.CircuitBreakerState,
    ) -> None:
        if new_state.name == pybreaker.STATE_OPEN:
            logger.warning("Redis is unreachable: not tried again for %s s", cb.reset_timeout)
        elif new_state.name == pybreaker.STATE_CLOSED and (
            old_state is not None and old_state.name != pybreaker.STATE_CLOSED
        ):
            logger.warning("Redis answers again")


def _answered(error: BaseException) -> bool:
    """Whether ``error`` came from a Redis that answered (not counted as a failure)."""
    return not isinstance(error, REDIS_DOWN) and not isinstance(error.__cause__, REDIS_DOWN)


TASK_NOT_QUEUED: tuple[type[BaseException], ...] = (BrokerUnavailable, BreakerOpen, RuntimeError)
"""What publishing a task raises when Redis is down or hung: the broker's error, the breaker's,
or the result store's (a ``RuntimeError``, for a task whose result is read back)."""


@functools.cache
def redis_breaker() -> pybreaker.CircuitBreaker:
    """This process's breaker (made on first use: the settings import this module)."""
    return pybreaker.CircuitBreaker(
        fail_max=1,
        reset_timeout=settings.REDIS_RETRY_SECONDS,
        exclude=[_answered],
        listeners=[_Log()],
        name="redis",
        throw_new_error_on_trip=False,  # the caller sees Redis's own error
    )


def redis_call(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` through the breaker: :class:`BreakerOpen` at once while it
    is open; a failure that says Redis is down (:data:`REDIS_DOWN`) opens it."""
    try:
        return redis_breaker().call(function, *args, **kwargs)
    except pybreaker.CircuitBreakerError:
        raise BreakerOpen("Redis failed a moment ago; not tried") from None


def task_publish(task: Task[Any, Any], **options: Any) -> AsyncResult[Any]:
    """``task.apply_async(**options)`` through the breaker (:func:`redis_call`), unless tasks
    run eagerly: then there is no Redis to guard and the task itself runs here, its errors its
    own."""
    if task.app.conf.task_always_eager:
        return task.apply_async(**options)
    return redis_call(task.apply_async, **options)


class _ThroughBreaker(AbstractConnection):
    """Connecting, sending and reading through the breaker."""

    def connect_check_health(self, *args: Any, **kwargs: Any) -> None:
        redis_call(super().connect_check_health, *args, **kwargs)

    def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
        redis_call(super().send_packed_command, *args, **kwargs)

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        return redis_call(super().read_response, *args, **kwargs)


class BreakerConnection(_ThroughBreaker, redis.Connection):
    """redis-py's connection through the breaker (a public extension point: a connection
    pool's ``connection_class``)."""


class BreakerSSLConnection(_ThroughBreaker, redis.SSLConnection):
    """:class:`BreakerConnection` for ``rediss://``."""


def connection_class(url: str) -> type[redis.Connection]:
    """The breaker's connection class for a Redis at ``url`` (TLS for ``rediss://``)."""
    return BreakerSSLConnection if url.startswith("rediss://") else BreakerConnection
