"""The league's emails, as healthchecks does them: one helper, one small function per kind.

:func:`email_send` renders ``templates/emails/<name>-subject.txt``, ``<name>-body.txt`` and
``<name>-body.html`` in the recipient's language, stores the result in the outbox
(:class:`~league.models.OutboundEmail`) and, once the transaction commits, asks a Celery task to
deliver it (``mail.tasks.email_deliver``). The task calls :func:`email_deliver`; while the mail
server fails it retries with backoff, so mail is delayed, never lost.

Each kind of email is a small function (``email_pick_receipt``…) that picks the recipient, the
language and the context, and calls :func:`email_send`.
"""

from __future__ import annotations

import logging
import re
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from competitions.models import LatePick, Pick, PoolRound
from competitions.selectors import pool_round_results
from league.links import password_link
from league.models import AuditLog, Entry, Language
from league.selectors import season_current, user_language
from league.services import audit_record
from mail import tasks
from mail.models import EmailKind, OutboundEmail, PickReceiptDue
from mail.preferences import email_wanted, unsubscribe_url
from matrixhockey.celery import app as celery_app
from matrixhockey.errors import DATABASE_DOWN
from matrixhockey.site import site_url

logger = logging.getLogger(__name__)

RECEIPTS_WAKE_EVERY = 1.0
"""Seconds: a process asks a worker for the due receipts once in this time at most."""
RECEIPTS_WAKE_DELAY = 2.0
"""Seconds the worker waits before writing them; longer than :data:`RECEIPTS_WAKE_EVERY`."""
STALE_QUEUED_AFTER = timedelta(minutes=10)
"""A queued email older than this whose task was lost (broker down) is queued again."""


class EmailDeliveryFailed(Exception):
    """The mail server refused or could not be reached; the email stays queued for a retry.
    ``attempts``: how many times the email has been tried, this attempt included."""

    def __init__(self, message: str, *, attempts: int = 0) -> None:
        super().__init__(message)
        self.attempts = attempts


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def email_send(
    *,
    template: str,
    to: str | list[str],
    context: dict[str, object],
    language: str,
    reply_to: list[str] | None = None,
    headers: dict[str, str] | None = None,
    unsubscribe: str = "",
) -> OutboundEmail:
    """Render ``emails/<template>-*`` in ``language``, store it in the outbox and queue it.

    The subject is one line whatever the template's line breaks. The email goes out once the
    caller's transaction commits (nothing is sent for a rolled-back action). An optional email
    (``mail.preferences``) gives its one-click ``unsubscribe`` link: it goes in the footer and
    in the ``List-Unsubscribe`` and ``List-Unsubscribe-Post`` headers (RFC 2369, RFC 8058);
    essential emails give none and carry neither.
    """
    language = Language(language).value
    recipients = [to] if isinstance(to, str) else list(to)
    headers = dict(headers or {})
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    context = {
        "league_name": settings.LEAGUE_NAME,
        "site_url": site_url("/"),
        "unsubscribe_url": unsubscribe,
        "preferences_url": site_url(reverse("email_preferences")) if unsubscribe else "",
        **context,
    }
    with translation.override(language):
        subject = _one_line(render_to_string(f"emails/{template}-subject.txt", context))
        body_text = render_to_string(f"emails/{template}-body.txt", context).strip() + "\n"
        body_html = render_to_string(f"emails/{template}-body.html", context)
    email = OutboundEmail.objects.create(
        template=template,
        language=language,
        to=recipients,
        reply_to=list(reply_to or []),
        headers=headers,
        subject=subject[:255],
        body_text=body_text,
        body_html=body_html,
    )
    email_enqueue(email=email)
    return email


def email_enqueue(*, email: OutboundEmail) -> None:
    """Ask a worker to deliver ``email`` once the current transaction commits.

    If the broker cannot take the task, the email stays queued: :func:`emails_requeue_stale`
    (run by beat) queues it again later.
    """

    def enqueue() -> None:
        try:
            tasks.email_deliver.delay(email.pk)
        except Exception:  # the broker is down: the row is the source of truth, beat retries
            logger.exception("Could not queue email %s; it stays queued", email.pk)

    transaction.on_commit(enqueue)


