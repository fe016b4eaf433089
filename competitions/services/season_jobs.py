"""A season start run by a Celery worker, with its progress where the season desk reads it.

:func:`season_start_request` records a :class:`~competitions.models.SeasonStartJob` and queues
``competitions.season_start`` when its transaction commits; the task calls
:func:`season_start_job_run`, which claims the job (queued → running, a conditional update only
one worker wins: a task sent twice starts the season once) under the job's work lock, runs
:func:`~competitions.services.season_start.season_start` and records how it ended. The progress
is written from another database connection, so the desk sees it while the start's own (single)
transaction is still open.

A worker lost mid-start (killed, its machine gone) leaves the job ``running`` and nothing else:
the start's transaction dies with its session, and so does the job's work lock
(:data:`~competitions.selectors.season_desk.SEASON_START_WORK`). The broker hands the task out
again after its visibility timeout and that run takes the job over; the desk also offers to
start it again at once (:func:`season_start_job_restart`).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import DatabaseError, OperationalError, connection, connections, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from competitions import tasks
from competitions.models import SeasonStartJob
from competitions.selectors.season_desk import (
    SEASON_START_WORK,
    season_start_job_lost,
    season_start_job_waiting,
)
from competitions.services.season_start import START_STEPS, season_start
from competitions.services.start_plan import SeasonStartRefused, start_plan_read
from league.models import Season
from league.services.seasons import STANDARD_DIVISIONS
from matrixhockey.db import work_lock, work_locks_tell
from matrixhockey.redis_breaker import TASK_NOT_QUEUED, task_publish

logger = logging.getLogger(__name__)

ACTIVE = (SeasonStartJob.Status.QUEUED, SeasonStartJob.Status.RUNNING)


@transaction.atomic
def season_start_request(
    *,
    by: User | None,
    plan: Mapping[str, object] | None = None,
    season: Season | None = None,
    starts_on: date | None = None,
    skipped_weeks: Sequence[int] | None = None,
    seed: str | None = None,
    wg_teams: Sequence[str] | None = None,
    referees: Mapping[str, Iterable[User]] | None = None,
) -> SeasonStartJob:
    """Queue :func:`~competitions.services.season_start.season_start` (same arguments) on a
    worker, once this transaction commits; returns the job to follow (``status``, ``done`` of
    ``total``, ``message``).

    Refused at once (:class:`SeasonStartRefused`) while a season is running
    (``season_running``), while another start is queued or running (``in_progress``), or for a
    bad plan (``plan_invalid``). What only the start can check is recorded on the job
    (``refused``, with the code and the reasons).
    """
    # Plain reads: a start under way holds the seasons' rows locked, and the desk must hear at
    # once that it is busy. Two requests at the same instant both get a job; the start's own
    # lock lets one start the season and the other is refused (recorded on its job).
    if SeasonStartJob.objects.filter(status__in=ACTIVE).exists():
        raise SeasonStartRefused("in_progress", [_("A season start is already under way.")])
    running = Season.objects.filter(status=Season.Status.RUNNING).first()
    if running is not None:
        raise SeasonStartRefused(
            "season_running",
            [_("%(season)s is running: close it before starting another.") % {"season": running}],
        )
    if plan is not None:
        start_plan_read(plan)
    job = SeasonStartJob.objects.create(
        plan=dict(plan) if plan is not None else None,
        options={
            "season": season.number if season is not None else None,
            "starts_on": starts_on.isoformat() if starts_on else None,
            "skipped_weeks": list(skipped_weeks) if skipped_weeks is not None else None,
            "seed": seed,
            "wg_teams": list(wg_teams) if wg_teams is not None else None,
            "referees": {slug: [u.pk for u in users] for slug, users in (referees or {}).items()},
            # The worker words the progress and refusals in the language of who asked.
            "language": translation.get_language(),
        },
        total=START_STEPS + (len(STANDARD_DIVISIONS) if plan is not None else 0),
        message=_("Queued"),
        requested_by=by,
        task_id=str(uuid.uuid4()),
    )

    transaction.on_commit(lambda: _enqueue(job.pk, job.task_id))
    return job


def _enqueue(job_id: int, task_id: str) -> None:
    try:
        task_publish(tasks.season_start_run, args=(job_id,), task_id=task_id)
    except TASK_NOT_QUEUED as error:  # Redis down or hung (matrixhockey.redis_breaker)
        logger.exception("Could not queue season start %s", job_id)
        _finish(
            job_id,
            SeasonStartJob.Status.FAILED,
            message=_("The start could not be queued (%(error)s): try again later.")
            % {"error": type(error).__name__},
        )


@transaction.atomic
def season_start_job_restart(*, job: SeasonStartJob, by: User | None) -> SeasonStartJob:
    """Queue ``job`` again when it went nowhere: ``running`` with its worker lost (nothing of it
    was stored: the start is one transaction, rolled back with the worker's session), or
    ``queued`` with no worker taking it for a while. Safe to repeat: the job is claimed by one
    run only, and the task handed out again by the broker finds it taken or done.

    Refused (:class:`SeasonStartRefused`, ``in_progress``) while a live worker runs it or it
    was queued a moment ago, and (``finished``) once it has ended."""
    job = SeasonStartJob.objects.select_for_update().get(pk=job.pk)
    if job.is_finished:
        raise SeasonStartRefused("finished", [_("This season start has already ended.")])
    if not (season_start_job_lost(job=job) or season_start_job_waiting(job=job)):
        raise SeasonStartRefused("in_progress", [_("A season start is already under way.")])
    job.status = SeasonStartJob.Status.QUEUED
    job.done = 0
    job.started_at = None
    job.message = _("Queued again")
    job.task_id = str(uuid.uuid4())
    if by is not None and job.requested_by_id is None:
        job.requested_by = by
    job.save(update_fields=["status", "done", "started_at", "message", "task_id", "requested_by"])
    transaction.on_commit(lambda: _enqueue(job.pk, job.task_id))
    return job


def season_start_job_run(*, job_id: int) -> SeasonStartJob | None:
    """Run season start ``job_id`` if it is still queued (the worker's part); returns the job as
    it ends, or ``None`` when there is no such job. A job already claimed (sent twice, or
    running elsewhere) is returned untouched. A transient database error puts the job back in
    the queue and is raised again, for the task to retry."""
    with work_lock(SEASON_START_WORK, job_id) as free:
        if not free:  # a live worker runs it right now
            return SeasonStartJob.objects.filter(pk=job_id).first()
        return _job_run(job_id)


def _job_run(job_id: int) -> SeasonStartJob | None:
    """:func:`season_start_job_run` under the job's work lock."""
    # Holding the work lock, a job still ``running`` is one whose worker was lost (the lock went
    # with its session): its start was rolled back, this run takes it over.
    claimable = [SeasonStartJob.Status.QUEUED]
    if work_locks_tell():
        claimable.append(SeasonStartJob.Status.RUNNING)
    claimed = SeasonStartJob.objects.filter(pk=job_id, status__in=claimable).update(
        status=SeasonStartJob.Status.RUNNING,
        started_at=timezone.now(),
        done=0,
        message=_("Starting"),
    )
    job = SeasonStartJob.objects.select_related("requested_by").filter(pk=job_id).first()
    if not claimed or job is None:
        return job
    try:
        with translation.override(job.options.get("language")):
            season = season_start(
                by=job.requested_by, progress=_progress_writer(job.pk), **_start_arguments(job)
            )
    except SeasonStartRefused as refusal:
        _finish(job.pk, SeasonStartJob.Status.REFUSED, message=refusal.message, code=refusal.code)
    except OperationalError:
        SeasonStartJob.objects.filter(pk=job.pk, status=SeasonStartJob.Status.RUNNING).update(
            status=SeasonStartJob.Status.QUEUED, done=0, message=_("Queued again")
        )
        raise
    except Exception as error:  # the job must say it failed, whatever went wrong
        logger.exception("Season start %s failed", job.pk)
        _finish(job.pk, SeasonStartJob.Status.FAILED, message=f"{type(error).__name__}: {error}")
    else:
        SeasonStartJob.objects.filter(pk=job.pk).update(
            status=SeasonStartJob.Status.DONE,
            season=season,
            done=job.total,
            finished_at=timezone.now(),
        )
    return SeasonStartJob.objects.filter(pk=job.pk).first()


def _start_arguments(job: SeasonStartJob) -> dict[str, Any]:
    """The job's recorded request, as :func:`season_start`'s arguments."""
    options = job.options
    number, starts_on = options.get("season"), options.get("starts_on")
    referees = options.get("referees") or {}
    users = get_user_model().objects
    return {
        "plan": job.plan,
        "season": Season.objects.filter(number=number).first() if number else None,
        "starts_on": date.fromisoformat(starts_on) if starts_on else None,
        "skipped_weeks": options.get("skipped_weeks"),
        "seed": options.get("seed"),
        "wg_teams": options.get("wg_teams"),
        "referees": {slug: list(users.filter(pk__in=ids)) for slug, ids in referees.items()},
    }


def _finish(job_id: int, status: str, *, message: str, code: str = "") -> None:
    SeasonStartJob.objects.filter(pk=job_id).update(
        status=status, message=message, code=code, finished_at=timezone.now()
    )


def _progress_writer(job_id: int) -> Callable[[int, int, str], None]:
    """``progress`` for :func:`season_start`: each step written to the job from another
    connection (a short-lived thread's), so it is visible before the start commits."""

    def write(done: int, total: int, message: str) -> None:
        def update() -> None:
            SeasonStartJob.objects.filter(pk=job_id).update(
                done=min(done, total), total=total, message=message
            )

        _outside_transaction(update)

    return write


def _outside_transaction(write: Callable[[], None]) -> None:
    """Run ``write`` on its own connection, committed at once. SQLite (one writer at a time,
    the embedded development default) writes inside the caller's transaction instead."""
    if connection.vendor != "postgresql" or not connection.in_atomic_block:
        write()
        return

    def run() -> None:
        try:
            write()
        except DatabaseError:  # progress is a courtesy: never let it break the start
            logger.exception("Could not record a season start's progress")
        finally:
            connections.close_all()  # this thread's connections only

    thread = threading.Thread(target=run, name="season-start-progress")
    thread.start()
    thread.join()
