"""What a closed season keeps: its final tables, its cups' honours and its R14 bars, recorded once
by ``season_close`` (``shared/SEASON.md``), and the withdrawals before the next season (R24).

The next season's plan reads these rows (never the live results again), so it is the same plan
every time for the same data.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.structure import Competition, Pool, WgGroup
from league.models import Entry, Season
from matrixhockey.db import choices_constraint


class SeasonArchive(models.Model):
    """A closed season: when it closed, when it ended (R21) and the seed of the next season's
    plan (R16, R23)."""

    season = models.OneToOneField(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="archive"
    )
    closed_at = models.DateTimeField(_("closed at"), default=timezone.now)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("closed by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    ended_at = models.DateTimeField(
        _("season's end"),
        help_text=_(
            "The deadline of the season's last round: waiting-list teams registered before it "
            "get the veteran's points (R21)."
        ),
    )
    plan_seed = models.CharField(
        _("plan seed"),
        max_length=128,
        help_text=_(
            "Seeds the next season's plan's draws (codes R16, ties): derived from every pool "
            "round's published seed, so anyone can check it and nobody could know it before "
            "(R23)."
        ),
    )

    class Meta:
        verbose_name = _("season archive")
        verbose_name_plural = _("season archives")
        ordering = ["-season__number"]

    def __str__(self) -> str:
        return str(self.season)


class FinalRow(models.Model):
    """A row of a final table as it stood at the close (R9): a championship division's, or a WG
    group's (``group`` A–C). The championship rows also keep the team's R21 record (KDH wins,
    games without a goal against) and its R14 bar."""

    archive = models.ForeignKey(
        SeasonArchive,
        verbose_name=_("season archive"),
        on_delete=models.CASCADE,
        related_name="rows",
    )
    pool = models.ForeignKey(
        Pool, verbose_name=_("pool"), on_delete=models.PROTECT, related_name="final_rows"
    )
    group = models.CharField(_("WG group"), max_length=1, choices=WgGroup.choices, blank=True)
    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="final_rows"
    )
    rank = models.PositiveSmallIntegerField(_("rank"), validators=[MinValueValidator(1)])
    points = models.PositiveSmallIntegerField(_("points"))
    played = models.PositiveSmallIntegerField(_("played"))
    wins = models.PositiveSmallIntegerField(_("wins"))
    regulation_wins = models.PositiveSmallIntegerField(_("regulation wins"))
    draws = models.PositiveSmallIntegerField(_("draws"))
    extra_time_losses = models.PositiveSmallIntegerField(_("extra-time losses"))
    losses = models.PositiveSmallIntegerField(_("losses"))
    goals_for = models.PositiveSmallIntegerField(_("goals for"))
    goals_against = models.PositiveSmallIntegerField(_("goals against"))
    kdh_wins = models.PositiveSmallIntegerField(
        _("KDH wins"), default=0, help_text=_("Championship rows: KDH games won (R21).")
    )
    shutouts = models.PositiveSmallIntegerField(
        _("games without a goal against"),
        default=0,
        help_text=_("Championship rows: games in which the opponent scored no goal (R21)."),
    )
    promotion_barred = models.BooleanField(
        _("cannot be promoted"), default=False, help_text=_("Championship rows: R14's bar.")
    )

    class Meta:
        verbose_name = _("final table row")
        verbose_name_plural = _("final table rows")
        ordering = ["archive", "pool", "group", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["archive", "pool", "group", "rank"], name="final_row_unique_rank"
            ),
            models.UniqueConstraint(
                fields=["archive", "pool", "entry"], name="final_row_unique_entry"
            ),
            models.CheckConstraint(condition=Q(rank__gte=1), name="final_row_rank_positive"),
            choices_constraint("group", WgGroup, "final_row_group_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.pool.slug}{self.group} {self.rank}. {self.entry.team}"


class CupHonour(models.Model):
    """A cup's honours at the close: the KDH's winner (1) and finalist (2), the WG's first to
    fourth. A KDH final lost by two ONR teams (R15) has two finalists and no winner."""

    archive = models.ForeignKey(
        SeasonArchive,
        verbose_name=_("season archive"),
        on_delete=models.CASCADE,
        related_name="honours",
    )
    competition = models.CharField(_("competition"), max_length=16, choices=Competition.choices)
    place = models.PositiveSmallIntegerField(
        _("place"), validators=[MinValueValidator(1), MaxValueValidator(4)]
    )
    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="honours"
    )

    class Meta:
        verbose_name = _("cup honour")
        verbose_name_plural = _("cup honours")
        ordering = ["archive", "competition", "place"]
        constraints = [
            models.CheckConstraint(
                condition=Q(competition=Competition.KDH, place__gte=1, place__lte=2)
                | Q(competition=Competition.WG, place__gte=1, place__lte=4),
                name="cup_honour_place_fits_cup",
            ),
            models.UniqueConstraint(
                fields=["archive", "competition", "entry"], name="cup_honour_once_per_cup"
            ),
            models.UniqueConstraint(
                fields=["archive", "competition", "place"],
                condition=~Q(competition=Competition.KDH, place=2),
                name="cup_honour_unique_place",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.competition} {self.place}. {self.entry.team}"


class Withdrawal(models.Model):
    """R24: a team of a finished season that will not play the next (its coach quits, or an
    admin removes it), recorded before the next season starts."""

    entry = models.OneToOneField(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="withdrawal"
    )
    at = models.DateTimeField(_("at"), default=timezone.now)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("withdrawal")
        verbose_name_plural = _("withdrawals")
        ordering = ["-at"]

    def __str__(self) -> str:
        return str(self.entry)