def email_deliver(*, email_id: int, after_attempts: int | None = None) -> OutboundEmail | None:
    """Send queued email ``email_id`` through Django's email backend.

    ``after_attempts``: for a retry, how many attempts the failure it follows had counted
    (:attr:`EmailDeliveryFailed.attempts`); the retry goes ahead only if no attempt was made
    since. On Redis a retry waiting for its countdown longer than the broker's
    visibility timeout is handed out a second time (``CELERY_VISIBILITY_TIMEOUT``); the first
    copy tries, the others find the attempt made and stop, so retries never multiply.

    The row is locked while it is sent (``skip_locked``: a second worker finds nothing to do),
    so it goes out once. On an SMTP or connection error the attempt and the error are recorded,
    the row stays ``queued`` and :class:`EmailDeliveryFailed` tells the task to retry. Returns
    the email, or ``None`` when there was nothing to send (already sent, failed, or being sent).
    """
    with transaction.atomic():
        email = (
            OutboundEmail.objects.select_for_update(skip_locked=True)
            .filter(pk=email_id, status=OutboundEmail.Status.QUEUED)
            .first()
        )
        if email is None or (after_attempts is not None and email.attempts != after_attempts):
            return None
        message = EmailMultiAlternatives(
            subject=email.subject,
            body=email.body_text,
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=email.to,
            reply_to=email.reply_to or None,
            headers=email.headers or None,
        )
        if email.body_html:
            message.attach_alternative(email.body_html, "text/html")
        email.attempts += 1
        try:
            message.send(fail_silently=False)
        except OSError as error:  # smtplib.SMTPException and socket errors are OSErrors
            failure = f"{type(error).__name__}: {error}"
        else:
            email.status = OutboundEmail.Status.SENT
            email.sent_at = timezone.now()
            email.last_error = ""
            email.save(update_fields=["status", "sent_at", "attempts", "last_error"])
            return email
        email.last_error = failure
        email.save(update_fields=["attempts", "last_error"])
    raise EmailDeliveryFailed(failure, attempts=email.attempts)


def email_mark_failed(*, email_id: int) -> None:
    """The retries ran out: the email is ``failed`` (kept, and an admin can resend it)."""
    OutboundEmail.objects.filter(pk=email_id, status=OutboundEmail.Status.QUEUED).update(
        status=OutboundEmail.Status.FAILED
    )


@transaction.atomic
def email_resend(*, email: OutboundEmail) -> OutboundEmail:
    """Queue ``email`` again (an admin's action): the same content, to the same people.

    A sent email goes out once more; a queued one is only queued again.
    """
    email = OutboundEmail.objects.select_for_update().get(pk=email.pk)
    email.status = OutboundEmail.Status.QUEUED
    email.sent_at = None
    email.save(update_fields=["status", "sent_at"])
    email_enqueue(email=email)
    return email


def emails_requeue_stale(*, older_than: timedelta = STALE_QUEUED_AFTER) -> int:
    """Queue again the emails never tried ``older_than`` after being queued (their task was
    lost, e.g. the broker was down). Emails already tried have a retry on its way."""
    stale = OutboundEmail.objects.filter(
        status=OutboundEmail.Status.QUEUED,
        attempts=0,
        created_at__lt=timezone.now() - older_than,
    )
    count = 0
    for email in stale.only("pk"):
        email_enqueue(email=email)
        count += 1
    return count


# --- One function per kind of email --------------------------------------------------------------


def email_pick_receipt(*, pick: Pick) -> OutboundEmail | None:
    """The receipt of a received pick, to the team's coach in their language.

    Only the team's own coach gets it (a pick is secret until its round is published). Nothing
    is sent for a team without a coach or a coach without an address.
    """
    coach = pick.entry.team.coach
    if coach is None or not coach.email:
        return None
    zone = ZoneInfo(pick.round.season.time_zone)
    return email_send(
        template="pick-receipt",
        to=coach.email,
        language=user_language(coach),
        context={
            "coach": coach,
            "team": pick.entry.team,
            "round": pick.round,
            "pick": pick,
            "received_at": timezone.localtime(pick.received_at, zone),
            "deadline": timezone.localtime(pick.round.deadline, zone),
            "time_zone": pick.round.season.time_zone,
            "picks_url": site_url(reverse("picks")),
        },
    )


