"""The stock ledger (R6, R14, R21): every movement of a team's extra goals and great saves,
with the round that spent them. ``Entry`` (in ``league``) keeps the balances, so the database
refuses a negative one; the ledger lives here because its lines point at rounds.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.structure import Round
from league.models import Entry
from matrixhockey.db import AppendOnlyModel, choices_constraint, done_by


class StockKind(models.TextChoices):
    """The two stocks a team spends during a season (R6)."""

    EXTRA_GOALS = "extra_goals", _("extra goals")
    GREAT_SAVES = "great_saves", _("great saves")


class StockReason(models.TextChoices):
    """Why a stock moved."""

    SEASON_START = "season_start", _("season start (R21)")
    PLAYED = "played", _("played in a game")
    ONR_SANCTION = "onr_sanction", _("ONR sanction (R14)")
    ADMIN = "admin", _("admin correction")
    REPLACEMENT = "replacement", _("taken over by a replacement (R14)")
    VOID = "void", _("voided round given back")


class StockMovement(AppendOnlyModel):
    """One line of a team's stock ledger: never changed, never deleted."""

    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="movements"
    )
    kind = models.CharField(_("stock"), max_length=16, choices=StockKind.choices)
    delta = models.IntegerField(_("change"))
    balance_after = models.IntegerField(_("balance after"))
    reason = models.CharField(_("reason"), max_length=16, choices=StockReason.choices)
    round = models.ForeignKey(
        Round,
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="stock_movements",
    )
    note = models.TextField(_("note"), blank=True)
    created_at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    created_by = done_by(_("by"))

    class Meta:
        verbose_name = _("stock movement")
        verbose_name_plural = _("stock movements")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="stock_movement_balance_not_negative"
            ),
            choices_constraint("kind", StockKind, "stock_movement_kind_valid"),
            choices_constraint("reason", StockReason, "stock_movement_reason_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.delta:+d} → {self.balance_after}"
