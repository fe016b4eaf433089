"""A Celery worker killed with SIGKILL in the middle of an arbitration: a real worker process
(prefork) on the test Redis takes the task and is held inside the arbitration (the test holds the
teams' rows locked, as a slow arbitration would), then its whole process group is killed. Nothing
of the arbitration is stored, the referee's desk says the worker stopped and offers to ask again,
and the task comes back from the queue after the visibility timeout (shortened here to seconds
through ``CELERY_VISIBILITY_TIMEOUT``, ten minutes by default, not Redis's hour): a new worker
arbitrates the round once — one result, the stocks played once — even with the referee's
"ask again" queued beside it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psycopg2
import pytest
from celery.result import AsyncResult
from django.test import Client
from django.urls import reverse

from competitions import selectors, services
from competitions.models import (
    ArbitrationRequest,
    FixtureResult,
    PoolRound,
    StockMovement,
    StockReason,
    TeamResult,
)
from league.models import AuditLog, Division, Season
from matrixhockey.celery import app
from tests.competitions.desk_league import Desk, desk_build
from tests.faults.conftest import rows_locked, worker_env
from tests.faults.services import celery_worker, wait_for

pytestmark = [
    pytest.mark.faults,
    pytest.mark.celery_worker,
    pytest.mark.django_db(transaction=True),
]

VISIBILITY_SECONDS = 5
"""The workers' visibility timeout here: a task taken by a lost worker is handed out again
after it."""


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all(
        "elite", 1, picks={"elite-01": "A++(1)", "elite-02": "B#(2)"}, skip=["elite-07"]
    )
    return made


def teams_locked() -> psycopg2.extensions.connection:
    """The test's own connection holding every team's row locked: an arbitration that reaches
    them (it locks its teams' entries) waits there, mid-arbitration."""
    return rows_locked("league_entry")


def desk_page(desk: Desk) -> str:
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(desk.referee)
    url = reverse("referee_round", args=["championship", "elite", 1])
    response = browser.get(url)
    assert response.status_code == 200
    return response.content.decode()


def state(desk: Desk) -> selectors.ArbitrationState:
    return selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1))


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


def attempts(request: ArbitrationRequest) -> int:
    """How many times a worker took ``request`` (its row's count)."""
    return ArbitrationRequest.objects.get(pk=request.pk).attempts


def test_a_worker_killed_mid_arbitration_is_replaced_and_the_round_arbitrated_once(
    desk: Desk, broker: str, tmp_path: Path
) -> None:
    env = worker_env(broker, visibility_seconds=VISIBILITY_SECONDS)
    locker = teams_locked()
    first = celery_worker(env, tmp_path / "first.log", name="first")
    try:
        asked = services.pool_round_arbitration_request(
            pool_round=desk.pool_round(1), by=desk.referee
        )
        assert asked is not None and asked.task_id
        first_task = asked.task_id
        wait_for(lambda: state(desk).running, timeout=30, what="the worker taking the task")
        assert 'data-arbitration="running"' in desk_page(desk)

        first.kill(signal.SIGKILL)
        first.process.wait(timeout=10)
        killed_at = time.monotonic()
    finally:
        locker.rollback()  # the killed worker's session ends, its transaction rolled back
        locker.close()
        first.stop()

    wait_for(lambda: state(desk).lost, timeout=30, what="the killed worker's session ending")
    page = desk_page(desk)
    assert 'data-arbitration="lost"' in page
    assert "stopped before finishing: nothing of it was stored" in page
    assert "Ask again" in page
    assert not TeamResult.objects.exists()
    assert desk.pool_round(1).status == PoolRound.Status.PENDING

    # The referee asks again while no worker runs: the same request, queued again under a
    # second task that waits in the queue.
    again = services.pool_round_arbitration_request(pool_round=desk.pool_round(1), by=desk.referee)
    assert again is not None and again.pk == asked.pk and again.asks == 2
    assert again.task_id != first_task

    # A new worker, once the visibility timeout has run out, gets the lost task back (and the
    # second one): the round is arbitrated once, within seconds here, not an hour.
    time.sleep(max(0.0, VISIBILITY_SECONDS + 1 - (time.monotonic() - killed_at)))
    second = celery_worker(env, tmp_path / "second.log", name="second")
    try:
        wait_for(
            lambda: (
                AsyncResult(first_task, app=app).ready()
                and AsyncResult(again.task_id, app=app).ready()
            ),
            timeout=45,
            what="both tasks answered",
            every=0.5,
        )
        redelivered_after = time.monotonic() - killed_at
    finally:
        second.stop()

    assert_one_result(desk.pool_round(1))
    assert attempts(asked) == 2  # taken by the killed worker, then by the second one
    outcomes = [AsyncResult(t, app=app).get(timeout=5) for t in (first_task, again.task_id)]
    assert [o["status"] for o in outcomes] == ["done", "done"], outcomes
    assert redelivered_after < 60
    assert "taken again (attempt 2)" in (tmp_path / "second.log").read_text()
    assert state(desk) == selectors.ArbitrationState()


def pool_children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            children.append(int(entry))
    return children


def test_a_pool_process_killed_mid_arbitration_gives_the_task_back_at_once(
    desk: Desk, broker: str, tmp_path: Path
) -> None:
    """Only the worker's pool process dies (the OOM killer's way): the worker rejects the task
    back to the queue (``task_reject_on_worker_lost``) and a new pool process arbitrates it at
    once, without waiting for the visibility timeout."""
    env = worker_env(broker, visibility_seconds=3600)
    locker = teams_locked()
    worker = celery_worker(env, tmp_path / "worker.log", name="only")
    try:
        asked = services.pool_round_arbitration_request(
            pool_round=desk.pool_round(1), by=desk.referee
        )
        assert asked is not None
        wait_for(lambda: state(desk).running, timeout=30, what="the worker taking the task")
        children = pool_children(worker.process.pid)
        assert len(children) == 1
        os.kill(children[0], signal.SIGKILL)
        locker.rollback()
        wait_for(
            lambda: (
                AsyncResult(asked.task_id, app=app).ready()
                and PoolRound.objects.get(pk=desk.pool_round(1).pk).status
                == PoolRound.Status.ARBITRATED
            ),
            timeout=45,
            what="the task handed back and arbitrated",
            every=0.5,
        )
    finally:
        locker.close()
        worker.stop()
    assert_one_result(desk.pool_round(1))
    assert attempts(asked) == 2  # taken by the killed pool process, then by its successor