def email_pick_receipt_due(*, pick: Pick) -> None:
    """Mark ``pick``'s receipt as due, in the transaction that stores the pick, and wake a worker
    once it commits: the transactional outbox (:class:`~mail.models.PickReceiptDue`).

    The request writes one row and renders nothing: with the whole league sending at once, a
    pick's answer waits only for the pick, and no pick is stored without its receipt to come. A
    worker writes the receipts (:func:`email_pick_receipts_write`), woken by
    :func:`email_receipts_wake` once a second at most per process rather than once a pick; beat's
    sweep writes any a lost wake left behind. One INSERT: it is on every pick's path.
    """
    PickReceiptDue.objects.create(pick_id=pick.pk)
    transaction.on_commit(email_receipts_wake, robust=True)


class _ReceiptsWake:
    """When this process last asked a worker to write the due receipts (``time.monotonic``)."""

    at = -RECEIPTS_WAKE_EVERY


def email_receipts_wake() -> None:
    """Ask a worker to write the due receipts in :data:`RECEIPTS_WAKE_DELAY` seconds, unless this
    process asked less than :data:`RECEIPTS_WAKE_EVERY` seconds ago: that task, still to run,
    reads this pick's row too, since the delay is the longer (it starts after the commit that
    woke it, and after every commit of this process since). Eager tasks (``make run``, the
    tests) write them at once, every time.

    If the broker cannot take the task, the receipts are written here and now instead; nothing
    that fails here fails the pick, already stored and answered.
    """
    now = time.monotonic()
    eager = celery_app.conf.task_always_eager
    if not eager and now - _ReceiptsWake.at < RECEIPTS_WAKE_EVERY:
        return
    _ReceiptsWake.at = now
    try:
        tasks.pick_receipts_write.apply_async(countdown=RECEIPTS_WAKE_DELAY)
        return
    except DATABASE_DOWN as error:  # eager tasks: the database went away since the commit
        logger.warning("The due receipts were not written: %s", error)
        return
    except Exception:  # the broker is down: the receipts are written here instead
        logger.exception("Could not wake a worker for the due receipts; writing them now")
        _ReceiptsWake.at = -RECEIPTS_WAKE_EVERY
    try:
        email_pick_receipts_write()
    except DATABASE_DOWN as error:
        logger.warning("The due receipts were not written: %s", error)


def email_pick_receipts_write(*, batch: int = 100) -> int:
    """Write every due receipt into the outbox (:func:`email_pick_receipt`), ``batch`` at a time,
    each batch in one transaction with the deletion of its due rows; rows another worker holds
    are skipped (``SKIP LOCKED``), not waited for. Returns how many due rows were done (a pick
    whose team has no coach to write to counts, and gets nothing)."""
    done = 0
    while True:
        with transaction.atomic():
            due = list(
                PickReceiptDue.objects.select_for_update(skip_locked=True)
                .order_by("pick_id")
                .values_list("pick_id", flat=True)[:batch]
            )
            if not due:
                return done
            picks = Pick.objects.select_related(
                "entry__team__coach", "round__season", "entered_by"
            ).filter(pk__in=due)
            for pick in picks.order_by("pk"):
                email_pick_receipt(pick=pick)
            PickReceiptDue.objects.filter(pick_id__in=due).delete()
        done += len(due)


RESULTS_EMAILED = "results_emailed"
"""The audit-log action that records a publication's results emails (once per publication)."""


