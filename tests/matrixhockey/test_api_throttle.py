"""The API's throttle counts per real client: ``X-Forwarded-For`` is believed only as far as the
league's own proxies (``TRUSTED_PROXY_COUNT``, DRF's ``NUM_PROXIES``) wrote it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import redis
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.cache import cache
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

from tests.conftest import redis_commands
from tests.matrixhockey.conftest import run_python, settings_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_a_minute(settings: Settings) -> Iterator[None]:
    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "3/minute", "user": "3/minute"},
    }
    yield
    cache.clear()


def statuses(client: APIClient, forwarded_for: list[str], remote: str = "203.0.113.7") -> list[int]:
    return [
        client.get(
            "/api/seasons/", headers={"x-forwarded-for": xff}, REMOTE_ADDR=remote
        ).status_code
        for xff in forwarded_for
    ]


ROTATING = [f"198.51.100.{n}" for n in range(1, 6)]


def test_rotating_x_forwarded_for_does_not_buy_more_requests(
    api_client: APIClient, three_a_minute: None
) -> None:
    assert statuses(api_client, ROTATING) == [200, 200, 200, 429, 429]


def test_behind_one_trusted_proxy_the_address_it_saw_counts(
    api_client: APIClient, three_a_minute: None, settings: Settings
) -> None:
    """The proxy appends the address it got the request from; what the client wrote before it
    (here, a new address each time) is not believed."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    forged = [f"{fake}, 192.0.2.10" for fake in ROTATING]
    assert statuses(api_client, forged, remote="10.0.0.2") == [200, 200, 200, 429, 429]
    # Another client behind the same proxy has its own count.
    assert statuses(api_client, ["192.0.2.11"], remote="10.0.0.2") == [200]


def test_trusted_proxy_count_is_read_from_the_environment() -> None:
    assert settings_in({}, "TRUSTED_PROXY_COUNT", "REST_FRAMEWORK")["TRUSTED_PROXY_COUNT"] == 0
    loaded = settings_in({"TRUSTED_PROXY_COUNT": "2"}, "REST_FRAMEWORK")
    assert loaded["REST_FRAMEWORK"]["NUM_PROXIES"] == 2  # type: ignore[index]


def test_a_bad_trusted_proxy_count_stops_the_start() -> None:
    done = run_python("import django; django.setup()", {"TRUSTED_PROXY_COUNT": "two"})
    assert done.returncode != 0
    assert "TRUSTED_PROXY_COUNT='two' is not valid" in done.stderr


@pytest.mark.skipif(not django_settings.PUBLIC_CACHE_SHARED, reason="the throttles on Redis")
def test_on_redis_a_throttled_call_costs_one_round_trip_and_over_the_rate_a_wait(
    api_as: Callable[[User | None], APIClient], coach: User, three_a_minute: None
) -> None:
    """The user's counter is a sorted set of request times, read and moved in one MULTI (DRF's
    own throttle reads a pickled list, then writes it: two round trips); over the rate, the
    answer says how long to wait."""
    client = api_as(coach)
    client.get("/api/me/")  # the token's first use
    server = redis.Redis.from_url(django_settings.REDIS_URL)
    with redis_commands(django_settings.REDIS_URL) as commands:
        assert [client.get("/api/me/").status_code for _ in range(2)] == [200, 200]
    assert commands["exec"] == 2
    assert commands["set"] == 0
    (key,) = server.scan_iter("*throttle_user_*:times")
    assert server.type(key) == b"zset" and server.zcard(key) == 3
    refused = client.get("/api/me/")
    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert server.zcard(key) == 3  # the refused call is not counted
