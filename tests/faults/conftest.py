"""Fault tests: real parts (PostgreSQL, Redis, Celery workers, the site under gunicorn) started,
broken and stopped by the tests. Each needs programs the machine may lack (PostgreSQL's
``initdb``/``pg_ctl``, ``redis-server``); without them the test is skipped with the reason, or
fails when ``REQUIRE_SERVICES=1`` (as in CI)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import psycopg2
import pytest
import redis
from django.db import connections

from mail import outbox
from matrixhockey.celery import app
from tests.conftest import BROKER_KEYS, redis_url, services_required
from tests.faults.services import base_env, postgres_bin


def need(problem: str | None) -> None:
    """Skip (or fail, with ``REQUIRE_SERVICES=1``) when ``problem`` says what is missing."""
    if problem is None:
        return
    if services_required():
        pytest.fail(f"REQUIRE_SERVICES=1 and {problem}", pytrace=False)
    pytest.skip(problem)


@pytest.fixture(scope="session")
def pg_bin() -> Path:
    """PostgreSQL's programs (``initdb``, ``pg_ctl``, ``pg_dump``…) for a private cluster."""
    found = postgres_bin()
    need(None if found else "no PostgreSQL programs in /usr/lib/postgresql/*/bin (initdb, pg_ctl)")
    assert found is not None
    return found


@pytest.fixture(scope="session")
def redis_server() -> str:
    """The ``redis-server`` program, for a private Redis."""
    found = shutil.which("redis-server")
    need(None if found else "redis-server is not installed")
    assert found is not None
    return found


@pytest.fixture
def broker() -> Iterator[str]:
    """The test Redis (``REDIS_URL``), emptied of queued and unacknowledged tasks (none of another
    test may come back here), as the broker of this process's Celery app."""
    url = redis_url()
    client = redis.Redis.from_url(url)
    keys = ("celery", "unacked", "unacked_index", "unacked_mutex")
    client.delete(*keys)
    outbox.email_outbox_wake_forget()  # a wake-up queued there by an earlier test is gone
    saved = {key: app.conf[key] for key in ("task_always_eager", *BROKER_KEYS, "result_backend")}
    app.conf.update(task_always_eager=False, **dict.fromkeys(BROKER_KEYS, url), result_backend=url)
    try:
        yield url
    finally:
        app.conf.update(saved)
        client.delete(*keys)


def worker_env(broker: str, *, visibility_seconds: int) -> dict[str, str]:
    """A worker process's environment: the test database, ``broker``, the visibility timeout."""
    db = connections["default"].settings_dict  # the test database, once set up
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    database = (
        f"postgresql://{db.get('USER') or 'postgres'}{password}@{db.get('HOST') or '127.0.0.1'}"
        f":{db.get('PORT') or 5432}/{db['NAME']}"
    )
    return base_env(
        DATABASE_URL=database,
        REDIS_URL=broker,
        CELERY_VISIBILITY_TIMEOUT=str(visibility_seconds),
        LOG_LEVEL="info",
    )


def rows_locked(table: str) -> psycopg2.extensions.connection:
    """The test's own connection to the test database, holding every row of ``table`` locked
    (``SELECT … FOR UPDATE``) until it rolls back: work that reaches those rows waits there, as
    slow work would, for as long as the test needs — no mock, the real code path."""
    db = connections["default"].settings_dict
    locker = psycopg2.connect(
        dbname=db["NAME"],
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None,
        port=db.get("PORT") or None,
    )
    with locker.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {table} FOR UPDATE")  # a table name of the test's own
    return locker
