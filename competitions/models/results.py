"""Results as the engine returns them: each fixture's score and how it was decided, each
team's played pick, and the ONR sanctions (R14). Nothing here scores a game.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.picks import Pick
from competitions.models.structure import (
    EXTRA_TIME_VALUES,
    MATRIX_COLUMNS,
    SHOOTOUT_VALUES,
    Fixture,
    PoolRound,
    Round,
)
from league.models import Entry
from matrixhockey.db import choices_constraint


class Decided(models.TextChoices):
    REGULATION = "regulation", _("in regulation")
    EXTRA_TIME = "extra_time", _("in extra time")
    DRAW = "draw", _("draw")
    SHOOTOUT = "shootout", _("on the shootout")
    DIE = "die", _("by a die")
    GROUP_GOALS = "group_goals", _("on group-stage goals")
    FORFEIT = "forfeit", _("by forfeit")


class FixtureResult(models.Model):
    """The result of a fixture, as the engine returned it (one per fixture)."""

    Decided = Decided

    fixture = models.OneToOneField(
        Fixture, verbose_name=_("fixture"), on_delete=models.PROTECT, related_name="result"
    )
    home_goals = models.PositiveSmallIntegerField(_("home goals"))
    away_goals = models.PositiveSmallIntegerField(_("away goals"))
    decided = models.CharField(_("decided"), max_length=16, choices=Decided.choices)
    winner = models.ForeignKey(
        Entry,
        verbose_name=_("winner"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="won_fixtures",
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("fixture result")
        verbose_name_plural = _("fixture results")
        ordering = ["fixture"]
        constraints = [
            models.CheckConstraint(
                condition=Q(home_goals__gte=0, away_goals__gte=0),
                name="fixture_result_goals_not_negative",
            ),
            choices_constraint("decided", Decided, "fixture_result_decided_valid"),
            # A draw has equal scores and no winner; a decided game has one. A forfeit may have
            # none (both teams ONR in the KDH, R15).
            models.CheckConstraint(
                condition=Q(decided="draw", winner__isnull=True, home_goals=F("away_goals"))
                | Q(decided="forfeit")
                | (~Q(decided__in=["draw", "forfeit"]) & Q(winner__isnull=False)),
                name="fixture_result_winner_fits_decision",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.fixture}: {self.home_goals}-{self.away_goals}"

    def clean(self) -> None:
        if self.fixture_id and self.winner_id not in (
            None,
            self.fixture.home_id,
            self.fixture.away_id,
        ):
            raise ValidationError({"winner": _("The winner is one of the fixture's two teams.")})


class TeamResult(models.Model):
    """What a team played in a pool's round and what it scored, as the engine returned it."""

    pool_round = models.ForeignKey(
        PoolRound,
        verbose_name=_("pool round"),
        on_delete=models.PROTECT,
        related_name="team_results",
    )
    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="team_results"
    )
    column = models.CharField(_("column"), max_length=1, blank=True)
    extra_time = models.CharField(_("extra time"), max_length=1, blank=True)
    shootout = models.CharField(_("shootout"), max_length=1, blank=True)
    extra_goals_used = models.PositiveSmallIntegerField(_("extra goals used"), default=0)
    great_saves_used = models.PositiveSmallIntegerField(_("great saves used"), default=0)
    onr = models.BooleanField(_("ONR"), default=False)
    redrawn = models.BooleanField(_("redrawn (R11)"), default=False)
    bonus_goal = models.BooleanField(_("bonus goal"), default=False)
    goals = models.PositiveSmallIntegerField(_("goals"))
    display = models.CharField(_("as displayed"), max_length=40)
    pick = models.ForeignKey(
        Pick,
        verbose_name=_("pick used"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="team_results",
    )

    class Meta:
        verbose_name = _("team result")
        verbose_name_plural = _("team results")
        ordering = ["pool_round", "entry"]
        indexes = [
            # R14: the arbitration reads each team's ONRs of the week (few: most teams have none).
            models.Index(fields=["entry"], condition=Q(onr=True), name="team_result_onr_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["pool_round", "entry"], name="team_result_one_per_pool_round"
            ),
            # R15: a cup team that forfeits (ONR) plays no column and no value.
            models.CheckConstraint(
                condition=Q(column__in=MATRIX_COLUMNS) | Q(column="", onr=True),
                name="team_result_column_valid",
            ),
            models.CheckConstraint(
                condition=Q(extra_time__in=EXTRA_TIME_VALUES) | Q(extra_time="", onr=True),
                name="team_result_extra_time_valid",
            ),
            models.CheckConstraint(
                condition=Q(shootout="") | Q(shootout__in=SHOOTOUT_VALUES),
                name="team_result_shootout_valid",
            ),
            models.CheckConstraint(
                condition=Q(extra_goals_used__gte=0, great_saves_used__gte=0, goals__gte=0),
                name="team_result_counts_not_negative",
            ),
            # R4, R5: an ONR team sent no pick, spends no stock and never gets the bonus goal.
            models.CheckConstraint(
                condition=Q(onr=False)
                | Q(
                    pick__isnull=True,
                    extra_goals_used=0,
                    great_saves_used=0,
                    bonus_goal=False,
                ),
                name="team_result_onr_has_no_pick_stock_or_bonus",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entry.team} [{self.display}] {self.goals}"


class OnrReplacement(models.TextChoices):
    """R14: who takes over a team at its third ONR (proposed here, confirmed by an admin)."""

    NONE = "", _("none")
    DUMMY = "dummy", _("a dummy team")
    WAITING_LIST = "waiting_list", _("the first team of the waiting list")


class OnrSanction(models.Model):
    """A sanctioned ONR of a team (R14), written by the arbitration of the round that found it.

    At most one per team and round. Every championship round counts on its own, so the last
    week's two (R20) can give a team two; a championship and a WG group-stage ONR of the same
    week are one, on the round arbitrated first. At the third ONR the row carries the proposed
    replacement, which an admin confirms.
    """

    Replacement = OnrReplacement

    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="onr_sanctions"
    )
    week = models.PositiveSmallIntegerField(_("week"), validators=[MinValueValidator(1)])
    round = models.ForeignKey(
        Round,
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="onr_sanctions",
        help_text=_("The round whose arbitration found the ONR (R14)."),
    )
    onr_count = models.PositiveSmallIntegerField(_("ONR count"))
    week_onr = models.PositiveSmallIntegerField(
        _("ONR of the week"),
        default=1,
        help_text=_("1, or 2 for the second of the last week's championship rounds (R20)."),
    )
    extra_goals_removed = models.PositiveSmallIntegerField(_("extra goals removed"), default=0)
    great_saves_removed = models.PositiveSmallIntegerField(_("great saves removed"), default=0)
    barred_from_promotion = models.BooleanField(_("cannot be promoted"), default=False)
    replacement = models.CharField(
        _("proposed replacement"),
        max_length=16,
        choices=Replacement.choices,
        blank=True,
    )
    created_at = models.DateTimeField(_("at"), default=timezone.now)

    class Meta:
        verbose_name = _("ONR sanction")
        verbose_name_plural = _("ONR sanctions")
        ordering = ["entry", "week"]
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "round"],
                name="onr_sanction_once_a_round",
                violation_error_message=_(
                    "This team was already sanctioned for an ONR in this round."
                ),
            ),
            # R14: a week's sanctions are numbered, so two arbitrations of one week at once that
            # both missed the other's ONR cannot both write the week's first: one is refused and
            # tried again, and then sees it.
            models.UniqueConstraint(
                fields=["entry", "week", "week_onr"],
                name="onr_sanction_numbered_in_its_week",
                violation_error_message=_("This team already has this ONR sanction this week."),
            ),
            models.CheckConstraint(
                condition=Q(week_onr__gte=1), name="onr_sanction_week_onr_positive"
            ),
            models.CheckConstraint(
                condition=Q(onr_count__gte=1), name="onr_sanction_count_positive"
            ),
            choices_constraint("replacement", OnrReplacement, "onr_sanction_replacement_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.entry.team} · ONR {self.onr_count} · week {self.week}"
