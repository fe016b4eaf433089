"""Seasons and the league's seven divisions."""

from __future__ import annotations

from datetime import date, time

from django.contrib.auth.models import User
from django.db import transaction

from league.models import Division, Season
from league.public_cache import public_version_bump
from league.services.audit import audit_change
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
    season = save_valid(
        Season(
            number=number,
            name=name,
            starts_on=starts_on,
            time_zone=time_zone,
            deadline_weekday=deadline_weekday,
            deadline_time=deadline_time,
        )
    )
    public_version_bump()  # the list of seasons (/api/seasons/)
    return season


@transaction.atomic
def season_make_current(*, season: Season, by: User | None = None) -> Season:
    """Make ``season`` the league's current season (only one is), on the record."""
    for previous in Season.objects.filter(is_current=True).exclude(pk=season.pk):
        audit_change(
            actor=by, obj=previous, before={"is_current": True}, after={"is_current": False}
        )
    Season.objects.filter(is_current=True).exclude(pk=season.pk).update(is_current=False)
    if not Season.objects.filter(pk=season.pk, is_current=True).exists():
        audit_change(actor=by, obj=season, before={"is_current": False}, after={"is_current": True})
    season.is_current = True
    season.save(update_fields=["is_current"])
    public_version_bump()  # every public page shows the current season by default
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
