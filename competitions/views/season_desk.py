"""The season desk (``/desk/season/``), staff only: the league's year, one step at a time.

Import a first season, prepare it (matrices R19, calendar R20 with skipped weeks, referees, the
KDH's opening draw R17 and the WG's groups R18, each previewed before it is committed), start it
on a worker with its progress shown, follow the weeks, close it, then read and adjust the next
season's plan (R16, R21, R22, R24) and start that one.

Views stay thin: every button is a POST (CSRF) that calls one service and redirects back, so a
second click shows the new state instead of doing anything twice; refusals are messages. Anyone
but staff gets 403 (a visitor is sent to sign in first).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from competitions.models import SeasonStartJob
from competitions.selectors.season_desk import (
    COMPLETE,
    EMPTY,
    FINISHED,
    PREPARING,
    RUNNING,
    Preparation,
    season_desk,
    season_start_job_lost,
)
from competitions.services.league_import import LeagueImportRefused, league_import
from competitions.services.season_close import SeasonCloseRefused, season_close
from competitions.services.season_jobs import season_start_job_restart, season_start_request
from competitions.services.season_plan import (
    POINT_LABELS,
    SeasonPlanRefused,
    season_plan_document,
    season_plan_swapped,
)
from competitions.services.season_start import (
    season_calendar_preview,
    season_kdh_preview,
    season_matrices_preview,
    season_prepare_calendar,
    season_prepare_kdh,
    season_prepare_matrices,
    season_prepare_pools,
    season_prepare_wg,
    season_wg_preview,
)
from competitions.services.start_plan import SeasonStartRefused
from competitions.services.withdrawal import entry_withdraw
from league.models import Entry, Season
from matrixhockey.http import SignedInRequest

PLAN_SWAPS_SESSION_KEY = "season_desk.plan_swaps"
"""The admin's group changes to the next season's plan, kept until the start (R22: which group
a moving team joins is an admin decision)."""
IMPORT_MAX_BYTES = 1_000_000


def staff_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied(_("Only the league's admins may use the season desk."))
        return view(request, *args, **kwargs)

    return wrapped


def _back() -> HttpResponse:
    return redirect("season_desk")


def _refused(request: HttpRequest, problems: list[str] | tuple[str, ...], title: str) -> None:
    messages.error(request, title + " " + " · ".join(str(problem) for problem in problems))


# --- The page -------------------------------------------------------------------------------


def _plan(request: HttpRequest, season: Season) -> tuple[dict[str, Any] | None, str]:
    """The next season's plan with the admin's group swaps applied, or why there is none."""
    try:
        document = season_plan_document(season=season)
    except SeasonPlanRefused as refusal:
        return None, refusal.message
    return season_plan_swapped(
        document=document, swaps=request.session.get(PLAN_SWAPS_SESSION_KEY, [])
    ), ""


def _groups(document: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    by_division: dict[str, list[dict[str, Any]]] = {}
    for item in document["teams"]:
        by_division.setdefault(item["to"], []).append(item)
    order = ["elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d"]
    return [
        (slug, sorted(by_division[slug], key=lambda item: item["code"]))
        for slug in sorted(by_division, key=lambda slug: order.index(slug) if slug in order else 9)
    ]


@staff_only
def season_desk_page(request: HttpRequest) -> HttpResponse:
    desk = season_desk()
    context: dict[str, Any] = {"desk": desk, "stage": desk.stage}
    if desk.stage == PREPARING and desk.season is not None:
        context.update(_preparing_context(request, desk.season, desk.preparation))
    if desk.stage == FINISHED and desk.season is not None:
        plan, why = _plan(request, desk.season)
        context.update(
            plan=plan,
            plan_refused=why,
            plan_groups=_groups(plan) if plan else [],
            swaps=request.session.get(PLAN_SWAPS_SESSION_KEY, []),
            point_labels=POINT_LABELS,
            withdrawable=Entry.objects.filter(season=desk.season, replaced_at__isnull=True)
            .select_related("team", "division")
            .order_by("division__tier", "division__group", "code"),
        )
    context.update(
        stages=[
            (EMPTY, _("Import")),
            (PREPARING, _("Prepare")),
            (RUNNING, _("Play")),
            (COMPLETE, _("Close")),
            (FINISHED, _("Plan the next")),
        ]
    )
    return render(request, "desk/season.html", context)


def _preparing_context(
    request: HttpRequest, season: Season, preparation: Preparation | None
) -> dict[str, Any]:
    starts_on = _date(request.GET.get("starts_on")) or season.starts_on
    skipped = _weeks(request.GET.get("skip", ""))
    context: dict[str, Any] = {"starts_on": starts_on, "skip": ",".join(map(str, skipped))}
    try:
        context["calendar"] = season_calendar_preview(
            season=season, starts_on=starts_on, skipped_weeks=skipped
        )
    except ValidationError as error:
        context["calendar_problem"] = " ".join(error.messages)
    if preparation is not None and not preparation.matrices_done:
        context["matrices"] = season_matrices_preview(season=season)
    if preparation is not None and preparation.calendar_done and preparation.pools_done:
        if not preparation.kdh_drawn:
            context["kdh"] = season_kdh_preview(season=season)
        chosen = request.GET.getlist("wg")
        if not preparation.wg_drawn and len(chosen) == 12:
            entries = list(Entry.objects.filter(season=season, pk__in=chosen))
            context["wg"] = season_wg_preview(season=season, entries=entries)
            context["wg_chosen"] = [str(pk) for pk in chosen]
    return context


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _weeks(value: str) -> list[int]:
    return sorted({int(part) for part in value.replace(" ", "").split(",") if part.isdigit()})


# --- Buttons --------------------------------------------------------------------------------


@require_POST
@staff_only
def season_desk_import(request: SignedInRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, _("Choose the league's CSV file first."))
        return _back()
    if upload.size > IMPORT_MAX_BYTES:
        messages.error(request, _("This file is too large for a league of 84 teams."))
        return _back()
    try:
        result = league_import(text=upload.read(), by=request.user)
    except LeagueImportRefused as refusal:
        _refused(request, [str(problem) for problem in refusal.problems], _("Nothing imported:"))
        return _back()
    messages.success(
        request,
        _("%(season)s imported: %(teams)d teams, %(coaches)d coaches invited by email.")
        % {"season": result.season, "teams": result.teams, "coaches": result.coaches_created},
    )
    return _back()


def _preparing_season() -> Season:
    desk = season_desk()
    if desk.stage != PREPARING or desk.season is None:
        raise PermissionDenied(_("No season is being prepared."))
    return desk.season


def _prepare(request: HttpRequest, action: Callable[[Season], object], done: str) -> HttpResponse:
    season = _preparing_season()
    try:
        action(season)
    except SeasonStartRefused as refusal:
        _refused(request, refusal.problems, _("Refused:"))
    except ValidationError as error:
        _refused(request, error.messages, _("Refused:"))
    else:
        messages.success(request, done)
    return _back()


@require_POST
@staff_only
def season_desk_matrices(request: HttpRequest) -> HttpResponse:
    return _prepare(
        request,
        lambda season: season_prepare_matrices(season=season),
        _("The matrices are drawn (R19); an admin may still edit them until the start."),
    )


@require_POST
@staff_only
def season_desk_calendar(request: SignedInRequest) -> HttpResponse:
    starts_on = _date(request.POST.get("starts_on"))
    skipped = _weeks(request.POST.get("skip", ""))
    return _prepare(
        request,
        lambda season: season_prepare_calendar(
            season=season, starts_on=starts_on, skipped_weeks=skipped, by=request.user
        ),
        _("The calendar is set (R20)."),
    )


@require_POST
@staff_only
def season_desk_pools(request: HttpRequest) -> HttpResponse:
    users = get_user_model().objects
    referees: dict[str, list[Any]] = {}
    unknown: list[str] = []
    for key, value in request.POST.items():
        if not key.startswith("referees-"):
            continue
        names = [name.strip() for name in value.split(",") if name.strip()]
        found = list(users.filter(username__in=names))
        unknown += sorted(set(names) - {user.get_username() for user in found})
        referees[key.removeprefix("referees-")] = found
    if unknown:
        _refused(request, unknown, _("Unknown users, nothing changed:"))
        return _back()
    return _prepare(
        request,
        lambda season: season_prepare_pools(season=season, referees=referees),
        _("The pools and their referees are set."),
    )


@require_POST
@staff_only
def season_desk_kdh(request: HttpRequest) -> HttpResponse:
    return _prepare(
        request,
        lambda season: season_prepare_kdh(season=season),
        _("The KDH's first round is drawn (R17)."),
    )


@require_POST
@staff_only
def season_desk_wg(request: HttpRequest) -> HttpResponse:
    chosen = request.POST.getlist("wg")

    def draw(season: Season) -> object:
        entries = list(Entry.objects.filter(season=season, pk__in=chosen))
        if len(entries) != 12:
            raise ValidationError(_("Choose the WG's twelve teams (R18)."))
        return season_prepare_wg(season=season, entries=entries)

    return _prepare(request, draw, _("The WG's groups are drawn (R18)."))


@require_POST
@staff_only
def season_desk_start(request: SignedInRequest) -> HttpResponse:
    desk = season_desk()
    try:
        if desk.stage == PREPARING:
            season_start_request(by=request.user, season=desk.season)
        elif desk.stage == FINISHED and desk.season is not None:
            plan, why = _plan(request, desk.season)
            if plan is None:
                messages.error(request, why)
                return _back()
            season_start_request(by=request.user, plan=plan)
        else:
            messages.error(request, _("There is no season to start now."))
            return _back()
    except SeasonStartRefused as refusal:
        _refused(request, refusal.problems, _("Refused:"))
        return _back()
    request.session.pop(PLAN_SWAPS_SESSION_KEY, None)
    messages.success(request, _("The start is queued: its progress shows below."))
    return _back()


@require_POST
@staff_only
def season_desk_close(request: SignedInRequest) -> HttpResponse:
    desk = season_desk()
    if desk.season is None or desk.stage not in (RUNNING, COMPLETE):
        messages.error(request, _("There is no running season to close."))
        return _back()
    try:
        season_close(season=desk.season, by=request.user)
    except SeasonCloseRefused as refusal:
        messages.error(request, refusal.message)
        return _back()
    messages.success(request, _("%(season)s is closed.") % {"season": desk.season})
    return _back()


@require_POST
@staff_only
def season_desk_swap(request: HttpRequest) -> HttpResponse:
    first, second = request.POST.get("first", ""), request.POST.get("second", "")
    swaps = request.session.get(PLAN_SWAPS_SESSION_KEY, [])
    if request.POST.get("reset"):
        swaps = []
    elif first and second and first != second:
        swaps.append([first, second])
    else:
        messages.error(request, _("Choose two different teams to swap."))
        return _back()
    request.session[PLAN_SWAPS_SESSION_KEY] = swaps
    return redirect("season_desk")


@require_POST
@staff_only
def season_desk_withdraw(request: SignedInRequest) -> HttpResponse:
    entry = get_object_or_404(Entry, pk=request.POST.get("entry") or 0)
    try:
        entry_withdraw(entry=entry, by=request.user)
    except ValidationError as error:
        _refused(request, error.messages, _("Refused:"))
        return _back()
    messages.success(request, _("%(team)s leaves the league (R24).") % {"team": entry.team})
    return _back()


@require_POST
@staff_only
def season_desk_job_restart(request: SignedInRequest, pk: int) -> HttpResponse:
    """« Start again »: a start lost with its worker, or waiting for one, queued again."""
    job = get_object_or_404(SeasonStartJob, pk=pk)
    try:
        season_start_job_restart(job=job, by=request.user)
    except SeasonStartRefused as refusal:
        _refused(request, refusal.problems, _("Refused:"))
        return _back()
    messages.success(request, _("The start is queued again: its progress shows below."))
    return _back()


@staff_only
def season_desk_job(request: HttpRequest, pk: int) -> JsonResponse:
    """A start's progress, for the desk's progress bar."""
    job = get_object_or_404(SeasonStartJob, pk=pk)
    return JsonResponse(
        {
            "status": job.status,
            "done": job.done,
            "total": job.total,
            "percent": job.percent,
            "message": job.message,
            "lost": season_start_job_lost(job=job),
        }
    )
