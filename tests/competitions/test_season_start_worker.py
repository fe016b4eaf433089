"""``competitions.season_start`` on a REAL Celery worker taking it from a REAL Redis broker: the
desk's request queues it, its progress is readable while the start's one transaction is still
open, and sent twice it starts exactly one season."""

from __future__ import annotations

import threading
from datetime import date

import pytest
from django.contrib.auth.models import User

from competitions import tasks
from competitions.models import SeasonStartJob
from competitions.services import season_start as season_start_module
from competitions.services.season_jobs import season_start_request
from competitions.services.start_plan import SeasonStartRefused
from league.models import Entry, Season
from matrixhockey.celery import app
from tests.competitions.desk_league import running_worker
from tests.competitions.season_start_league import finished_season_build, hand_plan

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

TIMEOUT = 90


def test_the_task_sent_twice_records_its_progress_and_starts_one_season(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    finished_season_build()
    admin = User.objects.create_user(username="admin", is_staff=True, is_superuser=True)
    # The start waits before the KDH's draw until the test has read its progress.
    reached, go_on = threading.Event(), threading.Event()
    real = season_start_module.season_prepare_kdh

    def paused(**kwargs: object) -> object:
        reached.set()
        assert go_on.wait(TIMEOUT)
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(season_start_module, "season_prepare_kdh", paused)
    with running_worker(concurrency=2):
        job = season_start_request(by=admin, plan=hand_plan(), starts_on=date(2027, 12, 6))
        again = tasks.season_start_run.delay(job.pk)
        try:
            assert reached.wait(TIMEOUT)
            # Read from the test's own connection while the start's transaction is open.
            running = SeasonStartJob.objects.get(pk=job.pk)
            assert running.status == SeasonStartJob.Status.RUNNING
            # Plan, 7 divisions entered, matrices, calendar, pools, 7 schedules: 18 of 21.
            assert (running.done, running.total) == (18, 21)
            assert running.message == "D3D: schedule and seeds committed (R20, R23)"
            assert 0 < running.percent < 100
            assert not Season.objects.filter(number=2).exists()
            with pytest.raises(SeasonStartRefused) as busy:
                season_start_request(by=admin, plan=hand_plan())
            assert busy.value.code == "in_progress"
        finally:
            go_on.set()
        outcomes = [
            app.AsyncResult(job.task_id).get(timeout=TIMEOUT),
            again.get(timeout=TIMEOUT),
        ]

    job.refresh_from_db()
    assert job.status == SeasonStartJob.Status.DONE, job.message
    assert (job.done, job.total, job.percent) == (21, 21, 100)
    assert job.season is not None and job.season.number == 2
    assert job.started_at is not None and job.finished_at is not None
    # Exactly one season started, whichever task ran it.
    assert list(Season.objects.values_list("number", "status", "is_current")) == [
        (2, "running", True),
        (1, "finished", False),
    ]
    assert Entry.objects.filter(season__number=2).count() == 84
    statuses = sorted(outcome["status"] for outcome in outcomes)
    # The other task found the job taken (its work lock held): it answers the job as it was
    # then, queued (the claim not committed yet), running, or already done.
    assert statuses in (["done", "queued"], ["done", "running"], ["done", "done"])
    assert all(outcome["job"] == job.pk for outcome in outcomes)


def test_a_start_the_worker_refuses_is_recorded_on_its_job(db: None) -> None:
    finished_season_build()
    Season.objects.filter(number=1).update(status=Season.Status.PREPARING)
    with running_worker():
        job = season_start_request(by=None, plan=hand_plan())
        outcome = app.AsyncResult(job.task_id).get(timeout=TIMEOUT)
    job.refresh_from_db()
    assert outcome["status"] == job.status == SeasonStartJob.Status.REFUSED
    assert job.code == "no_season"
    assert job.message == "The plan follows season 1, which is not finished: close it first."
    assert Season.objects.count() == 1
