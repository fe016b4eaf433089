"""A private Redis stopped, hung (SIGSTOP) and lost under the site and a worker.

The site runs under gunicorn on a private PostgreSQL with the demo league, its cache, throttles
and broker on a private ``redis-server``. With that Redis stopped, then hung, a coach's pick is
answered and stored with its receipt waiting in the outbox, ``/`` is served, and ``/healthz``
says « degraded », naming the cache and the broker. (How fast is measured by
``bench/bench_redis_faults.py``, not here; a hung Redis without the fix holds a request for
good, past this test's generous client timeout.) A real Celery worker holding tasks when its
Redis stops reconnects once it is back and runs them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg2
import pytest
from celery import Celery
from django.conf import settings

from matrixhockey.celery import ping
from tests.conftest import database_problem
from tests.faults.conftest import need, worker_env
from tests.faults.services import (
    PrivatePostgres,
    PrivateRedis,
    Process,
    base_env,
    celery_worker,
    gunicorn_site,
    manage,
    wait_for,
)
from tests.faults.test_postgres_restart import DATABASE, LEAGUE_SCRIPT, Answer, call, schema_dump

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

REDIS_PORT = 8670
SITE_PORT = 8671
PG_PORT = 8672
CLIENT_TIMEOUT = 30
"""Seconds a request may take here before the test fails: far above the benchmark's 1 s, far
below the minutes a hung Redis held a request before the fix."""


@dataclass
class Site:
    redis: PrivateRedis
    postgres: PrivatePostgres
    url: str
    round: int
    coaches: list[dict[str, str]]
    server: Process

    def pick(self, coach: dict[str, str]) -> Answer:
        path = f"{self.url}/api/picks/championship/{self.round}/"
        return call(path, method="PUT", token=coach["token"], body={"pick": coach["pick"]})

    def stored(self, receipts: list[str]) -> tuple[set[str], int]:
        """Which of ``receipts`` are stored, and how many receipts wait in the outbox."""
        with (
            self.postgres_connection() as connection,
            connection.cursor() as cursor,
        ):
            cursor.execute(
                "SELECT receipt FROM competitions_pick WHERE receipt = ANY(%s)", [receipts]
            )
            stored = {row[0] for row in cursor.fetchall()}
            cursor.execute(
                "SELECT count(*) FROM mail_outboundemail"
                " WHERE template = 'pick-receipt' AND status = 'queued'"
            )
            (queued,) = cursor.fetchone()
        return stored, queued

    def postgres_connection(self) -> psycopg2.extensions.connection:
        return psycopg2.connect(
            host="127.0.0.1", port=self.postgres.port, user="postgres", dbname=DATABASE
        )


@pytest.fixture(scope="module")
def redis_site(
    pg_bin: Path,
    redis_server: str,
    django_db_setup: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Site]:
    need(database_problem())
    logs = tmp_path_factory.mktemp("redis-site")
    redis = PrivateRedis(redis_server, REDIS_PORT)
    postgres = PrivatePostgres(pg_bin, PG_PORT)
    server = None
    try:
        redis.start()
        postgres.start()
        postgres.restore_database(DATABASE, schema_dump(pg_bin))
        env = base_env(
            DATABASE_URL=postgres.url(DATABASE),
            REDIS_URL=redis.url(0),
            EMAIL_BACKEND="file",
            EMAIL_FILE_PATH=str(logs / "mail"),
            LOG_LEVEL="warning",
        )
        league = json.loads(manage(env, "shell", "-c", LEAGUE_SCRIPT).split("LEAGUE ", 1)[1])
        server, url = gunicorn_site(env, logs / "gunicorn.log", workers=1, threads=4, timeout=120)
        yield Site(redis, postgres, url, league["round"], league["coaches"], server)
    finally:
        if server is not None:
            server.stop()
        redis.remove()
        postgres.stop()


def health(site: Site) -> dict[str, str]:
    answer = call(f"{site.url}/healthz")
    assert answer.status == 200, answer.body[:300]  # the database answers: the site serves
    parts: dict[str, str] = json.loads(answer.body)
    return parts


def assert_serves_without_redis(site: Site) -> None:
    """Picks answered and stored with their receipts queued, pages served, /healthz degraded."""
    coaches = site.coaches[:3]
    _, queued_before = site.stored([])
    answers = [site.pick(coach) for coach in coaches]
    assert [answer.status for answer in answers] == [200] * len(coaches), answers[0].body[:300]
    receipts = [json.loads(answer.body)["receipt"] for answer in answers]
    stored, queued = site.stored(receipts)
    assert stored == set(receipts)
    assert queued == queued_before + len(coaches)  # the receipts wait for a worker
    assert call(f"{site.url}/").status == 200
    assert health(site) == {
        "status": "degraded",
        "database": "ok",
        "cache": "down",
        "broker": "down",
    }


def wait_until_healthy(site: Site) -> None:
    """Redis back: within ``REDIS_RETRY_SECONDS`` the site uses it again."""
    wait_for(lambda: health(site)["status"] == "ok", timeout=30, what="/healthz ok again")


def test_a_pick_is_stored_and_healthz_degraded_while_redis_is_stopped(
    redis_site: Site,
) -> None:
    assert health(redis_site)["status"] == "ok"
    redis_site.redis.stop()
    try:
        assert_serves_without_redis(redis_site)
        # The site noticed, and leaves Redis alone for a while (matrixhockey.redis_breaker).
        assert "Redis is unreachable: not tried again" in redis_site.server.text()
    finally:
        redis_site.redis.start()
    wait_until_healthy(redis_site)
    assert redis_site.pick(redis_site.coaches[0]).status == 200


def test_a_pick_is_stored_and_healthz_degraded_while_redis_hangs(redis_site: Site) -> None:
    wait_until_healthy(redis_site)
    redis_site.redis.hang()
    try:
        assert_serves_without_redis(redis_site)
    finally:
        redis_site.redis.resume()
    wait_until_healthy(redis_site)


def test_a_worker_holding_tasks_reconnects_after_losing_redis_and_runs_them(
    redis_site: Site, tmp_path: Path
) -> None:
    """The tasks are held by the worker (an ETA ahead, prefetched and not acknowledged) when
    Redis stops; Redis keeps them (appended to its file). Back up, the worker reconnects, the
    tasks come back from the unacknowledged set after the visibility timeout, and run. (Celery
    5.7.0's own consumer exits instead: AttributeError … 'hostname'; matrixhockey.worker.)"""
    broker = redis_site.redis.url(1)
    env = worker_env(broker, visibility_seconds=5)
    worker = celery_worker(env, tmp_path / "worker.log", name="redis-lost")
    client = Celery("redis-lost-client", broker=broker, set_as_current=False)
    client.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    try:
        with client.connection_for_write() as connection:
            sent = [ping.apply_async(countdown=8, connection=connection).id for _ in range(2)]
        wait_for(
            lambda: worker.text().count("received") >= 2,
            timeout=20,
            what="the worker holding the tasks",
        )
        redis_site.redis.stop()
        wait_for(
            lambda: "Connection to broker lost" in worker.text(),
            timeout=20,
            what="the worker noticing",
        )
        redis_site.redis.start()
        wait_for(lambda: "Connected to" in worker.text().split("broker lost")[-1] or not
                 worker.alive(), timeout=60, what="the worker reconnecting")  # fmt: skip
        assert worker.alive(), worker.text()[-3000:]

        def all_ran() -> bool:
            text = worker.text()
            return all(f"ping[{task_id}] succeeded" in text for task_id in sent)

        wait_for(lambda: all_ran() or not worker.alive(), timeout=60, what="the held tasks run")
        assert all_ran(), worker.text()[-3000:]
        assert worker.alive()
        assert "Unrecoverable error" not in worker.text()
    finally:
        worker.stop()
        client.close()
