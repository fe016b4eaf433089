"""A season start run by a worker (``competitions.season_start``): its status and progress, for
the season desk's progress bar.

The progress is written outside the start's own transaction, so the desk sees it move while the
start runs; the status moves forward only (queued → running → done, refused or failed), by
conditional updates, so a task sent twice starts the season once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.models import Season
from matrixhockey.db import choices_constraint


class SeasonStartJobStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    REFUSED = "refused", _("refused")
    FAILED = "failed", _("failed")


class SeasonStartJob(models.Model):
    """One request to start a season: what to start (a plan, or the season in preparation) and
    how far the worker got."""

    Status = SeasonStartJobStatus

    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    plan = models.JSONField(_("plan"), null=True, blank=True)
    options = models.JSONField(
        _("options"),
        default=dict,
        blank=True,
        help_text=_("starts_on, skipped_weeks, seed, wg_teams, referees (user ids by pool)."),
    )
    done = models.PositiveIntegerField(_("steps done"), default=0)
    total = models.PositiveIntegerField(_("steps"), default=0)
    message = models.TextField(_("message"), blank=True)
    code = models.CharField(_("refusal code"), max_length=32, blank=True)
    season = models.ForeignKey(
        Season,
        verbose_name=_("season started"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    task_id = models.CharField(_("task id"), max_length=64, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    requested_at = models.DateTimeField(_("requested at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("season start")
        verbose_name_plural = _("season starts")
        ordering = ["-requested_at", "-id"]
        constraints = [
            choices_constraint("status", SeasonStartJobStatus, "season_start_job_status_valid"),
            models.CheckConstraint(
                condition=Q(done__lte=models.F("total")), name="season_start_job_done_le_total"
            ),
            models.CheckConstraint(
                condition=~Q(status="done") | Q(season__isnull=False),
                name="season_start_job_done_has_season",
            ),
        ]

    def __str__(self) -> str:
        return f"{self._meta.verbose_name} #{self.pk} ({self.get_status_display()})"

    @property
    def percent(self) -> int:
        """How far the start is, 0–100 (100 once done)."""
        if self.status == self.Status.DONE:
            return 100
        return self.done * 100 // self.total if self.total else 0

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.REFUSED, self.Status.FAILED)
