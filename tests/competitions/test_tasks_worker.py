"""The arbitration task on a REAL Celery worker taking it from a REAL Redis broker: sent twice at
once, retried after a database error, or sent again, a request is claimed once per attempt and a
pool round gets exactly one result."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import OperationalError

from competitions import services, tasks
from competitions.models import (
    ArbitrationRequest,
    FixtureResult,
    PoolRound,
    StockMovement,
    StockReason,
    TeamResult,
)
from competitions.services import queue
from league.models import AuditLog, Division, Season
from matrixhockey.db import work_lock
from tests.competitions.desk_league import Desk, desk_build, running_worker

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

TIMEOUT = 60


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all(
        "elite", 1, picks={"elite-01": "A++(1)", "elite-02": "B#(2)"}, skip=["elite-07"]
    )
    return made


def assert_one_result(pool_round: PoolRound) -> None:
    assert PoolRound.objects.get(pk=pool_round.pk).status == PoolRound.Status.ARBITRATED
    assert TeamResult.objects.filter(pool_round=pool_round).count() == 12
    assert FixtureResult.objects.filter(fixture__pool_round=pool_round).count() == 6
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1
    played = StockMovement.objects.filter(reason=StockReason.PLAYED)
    assert sorted(played.values_list("entry__team__slug", "delta")) == [
        ("elite-01", -2),
        ("elite-02", -1),
    ]


def asked(desk: Desk, number: int = 1) -> ArbitrationRequest:
    """A committed request of the referee's, as a worker finds it (the test sends its task)."""
    return ArbitrationRequest.objects.create(
        pool_round=desk.pool_round(number), requested_by=desk.referee
    )


def test_the_task_sent_twice_at_once_claims_the_request_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two worker threads run the request's task together (a barrier holds each before the
    pool round's work lock until the other is there): one takes the lock and claims the
    request; the other finds the lock held, looks again later and finds the request done —
    never a second result, one attempt."""
    together = threading.Barrier(2, timeout=TIMEOUT)
    runs: list[int] = []

    @contextmanager
    def at_once(namespace: int, key: int) -> Iterator[bool]:
        runs.append(1)
        if len(runs) <= 2:  # the two tasks; the loser's later look goes straight in
            together.wait()
        with work_lock(namespace, key) as free:
            yield free

    monkeypatch.setattr(queue, "work_lock", at_once)
    monkeypatch.setattr(tasks, "ARBITRATION_RETRY_BASE_SECONDS", 0)
    request = asked(desk)
    with running_worker(concurrency=2):
        sent = [tasks.pool_round_arbitrate.delay(request.pk) for _ in range(2)]
        outcomes = [result.get(timeout=TIMEOUT) for result in sent]

    assert_one_result(desk.pool_round(1))
    request.refresh_from_db()
    assert (request.status, request.attempts) == ("done", 1)
    assert [o["attempts"] for o in outcomes] == [1, 1], outcomes
    assert AuditLog.objects.filter(action="pool_round_arbitration_started").count() == 1
    assert PoolRound.objects.get(pk=request.pool_round_id).arbitrated_by == desk.referee


def test_a_retried_task_gives_the_same_single_result(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transient database error: the request goes back to the queue, the worker retries
    (with backoff, shortened here) and the retry claims it again — its second attempt — and
    arbitrates once; sending the task again afterwards finds the request done."""
    real = queue.pool_round_arbitrate
    attempts: list[int] = []

    def flaky(**kwargs: object) -> PoolRound:
        attempts.append(1)
        if len(attempts) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(queue, "pool_round_arbitrate", flaky)
    monkeypatch.setattr(tasks, "ARBITRATION_RETRY_BASE_SECONDS", 0)
    request = asked(desk)
    with running_worker():
        first = tasks.pool_round_arbitrate.delay(request.pk)
        assert first.get(timeout=TIMEOUT)["status"] == "done"
        arbitrated_at = PoolRound.objects.get(pk=request.pool_round_id).arbitrated_at
        again = tasks.pool_round_arbitrate.delay(request.pk)
        assert again.get(timeout=TIMEOUT)["status"] == "done"

    assert len(attempts) == 2  # the failure and its retry; the task sent again runs nothing
    request.refresh_from_db()
    assert (request.status, request.attempts) == ("done", 2)
    assert_one_result(desk.pool_round(1))
    assert PoolRound.objects.get(pk=request.pool_round_id).arbitrated_at == arbitrated_at


def test_a_refusal_on_the_worker_is_recorded_on_the_request(desk: Desk) -> None:
    desk.league.send_all("elite", 2)
    request = asked(desk, number=2)  # round 1 is not arbitrated yet
    with running_worker():
        result = tasks.pool_round_arbitrate.delay(request.pk)
        outcome = result.get(timeout=TIMEOUT)
    assert outcome["code"] == "out_of_order"
    request.refresh_from_db()
    assert (request.status, request.refusal_code, request.refusal_facts) == (
        "refused",
        "out_of_order",
        {"number": 1},
    )
    assert request.task_id == result.id
    history = AuditLog.objects.get(action="pool_round_arbitration_refused")
    assert history.payload["task"] == result.id
    assert not TeamResult.objects.exists()


def test_a_referees_request_is_arbitrated_by_the_worker(desk: Desk) -> None:
    """The page's and the API's path: the request queues the task when its transaction commits
    and the worker plays it; waiting for it returns the arbitrated pool round."""
    with running_worker():
        asked = services.pool_round_arbitration_request(
            pool_round=desk.pool_round(1), by=desk.referee
        )
        done = services.pool_round_arbitration_wait(
            pool_round=desk.pool_round(1), request=asked, timeout=TIMEOUT
        )
    assert done.status == PoolRound.Status.ARBITRATED
    assert_one_result(desk.pool_round(1))
    assert ArbitrationRequest.objects.get().status == "done"
