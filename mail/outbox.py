"""The outbox (:class:`~mail.models.OutboundEmail`), as Zulip's ``ScheduledEmail`` and
healthchecks' claimed rows: every email the league sends is a row written in the transaction
that causes it, so it is sent if and only if the action commits.

Each row holds its kind (``template``), its recipient (a user, or an address when there is
none) and the ids and codes its context needs (:func:`emails_queue`), never rendered text nor a
secret it can make when it renders (a password link's token). The worker that sends it renders
it, in the recipient's language at that time, with the one function registered for its kind
(:func:`renders`: ``mail.emails``, ``mail.emails_accounts``, ``mail.emails_replies``,
``mail.weekly``, ``mail.news``). A request writes rows and renders nothing. A row that has a
body — what an attempt rendered before the mail server refused it, or a row written with its
text — is sent as it stands.

Once the transaction commits a worker is woken (:func:`email_outbox_wake`): it takes
every due row (:func:`emails_send_due`), claims each by a conditional update and sends it
(:func:`email_deliver`). Beat runs the same sweep every minute, so a lost wake-up, a worker that
died or a failing mail server delays an email, never loses it, and a row sent is never sent
again, however many sweeps run. Without a broker (eager tasks, ``make run``) the sweep runs in
the web process once the request's response is sent (:mod:`matrixhockey.after_response`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from league.models import Language
from mail import tasks
from mail.models import OutboundEmail
from matrixhockey.after_response import after_response
from matrixhockey.celery import app as celery_app
from matrixhockey.errors import DATABASE_DOWN
from matrixhockey.redis_breaker import BreakerOpen, task_publish
from matrixhockey.site import site_url

logger = logging.getLogger(__name__)

EMAIL_MAX_ATTEMPTS = 13
"""About a day of attempts (the wait doubling up to an hour) before an email is marked failed."""
EMAIL_RETRY_BASE_SECONDS = 30
EMAIL_RETRY_MAX_SECONDS = 3600
OUTBOX_WAKE_EVERY = 1.0
"""Seconds: a process wakes a worker for the outbox once in this time at most."""
OUTBOX_WAKE_DELAY = 2.0
"""Seconds the worker waits before reading the due rows; longer than :data:`OUTBOX_WAKE_EVERY`."""

Memo = dict[object, object]
"""What one run of the worker reads once for many emails (a publication's results)."""


class EmailDeliveryFailed(Exception):
    """Rendering or sending failed; the email stays queued for a later attempt. ``attempts``:
    how many times it has been tried, this attempt included; ``retry_in``: seconds until it is
    due again (``None``: the attempts ran out, it is failed)."""

    def __init__(self, message: str, *, attempts: int = 0, retry_in: int | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.retry_in = retry_in


class EmailClaimHeld(Exception):
    """The database failed while this run held email ``email_id``'s claim, which it took until
    ``lease_until``: neither the sending nor the failure could be recorded. The run that retries
    gives the claim back (:func:`email_claims_release`) rather than leave the email to the
    lease's end (``EMAIL_CLAIM_SECONDS``, ten minutes)."""

    def __init__(self, *, email_id: int, lease_until: datetime) -> None:
        super().__init__(f"the database failed while email {email_id} was claimed")
        self.email_id = email_id
        self.lease_until = lease_until


def email_claims_release(*, held: list[tuple[int, datetime]]) -> int:
    """Make each ``(email_id, lease_until)`` claim that :class:`EmailClaimHeld` reported due
    again at once, if it is still that claim (a conditional update on the lease's end: a claim
    taken since by another run is left alone); how many were released."""
    now = timezone.now()
    return sum(
        OutboundEmail.objects.filter(
            pk=email_id, status=OutboundEmail.Status.QUEUED, due_at=lease_until
        ).update(due_at=now)
        for email_id, lease_until in held
    )


def email_retry_countdown(retries: int) -> int:
    """Seconds before retry number ``retries + 1``: 30 s, 1 min, 2 min… capped at an hour."""
    return min(EMAIL_RETRY_BASE_SECONDS * 2**retries, EMAIL_RETRY_MAX_SECONDS)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def email_headers(headers: dict[str, str] | None, unsubscribe: str) -> dict[str, str]:
    """``headers``, with the one-click unsubscription's of an optional email (RFC 2369, RFC
    8058); essential emails give no ``unsubscribe`` link and carry neither."""
    headers = dict(headers or {})
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return headers


def email_render(
    *,
    template: str,
    context: dict[str, object],
    language: str,
    unsubscribe: str = "",
    time_zone: str = "",
) -> tuple[str, str, str]:
    """The subject (one line whatever the template's line breaks), text body and HTML body of
    ``emails/<template>-*`` in ``language``, times in ``time_zone`` when given. An optional
    email's ``unsubscribe`` link goes in its footer, with the link to the preferences."""
    context = {
        "league_name": settings.LEAGUE_NAME,
        "site_url": site_url("/"),
        "unsubscribe_url": unsubscribe,
        "preferences_url": site_url(reverse("email_preferences")) if unsubscribe else "",
        **context,
    }
    zone = timezone.override(ZoneInfo(time_zone)) if time_zone else contextlib.nullcontext()
    with translation.override(language), zone:
        subject = _one_line(render_to_string(f"emails/{template}-subject.txt", context))
        body_text = render_to_string(f"emails/{template}-body.txt", context).strip() + "\n"
        body_html = render_to_string(f"emails/{template}-body.html", context)
    return subject[:255], body_text, body_html


def emails_queue(emails: list[OutboundEmail]) -> list[OutboundEmail]:
    """Write ``emails`` — each a kind (``template``), a recipient and the ids of its
    ``context``, not rendered — in the outbox in one statement, and wake a worker once the
    caller's transaction commits: it renders them (:data:`RENDERINGS`) and sends them."""
    if not emails:
        return []
    written = OutboundEmail.objects.bulk_create(emails)
    transaction.on_commit(email_outbox_wake, robust=True)
    return written


def email_queue(
    *, template: str, context: dict[str, object], user: User | None = None, to: str = ""
) -> OutboundEmail:
    """Write one email of kind ``template`` to ``user`` (or to address ``to``, for someone
    with no account) with the ids of its ``context`` (:func:`emails_queue`)."""
    address = user.email if user is not None else to
    [email] = emails_queue(
        [OutboundEmail(template=template, user=user, to=[address], context=context)]
    )
    return email


class _OutboxWake:
    """When this process last woke a worker for the outbox (``time.monotonic``)."""

    at = -OUTBOX_WAKE_EVERY


def email_outbox_wake() -> None:
    """Wake a worker to send the due emails in :data:`OUTBOX_WAKE_DELAY` seconds, unless this
    process did less than :data:`OUTBOX_WAKE_EVERY` seconds ago: that task, still to run, reads
    this commit's rows too, since the delay is the longer. With the whole league sending picks
    at once, that is a task a second per web process, not one a pick.

    Eager tasks (``make run``, the tests) send them here, every time, once the request's
    response is sent (:func:`matrixhockey.after_response.after_response`; at once outside a
    request): the referee's « Publier » answers before the round's results emails are
    rendered, as it does with a worker.

    Nothing that fails here fails the action, already committed and answered: if the broker
    cannot take the task, the rows wait for beat's sweep (:func:`emails_send_due`). The task is
    published through the Redis breaker (:mod:`matrixhockey.redis_breaker`): a Redis that failed
    a moment ago is not tried, one that hangs is given its short timeouts once.
    """
    if celery_app.conf.task_always_eager:
        after_response(_outbox_wake)
        return
    now = time.monotonic()
    if now - _OutboxWake.at < OUTBOX_WAKE_EVERY:
        return
    _OutboxWake.at = now
    _outbox_wake()


def _outbox_wake() -> None:
    try:
        task_publish(tasks.emails_send_due, countdown=OUTBOX_WAKE_DELAY)
    except DATABASE_DOWN as error:  # eager tasks: the database went away since the commit
        logger.warning("The due emails were not sent: %s", error)
    except BreakerOpen:  # said once when it opened (matrixhockey.redis_breaker)
        email_outbox_wake_forget()
    except Exception:  # the broker is down: the rows are the truth, beat's sweep sends them
        logger.exception("Could not wake a worker for the outbox; the sweep will send its emails")
        email_outbox_wake_forget()


def email_outbox_wake_forget() -> None:
    """Forget this process's last wake-up, known lost (the broker refused it, or its queue was
    emptied): the next commit wakes a worker at once instead of counting on it."""
    _OutboxWake.at = -OUTBOX_WAKE_EVERY


@dataclass(frozen=True)
class OutboxRun:
    """What one run of :func:`emails_send_due` did: how many emails it sent, and in how many
    seconds the soonest one that failed is due again (``None``: none failed)."""

    sent: int
    retry_in: int | None


def emails_send_due(*, batch: int = 100) -> OutboxRun:
    """Send every queued email due when the run starts (:func:`email_deliver`), ``batch`` read
    at a time, until none is left. Run by the worker a commit woke and by beat's sweep every
    minute; any number may run at once: each email is claimed by one of them only."""
    memo: Memo = {}
    sent = 0
    retry_in: int | None = None
    started = timezone.now()  # an email that fails in this run is due again after it, not in it
    while True:
        due = list(
            OutboundEmail.objects.filter(status=OutboundEmail.Status.QUEUED, due_at__lte=started)
            .order_by("due_at", "pk")
            .values_list("pk", "due_at")[:batch]
        )
        if not due:
            return OutboxRun(sent=sent, retry_in=retry_in)
        for email_id, due_at in due:
            try:
                email = email_deliver(email_id=email_id, due_at=due_at, memo=memo)
            except EmailDeliveryFailed as failure:
                logger.warning("Email %s not sent (%s); it stays queued", email_id, failure)
                soonest = failure.retry_in
                if soonest is not None and (retry_in is None or soonest < retry_in):
                    retry_in = soonest
                continue
            if email is not None and email.status == OutboundEmail.Status.SENT:
                sent += 1


def email_deliver(
    *, email_id: int, due_at: datetime | None = None, memo: Memo | None = None
) -> OutboundEmail | None:
    """Claim queued email ``email_id``, render it if it is not yet, and send it through
    Django's email backend.

    The claim is a conditional update (healthchecks' way) that must touch exactly one row: the
    email is queued and due — at ``due_at`` exactly when given, the time its caller read — and
    its ``due_at`` moves ``EMAIL_CLAIM_SECONDS`` on (ten minutes), its attempts one up. A
    second worker finds nothing to claim, so an email goes out once whoever sends it; one that
    dies holding it leaves it due again after that lease. Any failure (rendering or the mail
    server) records the attempt and the error, leaves the row queued, due again after a wait
    doubling up to an hour (``failed`` after :data:`EMAIL_MAX_ATTEMPTS`), and raises
    :class:`EmailDeliveryFailed`. The database failing once the email is claimed raises
    :class:`EmailClaimHeld`, whose retry gives the claim back. Returns the email, or ``None``
    when there was nothing to send (not due, already sent, claimed by another, or nobody left
    to send it to).
    """
    now = timezone.now()
    claim = OutboundEmail.objects.filter(pk=email_id, status=OutboundEmail.Status.QUEUED)
    claim = claim.filter(due_at=due_at) if due_at is not None else claim.filter(due_at__lte=now)
    lease = timedelta(seconds=settings.EMAIL_CLAIM_SECONDS)
    if claim.update(due_at=now + lease, attempts=F("attempts") + 1) != 1:
        return None
    try:
        return _email_deliver_claimed(email_id=email_id, memo=memo)
    except DATABASE_DOWN as error:  # the claim is held: the task's retry gives it back
        raise EmailClaimHeld(email_id=email_id, lease_until=now + lease) from error


def _email_deliver_claimed(*, email_id: int, memo: Memo | None) -> OutboundEmail | None:
    email = OutboundEmail.objects.select_related("user").get(pk=email_id)
    # What the worker renders is written with the attempt's outcome, in the same statement.
    rendered: dict[str, object] = {}
    try:
        if not email.body_text:
            if not email_render_queued(email=email, memo={} if memo is None else memo):
                OutboundEmail.objects.filter(pk=email_id, attempts=email.attempts).update(
                    status=OutboundEmail.Status.DROPPED
                )
                return None
            rendered = {name: getattr(email, name) for name in RENDERED_FIELDS}
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
        message.send(fail_silently=False)
    except DATABASE_DOWN:
        raise
    except Exception as error:  # any other failure: the row stays queued, due again later
        failure = f"{type(error).__name__}: {error}"
        raise email_attempt_failed(email=email, failure=failure, rendered=rendered) from error
    email.status = OutboundEmail.Status.SENT
    email.sent_at = timezone.now()
    email.last_error = ""
    OutboundEmail.objects.filter(pk=email_id, attempts=email.attempts).update(
        status=email.status, sent_at=email.sent_at, last_error="", **rendered
    )
    return email


def email_attempt_failed(
    *, email: OutboundEmail, failure: str, rendered: dict[str, object] | None = None
) -> EmailDeliveryFailed:
    """Record ``email``'s failed attempt: queued and due again after a wait that doubles, or
    ``failed`` when its attempts ran out (kept: an admin can resend), with what this attempt
    ``rendered`` (the next one sends it as it is). Returns the :class:`EmailDeliveryFailed` to
    raise."""
    final = email.attempts >= EMAIL_MAX_ATTEMPTS
    wait = email_retry_countdown(email.attempts - 1)
    OutboundEmail.objects.filter(pk=email.pk, attempts=email.attempts).update(
        status=OutboundEmail.Status.FAILED if final else OutboundEmail.Status.QUEUED,
        due_at=timezone.now() + timedelta(seconds=wait),
        last_error=failure,
        **(rendered or {}),
    )
    return EmailDeliveryFailed(failure, attempts=email.attempts, retry_in=None if final else wait)


@transaction.atomic
def email_resend(*, email: OutboundEmail) -> OutboundEmail:
    """Queue ``email`` again (an admin's action): the same content, to the same people.

    A sent email goes out once more; a queued one is only due at once.
    """
    OutboundEmail.objects.filter(pk=email.pk).update(
        status=OutboundEmail.Status.QUEUED, sent_at=None, due_at=timezone.now()
    )
    transaction.on_commit(email_outbox_wake, robust=True)
    return OutboundEmail.objects.get(pk=email.pk)


# --- The emails rendered by the worker that sends them ------------------------------------------


@dataclass(frozen=True)
class Rendering:
    """What a queued email is rendered from, read when it is sent: its recipient (a user, or
    an address ``to`` when there is no account), in their language, its template's context,
    its headers, an optional email's one-click ``unsubscribe`` link, and the ``time_zone`` its
    template's times are said in (when the context does not convert them)."""

    user: User | None
    language: str
    context: dict[str, object]
    headers: dict[str, str] = field(default_factory=dict)
    unsubscribe: str = ""
    to: str = ""
    time_zone: str = ""

    @property
    def address(self) -> str:
        return self.user.email if self.user is not None else self.to


RENDERED_FIELDS = ("language", "user", "to", "headers", "subject", "body_text", "body_html")
"""What rendering a queued email fills in (:func:`email_render_queued`)."""


def email_render_queued(*, email: OutboundEmail, memo: Memo) -> bool:
    """Render queued ``email`` from the ids of its context (:data:`RENDERINGS`) into its
    :data:`RENDERED_FIELDS` (the caller writes them with the attempt's outcome); ``False``
    when it has nobody to go to any more."""
    rendering = RENDERINGS[email.template](email, memo)
    if rendering is None or not rendering.address:
        return False
    email.language = Language(rendering.language).value
    email.user = rendering.user
    email.to = [rendering.address]
    email.headers = email_headers(rendering.headers, rendering.unsubscribe)
    email.subject, email.body_text, email.body_html = email_render(
        template=email.template,
        context=rendering.context,
        language=email.language,
        unsubscribe=rendering.unsubscribe,
        time_zone=rendering.time_zone,
    )
    return True


RenderingFunction = Callable[[OutboundEmail, Memo], Rendering | None]

RENDERINGS: dict[str, RenderingFunction] = {}
"""Every kind of email (:func:`emails_queue`), each with what renders it when it is sent
(registered by :func:`renders`)."""


def renders(template: str) -> Callable[[RenderingFunction], RenderingFunction]:
    """Register the decorated function as what renders the queued emails of ``template``: it
    reads the row's ids and returns the :class:`Rendering`, or ``None`` when the email has
    nobody to go to any more (the row is then dropped)."""

    def register(function: RenderingFunction) -> RenderingFunction:
        RENDERINGS[template] = function
        return function

    return register
