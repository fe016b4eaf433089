"""A season's competitions: matrices (R19), rounds, pools, pool rounds and fixtures.

A *pool* is what a referee arbitrates: a division in the championship, the whole cup in the KDH
and the WG. A :class:`PoolRound` is one pool's round — the unit with its own seed (R23), status
and results.
"""

from __future__ import annotations

import string
from typing import TypeAlias

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.kinds import CompetitionKind, kind_of
from engine.competitions import Rules
from league.models import Division, Entry, Season
from matrixhockey import french
from matrixhockey.db import choices_constraint, done_by

MATRIX_COLUMNS = tuple(string.ascii_uppercase[:11])
"""Every column letter a matrix may have (the championship's A–K is the widest, R19)."""
EXTRA_TIME_VALUES = ("0", "1", "2", "3", "X")
SHOOTOUT_VALUES = ("0", "1", "2", "3", "4", "5", "X")


class Competition(models.TextChoices):
    CHAMPIONSHIP = "championship", _("championship")
    KDH = "kdh", _("KDH cup")
    WG = "wg", _("WG cup")

    @property
    def kind(self) -> CompetitionKind:
        """What sets this competition apart (``competitions.kinds``)."""
        return kind_of(self.value)

    @property
    def rules(self) -> Rules:
        """The engine's rules for this competition's matrix shape and quotas (R7, R19).

        The WG's group stage and knockout share one matrix and quotas: the group's rules serve.
        """
        return self.kind.rules


CUPS = tuple(competition for competition in Competition if competition.kind.cup)
"""The cups (the KDH, the WG): each one pool of the teams drawn into it, where the divisions are
a pool each."""


class Stage(models.TextChoices):
    """Where a round stands in its competition (R17, R18)."""

    REGULAR = "regular", _("regular season")
    QUALIFYING = "qualifying", _("qualifying round")
    ROUND_OF_64 = "round_of_64", _("round of 64")
    ROUND_OF_32 = "round_of_32", _("round of 32")
    ROUND_OF_16 = "round_of_16", _("round of 16")
    QUARTER_FINAL = "quarter_final", _("quarter-finals")
    GROUP = "group", _("group stage")
    SEMI_FINAL = "semi_final", _("semi-finals")
    FINAL = "final", _("final")


KDH_STAGES = [
    Stage.QUALIFYING,
    Stage.ROUND_OF_64,
    Stage.ROUND_OF_32,
    Stage.ROUND_OF_16,
    Stage.QUARTER_FINAL,
    Stage.SEMI_FINAL,
    Stage.FINAL,
]
WG_STAGES = [Stage.GROUP, Stage.SEMI_FINAL, Stage.FINAL]


