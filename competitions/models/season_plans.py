"""The next season's plan as the admins draft it on the season desk, one row per finished season:
what they chose (R22: which group of its tier a moving team joins; R20: the next season's first
Monday and skipped weeks) and the plan as computed from the rules, kept until what it was
computed from changes. The desk, every admin's browser and the commands (``season_plan
--draft``, ``season_start``) read the same row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from league.models import Season


class SeasonPlanDraft(models.Model):
    """The plan for the season after ``season``, as the admins leave it before the start."""

    season = models.OneToOneField(
        Season,
        verbose_name=_("finished season"),
        on_delete=models.CASCADE,
        related_name="plan_draft",
    )
    swaps = models.JSONField(
        _("group swaps"),
        default=list,
        blank=True,
        help_text=_("Pairs of team slugs that exchange their group and code, in order (R22)."),
    )
    starts_on = models.DateField(
        _("first Monday"),
        null=True,
        blank=True,
        help_text=_(
            "The next season's first week's Monday (R20); empty: the Monday after the start."
        ),
    )
    skipped_weeks = models.JSONField(
        _("weeks to skip"),
        null=True,
        blank=True,
        help_text=_("The next season's calendar weeks without rounds (R20); empty: none skipped."),
    )
    # Text, not JSON: PostgreSQL's jsonb would give the document back in its own key order, and
    # season_plan --json prints it in SEASON.md's.
    plan = models.TextField(
        _("plan as computed"),
        blank=True,
        help_text=_("The plan from the rules, before any swap (season_plan --json)."),
    )
    plan_state = models.CharField(
        _("computed from"),
        max_length=64,
        blank=True,
        help_text=_(
            "A digest of what the plan was computed from (the closed season, withdrawals, the "
            "waiting list, the teams): another digest means computing it again."
        ),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("updated by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("season plan draft")
        verbose_name_plural = _("season plan drafts")

    def __str__(self) -> str:
        return f"{self.season} → {self.season.number + 1}"
