"""A Celery worker killed with SIGKILL in the middle of a season start: the job stays
``running`` with nothing stored (the start is one transaction, rolled back with the worker's
session); the season desk says the worker stopped and offers to start it again; started again,
with the lost task also handed back by the broker, exactly one season starts."""

from __future__ import annotations

import signal
import time
from datetime import date
from pathlib import Path

import pytest
from celery.result import AsyncResult
from django.contrib.auth.models import User
from django.test import Client

from competitions.models import SeasonStartJob
from competitions.selectors.season_desk import season_start_job_lost
from competitions.services.season_jobs import season_start_request
from league.models import Entry, Season
from matrixhockey.celery import app
from tests.competitions.season_start_league import finished_season_build, hand_plan
from tests.faults.conftest import rows_locked, worker_env
from tests.faults.services import celery_worker, wait_for

pytestmark = [
    pytest.mark.faults,
    pytest.mark.celery_worker,
    pytest.mark.django_db(transaction=True),
]

VISIBILITY_SECONDS = 5


def job_now(job: SeasonStartJob) -> SeasonStartJob:
    return SeasonStartJob.objects.get(pk=job.pk)


def test_a_season_start_whose_worker_was_killed_is_started_again_once(
    broker: str, tmp_path: Path
) -> None:
    finished_season_build()
    admin = User.objects.create_user(username="admin", is_staff=True, is_superuser=True)
    desk = Client(headers={"accept-language": "en"})
    desk.force_login(admin)
    env = worker_env(broker, visibility_seconds=VISIBILITY_SECONDS)

    # The start locks every season's row: held by the test, the worker waits there, mid-start.
    locker = rows_locked("league_season")
    first = celery_worker(env, tmp_path / "first.log", name="first")
    try:
        job = season_start_request(by=admin, plan=hand_plan(), starts_on=date(2027, 12, 6))
        wait_for(
            lambda: job_now(job).status == SeasonStartJob.Status.RUNNING,
            timeout=30,
            what="the worker taking the start",
        )
        assert not season_start_job_lost(job=job_now(job))
        first.kill(signal.SIGKILL)
        first.process.wait(timeout=10)
        killed_at = time.monotonic()
    finally:
        locker.rollback()
        locker.close()
        first.stop()

    wait_for(lambda: season_start_job_lost(job=job_now(job)), timeout=30, what="the job lost")
    page = desk.get("/desk/season/").content.decode()
    assert 'data-job="lost"' in page
    assert "its worker stopped before finishing: nothing of it was stored" in page
    assert "Start it again" in page
    assert not Season.objects.filter(number=2).exists()

    answer = desk.post(f"/desk/season/jobs/{job.pk}/restart/", follow=True)
    assert "The start is queued again" in answer.content.decode()
    restarted = job_now(job)
    assert restarted.status == SeasonStartJob.Status.QUEUED
    assert restarted.task_id != job.task_id
    # Asked again while it waits: refused, it is under way.
    refused = desk.post(f"/desk/season/jobs/{job.pk}/restart/", follow=True)
    assert "A season start is already under way" in refused.content.decode()

    time.sleep(max(0.0, VISIBILITY_SECONDS + 1 - (time.monotonic() - killed_at)))
    second = celery_worker(env, tmp_path / "second.log", name="second")
    try:
        wait_for(
            lambda: (
                AsyncResult(job.task_id, app=app).ready()
                and AsyncResult(restarted.task_id, app=app).ready()
            ),
            timeout=90,
            what="the lost task and the new one answered",
            every=0.5,
        )
    finally:
        second.stop()

    done = job_now(job)
    assert done.status == SeasonStartJob.Status.DONE, done.message
    assert done.season is not None and done.season.number == 2
    assert list(Season.objects.values_list("number", "status", "is_current")) == [
        (2, "running", True),
        (1, "finished", False),
    ]
    assert Entry.objects.filter(season__number=2).count() == 84
    outcomes = [AsyncResult(t, app=app).get(timeout=5) for t in (job.task_id, restarted.task_id)]
    assert {outcome["status"] for outcome in outcomes} == {"done"}
    assert 'data-job="lost"' not in desk.get("/desk/season/").content.decode()
