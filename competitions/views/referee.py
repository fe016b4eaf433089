"""The referees' pages (``/referee/``): their pools round by round, and the weekend's buttons.

Views stay thin: they check who asks (a referee of the pool, or staff: anyone else gets 403),
read through the selectors, write through the services and redirect (POST, CSRF, then GET), so
that a second click shows the state instead of doing anything twice — the services are
idempotent anyway.

Secrecy (R12): nothing here shows a pick's content before its round is published — not the
picks received (only when and how), not the late picks waiting (only whose and when), not the
refusals of a late pick (a generic reason, never the pick), and not the played picks of an
arbitrated round (only the scores, for the referee to check).
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from competitions import selectors, services
from competitions.models import LatePick, PoolRound
from competitions.selectors import entry_pool
from league.selectors import season_current
from matrixhockey.french import of_name
from matrixhockey.http import SignedInRequest

REFRESH_SECONDS = 3
"""How often the page of a round being arbitrated reloads itself."""

LATE_PICK_REFUSALS = {
    "notation": gettext_lazy("the pick does not read (R10)"),
    "not_allowed": gettext_lazy("the pick is not allowed in this competition"),
    "unavailable": gettext_lazy("the team no longer has what the pick asks for"),
    "not_playing": gettext_lazy("the team does not play this round"),
}
"""Why a late pick could not be entered, said without the pick (R12). Other refusals (the round
already arbitrated, someone else's pool) carry no pick and are shown as they are."""


def _pool_round(competition: str, pool: str, number: int) -> PoolRound:
    season = season_current()
    found = (
        selectors.pool_round_find(
            season_id=season.pk, competition=competition, pool_slug=pool, number=number
        )
        if season is not None
        else None
    )
    if found is None:
        raise Http404(_("There is no such round in this pool."))
    return found


def _refereed(request: SignedInRequest, competition: str, pool: str, number: int) -> PoolRound:
    """The pool round of the URL (404), when the user referees its pool (403)."""
    pool_round = _pool_round(competition, pool, number)
    if not selectors.user_referees_pool(user=request.user, pool=pool_round.pool):
        raise PermissionDenied(_("Only a referee of this pool may see its desk."))
    return pool_round


def _desk_url(pool_round: PoolRound) -> str:
    return reverse(
        "referee_round",
        args=[pool_round.pool.competition, pool_round.pool.slug, pool_round.round.number],
    )


def _zone() -> ZoneInfo:
    season = season_current()
    return ZoneInfo(season.time_zone if season is not None else settings.TIME_ZONE)


@login_required
def referee_index(request: SignedInRequest) -> HttpResponse:
    """The pools the user referees, week by week (the current week first)."""
    pools = selectors.referee_pools(user=request.user)
    if not request.user.is_staff and not pools:
        raise PermissionDenied(_("Only referees and admins have a desk."))
    weeks = selectors.referee_weeks(pools=pools)
    return render(request, "referee/index.html", {"weeks": weeks, "zone": _zone()})


@login_required
def referee_round(
    request: SignedInRequest, competition: str, pool: str, number: int
) -> HttpResponse:
    """One pool round: its teams and picks received, ONR so far, late picks, the buttons."""
    pool_round = _refereed(request, competition, pool, number)
    desk = selectors.referee_desk(pool_round=pool_round)
    context = {
        "desk": desk,
        "pool_round": desk.pool_round,
        "refresh": REFRESH_SECONDS if desk.status == PoolRound.Status.ARBITRATING else None,
        "zone": _zone(),
        # A task whose worker was lost goes back to the queue after the broker's visibility
        # timeout (matrixhockey.settings), and a sweep of the queue's.
        "redelivery_minutes": -(-settings.CELERY_VISIBILITY_TIMEOUT // 60),
    }
    return render(request, "referee/round.html", context)


@require_POST
@login_required
def referee_arbitrate(
    request: SignedInRequest, competition: str, pool: str, number: int
) -> HttpResponse:
    """« Arbitrer »: queue the arbitration (idempotent: an arbitrated round stays as it is)."""
    pool_round = _refereed(request, competition, pool, number)
    try:
        asked = services.pool_round_arbitration_request(pool_round=pool_round, by=request.user)
    except services.ArbitrationAlreadyRequested as duplicate:  # a second click: the desk says
        messages.info(request, duplicate.message)
    except services.ArbitrationRefused as refusal:
        messages.error(request, refusal.message)
    else:
        if asked is None:
            messages.info(request, _("This round was already arbitrated: here is its result."))
        elif asked.asks > 1:
            messages.success(
                request, _("Asked again: the arbitration is queued; it is stored once.")
            )
        else:
            messages.success(request, _("Arbitration started."))
    return redirect(_desk_url(pool_round))


@require_POST
@login_required
def referee_publish(
    request: SignedInRequest, competition: str, pool: str, number: int
) -> HttpResponse:
    """« Publier »: make the result public (idempotent: publishing twice changes nothing)."""
    pool_round = _refereed(request, competition, pool, number)
    already = pool_round.status == PoolRound.Status.PUBLISHED
    try:
        services.pool_round_publish(pool_round=pool_round, by=request.user)
    except services.ArbitrationRefused as refusal:
        messages.error(request, refusal.message)
    else:
        if already:
            messages.info(request, _("This round was already published."))
        else:
            # The results emails are the outbox's: sent after this answer, by a worker (or,
            # without one, once the answer is sent: matrixhockey.after_response).
            messages.success(
                request,
                _(
                    "Published: the results are public. The results emails are on their way "
                    "to the pool's coaches."
                ),
            )
    return redirect(_desk_url(pool_round))


@require_POST
@login_required
def referee_late_pick(request: SignedInRequest, pk: int, decision: str) -> HttpResponse:
    """Accept (enter it as received, R13) or reject a late pick, through the league's services."""
    late = get_object_or_404(LatePick.objects.select_related("entry__team", "round"), pk=pk)
    pool = entry_pool(entry=late.entry, competition=late.round.competition)
    if pool is None or not selectors.user_referees_pool(user=request.user, pool=pool):
        raise PermissionDenied(_("Only a referee of this team's pool may decide on its picks."))
    decide = {
        "accept": services.late_pick_accept,
        "reject": services.late_pick_reject,
    }.get(decision)
    if decide is None:
        raise Http404(_("Unknown decision."))
    values = {"of_team": of_name(late.entry.team.name)}
    try:
        decide(late_pick=late, by=request.user)
    except services.PickRejected as error:
        reason = LATE_PICK_REFUSALS.get(error.code or "", error.message)
        messages.error(
            request,
            _("The late pick of %(of_team)s was not entered: %(reason)s.")
            % {**values, "reason": reason},
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        done = (
            _("The late pick of %(of_team)s was entered.")
            if decision == "accept"
            else _("The late pick of %(of_team)s was rejected; its coach is told.")
        )
        messages.success(request, done % values)
    found = (
        PoolRound.objects.filter(pool=pool, round=late.round)
        .select_related("pool", "round")
        .first()
    )
    return redirect(_desk_url(found) if found is not None else reverse("referee"))
