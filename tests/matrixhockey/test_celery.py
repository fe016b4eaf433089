"""A real Celery worker takes a task from the real Redis broker and returns its result."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker

from matrixhockey.celery import ping
from tests.conftest import celery_on_redis


@pytest.fixture
def redis_app() -> Iterator[Celery]:
    """The project's Celery app on the test Redis, not eager, whatever the settings say, and the
    test Redis emptied before and after (:func:`tests.conftest.celery_on_redis`)."""
    with celery_on_redis() as celery:
        yield celery


@pytest.mark.celery_worker
def test_a_worker_runs_a_task_sent_through_redis(redis_app: Celery) -> None:
    with start_worker(redis_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        result = ping.delay()
        assert result.get(timeout=20) == "pong"
        assert result.successful()


def test_without_a_broker_tasks_run_eagerly() -> None:
    result = ping.apply()
    assert result.get() == "pong"