def email_results_published(*, pool_round: PoolRound) -> list[OutboundEmail]:
    """The results of a published pool round, to every coach of a team that played it — a
    division's twelve, a cup round's teams; dummy teams have no coach — one email each, in the
    coach's language, their own game first with how its goals were made (R3), links to the
    results page (seed and draws, R23) and the standings or the cup's bracket. Nothing before
    publication.

    Once per publication, whoever calls: the pool round's row is locked and an audit-log record
    (:data:`RESULTS_EMAILED`, with the publication's time) is written with the emails, so a
    receiver that fires twice, or two at once, sends nothing the second time. A round voided
    and published again is a new publication: its new results are sent.
    """

    with transaction.atomic():
        locked = PoolRound.objects.select_for_update().get(pk=pool_round.pk)
        if not locked.is_published or locked.published_at is None:
            return []
        published_at = locked.published_at.isoformat()
        done = AuditLog.objects.filter(
            action=RESULTS_EMAILED,
            content_type=ContentType.objects.get_for_model(PoolRound),
            object_id=str(locked.pk),
            payload__published_at=published_at,
        )
        if done.exists():
            return []
        results = pool_round_results(pool_round=locked, explain=True)
        pool = locked.pool
        round = locked.round
        where = [pool.competition, pool.slug, round.number]
        emails = []
        for played in results.teams:
            coach = played.entry.team.coach
            if coach is None or not coach.email:
                continue
            if not email_wanted(user=coach, kind=EmailKind.RESULTS):
                continue
            mine = [game for game in results.games if game.involves(played.entry.pk)]
            others = [game for game in results.games if not game.involves(played.entry.pk)]
            emails.append(
                email_send(
                    template="results-published",
                    to=coach.email,
                    language=user_language(coach),
                    context={
                        "coach": coach,
                        "team": played.entry.team,
                        "round": round,
                        "pool": pool,
                        "results": results,
                        "my_game": mine[0] if mine else None,
                        "other_games": others,
                        "results_url": site_url(reverse("results_pool_round", args=where)),
                        "standings_url": site_url(reverse("standings", args=[pool.slug])),
                    },
                    unsubscribe=unsubscribe_url(user=coach, kind=EmailKind.RESULTS),
                )
            )
        audit_record(
            actor=None,
            action=RESULTS_EMAILED,
            obj=locked,
            payload={"published_at": published_at, "emails": len(emails)},
        )
    return emails


def email_times(received_at: datetime) -> dict[str, object]:
    """What a reply about a pick by email says of time: when it was received, in the season's
    time zone, and where to pick on the web."""
    season = season_current()
    zone = season.time_zone if season is not None else "Europe/Paris"
    return {
        "received_at": timezone.localtime(received_at, ZoneInfo(zone)),
        "time_zone": zone,
        "picks_url": site_url(reverse("picks")),
    }


def email_late_pick_rejected(*, late_pick: LatePick) -> OutboundEmail | None:
    """R13: tell the coach that a referee refused the pick they emailed after the deadline."""
    coach = late_pick.entry.team.coach
    if coach is None or not coach.email:
        return None
    return email_send(
        template="pick-reply",
        to=coach.email,
        language=user_language(coach),
        context={
            "kind": "late_rejected",
            "coach": coach,
            "team": late_pick.entry.team,
            "round": late_pick.round,
            "notation": late_pick.notation,
            **email_times(late_pick.received_at),
        },
        headers={"Auto-Submitted": "auto-generated"},
    )


def email_invitation(*, user: User) -> OutboundEmail | None:
    """A new coach's invitation, in their language: their team, their user name and a link that
    sets their first password (Django's password-reset token: it works once, for
    ``PASSWORD_RESET_TIMEOUT``). Nothing for a user without an address."""
    if not user.email:
        return None
    entry = (
        Entry.objects.filter(team__coach=user, replaced_at__isnull=True)
        .select_related("team", "division", "season")
        .order_by("-season__number")
        .first()
    )
    return email_send(
        template="invitation",
        to=user.email,
        language=user_language(user),
        context={
            "user": user,
            "entry": entry,
            "team": entry.team if entry else None,
            "set_password_url": password_link(user),
            "valid_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
            "sign_in_url": site_url(reverse("sign_in")),
        },
    )


def email_season_started(*, entry: Entry, first_deadline: datetime) -> OutboundEmail | None:
    """A season's announcement to a team's coach, in their language: the division, the code
    (R16), the stocks (R21) and the first deadline (R13). Nothing for a team without a coach or
    a coach without an address."""
    coach = entry.team.coach
    if coach is None or not coach.email:
        return None
    zone = ZoneInfo(entry.season.time_zone)
    return email_send(
        template="season-started",
        to=coach.email,
        language=user_language(coach),
        context={
            "user": coach,
            "entry": entry,
            "team": entry.team,
            "season": entry.season,
            "division": entry.division.name,
            "code": f"{entry.code:02d}",
            "first_deadline": timezone.localtime(first_deadline, zone),
            "time_zone": entry.season.time_zone,
            "picks_url": site_url(reverse("picks")),
        },
    )
