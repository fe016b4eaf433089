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
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.forms import Form
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from competitions.desk_forms import (
    CalendarForm,
    ConfirmForm,
    LeagueImportForm,
    PlanSwapForm,
    RefereesForm,
    WgTwelveForm,
    WithdrawForm,
)
from competitions.models import SeasonStartJob
from competitions.selectors.season_desk import (
    COMPLETE,
    EMPTY,
    FINISHED,
    PREPARING,
    RUNNING,
    Preparation,
    plan_view,
    rounds_left_worded,
    season_desk,
    season_start_job_lost,
    verification_failures_open,
)
from competitions.services.league_import import LeagueImportRefused, league_import
from competitions.services.season_close import SeasonCloseRefused, season_close
from competitions.services.season_jobs import season_start_job_restart, season_start_request
from competitions.services.season_plan import (
    SeasonPlanRefused,
    season_plan_drafted,
    season_plan_swap,
    season_plan_swaps,
    season_plan_swaps_reset,
)
from competitions.services.season_plan_calendar import (
    season_plan_calendar,
    season_plan_calendar_preview,
    season_plan_calendar_save,
)
from competitions.services.season_start import (
    season_calendar_preview,
    season_kdh_preview,
    season_matrices_preview,
    season_pool_slugs,
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
from league.services.audit import VIA_DESK, audit_via
from matrixhockey.http import SignedInRequest


def staff_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied(_("Only the league's admins may use the season desk."))
        with audit_via(VIA_DESK):
            return view(request, *args, **kwargs)

    return wrapped


def _back() -> HttpResponse:
    return redirect("season_desk")


def _refused(request: HttpRequest, problems: list[str] | tuple[str, ...], title: str) -> None:
    messages.error(request, title + " " + " · ".join(str(problem) for problem in problems))


def _form_refused(request: HttpRequest, form: Form) -> HttpResponse:
    """A form that does not validate: its errors as the page's message, and back to the desk."""
    problems = [str(error) for errors in form.errors.values() for error in errors]
    messages.error(request, " ".join(problems))
    return _back()


# --- The page -------------------------------------------------------------------------------


def _plan(season: Season) -> tuple[dict[str, Any] | None, str]:
    """The next season's plan as the admins' draft leaves it (their group swaps applied), or
    why there is none."""
    try:
        return season_plan_drafted(season=season).as_dict(), ""
    except SeasonPlanRefused as refusal:
        return None, refusal.message


@staff_only
def season_desk_page(request: SignedInRequest) -> HttpResponse:
    desk = season_desk()
    context: dict[str, Any] = {
        "desk": desk,
        "stage": desk.stage,
        "verification_failures": verification_failures_open(),
    }
    if desk.stage == PREPARING and desk.season is not None:
        context.update(_preparing_context(request, desk.season, desk.preparation))
    if desk.stage == FINISHED and desk.season is not None:
        plan, why = _plan(desk.season)
        context.update(
            plan=plan,
            plan_refused=why,
            plan_view=plan_view(plan) if plan else None,
            swaps=season_plan_swaps(season=desk.season) if plan else [],
            withdrawable=Entry.objects.current(season=desk.season)
            .select_related("team", "division")
            .order_by("division__tier", "division__group", "code"),
        )
        if plan:
            context.update(_plan_calendar_context(request, desk.season))
    if desk.stage == RUNNING and desk.season is not None:
        context["left"] = rounds_left_worded(season=desk.season, left=desk.left)
    context.update(
        stages=[
            (EMPTY, _("Import")),
            (PREPARING, _("Prepare")),
            (RUNNING, _("Play")),
            (COMPLETE, pgettext("season desk step", "Close")),
            (FINISHED, _("Plan the next")),
        ]
    )
    return render(request, "desk/season.html", context)


def _preparing_context(
    request: HttpRequest, season: Season, preparation: Preparation | None
) -> dict[str, Any]:
    # Without a choice in the address, the calendar as set last (the season's own).
    calendar = CalendarForm(request.GET)
    context: dict[str, Any] = {}
    if calendar.is_valid():
        starts_on, skipped = calendar.calendar(season)
        context.update(starts_on=starts_on, skip=",".join(map(str, skipped)))
        try:
            context["calendar"] = season_calendar_preview(
                season=season, starts_on=starts_on, skipped_weeks=skipped
            )
        except ValidationError as error:
            context["calendar_problem"] = " ".join(error.messages)
    else:
        context.update(
            starts_on=season.starts_on,
            skip=",".join(map(str, season.skipped_weeks)),
            calendar_problem=" ".join(
                str(e) for errors in calendar.errors.values() for e in errors
            ),
        )
    if preparation is not None and not preparation.matrices_done:
        context["matrices"] = season_matrices_preview(season=season)
    if preparation is not None and preparation.calendar_done and preparation.pools_done:
        if not preparation.kdh_drawn:
            context["kdh"] = season_kdh_preview(season=season)
        twelve = WgTwelveForm(request.GET, season=season)
        if not preparation.wg_drawn and "wg" in request.GET and twelve.is_valid():
            entries = twelve.cleaned_data["wg"]
            context["wg"] = season_wg_preview(season=season, entries=entries)
            context["wg_chosen"] = [str(entry.pk) for entry in entries]
    return context


def _plan_calendar_context(request: HttpRequest, season: Season) -> dict[str, Any]:
    """R20: the next season's calendar, as the address asks to preview it or, without a choice
    there, as the plan's draft keeps it (shared by every admin and ``season_start``)."""
    saved = season_plan_calendar(season=season)
    calendar = CalendarForm(request.GET)
    context: dict[str, Any] = {"plan_calendar_saved": saved}
    if not calendar.is_valid():
        context.update(
            plan_starts_on=saved.starts_on,
            plan_skip=",".join(map(str, saved.skipped_weeks or [])),
            plan_calendar_problem=" ".join(
                str(e) for errors in calendar.errors.values() for e in errors
            ),
        )
        return context
    starts_on = calendar.cleaned_data.get("starts_on") or saved.starts_on
    chosen = calendar.cleaned_data.get("skip")
    skipped = saved.skipped_weeks if chosen is None else chosen
    context.update(plan_skip=",".join(map(str, skipped or [])))
    try:
        weeks = season_plan_calendar_preview(
            season=season, starts_on=starts_on, skipped_weeks=skipped or []
        )
    except ValidationError as error:
        context.update(plan_starts_on=starts_on, plan_calendar_problem=" ".join(error.messages))
        return context
    context.update(plan_calendar=weeks, plan_starts_on=weeks[0].monday if weeks else starts_on)
    return context


def _confirmed(request: HttpRequest) -> bool:
    """Whether the step's « cannot be undone » box is ticked; when not, the page says nothing
    was done."""
    form = ConfirmForm(request.POST)
    if form.is_valid():
        return True
    _form_refused(request, form)
    return False


# --- Buttons --------------------------------------------------------------------------------


@require_POST
@staff_only
def season_desk_import(request: SignedInRequest) -> HttpResponse:
    form = LeagueImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _form_refused(request, form)
    try:
        result = league_import(text=form.cleaned_data["file"].read(), by=request.user)
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
def season_desk_matrices(request: SignedInRequest) -> HttpResponse:
    return _prepare(
        request,
        lambda season: season_prepare_matrices(season=season),
        _("The matrices are drawn (R19); an admin may still edit them until the start."),
    )


@require_POST
@staff_only
def season_desk_calendar(request: SignedInRequest) -> HttpResponse:
    form = CalendarForm(request.POST)
    if not form.is_valid():
        return _form_refused(request, form)
    starts_on, skipped = form.cleaned_data["starts_on"], form.cleaned_data["skip"]
    return _prepare(
        request,
        lambda season: season_prepare_calendar(
            season=season, starts_on=starts_on, skipped_weeks=skipped, by=request.user
        ),
        _("The calendar is set (R20)."),
    )


@require_POST
@staff_only
def season_desk_pools(request: SignedInRequest) -> HttpResponse:
    form = RefereesForm(request.POST, slugs=season_pool_slugs())
    if not form.is_valid():
        return _form_refused(request, form)
    return _prepare(
        request,
        lambda season: season_prepare_pools(season=season, referees=form.referees),
        _("The pools and their referees are set."),
    )


@require_POST
@staff_only
def season_desk_kdh(request: SignedInRequest) -> HttpResponse:
    return _prepare(
        request,
        lambda season: season_prepare_kdh(season=season),
        _("The KDH's first round is drawn (R17)."),
    )


@require_POST
@staff_only
def season_desk_wg(request: SignedInRequest) -> HttpResponse:
    form = WgTwelveForm(request.POST, season=_preparing_season())
    if not form.is_valid():
        return _form_refused(request, form)
    return _prepare(
        request,
        lambda season: season_prepare_wg(season=season, entries=form.cleaned_data["wg"]),
        _("The WG's groups are drawn (R18)."),
    )


@require_POST
@staff_only
def season_desk_start(request: SignedInRequest) -> HttpResponse:
    if not _confirmed(request):
        return _back()
    desk = season_desk()
    try:
        if desk.stage == PREPARING:
            season_start_request(by=request.user, season=desk.season)
        elif desk.stage == FINISHED and desk.season is not None:
            plan, why = _plan(desk.season)
            if plan is None:
                messages.error(request, why)
                return _back()
            # R20: the next season's calendar as the plan's draft keeps it.
            calendar = season_plan_calendar(season=desk.season)
            season_start_request(
                by=request.user,
                plan=plan,
                starts_on=calendar.starts_on,
                skipped_weeks=calendar.skipped_weeks,
            )
        else:
            messages.error(request, _("There is no season to start now."))
            return _back()
    except SeasonStartRefused as refusal:
        _refused(request, refusal.problems, _("Refused:"))
        return _back()
    # No « queued » here: by the time the desk shows, the worker may be running it or done.
    # The start's card says where it is, live, then the result.
    return _back()


@require_POST
@staff_only
def season_desk_close(request: SignedInRequest) -> HttpResponse:
    if not _confirmed(request):
        return _back()
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
def season_desk_swap(request: SignedInRequest) -> HttpResponse:
    desk = season_desk()
    if desk.stage != FINISHED or desk.season is None:
        messages.error(request, _("There is no next season to plan now."))
        return _back()
    form = PlanSwapForm(request.POST)
    if not form.is_valid():
        return _form_refused(request, form)
    if form.cleaned_data["reset"]:
        season_plan_swaps_reset(season=desk.season, by=request.user)
    else:
        season_plan_swap(
            season=desk.season,
            first=form.cleaned_data["first"],
            second=form.cleaned_data["second"],
            by=request.user,
        )
    return _back()


@require_POST
@staff_only
def season_desk_plan_calendar(request: SignedInRequest) -> HttpResponse:
    """R20: keep the next season's first Monday and skipped weeks in the plan's draft."""
    desk = season_desk()
    if desk.stage != FINISHED or desk.season is None:
        messages.error(request, _("There is no next season to plan now."))
        return _back()
    form = CalendarForm(request.POST)
    if not form.is_valid():
        return _form_refused(request, form)
    try:
        season_plan_calendar_save(
            season=desk.season,
            starts_on=form.cleaned_data["starts_on"],
            skipped_weeks=form.cleaned_data["skip"],
            by=request.user,
        )
    except ValidationError as error:
        _refused(request, error.messages, _("Refused:"))
        return _back()
    messages.success(request, _("The next season's calendar is saved (R20)."))
    return _back()


@require_POST
@staff_only
def season_desk_withdraw(request: SignedInRequest) -> HttpResponse:
    form = WithdrawForm(request.POST, season=season_desk().season)
    if not form.is_valid():
        return _form_refused(request, form)
    entry = form.cleaned_data["entry"]
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
def season_desk_job(request: SignedInRequest, pk: int) -> JsonResponse:
    """A start's progress, for the desk's progress bar."""
    job = get_object_or_404(SeasonStartJob, pk=pk)
    return JsonResponse(
        {
            "status": job.status,
            "status_label": job.get_status_display(),
            "done": job.done,
            "total": job.total,
            "percent": job.percent,
            "message": job.message,
            "lost": season_start_job_lost(job=job),
        }
    )
