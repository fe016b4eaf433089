"""The mail's Celery tasks (the outbox, picks by email, the week's clock): they take ids, call
one service, and retry there. The services import this module to queue them; each task imports
its service when it runs (the HackSoft shape). Nothing reads their results: none is stored."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError


@shared_task(
    name="mail.emails_send_due",
    autoretry_for=(OperationalError,),
    retry_backoff=30,
    retry_backoff_max=600,
    max_retries=10,
)
def emails_send_due() -> int:
    """Send every due email of the outbox (``outbox.emails_send_due``); how many were sent.

    Woken after the commits that write emails, at most once a second per process, and run by
    beat every minute: the sweep that sends what a lost wake-up, a dead worker or a failed
    attempt left due. When an attempt failed, this task is queued again for the time it is
    due (not when running eagerly: the sweep is the retry). A database briefly unreachable is
    retried.
    """
    from mail import outbox

    done = outbox.emails_send_due()
    if done.retry_in is not None and not emails_send_due.app.conf.task_always_eager:
        emails_send_due.apply_async(countdown=done.retry_in)
    return done.sent


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


@shared_task(name="mail.news_email_send", **WEEKLY_RETRY)
def news_email_send(news_id: int) -> int:
    """Email a news item to every coach who wants news, once (``news.news_emails_send``)."""
    from mail import news

    return news.news_emails_send(news_id=news_id)
