"""The league: seasons, divisions, teams and their coaches, season entries, stocks, picks.

Models hold fields, constraints and values derived from their own row; writes go through
``league.services`` and reads through ``league.selectors``. Rulings (R…) are in
``shared/RULINGS.md``.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime, time, timedelta
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

from matrixhockey.db import AppendOnlyModel, choices_constraint

DIVISION_SIZE = 12
"""Teams per division; R16 gives each a code 01–12 for the season."""


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
    deadline_time = models.TimeField(_("deadline time"), default=time(17, 0))
    starts_on = models.DateField(_("first week's Monday"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PREPARING
    )
    is_current = models.BooleanField(_("current season"), default=False)

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
        errors: dict[str, str] = {}
        try:
            ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            errors["time_zone"] = _("Unknown time zone “%(zone)s”.") % {"zone": self.time_zone}
        if isinstance(self.starts_on, date) and self.starts_on.weekday() != 0:
            errors["starts_on"] = _("A season's first week starts on a Monday.")
        if errors:
            raise ValidationError(errors)

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
    """A club of the league, from one season to the next. One coach, who coaches only it."""

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
        playing = Entry.objects.filter(
            season_id=self.season_id, division_id=self.division_id, replaced_at__isnull=True
        ).exclude(pk=self.pk)
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
        "competitions.Round",
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="stock_movements",
    )
    note = models.TextField(_("note"), blank=True)
    created_at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

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


class WaitingStatus(models.TextChoices):
    WAITING = "waiting", _("waiting")
    PLACED = "placed", _("placed")
    WITHDRAWN = "withdrawn", _("withdrawn")


class WaitingListEntry(models.Model):
    """A team waiting for a place (R14: it replaces a D3 team at its third ONR)."""

    Status = WaitingStatus

    name = models.CharField(_("team name"), max_length=80)
    email = models.EmailField(_("contact email"))
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
            models.CheckConstraint(
                condition=Q(status="placed", team__isnull=False)
                | (~Q(status="placed") & Q(team__isnull=True)),
                name="waiting_list_placed_has_team",
                violation_error_message=_("A placed entry names its team, and only a placed one."),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class PickChannel(models.TextChoices):
    WEB = "web", _("web")
    EMAIL = "email", _("email")
    REFEREE = "referee", _("entered by a referee")


class Pick(AppendOnlyModel):
    """A pick as received (R12): every one is kept; the latest received for a round counts.

    ``receipt`` is the SHA-256 of :meth:`canonical`, so a coach can check that what the league
    stored is what they sent.
    """

    Channel = PickChannel

    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="picks"
    )
    round = models.ForeignKey(
        "competitions.Round",
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="picks",
    )
    notation = models.CharField(_("as received"), max_length=200)
    normalized = models.CharField(_("notation"), max_length=100)
    channel = models.CharField(_("channel"), max_length=16, choices=Channel.choices)
    received_at = models.DateTimeField(_("received at"), default=timezone.now)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("entered by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    receipt = models.CharField(_("receipt"), max_length=64, editable=False)

    class Meta:
        verbose_name = _("pick")
        verbose_name_plural = _("picks")
        ordering = ["-received_at", "-id"]
        indexes = [
            models.Index(fields=["entry", "round", "received_at", "id"], name="pick_current_idx")
        ]
        constraints = [choices_constraint("channel", PickChannel, "pick_channel_valid")]

    def __str__(self) -> str:
        # No notation here: a pick is secret until its round is published.
        return f"{self.entry.team} · {self.round} · {self.received_at:%Y-%m-%d %H:%M:%S}"

    def canonical(self) -> str:
        """The stored record as canonical JSON (sorted keys, UTC time to the microsecond)."""
        record = {
            "channel": self.channel,
            "competition": self.round.competition,
            "entered_by": self.entered_by.get_username() if self.entered_by else None,
            "normalized": self.normalized,
            "notation": self.notation,
            "received_at": self.received_at.astimezone(UTC).isoformat(timespec="microseconds"),
            "round": self.round.number,
            "season": self.round.season.number,
            "team": self.entry.team.slug,
        }
        return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def compute_receipt(self) -> str:
        return hashlib.sha256(self.canonical().encode("utf-8")).hexdigest()

    def save(self, *args: object, **kwargs: object) -> None:
        if self._state.adding:
            self.receipt = self.compute_receipt()
        super().save(*args, **kwargs)


class AuditLog(AppendOnlyModel):
    """Who did what to which object, with the data needed to understand or undo it."""

    at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    action = models.CharField(_("action"), max_length=64)
    content_type = models.ForeignKey(
        ContentType, verbose_name=_("object type"), on_delete=models.PROTECT, null=True, blank=True
    )
    object_id = models.CharField(_("object id"), max_length=64, blank=True)
    object_repr = models.CharField(_("object"), max_length=200, blank=True)
    payload = models.JSONField(_("data"), default=dict, blank=True, encoder=DjangoJSONEncoder)

    class Meta:
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_repr}"


class Language(models.TextChoices):
    """The languages the league speaks to its people in (French is the league's own)."""

    FRENCH = "fr", "Français"
    ENGLISH = "en", "English"


class Profile(models.Model):
    """A person's own settings: the language of their emails and pages."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="profile",
    )
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.FRENCH
    )

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints = [choices_constraint("language", Language, "profile_language_valid")]

    def __str__(self) -> str:
        return str(self.user)


class OutboundEmailStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    SENT = "sent", _("sent")
    FAILED = "failed", _("failed")


class OutboundEmail(models.Model):
    """The outbox: every email the league sends, rendered once and kept with its fate.

    A Celery task delivers it; while the mail server fails, the row stays ``queued`` and the task
    retries with backoff, so a failing server delays mail and never loses it. ``failed`` means
    the retries ran out: an admin can resend.
    """

    Status = OutboundEmailStatus

    template = models.CharField(_("template"), max_length=64)
    language = models.CharField(_("language"), max_length=8, choices=Language.choices)
    to = models.JSONField(_("to"), default=list)
    reply_to = models.JSONField(_("reply to"), default=list, blank=True)
    headers = models.JSONField(_("headers"), default=dict, blank=True)
    subject = models.CharField(_("subject"), max_length=255)
    body_text = models.TextField(_("text body"))
    body_html = models.TextField(_("HTML body"), blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)

    class Meta:
        verbose_name = _("outbound email")
        verbose_name_plural = _("outbox")
        ordering = ["-created_at", "-id"]
        constraints = [
            choices_constraint("status", OutboundEmailStatus, "outbound_email_status_valid"),
            choices_constraint("language", Language, "outbound_email_language_valid"),
            models.CheckConstraint(
                condition=~Q(status="sent") | Q(sent_at__isnull=False),
                name="outbound_email_sent_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject} → {', '.join(self.to)}"


class InboundEmailOutcome(models.TextChoices):
    """What the league did with a message received for picks by email."""

    PROCESSED = "processed", _("picks read")
    NO_PICKS = "no_picks", _("no pick line")
    UNKNOWN_SENDER = "unknown_sender", _("unknown sender")
    FORGED = "forged", _("sender not authenticated")
    BAD_SENDER = "bad_sender", _("no single sender")
    AUTOMATIC = "automatic", _("automatic message, ignored")


class InboundEmail(models.Model):
    """A message received for picks by email, once: its ``Message-ID`` is unique, so the same
    message ingested twice stores nothing new and is not answered twice."""

    Outcome = InboundEmailOutcome

    message_id = models.CharField(_("Message-ID"), max_length=998, unique=True)
    sender = models.CharField(_("sender"), max_length=254, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("coach"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    subject = models.CharField(_("subject"), max_length=200, blank=True)
    received_at = models.DateTimeField(_("received at"))
    processed_at = models.DateTimeField(_("processed at"), default=timezone.now, db_index=True)
    outcome = models.CharField(_("outcome"), max_length=16, choices=Outcome.choices)
    authentication = models.CharField(_("sender authentication"), max_length=300, blank=True)
    report = models.JSONField(_("lines read"), default=list, blank=True, encoder=DjangoJSONEncoder)
    reply = models.ForeignKey(
        "league.OutboundEmail",
        verbose_name=_("reply"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("inbound email")
        verbose_name_plural = _("inbound emails")
        ordering = ["-processed_at", "-id"]
        constraints = [
            choices_constraint("outcome", InboundEmailOutcome, "inbound_email_outcome_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.received_at:%Y-%m-%d %H:%M} {self.sender} · {self.get_outcome_display()}"


class LatePickStatus(models.TextChoices):
    PENDING = "pending", _("waiting for a referee")
    ACCEPTED = "accepted", _("accepted")
    REJECTED = "rejected", _("rejected")


class LatePick(models.Model):
    """R13: a pick received by email after the deadline, waiting for a referee in their queue.

    Accepted, it becomes a pick entered by the referee (channel ``referee``, ``pick``); rejected,
    it stays here. Only one decision: the status moves once, from ``pending``.
    """

    Status = LatePickStatus

    entry = models.ForeignKey(
        Entry, verbose_name=_("team entry"), on_delete=models.PROTECT, related_name="late_picks"
    )
    round = models.ForeignKey(
        "competitions.Round",
        verbose_name=_("round"),
        on_delete=models.PROTECT,
        related_name="late_picks",
    )
    notation = models.CharField(_("as received"), max_length=200)
    received_at = models.DateTimeField(_("received at"))
    message_id = models.CharField(_("Message-ID"), max_length=998, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    pick = models.OneToOneField(
        Pick,
        verbose_name=_("pick entered"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="late_pick",
    )

    class Meta:
        verbose_name = _("late pick")
        verbose_name_plural = _("late picks (referee's queue)")
        ordering = ["received_at", "id"]
        constraints = [
            choices_constraint("status", LatePickStatus, "late_pick_status_valid"),
            models.CheckConstraint(
                condition=Q(status="pending", decided_at__isnull=True, pick__isnull=True)
                | Q(status="accepted", decided_at__isnull=False, pick__isnull=False)
                | Q(status="rejected", decided_at__isnull=False, pick__isnull=True),
                name="late_pick_decision_fits_status",
            ),
        ]

    def __str__(self) -> str:
        # No notation: a pick is secret until its round is published.
        return f"{self.entry.team} · {self.round} · {self.received_at:%Y-%m-%d %H:%M:%S}"


class MailingKind(models.TextChoices):
    """The emails of the week's clock (``league.weekly``), each sent once per person."""

    WEEKLY = "weekly", _("Wednesday's weekly email")
    REMINDER = "reminder", _("Friday's last reminder")
    WATCHDOG = "watchdog", _("arbitration watchdog alert")


class Mailing(models.Model):
    """One email of the week's clock to one person, recorded in the transaction that queues it.

    The unique constraints are what makes a beat entry that fires twice (two beat processes, a
    retried task) harmless: the second insert fails and nothing is queued twice. The weekly
    email and the reminder are once per season, week, kind and person; a watchdog alert is once
    per pool round and person.
    """

    Kind = MailingKind

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="mailings"
    )
    week = models.PositiveSmallIntegerField(_("week"), validators=[MinValueValidator(1)])
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recipient"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    pool_round = models.ForeignKey(
        "competitions.PoolRound",
        verbose_name=_("pool round"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="mailings",
        help_text=_("The pool round a watchdog alert is about."),
    )
    email = models.ForeignKey(
        OutboundEmail,
        verbose_name=_("email"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("sent at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("mailing")
        verbose_name_plural = _("mailings of the week's clock")
        ordering = ["-created_at", "-id"]
        constraints = [
            choices_constraint("kind", MailingKind, "mailing_kind_valid"),
            models.CheckConstraint(condition=Q(week__gte=1), name="mailing_week_positive"),
            # A watchdog alert names its pool round; the weekly email and the reminder do not.
            models.CheckConstraint(
                condition=Q(kind="watchdog", pool_round__isnull=False)
                | (~Q(kind="watchdog") & Q(pool_round__isnull=True)),
                name="mailing_pool_round_fits_kind",
            ),
            models.UniqueConstraint(
                fields=["season", "week", "kind", "user"],
                condition=Q(pool_round__isnull=True),
                name="mailing_once_a_week",
            ),
            models.UniqueConstraint(
                fields=["pool_round", "kind", "user"],
                condition=Q(pool_round__isnull=False),
                name="mailing_once_per_pool_round",
            ),
        ]

    def __str__(self) -> str:
        return str(
            _("%(kind)s · %(season)s · week %(week)d → %(user)s")
            % {
                "kind": self.get_kind_display(),
                "season": self.season,
                "week": self.week,
                "user": self.user,
            }
        )
