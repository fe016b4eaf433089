"""The arbitration task on a REAL Celery worker taking it from a REAL Redis broker: sent twice at
once, retried after a database error, or sent again, a pool round gets exactly one result."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError

from competitions import services, tasks
from competitions.models import FixtureResult, PoolRound, StockMovement, StockReason, TeamResult
from league.models import AuditLog, Division, Season
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


def test_the_task_sent_twice_at_once_stores_one_result(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two worker threads run the two tasks together (a barrier holds each until the other has
    started): one claim wins, the other task gets the stored result (or hears it is being
    arbitrated) — never a second result."""
    real = services.pool_round_arbitrate
    together = threading.Barrier(2, timeout=TIMEOUT)

    def at_once(**kwargs: object) -> PoolRound:
        together.wait()
        return real(**kwargs)

    monkeypatch.setattr(services, "pool_round_arbitrate", at_once)
    pool_round = desk.pool_round(1)
    with running_worker(concurrency=2):
        sent = [
            tasks.pool_round_arbitrate.delay(pool_round.pk, desk.referee.pk),
            tasks.pool_round_arbitrate.delay(pool_round.pk, desk.other_referee.pk),
        ]
        outcomes = [result.get(timeout=TIMEOUT) for result in sent]

    assert_one_result(pool_round)
    arbitrated = [o for o in outcomes if o["status"] == "arbitrated"]
    assert arbitrated, outcomes
    for outcome in outcomes:
        assert outcome["status"] == "arbitrated" or outcome["code"] == "in_progress"
    assert PoolRound.objects.get(pk=pool_round.pk).arbitrated_by in (
        desk.referee,
        desk.other_referee,
    )


def test_a_retried_task_gives_the_same_single_result(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transient database error: the worker retries (with backoff, shortened here) and the
    retry arbitrates once; sending the task again afterwards changes nothing."""
    real = services.pool_round_arbitrate
    attempts: list[int] = []

    def flaky(**kwargs: object) -> PoolRound:
        attempts.append(1)
        if len(attempts) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(services, "pool_round_arbitrate", flaky)
    monkeypatch.setattr(tasks, "ARBITRATION_RETRY_BASE_SECONDS", 0)
    pool_round = desk.pool_round(1)
    with running_worker():
        first = tasks.pool_round_arbitrate.delay(pool_round.pk, desk.referee.pk)
        assert first.get(timeout=TIMEOUT) == {"status": "arbitrated", "pool_round": pool_round.pk}
        arbitrated_at = PoolRound.objects.get(pk=pool_round.pk).arbitrated_at
        again = tasks.pool_round_arbitrate.delay(pool_round.pk, desk.referee.pk)
        assert again.get(timeout=TIMEOUT)["status"] == "arbitrated"

    assert len(attempts) == 3  # the failure, its retry, the task sent again
    assert_one_result(pool_round)
    assert PoolRound.objects.get(pk=pool_round.pk).arbitrated_at == arbitrated_at


def test_a_refusal_on_the_worker_is_recorded_under_the_tasks_id(desk: Desk) -> None:
    desk.league.send_all("elite", 2)
    pool_round = desk.pool_round(2)  # round 1 is not arbitrated yet
    with running_worker():
        result = tasks.pool_round_arbitrate.delay(pool_round.pk, desk.referee.pk)
        outcome = result.get(timeout=TIMEOUT)
    assert outcome["code"] == "out_of_order"
    refusal = AuditLog.objects.get(action="pool_round_arbitration_refused")
    assert refusal.payload["task"] == result.id
    assert not TeamResult.objects.exists()


def test_a_referees_request_is_arbitrated_by_the_worker(desk: Desk) -> None:
    """The page's and the API's path: the request queues the task when its transaction commits
    and the worker plays it; waiting for it returns the arbitrated pool round."""
    with running_worker():
        asked = services.pool_round_arbitration_request(
            pool_round=desk.pool_round(1), by=desk.referee
        )
        done = services.pool_round_arbitration_wait(request=asked, timeout=TIMEOUT)
    assert done.status == PoolRound.Status.ARBITRATED
    assert_one_result(desk.pool_round(1))
