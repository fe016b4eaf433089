"""The league's memory: what the all-time tables, head-to-heads, records and careers read, stored
when it happens so that a page reads a few indexed rows whatever the number of seasons.

* :class:`Meeting`: every published game of every competition, written at publication
  (``pool_round_publish``), taken back by a void, and rebuilt by the close and ``memory_rebuild``.
* :class:`SeasonLine`: a team's season, written at the close (``season_close``).
* :class:`AllTimeLine`: a team's all-time totals per scope (overall, Elite, D2, D3), recomputed
  at the close from the season lines.
* :class:`LeagueRecord`: the league's records over the closed seasons, recomputed at the close.
* :class:`RecordBreak`: a record broken in the current season, written when the round that broke
  it is published (never at arbitration), and at the close for the season-level records.

Figures are the team's own games (R14: a replaced team keeps the games it played, a replacement
counts the games it played itself); the final table's figures (the replacement keeps the record
it took over) stay in :class:`~competitions.models.archive.FinalRow`, linked from the line.
Dummy teams (R14) have season lines and meetings but no all-time line and hold no record.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competitions.models.archive import FinalRow, SeasonArchive
from competitions.models.results import Decided
from competitions.models.structure import (
    Competition,
    Fixture,
    FixtureLabel,
    PoolRound,
    Stage,
    WgGroup,
)
from league.models import Division, Entry, Season, Team
from matrixhockey.db import choices_constraint


class MemoryScope(models.TextChoices):
    """Which championship seasons an all-time line counts: every one, or a tier's."""

    OVERALL = "all", _("overall")
    ELITE = "elite", _("Elite")
    D2 = "d2", _("Division 2")
    D3 = "d3", _("Division 3")


SCOPE_OF_TIER = {1: MemoryScope.ELITE, 2: MemoryScope.D2, 3: MemoryScope.D3}
"""The scope of a division's tier (``Division.Tier``)."""


class RecordKind(models.TextChoices):
    """A record of the league (issue 25). Game records read every competition's published games
    (forfeits aside, R15); runs read the championship's games in order, across seasons; season
    records read the season lines' own figures (fewest goals against: teams that played the
    whole season only)."""

    GAME_GOALS = "game_goals", _("most goals in a game")
    BIGGEST_WIN = "biggest_win", _("biggest win")
    WIN_RUN = "win_run", _("longest winning run")
    UNBEATEN_RUN = "unbeaten_run", _("longest unbeaten run")
    SEASON_GOALS = "season_goals", _("most goals in a season")
    SEASON_POINTS = "season_points", _("most points in a season")
    FEWEST_AGAINST = "fewest_against", _("fewest goals against in a season")
    EXTRA_GOALS = "extra_goals", _("most extra goals turned into goals in a season")
    SEASONS_WITHOUT_ONR = "seasons_without_onr", _("most seasons without an ONR")
    ELITE_TITLES = "elite_titles", _("most Elite titles")
    KDH_TITLES = "kdh_titles", _("most KDH titles")
    WG_TITLES = "wg_titles", _("most WG titles")


GAME_RECORDS = (
    RecordKind.GAME_GOALS,
    RecordKind.BIGGEST_WIN,
    RecordKind.WIN_RUN,
    RecordKind.UNBEATEN_RUN,
)
"""Records a published round can break (the others are settled at the close)."""
LOWER_IS_BETTER = (RecordKind.FEWEST_AGAINST,)


