"""The next season's calendar as the admins draft it (R20): its first Monday and the calendar weeks
it skips, kept in the plan's draft (:class:`SeasonPlanDraft`) beside their group swaps, so the
season desk in any admin's browser and ``manage.py season_start`` read the same choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from competitions.models import SeasonPlanDraft
from competitions.services.season_entries import next_monday
from competitions.services.season_start import CalendarWeek, season_calendar_preview
from league.models import Season
from league.services.audit import audit_change, snapshot

_CALENDAR_FIELDS = ["starts_on", "skipped_weeks"]


@dataclass(frozen=True)
class PlanCalendar:
    """What the draft says of the next season's calendar: ``None`` where it says nothing (the
    first Monday: the one after the start; the skipped weeks: none)."""

    starts_on: date | None
    skipped_weeks: list[int] | None


def season_plan_calendar(*, season: Season) -> PlanCalendar:
    """The next season's calendar as the draft of the plan after ``season`` leaves it; reads
    only."""
    stored = (
        SeasonPlanDraft.objects.filter(season=season)
        .values_list("starts_on", "skipped_weeks")
        .first()
    )
    if stored is None:
        return PlanCalendar(starts_on=None, skipped_weeks=None)
    starts_on, skipped = stored
    return PlanCalendar(
        starts_on=starts_on, skipped_weeks=sorted(skipped) if skipped is not None else None
    )


def _next_season(season: Season, starts_on: date | None, skipped: Sequence[int] | None) -> Season:
    """The season after ``season`` as it would be created (unsaved): its calendar's settings."""
    return Season(
        number=season.number + 1,
        starts_on=starts_on or next_monday(time_zone=season.time_zone),
        time_zone=season.time_zone,
        deadline_weekday=season.deadline_weekday,
        deadline_time=season.deadline_time,
        skipped_weeks=sorted(skipped or []),
    )


def season_plan_calendar_preview(
    *, season: Season, starts_on: date | None = None, skipped_weeks: Sequence[int] | None = None
) -> list[CalendarWeek]:
    """The next season's weeks with ``starts_on`` and ``skipped_weeks``, each defaulting to the
    draft's; nothing stored. Raises ``ValidationError`` as :func:`season_calendar_preview`."""
    saved = season_plan_calendar(season=season)
    starts_on = starts_on or saved.starts_on
    skipped = saved.skipped_weeks if skipped_weeks is None else list(skipped_weeks)
    return season_calendar_preview(season=_next_season(season, starts_on, skipped))


def season_plan_calendar_save(
    *,
    season: Season,
    starts_on: date | None,
    skipped_weeks: Sequence[int] | None,
    by: User | None,
) -> PlanCalendar:
    """R20: keep the next season's first Monday and skipped weeks in the draft of the plan after
    ``season`` (``None``: what the draft says already). Refused (``ValidationError``, nothing
    stored) for a start that is not a Monday or weeks that cannot be skipped."""
    saved = season_plan_calendar(season=season)
    starts_on = starts_on or saved.starts_on
    skipped = saved.skipped_weeks if skipped_weeks is None else sorted(set(skipped_weeks))
    _next_season(season, starts_on, skipped).clean()
    with transaction.atomic():
        draft, _created = SeasonPlanDraft.objects.get_or_create(season=season)
        before = snapshot(draft, _CALENDAR_FIELDS)
        SeasonPlanDraft.objects.filter(pk=draft.pk).update(
            starts_on=starts_on, skipped_weeks=skipped, updated_by=by, updated_at=timezone.now()
        )
        draft.refresh_from_db(fields=_CALENDAR_FIELDS)
        audit_change(
            actor=by,
            obj=draft,
            before=before,
            after=snapshot(draft, _CALENDAR_FIELDS),
            kind="season",
        )
    return PlanCalendar(starts_on=starts_on, skipped_weeks=skipped)
