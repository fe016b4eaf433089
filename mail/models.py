"""The mail: the outbox of every email the league sends, the messages received for picks by
email, and the mailings of the week's clock (each once per person).
"""

from __future__ import annotations

from typing import TypeAlias

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models import PoolRound
from league.models import Language, Season
from matrixhockey.db import choices_constraint


class OutboundEmailStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    SENT = "sent", _("sent")
    FAILED = "failed", _("failed")
    DROPPED = "dropped", _("not sent: nobody to send it to")


class OutboundEmail(models.Model):
    """The outbox: every email the league sends, one row each, with its fate (Zulip's
    ``ScheduledEmail``, healthchecks' claimed rows).

    The row is written in the transaction that causes the email — a pick, a publication, a
    season's start, an invitation — with its kind (``template``), its recipient and the ids its
    rendering needs (``context``); nothing is sent for an action rolled back. A worker claims it
    by a conditional update of ``due_at`` (``mail.outbox.email_deliver``), renders it if its
    body is still empty, and sends it. Any failure leaves it ``queued`` with ``due_at`` pushed
    back (doubling up to an hour), and beat's sweep takes every row whose ``due_at`` has passed,
    so a failing mail server, a lost task or a worker that died delays mail and never loses it.
    ``failed`` means the attempts ran out: an admin can resend. ``dropped``: when rendered, it
    had nobody to go to (a team with no coach, a round voided since).
    """

    Status = OutboundEmailStatus

    template = models.CharField(_("template"), max_length=64)
    language = models.CharField(
        _("language"),
        max_length=8,
        choices=Language.choices,
        default=Language.FRENCH,
        help_text=_("The recipient's, settled when the email is rendered."),
    )
    to = models.JSONField(_("to"), default=list)
    reply_to = models.JSONField(_("reply to"), default=list, blank=True)
    headers = models.JSONField(_("headers"), default=dict, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recipient"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    context = models.JSONField(
        _("context"),
        default=dict,
        blank=True,
        help_text=_("The ids the email is rendered from, by the worker that sends it."),
    )
    subject = models.CharField(_("subject"), max_length=255, blank=True)
    body_text = models.TextField(_("text body"), blank=True)
    body_html = models.TextField(_("HTML body"), blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    due_at = models.DateTimeField(
        _("due at"),
        default=timezone.now,
        help_text=_("When a worker is to try it next (a claim or a failure moves it on)."),
    )
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)

    class Meta:
        verbose_name = _("outbound email")
        verbose_name_plural = _("outbox")
        ordering = ["-created_at", "-id"]
        constraints = [
            choices_constraint("status", OutboundEmailStatus, "outbound_email_status_valid"),
            choices_constraint("language", Language, "outbound_email_language_valid"),
            models.CheckConstraint(
                condition=~Q(status="sent") | Q(sent_at__isnull=False),
                name="outbound_email_sent_has_time",
            ),
        ]
        indexes = [
            # Beat's sweep and the woken worker read the queued rows that are due.
            models.Index(
                fields=["due_at"],
                condition=Q(status="queued"),
                name="outbound_email_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject} → {', '.join(self.to)}"


class InboundEmailOutcome(models.TextChoices):
    """What the league did with a message received for picks by email."""

    PROCESSED = "processed", _("picks read")
    NO_PICKS = "no_picks", _("no pick line")
    UNKNOWN_SENDER = "unknown_sender", _("unknown sender")
    FORGED = "forged", _("sender not authenticated")
    BAD_SENDER = "bad_sender", _("no single sender")
    AUTOMATIC = "automatic", _("automatic message, ignored")
    REFUSED = "refused", _("refused: over a limit or unreadable")


class InboundEmail(models.Model):
    """A message received for picks by email, once: its ``Message-ID`` is unique, so the same
    message ingested twice stores nothing new and is not answered twice."""

    Outcome = InboundEmailOutcome

    message_id = models.CharField(_("Message-ID"), max_length=998, unique=True)
    sender = models.CharField(_("sender"), max_length=254, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("coach"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    subject = models.CharField(_("subject"), max_length=200, blank=True)
    received_at = models.DateTimeField(_("received at"))
    processed_at = models.DateTimeField(_("processed at"), default=timezone.now, db_index=True)
    outcome = models.CharField(_("outcome"), max_length=16, choices=Outcome.choices)
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    authentication = models.CharField(_("sender authentication"), max_length=300, blank=True)
    report = models.JSONField(_("lines read"), default=list, blank=True, encoder=DjangoJSONEncoder)
    reply = models.ForeignKey(
        "mail.OutboundEmail",
        verbose_name=_("reply"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("inbound email")
        verbose_name_plural = _("inbound emails")
        ordering = ["-processed_at", "-id"]
        constraints = [
            choices_constraint("outcome", InboundEmailOutcome, "inbound_email_outcome_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.received_at:%Y-%m-%d %H:%M} {self.sender} · {self.get_outcome_display()}"


class InboundFailure(models.Model):
    """A message of the mailbox whose ingestion failed, known by the SHA-256 of its bytes (it may
    have no readable Message-ID): how many times, the last error, and when it was set aside
    after ``MAIL_FETCH_MAX_ATTEMPTS`` tries (no longer read: a person looks at it). The row goes
    when the message is ingested at last."""

    digest = models.CharField(_("SHA-256 of the message"), max_length=64, unique=True)
    message_id = models.CharField(_("Message-ID"), max_length=998, blank=True)
    sender = models.CharField(_("sender"), max_length=254, blank=True)
    attempts = models.PositiveIntegerField(_("failed attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    first_failed_at = models.DateTimeField(_("first failed at"), default=timezone.now)
    last_failed_at = models.DateTimeField(_("last failed at"), default=timezone.now)
    set_aside_at = models.DateTimeField(_("set aside at"), null=True, blank=True)

    class Meta:
        verbose_name = _("inbound email that failed")
        verbose_name_plural = _("inbound emails that failed")
        ordering = ["-last_failed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.message_id or self.digest[:12]} · {self.attempts}"


class MailingKind(models.TextChoices):
    """The emails of the week's clock (``mail.weekly``), each sent once per person."""

    WEEKLY = "weekly", _("Wednesday's weekly email")
    REMINDER = "reminder", _("Friday's last reminder")
    WATCHDOG = "watchdog", _("arbitration watchdog alert")


class Mailing(models.Model):
    """One email of the week's clock to one person, recorded in the transaction that queues it.

    The unique constraints are what makes a beat entry that fires twice (two beat processes, a
    retried task) harmless: the second insert fails and nothing is queued twice. The weekly
    email and the reminder are once per season, week, kind and person; a watchdog alert is once
    per pool round and person.
    """

    Kind: TypeAlias = MailingKind

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="mailings"
    )
    week = models.PositiveSmallIntegerField(_("week"), validators=[MinValueValidator(1)])
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recipient"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    pool_round = models.ForeignKey(
        PoolRound,
        verbose_name=_("pool round"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="mailings",
        help_text=_("The pool round a watchdog alert is about."),
    )
    email = models.ForeignKey(
        OutboundEmail,
        verbose_name=_("email"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("sent at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("mailing")
        verbose_name_plural = _("mailings of the week's clock")
        ordering = ["-created_at", "-id"]
        constraints = [
            choices_constraint("kind", MailingKind, "mailing_kind_valid"),
            models.CheckConstraint(condition=Q(week__gte=1), name="mailing_week_positive"),
            # A watchdog alert names its pool round; the weekly email and the reminder do not.
            models.CheckConstraint(
                condition=Q(kind="watchdog", pool_round__isnull=False)
                | (~Q(kind="watchdog") & Q(pool_round__isnull=True)),
                name="mailing_pool_round_fits_kind",
            ),
            models.UniqueConstraint(
                fields=["season", "week", "kind", "user"],
                condition=Q(pool_round__isnull=True),
                name="mailing_once_a_week",
            ),
            models.UniqueConstraint(
                fields=["pool_round", "kind", "user"],
                condition=Q(pool_round__isnull=False),
                name="mailing_once_per_pool_round",
            ),
        ]

    def __str__(self) -> str:
        return str(
            _("%(kind)s · %(season)s · week %(week)d → %(user)s")
            % {
                "kind": self.get_kind_display(),
                "season": self.season,
                "week": self.week,
                "user": self.user,
            }
        )


class EmailKind(models.TextChoices):
    """The emails a person may choose not to get. The others are essential and always sent:
    pick receipts and replies, invitations and password emails, a season's announcement,
    Friday's reminder while a pick is missing, a moved deadline, the referees' watchdog alert."""

    WEEKLY = "weekly", _("Wednesday's information")
    RESULTS = "results", _("results published")
    NEWS = "news", _("the league's news")


class EmailPreferences(models.Model):
    """Which of the optional emails (:class:`EmailKind`) a person gets; all of them until they
    say otherwise (no row: every one)."""

    Kind = EmailKind

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="email_preferences",
    )
    weekly = models.BooleanField(_("Wednesday's information"), default=True)
    results = models.BooleanField(_("results published"), default=True)
    news = models.BooleanField(_("the league's news"), default=True)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("email preferences")
        verbose_name_plural = _("email preferences")

    def __str__(self) -> str:
        return str(self.user)

    def wants(self, kind: EmailKind | str) -> bool:
        """Whether the person gets the emails of ``kind``."""
        return bool(getattr(self, EmailKind(kind).value))
