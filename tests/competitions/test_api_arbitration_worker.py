"""The arbitration endpoint with a REAL Celery worker on a REAL Redis broker: the call queues the
task, the worker plays it, the call answers with the result; two referees calling at once get
one result; with no worker consuming, the call answers 202 and the work waits in the queue."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connections
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

from competitions.models import ArbitrationRequest, PoolRound, TeamResult
from league.models import AuditLog, Division, Season
from matrixhockey.celery import app
from tests.competitions.desk_league import Desk, arbitration_url, desk_build, running_worker
from tests.conftest import BROKER_KEYS, redis_empty, redis_url

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

ApiAs = Callable[[User | None], APIClient]


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division], settings: Settings) -> Desk:
    settings.ARBITRATION_WAIT_SECONDS = 30
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, skip=["elite-04"])
    return made


def test_the_endpoint_answers_with_the_result_the_worker_stored(desk: Desk, api_as: ApiAs) -> None:
    with running_worker():
        response = api_as(desk.referee).post(arbitration_url(1))
    assert response.status_code == 200, response.content
    pool_round = desk.pool_round(1)
    assert pool_round.status == PoolRound.Status.ARBITRATED
    assert response.json()["status"] == "arbitrated"
    assert len(response.json()["matches"]) == 6
    assert TeamResult.objects.filter(pool_round=pool_round).count() == 12


def test_two_referees_calling_at_once_get_one_result(
    desk: Desk, api_as: ApiAs, admin_user: User
) -> None:
    """The pool's referee and an admin click at the same moment: two tasks, one claim."""
    answers: list[object] = []
    start = threading.Barrier(2)

    def call(user: User) -> None:
        try:
            start.wait()
            answers.append(api_as(user).post(arbitration_url(1)))
        finally:
            connections.close_all()

    with running_worker(concurrency=2):
        callers = [threading.Thread(target=call, args=(u,)) for u in (desk.referee, admin_user)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()

    assert [answer.status_code for answer in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    assert TeamResult.objects.filter(pool_round=desk.pool_round(1)).count() == 12
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1
    # One request: the second call found it pending, queued nothing and waited for it.
    request = ArbitrationRequest.objects.get()
    assert (request.status, request.attempts) == ("done", 1)
    assert AuditLog.objects.filter(action="pool_round_arbitration_request").count() == 1


def test_without_a_worker_the_call_answers_202_and_the_task_waits_in_the_queue(
    desk: Desk, api_as: ApiAs, settings: Settings
) -> None:
    settings.ARBITRATION_WAIT_SECONDS = 1
    saved = {key: app.conf[key] for key in ("task_always_eager", *BROKER_KEYS, "result_backend")}
    app.conf.update(
        task_always_eager=False,
        **dict.fromkeys(BROKER_KEYS, redis_url()),
        result_backend=redis_url(),
    )
    try:
        redis_empty()
        response = api_as(desk.referee).post(arbitration_url(1))
        assert response.status_code == 202
        assert response.json()["status"] == "arbitrating"
        assert response.json()["request"]["status"] == "requested"
        assert response.json()["request"]["attempts"] == 0
        assert desk.pool_round(1).status == PoolRound.Status.PENDING
    finally:
        app.conf.update(saved)

    # A worker starting later finds the task and plays it; the next call gets the result.
    settings.ARBITRATION_WAIT_SECONDS = 30
    with running_worker(purge=False):
        again = api_as(desk.referee).post(arbitration_url(1))
    assert again.status_code == 200
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1
