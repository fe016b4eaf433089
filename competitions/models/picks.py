"""Picks as received (R12) and the referee's queue of late picks by email (R13)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC
from typing import TypeAlias

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.structure import Round
from league.models import Entry
from matrixhockey.db import AppendOnlyModel, choices_constraint, done_by


class PickChannel(models.TextChoices):
    WEB = "web", _("web")
    EMAIL = "email", _("email")
    REFEREE = "referee", _("entered by a referee")


class Pick(AppendOnlyModel):
    """A pick as received (R12): every one is kept; the latest received for a round counts.

    ``receipt`` is the SHA-256 of :meth:`canonical`, so a coach can check that what the league
    stored is what they sent.
    """

    Channel: TypeAlias = PickChannel

    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="picks"
    )
    round = models.ForeignKey(
        Round,
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="picks",
    )
    notation = models.CharField(_("as received"), max_length=200)
    normalized = models.CharField(_("notation"), max_length=100)
    channel = models.CharField(_("channel"), max_length=16, choices=Channel.choices)
    received_at = models.DateTimeField(_("received at"), default=timezone.now)
    entered_by = done_by(_("entered by"))
    receipt = models.CharField(_("receipt"), max_length=64, editable=False)

    class Meta:
        verbose_name = _("pick")
        verbose_name_plural = _("picks")
        ordering = ["-received_at", "-id"]
        indexes = [
            models.Index(fields=["entry", "round", "received_at", "id"], name="pick_current_idx")
        ]
        constraints = [choices_constraint("channel", PickChannel, "pick_channel_valid")]

    def __str__(self) -> str:
        # No notation here: a pick is secret until its round is published.
        return f"{self.entry.team} · {self.round} · {self.received_at:%Y-%m-%d %H:%M:%S}"

    def canonical(self) -> str:
        """The stored record as canonical JSON (sorted keys, UTC time to the microsecond)."""
        record = {
            "channel": self.channel,
            "competition": self.round.competition,
            "entered_by": self.entered_by.get_username() if self.entered_by else None,
            "normalized": self.normalized,
            "notation": self.notation,
            "received_at": self.received_at.astimezone(UTC).isoformat(timespec="microseconds"),
            "round": self.round.number,
            "season": self.round.season.number,
            "team": self.entry.team.slug,
        }
        return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def compute_receipt(self) -> str:
        return hashlib.sha256(self.canonical().encode("utf-8")).hexdigest()

    def save(self, *args: object, **kwargs: object) -> None:
        if self._state.adding:
            self.receipt = self.compute_receipt()
        super().save(*args, **kwargs)


class LatePickStatus(models.TextChoices):
    PENDING = "pending", _("waiting for a referee")
    ACCEPTED = "accepted", _("accepted")
    REJECTED = "rejected", _("rejected")


class LatePick(models.Model):
    """R13: a pick received by email after the deadline, waiting for a referee in their queue.

    Accepted, it becomes a pick entered by the referee (channel ``referee``, ``pick``); rejected,
    it stays here. Only one decision: the status moves once, from ``pending``.
    """

    Status: TypeAlias = LatePickStatus

    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="late_picks"
    )
    round = models.ForeignKey(
        Round,
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="late_picks",
    )
    notation = models.CharField(_("as received"), max_length=200)
    received_at = models.DateTimeField(_("received at"))
    message_id = models.CharField(_("Message-ID"), max_length=998, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    decided_by = done_by(_("decided by"))
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    pick = models.OneToOneField(
        Pick,
        verbose_name=_("pick entered"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="late_pick",
    )

    class Meta:
        verbose_name = _("late pick")
        verbose_name_plural = _("late picks (referee's queue)")
        ordering = ["received_at", "id"]
        constraints = [
            choices_constraint("status", LatePickStatus, "late_pick_status_valid"),
            models.CheckConstraint(
                condition=Q(status="pending", decided_at__isnull=True, pick__isnull=True)
                | Q(status="accepted", decided_at__isnull=False, pick__isnull=False)
                | Q(status="rejected", decided_at__isnull=False, pick__isnull=True),
                name="late_pick_decision_fits_status",
            ),
        ]

    def __str__(self) -> str:
        # No notation: a pick is secret until its round is published.
        return f"{self.entry.team} · {self.round} · {self.received_at:%Y-%m-%d %H:%M:%S}"
