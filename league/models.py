"""The registry: seasons, divisions, teams and their coaches, season entries and their
stock balances, the waiting list, people's profiles and the audit log.

It knows nothing of the competitions played on it (``competitions`` sits above). Models hold
fields, constraints and values derived from their own row; writes go through
``league.services`` and reads through ``league.selectors``. Rulings (R…) are in
``shared/RULINGS.md``.
"""

from __future__ import annotations

import secrets
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from engine.calendar import calendar_week, skipped_weeks_check
from engine.errors import InputError
from league.kinds import AuditKind
from league.querysets import EntryQuerySet
from matrixhockey.db import AppendOnlyModel, choices_constraint, done_by

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

DIVISION_SIZE = 12
"""Teams per division; R16 gives each a code 01–12 for the season."""
RULES_VERSION = "v8"
"""The rulebook in force (``shared/rules/matrix-hockey-rules-v8-*.txt``): a season records it
when it starts (``Season.rules_version``)."""
BUILT_IN_RULINGS = 25
"""R1–R25 (``shared/RULINGS.md``) come with the rulebook: the guide at ``/rules/`` carries them;
the league adds later ones as :class:`Ruling` rows."""


def default_deadline_time() -> time:
    """R13: Friday 17:00 is the league's deadline (a callable, so Django sees no fixed default)."""
    return time(17, 0)


def season_seed_new() -> str:
    """A fresh secret seed for a season's own draws (R23): matrices, the cups' opening draws."""
    return secrets.token_hex(16)


def _skipped_weeks_valid(value: object) -> bool:
    """Whether ``value`` is a list of weeks the engine accepts to skip (R20)."""
    if not isinstance(value, list):
        return False
    try:
        skipped_weeks_check(value)
    except InputError:
        return False
    return True


class SeasonStatus(models.TextChoices):
    PREPARING = "preparing", _("preparing")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")


