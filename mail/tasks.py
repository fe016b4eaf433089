"""The mail's Celery tasks (the outbox, picks by email, the week's clock): they take ids, call
one service, and retry there. The services import this module to queue them; each task imports
its service when it runs (the HackSoft shape). Nothing reads their results: none is stored."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.db import OperationalError

logger = logging.getLogger(__name__)

EMAIL_MAX_RETRIES = 12
"""About a day of retries (backoff doubling up to an hour) before an email is marked failed."""
EMAIL_RETRY_BASE_SECONDS = 30
EMAIL_RETRY_MAX_SECONDS = 3600


def email_retry_countdown(retries: int) -> int:
    """Seconds before retry number ``retries + 1``: 30 s, 1 min, 2 min… capped at an hour."""
    return min(EMAIL_RETRY_BASE_SECONDS * 2**retries, EMAIL_RETRY_MAX_SECONDS)


@shared_task(bind=True, name="mail.email_deliver", max_retries=EMAIL_MAX_RETRIES)
def email_deliver(self: Task, email_id: int, after_attempts: int | None = None) -> str:
    """Deliver outbox email ``email_id``; on a mail server failure, retry later with backoff.

    The email stays queued between attempts; when the retries run out it is marked failed (an
    admin can resend). Running eagerly (no broker), a failure leaves it queued for the next
    ``emails_requeue_stale``.
    """
    from mail import emails

    try:
        # A retry carries the attempts counted when it was scheduled: a second copy of it (the
        # broker hands out again a task held past its visibility timeout) stops.
        email = emails.email_deliver(email_id=email_id, after_attempts=after_attempts)
    except emails.EmailDeliveryFailed as error:
        if self.request.is_eager:
            logger.warning("Email %s not sent (%s); it stays queued", email_id, error)
            return "queued"
        if self.max_retries is not None and self.request.retries >= self.max_retries:
            emails.email_mark_failed(email_id=email_id)
            logger.error(
                "Email %s failed after %d attempts: %s", email_id, self.max_retries + 1, error
            )
            return "failed"
        raise self.retry(
            args=(email_id,),
            kwargs={"after_attempts": error.attempts},
            exc=error,
            countdown=email_retry_countdown(self.request.retries),
        ) from error
    return "sent" if email is not None else "nothing to send"


@shared_task(
    name="mail.pick_receipts_write",
    autoretry_for=(OperationalError,),
    retry_backoff=30,
    retry_backoff_max=600,
    max_retries=10,
)
def pick_receipts_write() -> int:
    """Write the due receipts of picks into the outbox, whose own task delivers each one
    (``emails.email_pick_receipts_write``). Woken after picks commit, at most once a second per
    web process, and swept by beat every minute; a database briefly unreachable is retried."""
    from mail import emails

    return emails.email_pick_receipts_write()


@shared_task(name="mail.emails_requeue_stale")
def emails_requeue_stale() -> int:
    """Queue again the emails whose delivery task was lost (beat runs it every few minutes)."""
    from mail import emails

    return emails.emails_requeue_stale()


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
