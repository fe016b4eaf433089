"""The state of the parts the site runs on, for ``/healthz`` (``league.views.healthz``).

Each part is ``"ok"``, ``"down"``, or says it is not in use: the cache ``"local"`` (no Redis: a
per-process cache) and the broker ``"eager"`` (no Redis: tasks run in the web process). Only the
database is vital: without it nothing can be read or stored, so the check fails (503). Without
Redis the site goes on degraded — no shared cache, throttles let requests through, emails wait
in the outbox and arbitration answers 503 — so the check answers 200 and names what is down:
a load balancer keeps sending readers and coaches to a process that can serve them. Redis
hung answers as fast: the cache's ping waits ``REDIS_SOCKET_TIMEOUT`` at most, and the broker,
on the same Redis, is then known down (:mod:`matrixhockey.redis_breaker`).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError
from kombu.exceptions import OperationalError

from matrixhockey.cache import ping, redis_client
from matrixhockey.celery import app
from matrixhockey.db import database_answers
from matrixhockey.redis_breaker import BreakerOpen, redis_call

logger = logging.getLogger(__name__)

OK, DOWN = "ok", "down"


def database_state() -> str:
    try:
        database_answers()
    except DatabaseError as error:
        logger.error("Health check: the database is down: %s", error)
        return DOWN
    return OK


def cache_state() -> str:
    if redis_client() is None:
        return "local"
    return OK if ping() else DOWN


def _broker_connects() -> None:
    """One try at a connection to the broker (``REDIS_CONNECT_TIMEOUT``, then
    ``REDIS_SOCKET_TIMEOUT`` for its first answer); raises when it fails."""
    with app.connection_for_write(connect_timeout=settings.REDIS_CONNECT_TIMEOUT) as broker:
        broker.ensure_connection(max_retries=0)


def broker_state() -> str:
    """Whether the broker takes a connection now, through the Redis breaker: a Redis that the
    cache's ping (or any call of this process) found down a moment ago is "down" at once."""
    if app.conf.task_always_eager:
        return "eager"
    try:
        redis_call(_broker_connects)
    except BreakerOpen:
        return DOWN
    except (OperationalError, OSError) as error:
        logger.warning("Health check: the task broker is down: %s", error)
        return DOWN
    return OK


def health() -> tuple[dict[str, str], bool]:
    """Each part's state, and whether the site can serve (the database answers)."""
    parts = {"database": database_state(), "cache": cache_state(), "broker": broker_state()}
    return parts, parts["database"] == OK
