"""The mail's Celery tasks (the outbox, picks by email, the week's clock): they take ids, call
one service, and retry there. The services import this module to queue them; each task imports
its service when it runs (the HackSoft shape). Nothing reads their results: none is stored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from celery import Task, shared_task
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import OperationalError

from matrixhockey.errors import DATABASE_DOWN

DATABASE_RETRY_BASE_SECONDS = 5
DATABASE_RETRY_MAX_SECONDS = 300


@shared_task(bind=True, name="mail.emails_send_due", max_retries=10)
def emails_send_due(self: Task[Any, Any], held: list[tuple[int, str]] | None = None) -> int:
    """Send every due email of the outbox (``outbox.emails_send_due``); how many were sent.

    Woken after the commits that write emails, at most once a second per process, and run by
    beat every minute: the sweep that sends what a lost wake-up, a dead worker or a failed
    attempt left due. When an attempt failed, this task is queued again for the time it is
    due (not when running eagerly: the sweep is the retry).

    A database error is retried like a refusing mail server: after 5 s, doubling up to five
    minutes. The emails whose claim a failed run ``held`` (``[email id, lease end]``, from
    ``outbox.EmailClaimHeld``) are given back first, so they go out with the retry instead of
    waiting for their lease's end.
    """
    from mail import outbox

    claims = [(email_id, datetime.fromisoformat(until)) for email_id, until in held or []]
    try:
        if claims:
            outbox.email_claims_release(held=claims)
        done = outbox.emails_send_due()
    except outbox.EmailClaimHeld as error:
        claims.append((error.email_id, error.lease_until))
        _database_retry(self, error, claims)
        raise
    except DATABASE_DOWN as error:
        _database_retry(self, error, claims)
        raise
    if done.retry_in is not None and not self.app.conf.task_always_eager:
        emails_send_due.apply_async(countdown=done.retry_in)
    return done.sent


def _database_retry(
    task: Task[Any, Any], error: Exception, claims: list[tuple[int, datetime]]
) -> None:
    """Retry ``task`` after a database error, with the claims it must give back (raises
    Celery's ``Retry``); nothing when running eagerly (the sweep is the retry) or out of
    retries: the caller raises the error."""
    if task.app.conf.task_always_eager or task.request.retries >= (task.max_retries or 0):
        return
    countdown = get_exponential_backoff_interval(
        factor=DATABASE_RETRY_BASE_SECONDS,
        retries=task.request.retries,
        maximum=DATABASE_RETRY_MAX_SECONDS,
    )
    held = [(email_id, until.isoformat()) for email_id, until in claims]
    raise task.retry(kwargs={"held": held}, countdown=countdown, exc=error)


@shared_task(name="mail.email_fetch_picks")
def email_fetch_picks() -> dict[str, int]:
    """Read the picks mailbox (``services.email_fetch``); beat runs it every few minutes.

    Safe to overlap with itself: a message is stored once (its Message-ID) and one that fails
    stays unseen for the next run, until it is set aside after ``MAIL_FETCH_MAX_ATTEMPTS``
    failures (counted in ``set_aside`` too). An unreachable mailbox fails this run only (no
    retry: the next beat tick is the retry). Without a mailbox (``IMAP_HOST`` empty) it does
    nothing, so beat's schedule is the same everywhere.
    """
    from mail import intake as services

    if not settings.IMAP_HOST:
        return {"ingested": 0, "failed": 0, "set_aside": 0}
    done = services.email_fetch()
    failed = sum(item.result is None for item in done)
    set_aside = sum(item.set_aside for item in done)
    return {"ingested": len(done) - failed, "failed": failed, "set_aside": set_aside}


# --- The week's clock (mail.weekly; beat's schedule is in matrixhockey/beat.py) ---------------
# Each of these may run twice (two beat processes, a redelivered task): the Mailing rows make the
# second run send nothing. A database that is briefly unreachable is retried a few times, since
# beat runs the weekly email and the reminder only once a week.

WEEKLY_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": 60,
    "retry_backoff_max": 900,
    "max_retries": 5,
}


@shared_task(name="mail.weekly_emails_send", **WEEKLY_RETRY)
def weekly_emails_send() -> int:
    """Wednesday's email to every coach (``weekly.weekly_emails_send``); how many were queued."""
    from mail import weekly

    return weekly.weekly_emails_send()


@shared_task(name="mail.reminders_send", **WEEKLY_RETRY)
def reminders_send() -> int:
    """Friday's last reminder to the coaches still missing a pick (``weekly.reminders_send``)."""
    from mail import weekly

    return weekly.reminders_send()


@shared_task(name="mail.watchdog_alerts_send")
def watchdog_alerts_send() -> int:
    """Alert referees and admins about pool rounds not arbitrated 48 hours after their deadline
    (``weekly.watchdog_alerts_send``); hourly, so the next run is the retry."""
    from mail import weekly

    return weekly.watchdog_alerts_send()
