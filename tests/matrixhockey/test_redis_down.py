"""A REAL Redis stopped under the API: a private ``redis-server`` on a free port is the cache, the
throttles' store and the task broker; it is stopped mid-test. Reads and picks still answer (the
throttle lets them through, logged), the pick is stored with its receipt email waiting in the
outbox, arbitration answers its documented 503, and ``/healthz`` says what is down, still 200.
And django-redis at an address where nothing listens: misses, one log line, limits let through."""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
import redis
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

from competitions.models import Pick, Round
from league.models import Division, Season
from mail.models import OutboundEmail
from matrixhockey.cache import LOG_EVERY_SECONDS, OncePerInterval, rate_exceeded, redis_client
from matrixhockey.cache import ping as health_ping
from matrixhockey.celery import app
from tests.competitions.desk_league import Desk, arbitration_url, desk_build
from tests.conftest import BROKER_KEYS

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

ApiAs = Callable[[User | None], APIClient]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivateRedis:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def private_redis(settings: Settings) -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": server.url,
            "KEY_PREFIX": "h11-test",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }
    kept = {key: app.conf[key] for key in ("task_always_eager", *BROKER_KEYS)}
    app.conf.update(task_always_eager=False, **dict.fromkeys(BROKER_KEYS, server.url))
    app._pool = None  # the broker connections are made again, to the private server
    app.amqp._producer_pool = None
    try:
        yield server
    finally:
        server.stop()
        app.conf.update(kept)
        app._pool = None
        app.amqp._producer_pool = None


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    return desk_build(season=season, divisions=divisions)


def test_the_api_keeps_answering_when_redis_stops(
    private_redis: PrivateRedis,
    desk: Desk,
    api_as: ApiAs,
    client: APIClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    anonymous = api_as(None)
    assert anonymous.get("/api/seasons/").status_code == 200
    assert client.get("/healthz").json() == {
        "status": "ok",
        "database": "ok",
        "cache": "ok",
        "broker": "ok",
    }
    # The throttle's counter is in the private Redis.
    assert list(redis.Redis.from_url(private_redis.url).scan_iter("*throttle*"))

    private_redis.stop()

    with caplog.at_level(logging.WARNING):
        assert anonymous.get("/api/seasons/").status_code == 200
    assert "Cache unreachable" in caplog.text or "not applied" in caplog.text

    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json() == {
        "status": "degraded",
        "database": "ok",
        "cache": "down",
        "broker": "down",
    }

    # A coach's pick (round 2 made open again) is stored; its receipt waits in the outbox.
    Round.objects.filter(competition="championship", number=2).update(
        deadline=timezone.now() + timedelta(days=1)
    )
    coach = desk.coach
    answer = api_as(coach).put("/api/picks/championship/2/", {"pick": "A(1)"}, format="json")
    assert answer.status_code == 200, answer.content
    assert Pick.objects.filter(entry__team__coach=coach).count() == 1
    assert OutboundEmail.objects.filter(status=OutboundEmail.Status.QUEUED).count() == 1

    # Arbitration (round 1 is past its deadline): the queue is down, said as API.md says.
    refused = api_as(desk.referee).post(arbitration_url(1))
    assert refused.status_code == 503
    assert refused.json()["code"] == "queue_unavailable"


@pytest.fixture
def unreachable_cache(settings: Settings) -> Iterator[None]:
    """The cache on django-redis at an address where nothing listens."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }
    # Wired by settings.LOGGING (once more each time logging is configured again in this
    # process, as a Celery worker started by a test does).
    thinnings = [
        found
        for found in logging.getLogger("matrixhockey.cache.ignored").filters
        if isinstance(found, OncePerInterval)
    ]
    assert thinnings
    for thinning in thinnings:
        thinning.last = -LOG_EVERY_SECONDS
    yield


def test_a_cache_that_is_down_is_a_miss_and_says_so_once(
    unreachable_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        for number in range(5):
            cache.set(f"key-{number}", number)
            assert cache.get(f"key-{number}") is None
            assert cache.get_many([f"key-{number}"]) == {}
    ignored = [r for r in caplog.records if r.name == "matrixhockey.cache.ignored"]
    assert len(ignored) == 1  # fifteen failed calls, one line
    assert health_ping() is False
    assert redis_client() is not None


def test_a_rate_limit_lets_the_use_through_when_its_cache_is_down(
    unreachable_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert rate_exceeded(key="test", limit=0, seconds=60) is False
    assert "Rate limit test not applied" in caplog.text


def test_a_rate_limit_counts_on_a_cache_that_answers(settings: Settings) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
    assert [rate_exceeded(key="test", limit=2, seconds=60) for _ in range(3)] == [
        False,
        False,
        True,
    ]