class Meeting(models.Model):
    """A published game, as the head-to-heads and the records read it: the teams that played it
    (R14: the entry holding the place when it was arbitrated), its score and how it was decided,
    and the goals each side turned from extra goals (from the explanation's steps, R3, R6)."""

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.CASCADE, related_name="+"
    )
    pool_round = models.ForeignKey(
        PoolRound, verbose_name=_("pool round"), on_delete=models.CASCADE, related_name="+"
    )
    fixture = models.OneToOneField(
        Fixture, verbose_name=_("fixture"), on_delete=models.CASCADE, related_name="meeting"
    )
    competition = models.CharField(_("competition"), max_length=16, choices=Competition.choices)
    round_number = models.PositiveSmallIntegerField(_("round"))
    week = models.PositiveSmallIntegerField(_("week"))
    stage = models.CharField(_("stage"), max_length=16, choices=Stage.choices)
    label = models.CharField(_("label"), max_length=16, choices=FixtureLabel.choices, blank=True)
    home = models.ForeignKey(
        Team, verbose_name=_("home"), on_delete=models.PROTECT, related_name="+"
    )
    away = models.ForeignKey(
        Team, verbose_name=_("away"), on_delete=models.PROTECT, related_name="+"
    )
    home_goals = models.PositiveSmallIntegerField(_("home goals"))
    away_goals = models.PositiveSmallIntegerField(_("away goals"))
    decided = models.CharField(_("decided"), max_length=16, choices=Decided.choices)
    winner = models.ForeignKey(
        Team,
        verbose_name=_("winner"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    home_extra_goals = models.PositiveSmallIntegerField(_("home goals from extra goals"), default=0)
    away_extra_goals = models.PositiveSmallIntegerField(_("away goals from extra goals"), default=0)

    class Meta:
        verbose_name = _("meeting")
        verbose_name_plural = _("meetings")
        ordering = ["season", "week", "competition", "round_number", "fixture"]
        indexes = [
            # A head-to-head reads (a, b) or (b, a): both through this one index.
            models.Index(fields=["home", "away"], name="meeting_home_away_idx"),
            models.Index(fields=["away"], name="meeting_away_idx"),
            models.Index(fields=["season", "competition"], name="meeting_season_comp_idx"),
        ]
        constraints = [
            choices_constraint("competition", Competition, "meeting_competition_valid"),
            choices_constraint("decided", Decided, "meeting_decided_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.home} {self.home_goals}-{self.away_goals} {self.away}"


class SeasonLine(models.Model):
    """A team's season at the close: its place (R9; none for a team replaced under R14), its own
    championship figures, its cup runs (R17, R18) and its ONRs (R14), and who coached it."""

    archive = models.ForeignKey(
        SeasonArchive, verbose_name=_("season archive"), on_delete=models.CASCADE, related_name="+"
    )
    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.CASCADE, related_name="+"
    )
    team = models.ForeignKey(
        Team, verbose_name=_("team"), on_delete=models.PROTECT, related_name="season_lines"
    )
    entry = models.OneToOneField(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="season_line"
    )
    coach = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("coach"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="season_lines",
    )
    coach_name = models.CharField(_("coach's name"), max_length=150, blank=True)
    division = models.ForeignKey(
        Division, verbose_name=_("division"), on_delete=models.PROTECT, related_name="+"
    )
    tier = models.PositiveSmallIntegerField(_("tier"), choices=Division.Tier.choices)
    rank = models.PositiveSmallIntegerField(_("rank"), null=True, blank=True)
    final_row = models.OneToOneField(
        FinalRow,
        verbose_name=_("final table row"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    games = models.PositiveSmallIntegerField(_("games"), default=0)
    wins = models.PositiveSmallIntegerField(_("wins"), default=0)
    regulation_wins = models.PositiveSmallIntegerField(_("regulation wins"), default=0)
    draws = models.PositiveSmallIntegerField(_("draws"), default=0)
    extra_time_losses = models.PositiveSmallIntegerField(_("extra-time losses"), default=0)
    losses = models.PositiveSmallIntegerField(_("losses"), default=0)
    goals_for = models.PositiveSmallIntegerField(_("goals for"), default=0)
    goals_against = models.PositiveSmallIntegerField(_("goals against"), default=0)
    points = models.PositiveSmallIntegerField(_("points"), default=0)
    extra_goals_scored = models.PositiveSmallIntegerField(
        _("goals from extra goals"), default=0, help_text=_("Every competition's (R6).")
    )
    onr_count = models.PositiveSmallIntegerField(_("ONR count"), default=0)
    replaced = models.BooleanField(_("replaced (R14)"), default=False)
    replacement = models.BooleanField(_("took a place over (R14)"), default=False)
    elite_champion = models.BooleanField(_("Elite champion"), default=False)
    kdh_stage = models.CharField(
        _("KDH: last round played"), max_length=16, choices=Stage.choices, blank=True
    )
    kdh_place = models.PositiveSmallIntegerField(_("KDH place"), null=True, blank=True)
    wg_group = models.CharField(_("WG group"), max_length=1, choices=WgGroup.choices, blank=True)
    wg_group_rank = models.PositiveSmallIntegerField(_("WG group rank"), null=True, blank=True)
    wg_stage = models.CharField(
        _("WG: last round played"), max_length=16, choices=Stage.choices, blank=True
    )
    wg_place = models.PositiveSmallIntegerField(_("WG place"), null=True, blank=True)

    class Meta:
        verbose_name = _("season line")
        verbose_name_plural = _("season lines")
        ordering = ["season", "tier", "division", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["season", "team"], name="season_line_unique_team"),
            models.CheckConstraint(
                condition=Q(kdh_place__isnull=True) | Q(kdh_place__in=[1, 2]),
                name="season_line_kdh_place_valid",
            ),
            models.CheckConstraint(
                condition=Q(wg_place__isnull=True) | Q(wg_place__gte=1, wg_place__lte=4),
                name="season_line_wg_place_valid",
            ),
        ]
        indexes = [models.Index(fields=["team", "season"], name="season_line_team_idx")]

    def __str__(self) -> str:
        return f"{self.team} · {self.season}"


class AllTimeLine(models.Model):
    """A team's all-time championship totals in a scope (R9's points), its titles and its
    seasons without an ONR; the overall line also keeps the runs still going at the last close
    (championship games in order, across seasons), which a published round continues."""

    team = models.ForeignKey(
        Team, verbose_name=_("team"), on_delete=models.CASCADE, related_name="all_time_lines"
    )
    scope = models.CharField(_("scope"), max_length=8, choices=MemoryScope.choices)
    seasons = models.PositiveSmallIntegerField(_("seasons"), default=0)
    games = models.PositiveIntegerField(_("games"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    regulation_wins = models.PositiveIntegerField(_("regulation wins"), default=0)
    draws = models.PositiveIntegerField(_("draws"), default=0)
    extra_time_losses = models.PositiveIntegerField(_("extra-time losses"), default=0)
    losses = models.PositiveIntegerField(_("losses"), default=0)
    goals_for = models.PositiveIntegerField(_("goals for"), default=0)
    goals_against = models.PositiveIntegerField(_("goals against"), default=0)
    goal_difference = models.IntegerField(_("goal difference"), default=0)
    points = models.PositiveIntegerField(_("points"), default=0)
    elite_titles = models.PositiveSmallIntegerField(_("Elite titles"), default=0)
    kdh_titles = models.PositiveSmallIntegerField(_("KDH titles"), default=0)
    wg_titles = models.PositiveSmallIntegerField(_("WG titles"), default=0)
    seasons_without_onr = models.PositiveSmallIntegerField(_("seasons without an ONR"), default=0)
    win_run = models.PositiveSmallIntegerField(_("winning run going"), default=0)
    unbeaten_run = models.PositiveSmallIntegerField(_("unbeaten run going"), default=0)
    win_run_since = models.ForeignKey(
        Season,
        verbose_name=_("winning run going since"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    unbeaten_run_since = models.ForeignKey(
        Season,
        verbose_name=_("unbeaten run going since"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("all-time line")
        verbose_name_plural = _("all-time lines")
        ordering = ["scope", "-points"]
        constraints = [
            models.UniqueConstraint(fields=["team", "scope"], name="all_time_line_unique"),
            choices_constraint("scope", MemoryScope, "all_time_line_scope_valid"),
        ]
        indexes = [models.Index(fields=["scope", "-points"], name="all_time_scope_points_idx")]

    def __str__(self) -> str:
        return f"{self.team} · {self.scope}"


class RecordFacts(models.Model):
    """What a record or its break says: the kind, the value, the holder and when (a game's
    fixture, or a season), the holder's coach then, and for a game the opponent and the score
    from the holder's side; a run's first season."""

    kind = models.CharField(_("record"), max_length=24, choices=RecordKind.choices)
    value = models.IntegerField(_("value"))
    team = models.ForeignKey(
        Team, verbose_name=_("team"), on_delete=models.PROTECT, related_name="+"
    )
    coach = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("coach"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    coach_name = models.CharField(_("coach's name"), max_length=150, blank=True)
    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.CASCADE, related_name="+"
    )
    since_season = models.ForeignKey(
        Season,
        verbose_name=_("since season"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    fixture = models.ForeignKey(
        Fixture,
        verbose_name=_("game"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    opponent = models.ForeignKey(
        Team,
        verbose_name=_("opponent"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    goals_for = models.PositiveSmallIntegerField(_("goals for"), null=True, blank=True)
    goals_against = models.PositiveSmallIntegerField(_("goals against"), null=True, blank=True)

    class Meta:
        abstract = True


class LeagueRecord(RecordFacts):
    """A holder of a record over the closed seasons (ties share it: one row each, the first to
    reach it first, ``position`` 1…)."""

    position = models.PositiveSmallIntegerField(_("position"), default=1)

    class Meta:
        verbose_name = _("league record")
        verbose_name_plural = _("league records")
        ordering = ["kind", "position"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "position"], name="league_record_position"),
            choices_constraint("kind", RecordKind, "league_record_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.value} · {self.team}"


class RecordBreak(RecordFacts):
    """A record broken in ``season``: by a published round (``pool_round``, its ``week``) for a
    game record, or at the close (no round) for a season record; with the record it beat."""

    pool_round = models.ForeignKey(
        PoolRound,
        verbose_name=_("pool round"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    week = models.PositiveSmallIntegerField(_("week"), null=True, blank=True)
    previous_value = models.IntegerField(_("previous record"))
    previous_team = models.ForeignKey(
        Team,
        verbose_name=_("previous holder"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    previous_season = models.ForeignKey(
        Season,
        verbose_name=_("previous record's season"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("at"), default=timezone.now)

    class Meta:
        verbose_name = _("record broken")
        verbose_name_plural = _("records broken")
        ordering = ["season", "week", "kind", "id"]
        indexes = [models.Index(fields=["season", "week"], name="record_break_season_week_idx")]
        constraints = [choices_constraint("kind", RecordKind, "record_break_kind_valid")]

    def __str__(self) -> str:
        return f"{self.kind} {self.value} · {self.team}"
