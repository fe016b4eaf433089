"""The registry's tests' own fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache

from tests.conftest import eager_tasks


@pytest.fixture
def delivered() -> Iterator[None]:
    """Outbox emails go out in the test's process (locmem backend), and the rate limits'
    counters start afresh (they live in the cache, shared by a run's tests)."""
    cache.clear()
    try:
        with eager_tasks():
            yield
    finally:
        cache.clear()