class Season(models.Model):
    """One season of the league: its calendar settings (R13) and where it stands."""

    Status = SeasonStatus

    class Weekday(models.IntegerChoices):
        MONDAY = 0, _("Monday")
        TUESDAY = 1, _("Tuesday")
        WEDNESDAY = 2, _("Wednesday")
        THURSDAY = 3, _("Thursday")
        FRIDAY = 4, _("Friday")
        SATURDAY = 5, _("Saturday")
        SUNDAY = 6, _("Sunday")

    number = models.PositiveIntegerField(_("number"), unique=True)
    name = models.CharField(_("name"), max_length=100, blank=True)
    time_zone = models.CharField(_("time zone"), max_length=64, default="Europe/Paris")
    deadline_weekday = models.PositiveSmallIntegerField(
        _("deadline weekday"), choices=Weekday.choices, default=Weekday.FRIDAY
    )
    deadline_time = models.TimeField(_("deadline time"), default=default_deadline_time)
    starts_on = models.DateField(_("first week's Monday"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PREPARING
    )
    is_current = models.BooleanField(_("current season"), default=False)
    skipped_weeks = models.JSONField(
        _("skipped weeks"),
        default=list,
        blank=True,
        help_text=_(
            "Weeks without any round (e.g. Christmas), counted from the first week (1): the "
            "rounds after them move one week later (R20)."
        ),
    )
    seed = models.CharField(
        _("seed"),
        max_length=64,
        default=season_seed_new,
        editable=False,
        help_text=_("Secret: the season's own draws derive from it (R23)."),
    )
    rules_version = models.CharField(
        _("rules version"),
        max_length=16,
        default=RULES_VERSION,
        help_text=_("The rulebook in force when the season started."),
    )

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["-number"]
        constraints = [
            models.CheckConstraint(condition=Q(number__gte=1), name="season_number_positive"),
            models.CheckConstraint(
                condition=Q(deadline_weekday__gte=0, deadline_weekday__lte=6),
                name="season_deadline_weekday_0_to_6",
            ),
            choices_constraint("status", SeasonStatus, "season_status_valid"),
            models.UniqueConstraint(
                fields=["is_current"],
                condition=Q(is_current=True),
                name="season_only_one_current",
                violation_error_message=_("Another season is already the current one."),
            ),
        ]

    def __str__(self) -> str:
        return self.name or str(_("Season %(number)d") % {"number": self.number})

    def clean(self) -> None:
        errors: dict[str, StrOrPromise] = {}
        try:
            ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            errors["time_zone"] = _("Unknown time zone “%(zone)s”.") % {"zone": self.time_zone}
        if isinstance(self.starts_on, date) and self.starts_on.weekday() != 0:
            errors["starts_on"] = _("A season's first week starts on a Monday.")
        if not _skipped_weeks_valid(self.skipped_weeks):
            errors["skipped_weeks"] = _(
                "Skipped weeks are distinct week numbers after week 1 (it opens the season) and "
                "before the last round."
            )
        if errors:
            raise ValidationError(errors)

    def calendar_week(self, week: int) -> int:
        """The calendar week (1 is the first) in which the season's week ``week`` (1–10) is
        played, after the skipped weeks (R20; :func:`engine.calendar.calendar_week`)."""
        return calendar_week(week, self.skipped_weeks)

    def week_monday(self, week: int) -> date:
        """The Monday of week ``week`` (1 is the first)."""
        return self.starts_on + timedelta(weeks=week - 1)

    def week_at(self, at: datetime) -> int:
        """The week that contains ``at`` in the season's time zone (week 1 starts on
        ``starts_on``, a Monday; 0 or less before the season starts): Sunday 23:30 and Monday
        00:30 in Paris are in two weeks, whatever UTC says."""
        local_day = timezone.localtime(at, ZoneInfo(self.time_zone)).date()
        return (local_day - self.starts_on).days // 7 + 1

    def deadline_for_week(self, week: int) -> datetime:
        """R13: the picks deadline of week ``week``, in the season's time zone (DST included)."""
        day = self.week_monday(week) + timedelta(days=self.deadline_weekday)
        return datetime.combine(day, self.deadline_time, tzinfo=ZoneInfo(self.time_zone))


class Division(models.Model):
    """A championship division: Elite (tier 1), D2A–D2B (tier 2), D3A–D3D (tier 3)."""

    class Tier(models.IntegerChoices):
        ELITE = 1, _("Elite")
        SECOND = 2, _("Division 2")
        THIRD = 3, _("Division 3")

    slug = models.SlugField(_("slug"), max_length=8, unique=True)
    name = models.CharField(_("name"), max_length=40)
    tier = models.PositiveSmallIntegerField(_("tier"), choices=Tier.choices)
    group = models.CharField(_("group"), max_length=1, blank=True)

    class Meta:
        verbose_name = _("division")
        verbose_name_plural = _("divisions")
        ordering = ["tier", "group"]
        constraints = [
            # The league's shape: one Elite, two D2 groups (A–B), four D3 groups (A–D).
            models.CheckConstraint(
                condition=Q(tier=1, group="")
                | Q(tier=2, group__in=["A", "B"])
                | Q(tier=3, group__in=["A", "B", "C", "D"]),
                name="division_tier_and_group_valid",
                violation_error_message=_(
                    "The Elite has no group, D2 has groups A–B and D3 groups A–D."
                ),
            ),
            models.UniqueConstraint(fields=["tier", "group"], name="division_unique_tier_group"),
        ]

    def __str__(self) -> str:
        return self.name


class Team(models.Model):
    """A club of the league, from one season to the next. One coach, who coaches only it, and
    maybe one deputy the coach named, who may send its picks too."""

    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    name = models.CharField(_("name"), max_length=80, unique=True)
    coach = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("coach"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="team",
        error_messages={"unique": _("This user already coaches another team.")},
    )
    deputy = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("deputy coach"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="deputy_team",
        help_text=_("May send the team's picks too; they are recorded as entered by them (R12)."),
        error_messages={"unique": _("This user is already another team's deputy.")},
    )
    is_dummy = models.BooleanField(
        _("dummy team"),
        default=False,
        help_text=_("Plays random legal picks in place of a team that left (R14)."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_dummy=False) | Q(coach__isnull=True),
                name="team_dummy_has_no_coach",
                violation_error_message=_("A dummy team has no coach."),
            ),
            models.CheckConstraint(
                condition=Q(deputy__isnull=True) | ~Q(deputy=models.F("coach")),
                name="team_deputy_is_not_its_coach",
                violation_error_message=_("The coach cannot be their own deputy."),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    """A team's place in a season: its division and code, stocks, ONR count and promotion bar.

    The stocks are the current balances of the :class:`StockMovement` ledger, kept here so that
    the database can refuse a negative one. A team replaced under R14 keeps its entry (and its
    results); the replacement gets a new entry with the same code, linked by ``replaces``.
    """

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="entries"
    )
    team = models.ForeignKey(
        Team, verbose_name=_("team"), on_delete=models.PROTECT, related_name="entries"
    )
    division = models.ForeignKey(
        Division, verbose_name=_("division"), on_delete=models.PROTECT, related_name="entries"
    )
    code = models.PositiveSmallIntegerField(
        _("code"), validators=[MinValueValidator(1), MaxValueValidator(DIVISION_SIZE)]
    )
    extra_goals = models.IntegerField(_("extra goals"), default=0, editable=False)
    great_saves = models.IntegerField(_("great saves"), default=0, editable=False)
    onr_count = models.PositiveSmallIntegerField(_("ONR count"), default=0)
    promotion_barred = models.BooleanField(
        _("cannot be promoted"), default=False, help_text=_("Set by a second ONR (R14).")
    )
    replaces = models.OneToOneField(
        "self",
        verbose_name=_("replaces"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced_by",
    )
    replaced_at = models.DateTimeField(_("replaced at"), null=True, blank=True, editable=False)

    objects = EntryQuerySet.as_manager()

    class Meta:
        verbose_name = _("team entry")
        verbose_name_plural = _("team entries")
        ordering = ["season", "division", "code"]
        constraints = [
            models.CheckConstraint(
                condition=Q(code__gte=1, code__lte=DIVISION_SIZE),
                name="entry_code_1_to_12",
                violation_error_message=_("A team's code is 01 to 12."),
            ),
            # With codes 1–12, this also forbids a 13th playing team in a division.
            models.UniqueConstraint(
                fields=["season", "division", "code"],
                condition=Q(replaced_at__isnull=True),
                name="entry_unique_code_in_division",
                violation_error_message=_("This code is already taken in this division."),
            ),
            models.UniqueConstraint(
                fields=["season", "team"],
                name="entry_unique_team_in_season",
                violation_error_message=_("This team already plays this season."),
            ),
            models.CheckConstraint(
                condition=Q(extra_goals__gte=0), name="entry_extra_goals_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(great_saves__gte=0), name="entry_great_saves_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(replaces__isnull=True) | ~Q(replaces=F("pk")),
                name="entry_does_not_replace_itself",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team} ({self.division} {self.code:02d}, {self.season})"

    def clean(self) -> None:
        if not (self.season_id and self.division_id and self.team_id):
            return
        playing = (
            Entry.objects.current(season=self.season_id)
            .filter(division_id=self.division_id)
            .exclude(pk=self.pk)
        )
        if self.replaced_at is None and playing.count() >= DIVISION_SIZE:
            raise ValidationError(
                {
                    "division": _("%(division)s already has %(size)d teams this season.")
                    % {"division": self.division, "size": DIVISION_SIZE}
                }
            )
        holder = playing.filter(code=self.code).select_related("team").first()
        if self.replaced_at is None and holder is not None:
            raise ValidationError(
                {
                    "code": _("Code %(code)02d is already %(team)s's in %(division)s.")
                    % {"code": self.code, "team": holder.team, "division": self.division}
                }
            )
        other = Entry.objects.filter(season_id=self.season_id, team_id=self.team_id)
        if other.exclude(pk=self.pk).exists():
            raise ValidationError({"team": _("This team already plays this season.")})

    @property
    def is_playing(self) -> bool:
        """Whether the team still plays its place (it was not replaced, R14)."""
        return self.replaced_at is None


class Language(models.TextChoices):
    """The languages the league speaks to its people in (French is the league's own)."""

    FRENCH = "fr", "Français"
    ENGLISH = "en", "English"


class WaitingStatus(models.TextChoices):
    PENDING = "pending", _("email not confirmed")
    """Registered on « Join the league », its email not confirmed yet: not on the list."""
    WAITING = "waiting", _("waiting")
    PLACED = "placed", _("placed")
    WITHDRAWN = "withdrawn", _("withdrawn")


class WaitingListEntry(models.Model):
    """A team waiting for a place (R14: it replaces a D3 team at its third ONR).

    Registered by a visitor on « Join the league », it is ``pending`` until its email is
    confirmed, and only then on the list: ``registered_at`` is when it joined the list, which
    fixes its place. Entered by staff in the admin, it is on the list at once."""

    Status = WaitingStatus

    name = models.CharField(_("team name"), max_length=80)
    contact_name = models.CharField(_("contact name"), max_length=150, blank=True)
    email = models.EmailField(_("contact email"))
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.FRENCH
    )
    confirmed_at = models.DateTimeField(_("email confirmed at"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="waiting_list_entries",
    )
    registered_at = models.DateTimeField(_("registered at"), default=timezone.now)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.WAITING
    )
    team = models.OneToOneField(
        Team,
        verbose_name=_("team"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="waiting_list_entry",
        help_text=_("The team created when the entry was placed."),
    )

    class Meta:
        verbose_name = _("waiting list entry")
        verbose_name_plural = _("waiting list")
        # The list's order is registration order: its first team is the earliest registered.
        ordering = ["registered_at", "id"]
        constraints = [
            choices_constraint("status", WaitingStatus, "waiting_list_status_valid"),
            choices_constraint("language", Language, "waiting_list_language_valid"),
            models.CheckConstraint(
                condition=Q(status="placed", team__isnull=False)
                | (~Q(status="placed") & Q(team__isnull=True)),
                name="waiting_list_placed_has_team",
                violation_error_message=_("A placed entry names its team, and only a placed one."),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class AuditLog(AppendOnlyModel):
    """Who did what to which object, from where, each changed field before and after
    (``league.services.audit``), with the data needed to understand or undo it."""

    at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    actor = done_by(_("by"))
    action = models.CharField(_("action"), max_length=64)
    content_type = models.ForeignKey(
        ContentType, verbose_name=_("object type"), on_delete=models.PROTECT, null=True, blank=True
    )
    object_id = models.CharField(_("object id"), max_length=64, blank=True)
    object_repr = models.CharField(_("object"), max_length=200, blank=True)
    payload = models.JSONField(_("data"), default=dict, blank=True, encoder=DjangoJSONEncoder)
    # A number, not a key: the record outlives a season deleted, and is never updated.
    season_number = models.PositiveIntegerField(_("season"), null=True, blank=True, db_index=True)
    kind = models.CharField(_("kind"), max_length=16, choices=AuditKind.choices, blank=True)

    class Meta:
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_repr}"


class Profile(models.Model):
    """A person's own settings: the language of their emails and pages; their coach's page."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, models.CASCADE, verbose_name=_("user"), related_name="profile"
    )
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.FRENCH
    )
    # Issue 25: a coach's career is public unless they opt out in « My account ».
    career_public = models.BooleanField(_("public coach's page"), default=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints = [choices_constraint("language", Language, "profile_language_valid")]

    def __str__(self) -> str:
        return str(self.user)


class News(models.Model):
    """An announcement of the league, in French and English: on the home page from
    ``published_at`` (in the reader's language), in the next Wednesday email, and emailed at once
    to every coach when an admin chooses (``emailed_at`` records it, once)."""

    title_fr = models.CharField(_("title (French)"), max_length=200)
    title_en = models.CharField(_("title (English)"), max_length=200)
    body_fr = models.TextField(_("text (French)"))
    body_en = models.TextField(_("text (English)"))
    published_at = models.DateTimeField(
        _("published at"),
        default=timezone.now,
        db_index=True,
        help_text=_("Shown from this moment on (a later time schedules it)."),
    )
    emailed_at = models.DateTimeField(_("emailed at"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("news item")
        verbose_name_plural = _("news")
        ordering = ["-published_at", "-id"]

    def __str__(self) -> str:
        return self.title_fr

    def title(self, language: str) -> str:
        """The title in ``language`` (French unless English)."""
        return self.title_en if language == Language.ENGLISH else self.title_fr

    def body(self, language: str) -> str:
        """The text in ``language`` (French unless English)."""
        return self.body_en if language == Language.ENGLISH else self.body_fr


class PublicVersion(models.Model):
    """The version of what the public pages and API reads show (``league.public_cache``): one
    row, moved in the same transaction as what it stands for. ``published`` moves when results
    are published or voided and when a season moves (started, prepared, closed, imported);
    ``statuses`` when a round's public status moves without anything being published (its
    deadline closed, its arbitration done: « played, being checked »)."""

    published = models.PositiveBigIntegerField(default=0)
    statuses = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name = _("public version")
        verbose_name_plural = _("public versions")

    def __str__(self) -> str:
        return f"{self.published}.{self.statuses}"


class RulingKind(models.TextChoices):
    RULING = "ruling", _("new ruling")
    CLARIFICATION = "clarification", _("clarification")


class Ruling(models.Model):
    """A ruling the league adds (R26 on) or a clarification of an existing R-number, in French
    and English, in force from a season on. R1–R25 are the rulebook's and are not stored."""

    Kind = RulingKind

    number = models.PositiveSmallIntegerField(
        _("R-number"),
        validators=[MinValueValidator(1), MaxValueValidator(99)],
        help_text=_("A new ruling: R26 or later. A clarification: the R-number it clarifies."),
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.RULING)
    title_fr = models.CharField(_("title (French)"), max_length=200)
    title_en = models.CharField(_("title (English)"), max_length=200)
    text_fr = models.TextField(_("text (French)"))
    text_en = models.TextField(_("text (English)"))
    season = models.ForeignKey(
        Season, models.PROTECT, related_name="rulings", verbose_name=_("in force from season")
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("ruling")
        verbose_name_plural = _("rulings")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(number__lte=99), name="ruling_number_to_99"),
            models.CheckConstraint(
                condition=Q(kind="clarification") | Q(number__gt=BUILT_IN_RULINGS),
                name="ruling_new_after_built_in",
                violation_error_message=_("R1–R25 exist already: a new ruling takes R26 on."),
            ),
            models.UniqueConstraint(
                fields=["number"],
                condition=Q(kind="ruling"),
                name="ruling_number_unique",
                violation_error_message=_("A ruling with this number exists already."),
            ),
            choices_constraint("kind", RulingKind, "ruling_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"R{self.number} {self.title_en}"
