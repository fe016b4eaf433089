"""A referee's request to arbitrate a pool round, as a worker runs it: the state the referee's
desk and the API read (requested, started, done, or refused with its code).

The status moves by conditional updates only: a worker claims the request (``requested`` →
``started``, one row touched or none), so a task sent twice, retried or handed out again runs the
arbitration once; a request is pending (``requested`` or ``started``) at most once per pool round.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.structure import PoolRound
from matrixhockey.db import choices_constraint, done_by


class ArbitrationRequestStatus(models.TextChoices):
    REQUESTED = "requested", _("requested")
    STARTED = "started", _("started")
    DONE = "done", _("done")
    REFUSED = "refused", _("refused")


class ArbitrationRequest(models.Model):
    """One request to arbitrate a pool round, and how far a worker got with it."""

    Status = ArbitrationRequestStatus
    PENDING = (ArbitrationRequestStatus.REQUESTED, ArbitrationRequestStatus.STARTED)

    pool_round = models.ForeignKey(
        PoolRound,
        verbose_name=_("pool round"),
        on_delete=models.CASCADE,
        related_name="arbitration_requests",
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.REQUESTED
    )
    refusal_code = models.CharField(_("refusal code"), max_length=32, blank=True)
    refusal_facts = models.JSONField(
        _("refusal facts"),
        default=dict,
        blank=True,
        help_text=_("The values the refusal's message says, to word it in its reader's language."),
    )
    task_id = models.CharField(_("task id"), max_length=64, blank=True)
    attempts = models.PositiveIntegerField(
        _("attempts"), default=0, help_text=_("How many times a worker took it.")
    )
    asks = models.PositiveIntegerField(
        _("asks"), default=1, help_text=_("How many times it was queued (asked again).")
    )
    requested_by = done_by(_("requested by"))
    requested_at = models.DateTimeField(_("requested at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("arbitration request")
        verbose_name_plural = _("arbitration requests")
        ordering = ["-requested_at", "-id"]
        constraints = [
            choices_constraint("status", ArbitrationRequestStatus, "arbitration_request_status"),
            models.UniqueConstraint(
                fields=["pool_round"],
                condition=Q(status__in=["requested", "started"]),
                name="arbitration_request_one_pending",
            ),
            models.CheckConstraint(
                condition=~Q(status="refused") | ~Q(refusal_code=""),
                name="arbitration_request_refused_has_code",
            ),
        ]

    def __str__(self) -> str:
        return f"{self._meta.verbose_name} #{self.pk} ({self.get_status_display()})"

    @property
    def is_pending(self) -> bool:
        return self.status in self.PENDING
