"""The ``competitions.arbitration_request_run`` task, run in the test's process: it runs a request
in its asker's name, retries a transient database error with backoff, and records a refusal as
final on the request. (A real worker on Redis: ``test_tasks_worker.py``.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from competitions import tasks
from competitions.models import ArbitrationRequest, Competition, PoolRound, Round, TeamResult
from competitions.services import queue
from league.models import AuditLog, Division, Season
from tests.competitions.desk_league import Desk, desk_build

pytestmark = pytest.mark.usefixtures("eager")


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, skip=["elite-07"])
    return made


def asked(desk: Desk) -> ArbitrationRequest:
    """A request of the referee's, as a worker finds it (the test queues nothing)."""
    return ArbitrationRequest.objects.create(
        pool_round=desk.pool_round(1), requested_by=desk.referee, task_id="task-1"
    )


def run(request: ArbitrationRequest, task_id: str = "task-1") -> object:
    return tasks.pool_round_arbitrate.apply(args=[request.pk], task_id=task_id)


def test_the_task_arbitrates_the_pool_round_in_the_users_name(desk: Desk) -> None:
    request = asked(desk)
    result = run(request)
    pool_round = desk.pool_round(1)
    assert result.get() == {
        "status": "done",
        "request": request.pk,
        "pool_round": pool_round.pk,
        "attempts": 1,
    }
    assert pool_round.status == PoolRound.Status.ARBITRATED
    assert pool_round.arbitrated_by == desk.referee
    assert TeamResult.objects.filter(pool_round=pool_round).count() == 12


def test_the_task_sent_again_finds_the_request_done(desk: Desk) -> None:
    request = asked(desk)
    run(request, task_id="first")
    arbitrated_at = desk.pool_round(1).arbitrated_at
    again = run(request, task_id="second")
    assert again.get()["status"] == "done"
    assert again.get()["attempts"] == 1  # claimed once
    assert desk.pool_round(1).arbitrated_at == arbitrated_at
    assert TeamResult.objects.filter(pool_round=desk.pool_round(1)).count() == 12
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1


def test_a_refusal_is_recorded_and_not_retried(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """R13: too early is final — the task answers it, the request keeps its code."""
    request = asked(desk)
    Round.objects.filter(pk=desk.league.round(Competition.CHAMPIONSHIP, 1).pk).update(
        deadline=timezone.now() + timedelta(hours=1)
    )
    retried: list[object] = []
    monkeypatch.setattr(tasks.pool_round_arbitrate, "retry", lambda *a, **k: retried.append(a))

    result = run(request, task_id="too-early")

    # A code and the facts its message needs, no words: worded when shown, in the reader's
    # language (competitions.services.errors).
    assert result.get() == {
        "status": "refused",
        "request": request.pk,
        "pool_round": desk.pool_round(1).pk,
        "attempts": 1,
        "code": "too_early",
    }
    assert retried == []
    request.refresh_from_db()
    assert (request.status, request.refusal_code, request.refusal_facts) == (
        "refused",
        "too_early",
        {"number": 1},
    )
    assert request.attempts == 1 and request.finished_at is not None
    history = AuditLog.objects.get(action="pool_round_arbitration_refused")  # history only
    assert history.payload == {
        "request": request.pk,
        "task": "too-early",
        "code": "too_early",
        "facts": {"number": 1},
    }
    assert history.actor == desk.referee
    assert desk.pool_round(1).status == PoolRound.Status.PENDING


def test_a_broken_seed_commitment_is_a_final_refusal(desk: Desk) -> None:
    """R23: nothing is played when the seed does not hash to its published commitment."""
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="0" * 64)
    assert run(asked(desk)).get()["code"] == "seed_commitment"
    assert not TeamResult.objects.exists()


def test_run_in_process_a_database_error_goes_to_the_caller(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a broker there is no queue to retry on (the worker's retries:
    ``test_tasks_worker.py``); nothing is stored, the request waits for its next attempt."""

    def down(**kwargs: object) -> PoolRound:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(queue, "pool_round_arbitrate", down)
    request = asked(desk)
    with pytest.raises(OperationalError):
        run(request)
    assert desk.pool_round(1).status == PoolRound.Status.PENDING
    request.refresh_from_db()
    assert (request.status, request.attempts, request.started_at) == ("requested", 1, None)
    assert not AuditLog.objects.filter(action="pool_round_arbitration_refused").exists()


def test_retries_wait_longer_each_time_up_to_five_minutes() -> None:
    waits = [tasks.arbitration_retry_countdown(n) for n in range(8)]
    assert waits[:4] == [5, 10, 20, 40]
    assert waits == sorted(waits) and max(waits) == 300


def test_a_task_for_a_request_that_does_not_exist_does_nothing(desk: Desk) -> None:
    result = tasks.pool_round_arbitrate.apply(args=[987654])
    assert result.get() == {"status": "missing", "request": 987654}
    assert not TeamResult.objects.exists()
