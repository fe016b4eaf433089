"""Writes to the league: one ``transaction.atomic`` per business action.

Functions are named ``<thing>_<action>`` and take keyword-only arguments. They validate with the
models' ``full_clean`` so a caller (admin, command, task) gets a ``ValidationError`` with a
message rather than half-saved rows; the database constraints stay the last line.
"""

from __future__ import annotations

from datetime import date, datetime, time

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from competitions.models import Fixture, PoolRound, Round
from league.models import (
    AuditLog,
    Division,
    Entry,
    Pick,
    Season,
    StockKind,
    StockMovement,
    StockReason,
    Team,
)
from matrixhockey.db import save_valid

STANDARD_DIVISIONS: tuple[tuple[str, str, int, str], ...] = (
    ("elite", "Elite", 1, ""),
    ("d2a", "D2A", 2, "A"),
    ("d2b", "D2B", 2, "B"),
    ("d3a", "D3A", 3, "A"),
    ("d3b", "D3B", 3, "B"),
    ("d3c", "D3C", 3, "C"),
    ("d3d", "D3D", 3, "D"),
)
"""The league's seven divisions: (slug, name, tier, group)."""


class StockBelowZero(ValidationError):
    """A stock movement that would leave a negative balance: refused, nothing written."""


@transaction.atomic
def season_create(
    *,
    number: int,
    starts_on: date,
    name: str = "",
    time_zone: str = "Europe/Paris",
    deadline_weekday: int = Season.Weekday.FRIDAY,
    deadline_time: time = time(17, 0),
) -> Season:
    """A new season in preparation (R13's deadline defaults: Friday 17:00 Europe/Paris)."""
    return save_valid(
        Season(
            number=number,
            name=name,
            starts_on=starts_on,
            time_zone=time_zone,
            deadline_weekday=deadline_weekday,
            deadline_time=deadline_time,
        )
    )


@transaction.atomic
def season_make_current(*, season: Season) -> Season:
    """Make ``season`` the league's current season (only one is)."""
    Season.objects.filter(is_current=True).exclude(pk=season.pk).update(is_current=False)
    season.is_current = True
    season.save(update_fields=["is_current"])
    return season


@transaction.atomic
def divisions_create_standard() -> list[Division]:
    """The seven divisions of the league, created where missing (idempotent)."""
    return [
        Division.objects.get_or_create(
            slug=slug, defaults={"name": name, "tier": tier, "group": group}
        )[0]
        for slug, name, tier, group in STANDARD_DIVISIONS
    ]


@transaction.atomic
def team_create(
    *,
    name: str,
    slug: str = "",
    coach: AbstractBaseUser | None = None,
    is_dummy: bool = False,
) -> Team:
    """A new team; its slug defaults to the slugified name. A user coaches one team at most."""
    return save_valid(Team(name=name, slug=slug or slugify(name), coach=coach, is_dummy=is_dummy))


@transaction.atomic
def entry_create(
    *,
    season: Season,
    team: Team,
    division: Division,
    code: int,
    extra_goals: int = 0,
    great_saves: int = 0,
    by: AbstractBaseUser | None = None,
) -> Entry:
    """Enter ``team`` in ``season``'s ``division`` with ``code``, and open its stock ledger.

    The starting stocks (R21) are written as ``season_start`` movements, so the ledger always
    adds up to the balances.
    """
    entry = save_valid(Entry(season=season, team=team, division=division, code=code))
    for kind, amount in (
        (StockKind.EXTRA_GOALS, extra_goals),
        (StockKind.GREAT_SAVES, great_saves),
    ):
        stock_move(entry=entry, kind=kind, delta=amount, reason=StockReason.SEASON_START, by=by)
    return entry


