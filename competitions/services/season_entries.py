"""A new season created from its plan (``shared/SEASON.md``): season N+1 in preparation with its
84 entries — each team in its division with its code (R16) and starting stocks (R21, written as
``season_start`` ledger lines) — and the teams that join placed from the waiting list (R24).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from competitions.services.entries import EntryPlace, entries_create
from competitions.services.replacement import dummy_team_create, waiting_list_place
from competitions.services.start_plan import TIERS, SeasonStartRefused, start_plan_read
from engine.season_plan import Newcomer, PlanMove, SeasonPlan
from league.models import Entry, Season, Team, WaitingListEntry
from league.services.audit import audit_record
from league.services.seasons import divisions_create_standard, season_create
from league.signals import coach_invited
from matrixhockey.db import save_valid

Step = Callable[[str], None]
"""Called after each piece of work with what was done (the start's progress)."""


def next_monday(*, time_zone: str = "Europe/Paris", today: date | None = None) -> date:
    """The Monday after ``today`` (default: today in ``time_zone``): a new season's default first
    week."""
    today = today or timezone.localdate(timezone=ZoneInfo(time_zone))
    return today + timedelta(days=7 - today.weekday())


@dataclass(frozen=True)
class _Joining:
    """How a joining team gets its place: an existing team, a waiting-list entry or a new dummy."""

    team: Team | None = None
    waiting: WaitingListEntry | None = None
    dummy: bool = False


@transaction.atomic
def season_create_from_plan(
    *,
    plan: Mapping[str, object],
    by: User | None = None,
    starts_on: date | None = None,
    skipped_weeks: Sequence[int] = (),
    seed: str | None = None,
) -> Season:
    """Season N+1 in preparation from ``plan``, with its 84 entries; the season desk then
    prepares it (:mod:`competitions.services.season_start`). Raises
    :class:`~competitions.services.start_plan.SeasonStartRefused`: ``plan_invalid`` (with every
    problem), ``no_season`` (from_season is not the last season, finished), ``season_exists``."""
    list(Season.objects.select_for_update())  # one season created at a time
    return season_create_from_plan_checked(
        plan=start_plan_read(plan),
        by=by,
        starts_on=starts_on,
        skipped_weeks=skipped_weeks,
        seed=seed,
        step=lambda _message: None,
    )


def season_create_from_plan_checked(
    *,
    plan: SeasonPlan,
    by: User | None,
    starts_on: date | None,
    skipped_weeks: Sequence[int],
    seed: str | None,
    step: Step,
) -> Season:
    """:func:`season_create_from_plan` for a plan already read, in the caller's transaction
    (the seasons locked by the caller)."""
    before = _from_season(plan)
    joining = _check_teams(plan, before)
    season = season_create(
        number=plan.season,
        starts_on=starts_on or next_monday(time_zone=before.time_zone),
        time_zone=before.time_zone,
        deadline_weekday=before.deadline_weekday,
        deadline_time=before.deadline_time,
    )
    season.skipped_weeks = sorted(skipped_weeks)
    if seed:
        season.seed = seed
    save_valid(season)
    divisions = {d.slug: d for d in divisions_create_standard()}
    teams = Team.objects.in_bulk(
        [t.team for t in plan.teams if t.team not in joining], field_name="slug"
    )
    invited = []
    for slug in TIERS:
        places = []
        for planned in sorted((t for t in plan.teams if t.to == slug), key=lambda t: t.code):
            team = teams.get(planned.team)
            if team is None:
                team, created = _place(joining[planned.team])
                if created and team.coach is not None:
                    invited.append(team.coach)
            places.append(
                EntryPlace(
                    team=team,
                    division=divisions[slug],
                    code=planned.code,
                    extra_goals=planned.extra_goals,
                    great_saves=planned.great_saves,
                )
            )
        entries_create(season=season, places=places, by=by)
        step(_("%(division)s: 12 teams entered") % {"division": divisions[slug].name})
    audit_record(
        actor=by,
        action="season_create_from_plan",
        obj=season,
        payload={"from_season": plan.from_season, "leaving": [t.team for t in plan.leaving]},
    )
    for coach in invited:
        coach_invited.send(sender=get_user_model(), user=coach)
    return season


def _place(joining: _Joining) -> tuple[Team, bool]:
    """A joining team's team, and whether its coach's account was created for it."""
    if joining.team is not None:
        return joining.team, False
    if joining.waiting is not None:
        placed = waiting_list_place(waiting=joining.waiting)
        return placed.team, placed.coach_created
    return dummy_team_create(), False


def _from_season(plan: SeasonPlan) -> Season:
    """The season the plan follows: it must exist, be finished and be the last one."""
    before = Season.objects.filter(number=plan.from_season).first()
    if before is None or before.status != Season.Status.FINISHED:
        raise SeasonStartRefused(
            "no_season",
            [
                _("The plan follows season %(number)d, which is not finished: close it first.")
                % {"number": plan.from_season}
            ],
        )
    later = Season.objects.filter(number__gt=plan.from_season).order_by("number").first()
    if later is not None:
        raise SeasonStartRefused(
            "season_exists",
            [
                _("Season %(number)d already exists (%(status)s).")
                % {"number": later.number, "status": later.get_status_display()}
            ],
        )
    return before


def _check_teams(plan: SeasonPlan, before: Season) -> dict[str, _Joining]:
    """Against the league: every team that stays played the season before, every team of that
    season is in the plan or leaving, and every joining team can be found (the module's
    docstring in ``start_plan``). Returns how each joining team gets its place."""
    problems: list[str] = []
    played = set(Entry.objects.current(season=before).values_list("team__slug", flat=True))
    planned = {t.team for t in plan.teams}
    joining: dict[str, _Joining] = {}
    waiting = {
        w.pk: w
        for w in WaitingListEntry.objects.select_for_update(of=("self",))
        .filter(status=WaitingListEntry.Status.WAITING)
        .select_related("user")
    }
    by_name = {slugify(w.name): w for w in sorted(waiting.values(), key=lambda w: -w.pk)}
    existing = Team.objects.in_bulk(list(planned), field_name="slug")
    for team in plan.teams:
        if team.team in played:
            continue
        if team.move is not PlanMove.JOINED:
            problems.append(
                _("%(team)s did not play season %(number)d: a new team's move is “joined”.")
                % {"team": team.team, "number": before.number}
            )
        elif team.waiting_list_entry is not None:
            if team.waiting_list_entry in waiting:
                joining[team.team] = _Joining(waiting=waiting[team.waiting_list_entry])
            else:
                problems.append(
                    _("%(team)s: waiting-list entry %(id)d is not waiting.")
                    % {"team": team.team, "id": team.waiting_list_entry}
                )
        elif team.team in existing:
            joining[team.team] = _Joining(team=existing[team.team])
        elif team.team in by_name:
            joining[team.team] = _Joining(waiting=by_name[team.team])
        elif team.newcomer is Newcomer.DUMMY:
            joining[team.team] = _Joining(dummy=True)
        else:
            problems.append(
                _("%(team)s is neither a team of the league nor on the waiting list.")
                % {"team": team.team}
            )
    for slug in sorted(played - planned - {t.team for t in plan.leaving}):
        problems.append(
            _("%(team)s played season %(number)d but is neither in the plan nor leaving.")
            % {"team": slug, "number": before.number}
        )
    places = [j.waiting.pk for j in joining.values() if j.waiting is not None]
    if len(places) != len(set(places)):
        problems.append(_("A waiting-list entry is given two places."))
    if problems:
        raise SeasonStartRefused("plan_invalid", problems)
    return joining
