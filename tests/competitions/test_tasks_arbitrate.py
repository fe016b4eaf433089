"""The ``competitions.pool_round_arbitrate`` task, run in the test's process: it calls the
service in the user's name, retries a transient database error with backoff, and records a
refusal as final. (A real worker on Redis: ``test_tasks_worker.py``.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from competitions import services, tasks
from competitions.models import Competition, PoolRound, Round, TeamResult
from league.models import AuditLog, Division, Season
from tests.competitions.desk_league import Desk, desk_build

pytestmark = pytest.mark.usefixtures("eager")


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, skip=["elite-07"])
    return made


def run(desk: Desk, pool_round: PoolRound | None = None, task_id: str = "task-1") -> object:
    pool_round = pool_round or desk.pool_round(1)
    return tasks.pool_round_arbitrate.apply(args=[pool_round.pk, desk.referee.pk], task_id=task_id)


def test_the_task_arbitrates_the_pool_round_in_the_users_name(desk: Desk) -> None:
    result = run(desk)
    pool_round = desk.pool_round(1)
    assert result.get() == {"status": "arbitrated", "pool_round": pool_round.pk}
    assert pool_round.status == PoolRound.Status.ARBITRATED
    assert pool_round.arbitrated_by == desk.referee
    assert TeamResult.objects.filter(pool_round=pool_round).count() == 12


def test_the_task_sent_again_returns_the_stored_result(desk: Desk) -> None:
    run(desk, task_id="first")
    arbitrated_at = desk.pool_round(1).arbitrated_at
    again = run(desk, task_id="second")
    assert again.get()["status"] == "arbitrated"
    assert desk.pool_round(1).arbitrated_at == arbitrated_at
    assert TeamResult.objects.filter(pool_round=desk.pool_round(1)).count() == 12
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1


def test_a_refusal_is_recorded_and_not_retried(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """R13: too early is final — the task answers it, the audit log keeps it under its id."""
    Round.objects.filter(pk=desk.league.round(Competition.CHAMPIONSHIP, 1).pk).update(
        deadline=timezone.now() + timedelta(hours=1)
    )
    retried: list[object] = []
    monkeypatch.setattr(tasks.pool_round_arbitrate, "retry", lambda *a, **k: retried.append(a))

    result = run(desk, task_id="too-early")

    # A code and the facts its message needs, no words: worded when shown, in the reader's
    # language (competitions.services.errors).
    assert result.get() == {"status": "refused", "code": "too_early", "facts": {"number": 1}}
    assert retried == []
    refusal = AuditLog.objects.get(action="pool_round_arbitration_refused")
    assert refusal.payload == {"task": "too-early", "code": "too_early", "facts": {"number": 1}}
    assert refusal.actor == desk.referee
    assert desk.pool_round(1).status == PoolRound.Status.PENDING


def test_a_broken_seed_commitment_is_a_final_refusal(desk: Desk) -> None:
    """R23: nothing is played when the seed does not hash to its published commitment."""
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="0" * 64)
    assert run(desk).get()["code"] == "seed_commitment"
    assert not TeamResult.objects.exists()


def test_run_in_process_a_database_error_goes_to_the_caller(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a broker there is no queue to retry on (the worker's retries:
    ``test_tasks_worker.py``); nothing is stored."""

    def down(**kwargs: object) -> PoolRound:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(services, "pool_round_arbitrate", down)
    with pytest.raises(OperationalError):
        run(desk)
    assert desk.pool_round(1).status == PoolRound.Status.PENDING
    assert not AuditLog.objects.filter(action="pool_round_arbitration_refused").exists()


def test_retries_wait_longer_each_time_up_to_five_minutes() -> None:
    waits = [tasks.arbitration_retry_countdown(n) for n in range(8)]
    assert waits[:4] == [5, 10, 20, 40]
    assert waits == sorted(waits) and max(waits) == 300


def test_a_task_for_a_pool_round_that_no_longer_exists_does_nothing(desk: Desk) -> None:
    result = tasks.pool_round_arbitrate.apply(args=[987654, None])
    assert result.get() == {"status": "missing", "pool_round": 987654}
    assert not TeamResult.objects.exists()