@transaction.atomic
def stock_move(
    *,
    entry: Entry,
    kind: StockKind | str,
    delta: int,
    reason: StockReason | str,
    round: Round | None = None,
    note: str = "",
    by: AbstractBaseUser | None = None,
) -> StockMovement:
    """Add ``delta`` (negative to spend) to one of ``entry``'s stocks and log it in the ledger.

    The entry row is locked for the transaction, so two movements at once are applied one after
    the other. A movement that would take the stock below 0 raises :class:`StockBelowZero` and
    writes nothing (R6: stocks never go below 0).
    """
    kind = StockKind(kind)
    reason = StockReason(reason)
    locked = Entry.objects.select_for_update().select_related("team").get(pk=entry.pk)
    balance = getattr(locked, kind.value) + delta
    if balance < 0:
        raise StockBelowZero(
            _("%(team)s has %(have)d %(stock)s: %(delta)+d would leave %(after)d.")
            % {
                "team": locked.team,
                "have": getattr(locked, kind.value),
                "stock": kind.label,
                "delta": delta,
                "after": balance,
            },
            code="stock_below_zero",
        )
    Entry.objects.filter(pk=locked.pk).update(**{kind.value: balance})
    setattr(entry, kind.value, balance)
    return StockMovement.objects.create(
        entry=locked,
        kind=kind,
        delta=delta,
        balance_after=balance,
        reason=reason,
        round=round,
        note=note,
        created_by=by,
    )


@transaction.atomic
def entry_replace(*, entry: Entry, team: Team, by: AbstractBaseUser | None = None) -> Entry:
    """R14: ``team`` takes ``entry``'s place — same division and code, its record and stocks.

    The replaced entry keeps its past results and is marked replaced; the new entry's stocks
    come over as ``replacement`` movements, and the fixtures not yet played are moved to it. The
    ONR count and the promotion bar were the old team's sanctions: the newcomer starts clear.
    """
    old = Entry.objects.select_for_update().select_related("season", "division").get(pk=entry.pk)
    if old.replaced_at is not None:
        raise ValidationError(_("This team entry was already replaced."))
    old.replaced_at = timezone.now()
    old.save(update_fields=["replaced_at"])
    new = save_valid(
        Entry(
            season=old.season,
            team=team,
            division=old.division,
            code=old.code,
            replaces=old,
        )
    )
    for kind in StockKind:
        amount = getattr(old, kind.value)
        if amount:
            stock_move(entry=old, kind=kind, delta=-amount, reason=StockReason.REPLACEMENT, by=by)
            stock_move(entry=new, kind=kind, delta=amount, reason=StockReason.REPLACEMENT, by=by)
    unplayed = Fixture.objects.filter(
        pool_round__status__in=[PoolRound.Status.PENDING, PoolRound.Status.VOID]
    )
    moved = unplayed.filter(home=old).update(home=new) + unplayed.filter(away=old).update(away=new)
    audit_record(
        actor=by,
        action="entry_replace",
        obj=old,
        payload={"replaced_by_entry": new.pk, "team": team.slug, "fixtures_moved": moved},
    )
    new.refresh_from_db()
    return new


@transaction.atomic
def pick_record(
    *,
    entry: Entry,
    round: Round,
    notation: str,
    normalized: str,
    channel: Pick.Channel | str,
    entered_by: AbstractBaseUser | None = None,
    received_at: datetime | None = None,
) -> Pick:
    """Store one received pick, as received and in normal form (R12: every pick is kept).

    Storage only: the caller has parsed and checked the pick with the engine (R10) and the
    deadline (R13). The stored row gets its receipt (SHA-256 of its canonical content).
    """
    pick = Pick(
        entry=entry,
        round=round,
        notation=notation,
        normalized=normalized,
        channel=Pick.Channel(channel),
        entered_by=entered_by,
        received_at=received_at or timezone.now(),
    )
    return save_valid(pick, exclude=("receipt",))


def audit_record(
    *,
    actor: AbstractBaseUser | None,
    action: str,
    obj: models.Model,
    payload: dict[str, object],
) -> AuditLog:
    """Log ``action`` on ``obj`` by ``actor``, in the caller's transaction."""
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        content_type=ContentType.objects.get_for_model(obj),
        object_id=str(obj.pk),
        object_repr=str(obj)[:200],
        payload=payload,
    )
