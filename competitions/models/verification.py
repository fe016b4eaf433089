"""A published pool round whose replay from stored data did not give what is stored (R23):
what differed and when it was found, one row per pool round and night at most.

Rows are written by :func:`competitions.services.verification.pool_round_verification_record`
after each publication and by the nightly check over the season; the row's unique constraint
is what makes a mismatch alert the admins once a night however often it is found. A later
verification that matches marks the pool round's open rows ``resolved_at``; the season desk
lists the open ones (staff only).
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.structure import PoolRound


class VerificationFailure(models.Model):
    """One night's failed verification of one published pool round."""

    pool_round = models.ForeignKey(
        PoolRound,
        verbose_name=_("pool round"),
        on_delete=models.PROTECT,
        related_name="verification_failures",
    )
    night = models.DateField(
        _("night"), help_text=_("The day it was found, in the season's time zone.")
    )
    differences = models.JSONField(
        _("differences"), default=list, help_text=_("What the replay found different, in words.")
    )
    found_at = models.DateTimeField(_("found at"), default=timezone.now)
    resolved_at = models.DateTimeField(
        _("resolved at"),
        null=True,
        blank=True,
        help_text=_("When a later verification of the pool round matched again."),
    )

    class Meta:
        verbose_name = _("failed verification")
        verbose_name_plural = _("failed verifications")
        ordering = ["-found_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["pool_round", "night"], name="verification_failure_once_a_night"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.pool_round} · {self.night}"
