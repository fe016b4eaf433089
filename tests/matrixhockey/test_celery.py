"""A real Celery worker takes a task from the real Redis broker and returns its result."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker

from matrixhockey.celery import app, ping
from tests.conftest import redis_url


@pytest.fixture
def redis_app() -> Iterator[Celery]:
    """The project's Celery app on the test Redis, not eager, whatever the settings say."""
    keys = ("task_always_eager", "broker_url", "result_backend")
    saved = {key: app.conf[key] for key in keys}
    app.conf.update(task_always_eager=False, broker_url=redis_url(), result_backend=redis_url())
    try:
        yield app
    finally:
        app.conf.update(saved)


@pytest.mark.celery_worker
def test_a_worker_runs_a_task_sent_through_redis(redis_app: Celery) -> None:
    with start_worker(redis_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        result = ping.delay()
        assert result.get(timeout=20) == "pong"
        assert result.successful()


def test_without_a_broker_tasks_run_eagerly() -> None:
    result = ping.apply()
    assert result.get() == "pong"