class Matrix(models.Model):
    """A competition's matrix for a season: a row per round, a column per game (R19)."""

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="matrices"
    )
    competition = models.CharField(_("competition"), max_length=16, choices=Competition.choices)

    class Meta:
        verbose_name = _("matrix")
        verbose_name_plural = _("matrices")
        ordering = ["season", "competition"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "competition"],
                name="matrix_one_per_competition_and_season",
                violation_error_message=_("This competition already has a matrix this season."),
            ),
            choices_constraint("competition", Competition, "matrix_competition_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.get_competition_display()} · {self.season}"


class MatrixCell(models.Model):
    """One value of a matrix: 1 to 6, as a die would draw it (R19)."""

    matrix = models.ForeignKey(
        Matrix, verbose_name=_("matrix"), on_delete=models.CASCADE, related_name="cells"
    )
    round_number = models.PositiveSmallIntegerField(_("round"), validators=[MinValueValidator(1)])
    column = models.CharField(_("column"), max_length=1, choices=[(c, c) for c in MATRIX_COLUMNS])
    value = models.PositiveSmallIntegerField(
        _("value"), validators=[MinValueValidator(1), MaxValueValidator(6)]
    )

    class Meta:
        verbose_name = _("matrix cell")
        verbose_name_plural = _("matrix cells")
        ordering = ["matrix", "round_number", "column"]
        constraints = [
            models.CheckConstraint(
                condition=Q(value__gte=1, value__lte=6),
                name="matrix_cell_value_1_to_6",
                violation_error_message=_("A matrix value is 1 to 6."),
            ),
            models.CheckConstraint(
                condition=Q(round_number__gte=1), name="matrix_cell_round_positive"
            ),
            models.CheckConstraint(
                condition=Q(column__in=MATRIX_COLUMNS), name="matrix_cell_column_valid"
            ),
            models.UniqueConstraint(
                fields=["matrix", "round_number", "column"],
                name="matrix_cell_unique",
                violation_error_message=_("This matrix already has a value for this cell."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round_number}{self.column} = {self.value}"

    def clean(self) -> None:
        if not self.matrix_id:
            return
        rules = Competition(self.matrix.competition).rules
        errors: dict[str, str] = {}
        if self.round_number and self.round_number > rules.rounds:
            errors["round_number"] = _("This matrix has %(n)d rows.") % {"n": rules.rounds}
        if self.column and self.column not in rules.columns:
            errors["column"] = _("This matrix's columns are %(first)s to %(last)s.") % {
                "first": rules.columns[0],
                "last": rules.columns[-1],
            }
        if errors:
            raise ValidationError(errors)


class RoundStatus(models.TextChoices):
    OPEN = "open", _("open")
    CLOSED = "closed", _("closed")
    ARBITRATED = "arbitrated", _("arbitrated")
    PUBLISHED = "published", _("published")


class Round(models.Model):
    """A round of a competition in a season, shared by all its pools: one week, one deadline."""

    Status = RoundStatus

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="rounds"
    )
    competition = models.CharField(_("competition"), max_length=16, choices=Competition.choices)
    number = models.PositiveSmallIntegerField(_("number"), validators=[MinValueValidator(1)])
    week = models.PositiveSmallIntegerField(_("week"), validators=[MinValueValidator(1)])
    stage = models.CharField(_("stage"), max_length=16, choices=Stage.choices)
    deadline = models.DateTimeField(_("deadline"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    # The calendar feeds' SEQUENCE and LAST-MODIFIED (RFC 5545): a moved week bumps both, so
    # calendar apps update the round's event rather than keep the old time.
    calendar_sequence = models.PositiveIntegerField(
        _("calendar revision"), default=0, editable=False
    )
    calendar_changed_at = models.DateTimeField(
        _("calendar changed at"), default=timezone.now, editable=False
    )
    # The last deadline move announced while the season ran (``round_deadline_move``): the
    # deadline it replaced and when, which the home page shows for a week.
    deadline_moved_from = models.DateTimeField(
        _("deadline moved from"), null=True, blank=True, editable=False
    )
    deadline_moved_at = models.DateTimeField(
        _("deadline moved at"), null=True, blank=True, editable=False
    )

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["season", "deadline", "competition", "number"]
        indexes = [models.Index(fields=["season", "deadline"], name="round_season_deadline_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "competition", "number"],
                name="round_unique_number",
                violation_error_message=_("This competition already has this round this season."),
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.CheckConstraint(condition=Q(week__gte=1), name="round_week_positive"),
            choices_constraint("competition", Competition, "round_competition_valid"),
            choices_constraint("status", RoundStatus, "round_status_valid"),
            models.CheckConstraint(
                condition=Q(competition=Competition.CHAMPIONSHIP, stage=Stage.REGULAR)
                | Q(competition=Competition.KDH, stage__in=KDH_STAGES)
                | Q(competition=Competition.WG, stage__in=WG_STAGES),
                name="round_stage_fits_competition",
                violation_error_message=_("This stage does not exist in this competition."),
            ),
        ]

    def __str__(self) -> str:
        return str(
            _("%(competition)s, round %(number)d (%(season)s)")
            % {
                "competition": self.get_competition_display(),
                "number": self.number,
                "season": self.season,
            }
        )

    def clean(self) -> None:
        if self.competition not in Competition.values:
            return
        rounds = Competition(self.competition).rules.rounds
        if self.number and self.number > rounds:
            raise ValidationError(
                {"number": _("This competition has %(n)d rounds.") % {"n": rounds}}
            )

    @property
    def kind(self) -> CompetitionKind:
        return kind_of(self.competition)

    @property
    def engine_competition(self) -> str:
        """The ``competition`` the engine plays this round as (``shared/ENGINE_CLI.md``)."""
        return self.kind.round_kind(self.number).value


class Pool(models.Model):
    """What a referee arbitrates in a season: a division (championship) or a whole cup."""

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="pools"
    )
    competition = models.CharField(_("competition"), max_length=16, choices=Competition.choices)
    slug = models.SlugField(
        _("slug"), max_length=16, help_text=_("The division's slug, or kdh / wg for a cup.")
    )
    division = models.ForeignKey(
        Division,
        verbose_name=_("division"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="pools",
    )
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("referees"),
        blank=True,
        related_name="refereed_pools",
    )

    class Meta:
        verbose_name = _("pool")
        verbose_name_plural = _("pools")
        ordering = ["season", "competition", "slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "competition", "slug"],
                name="pool_unique_slug",
                violation_error_message=_("This pool already exists this season."),
            ),
            choices_constraint("competition", Competition, "pool_competition_valid"),
            models.CheckConstraint(
                condition=Q(competition=Competition.CHAMPIONSHIP, division__isnull=False)
                | (
                    ~Q(competition=Competition.CHAMPIONSHIP)
                    & Q(division__isnull=True, slug=F("competition"))
                ),
                name="pool_division_fits_competition",
                violation_error_message=_(
                    "A championship pool is a division; a cup's pool is the cup itself."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_competition_display()} · {self.slug} · {self.season}"

    @property
    def display_name(self) -> str:
        """The pool as people name it: its division, or the cup (its division joined, or read)."""
        return self.division.name if self.division else self.get_competition_display()

    @property
    def of_name(self) -> str:
        """The pool after « de » (an ``of_pool`` placeholder, :mod:`matrixhockey.french`): « de
        l’Élite », « de la D2A », « de la coupe KDH » in French; its name in English."""
        if self.division is not None:
            return french.of_division(self.division)
        cup = str(self.get_competition_display())
        return french.of_name(french.with_article(cup, elite=False))

    @property
    def kind(self) -> CompetitionKind:
        return kind_of(self.competition)

    def clean(self) -> None:
        if self.kind.divisional:
            if self.division is None:
                raise ValidationError({"division": _("A championship pool is a division.")})
            if self.slug != self.division.slug:
                raise ValidationError({"slug": _("A championship pool's slug is its division's.")})
        elif self.division is not None or self.slug != self.competition:
            raise ValidationError(
                {"slug": _("A cup's pool has no division and is named after the cup.")}
            )


class WgGroup(models.TextChoices):
    NONE = "", _("no group")
    A = "A", "A"
    B = "B", "B"
    C = "C", "C"


class PoolMember(models.Model):
    """A team of a cup's pool: the KDH field, or one of the WG's twelve with its group (R18)."""

    Group = WgGroup

    pool = models.ForeignKey(
        Pool, verbose_name=_("pool"), on_delete=models.CASCADE, related_name="members"
    )
    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="pool_members"
    )
    group = models.CharField(_("WG group"), max_length=1, choices=Group.choices, blank=True)

    class Meta:
        verbose_name = _("pool member")
        verbose_name_plural = _("pool members")
        ordering = ["pool", "group", "entry"]
        constraints = [
            models.UniqueConstraint(
                fields=["pool", "entry"],
                name="pool_member_unique",
                violation_error_message=_("This team is already in this pool."),
            ),
            choices_constraint("group", WgGroup, "pool_member_group_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.entry.team} · {self.pool}"

    def clean(self) -> None:
        if not (self.pool_id and self.entry_id):
            return
        if self.pool.kind.divisional:
            raise ValidationError(_("A championship pool's teams are its division's."))
        if self.entry.season_id != self.pool.season_id:
            raise ValidationError({"entry": _("This team entry is for another season.")})
        if self.group and self.group not in self.pool.kind.groups:
            raise ValidationError({"group": _("Only the WG cup has groups.")})


class PoolRoundStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    ARBITRATING = "arbitrating", _("arbitrating")
    ARBITRATED = "arbitrated", _("arbitrated")
    PUBLISHED = "published", _("published")
    VOID = "void", _("voided, to arbitrate again")


class PoolRound(models.Model):
    """One pool's round: what a referee arbitrates, with its seed commitment and draw log (R23).

    The seed is secret until the round is published; its SHA-256 is public from the start.
    """

    Status = PoolRoundStatus

    pool = models.ForeignKey(
        Pool, verbose_name=_("pool"), on_delete=models.PROTECT, related_name="pool_rounds"
    )
    round = models.ForeignKey(
        Round, verbose_name=_("round"), on_delete=models.PROTECT, related_name="pool_rounds"
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    seed = models.CharField(_("seed"), max_length=128, editable=False)
    seed_hash = models.CharField(_("seed SHA-256"), max_length=64, editable=False)
    draw_log = models.JSONField(_("draws"), default=list, blank=True, editable=False)
    arbitrated_at = models.DateTimeField(_("arbitrated at"), null=True, blank=True)
    arbitrated_by = done_by(_("arbitrated by"))
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    published_by = done_by(_("published by"))
    # The last void of this round (``pool_round_void``), shown publicly once it is published
    # again: pages read these, never the audit log.
    voided_at = models.DateTimeField(_("voided at"), null=True, blank=True, editable=False)
    void_reason = models.TextField(_("void reason"), blank=True, editable=False)
    qualified = models.ManyToManyField(
        Entry,
        verbose_name=_("qualified"),
        blank=True,
        related_name="qualified_in",
        help_text=_(
            "Cups: the teams this round sends on (R15, R17, R18), lucky losers and byes included."
        ),
    )

    class Meta:
        verbose_name = _("pool round")
        verbose_name_plural = _("pool rounds")
        ordering = ["round", "pool"]
        constraints = [
            models.UniqueConstraint(
                fields=["pool", "round"],
                name="pool_round_unique",
                violation_error_message=_("This pool already has this round."),
            ),
            choices_constraint("status", PoolRoundStatus, "pool_round_status_valid"),
            models.CheckConstraint(
                condition=~Q(status__in=["arbitrated", "published"])
                | Q(arbitrated_at__isnull=False),
                name="pool_round_arbitrated_has_time",
            ),
            models.CheckConstraint(
                condition=~Q(status="published") | Q(published_at__isnull=False),
                name="pool_round_published_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.pool.slug} · {self.round}"

    def clean(self) -> None:
        if not (self.pool_id and self.round_id):
            return
        if (self.pool.season_id, self.pool.competition) != (
            self.round.season_id,
            self.round.competition,
        ):
            raise ValidationError(
                {"round": _("This round belongs to another competition or season than the pool.")}
            )

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED

    @property
    def replayed(self) -> bool:
        """Voided and published again: the void and its reason are public (not before)."""
        return self.is_published and self.voided_at is not None

    @property
    def public_seed(self) -> str | None:
        """R23: the seed, once the round is published; ``None`` before."""
        return self.seed if self.is_published else None


class FixtureLabel(models.TextChoices):
    NONE = "", _("game")
    FINAL = "final", _("final")
    THIRD_PLACE = "third_place", _("third-place game")


class Fixture(models.Model):
    """A game of a pool's round. The WG's final week has a final and a third-place game."""

    Label: TypeAlias = FixtureLabel

    pool_round = models.ForeignKey(
        PoolRound, verbose_name=_("pool round"), on_delete=models.CASCADE, related_name="fixtures"
    )
    home = models.ForeignKey(
        Entry, verbose_name=_("home"), on_delete=models.PROTECT, related_name="home_fixtures"
    )
    away = models.ForeignKey(
        Entry, verbose_name=_("away"), on_delete=models.PROTECT, related_name="away_fixtures"
    )
    label = models.CharField(_("label"), max_length=16, choices=Label.choices, blank=True)

    class Meta:
        verbose_name = _("fixture")
        verbose_name_plural = _("fixtures")
        ordering = ["pool_round", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(home=F("away")),
                name="fixture_two_different_teams",
                violation_error_message=_("A team does not play itself."),
            ),
            # A team plays at most once per pool round: once at home, once away (clean() checks
            # home against away, which a plain unique index cannot).
            models.UniqueConstraint(
                fields=["pool_round", "home"],
                name="fixture_home_once_per_pool_round",
                violation_error_message=_("This team already plays in this round."),
            ),
            models.UniqueConstraint(
                fields=["pool_round", "away"],
                name="fixture_away_once_per_pool_round",
                violation_error_message=_("This team already plays in this round."),
            ),
            choices_constraint("label", FixtureLabel, "fixture_label_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.home.team} – {self.away.team}"

    def clean(self) -> None:
        if not (self.pool_round_id and self.home_id and self.away_id):
            return
        others = Fixture.objects.filter(pool_round_id=self.pool_round_id).exclude(pk=self.pk)
        for side in ("home", "away"):
            entry_id = getattr(self, f"{side}_id")
            if others.filter(Q(home_id=entry_id) | Q(away_id=entry_id)).exists():
                raise ValidationError({side: _("This team already plays in this round.")})
        season_id = self.pool_round.pool.season_id
        for side in ("home", "away"):
            if getattr(self, side).season_id != season_id:
                raise ValidationError({side: _("This team entry is for another season.")})
