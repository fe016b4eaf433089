"""The registry's tests' own fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache

from matrixhockey.celery import app


@pytest.fixture
def delivered() -> Iterator[None]:
    """Outbox emails go out in the test's process (locmem backend), and the rate limits'
    counters start afresh (they live in the cache, shared by a run's tests)."""
    cache.clear()
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = saved
        cache.clear()
