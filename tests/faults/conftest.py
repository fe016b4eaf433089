"""Fault tests: real parts (PostgreSQL, Redis, Celery workers, the site under gunicorn) started,
broken and stopped by the tests. Each needs programs the machine may lack (PostgreSQL's
``initdb``/``pg_ctl``, ``redis-server``); without them the test is skipped with the reason, or
fails when ``REQUIRE_SERVICES=1`` (as in CI)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import services_required
from tests.faults.services import postgres_bin


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
