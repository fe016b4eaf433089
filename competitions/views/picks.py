"""The coach's pick pages and infos équipes.

Views stay thin: they read through selectors, write through services and render. Secrecy: no
page here shows a pick of another team (the pick page is the coach's own team's; infos équipes
reads published rounds only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from competitions import services
from competitions.forms import PickForm, PickForms
from competitions.models import Competition, Pool, Round
from competitions.selectors import choices_any, pick_team_and_round, pool_infos_grid
from competitions.selectors.people import request_person
from competitions.selectors.pick_page import round_anchor, team_picks_page
from competitions.services import DeadlinePassed, PickRejected
from league.models import Entry, Team
from league.public_cache import public_page
from league.season_lookup import season_asked, season_query
from matrixhockey.http import SignedInRequest

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

SENT_PICK_COOKIE = "sent_pick"
"""The pick just sent, for the page the form redirects to (its receipt on screen): a signed
cookie of a minute, read and deleted there. A cookie, not the session, so that sending a pick
writes the pick and nothing else (a session write is a second transaction on every pick)."""
SENT_PICK_MAX_AGE = 60


@dataclass(frozen=True)
class Refused:
    """A pick refused for a round that is no longer on the page (its deadline passed)."""

    round: Round
    pick: str
    message: StrOrPromise


def countdown_labels() -> dict[str, str]:
    """The words of ``static/js/countdown.js`` in the page's language (the pick page's and the
    home page's deadlines)."""
    return {
        "days": pgettext("short for days, in a countdown", "d"),
        "hours": pgettext("short for hours, in a countdown", "h"),
        "minutes": pgettext("short for minutes, in a countdown", "min"),
        "seconds": pgettext("short for seconds, in a countdown", "s"),
        "closed": _("Deadline passed: picks are closed."),
    }


def _sent_pick_id(request: HttpRequest) -> int | None:
    """The pick the form just stored (:data:`SENT_PICK_COOKIE`), if the cookie holds one."""
    sent = request.get_signed_cookie(
        SENT_PICK_COOKIE, default=None, salt=SENT_PICK_COOKIE, max_age=SENT_PICK_MAX_AGE
    )
    return int(sent) if sent is not None and sent.isdigit() else None


def _picks_page(
    request: HttpRequest,
    team: Team,
    *,
    forms: PickForms | None = None,
    refused: Refused | None = None,
    status: int = 200,
) -> HttpResponse:
    page = team_picks_page(team=team, forms=forms or PickForms(), sent_id=_sent_pick_id(request))
    context = {"page": page, "refused": refused, "countdown_labels": countdown_labels()}
    response = render(request, "league/picks.html", context, status=status)
    if SENT_PICK_COOKIE in request.COOKIES:  # shown once
        response.delete_cookie(SENT_PICK_COOKIE, path=reverse("picks"), samesite="Lax")
    return response


@login_required
def picks(request: SignedInRequest) -> HttpResponse:
    """The coach's open rounds, by week, each with its pick form, current pick and history."""
    team = request_person(request).team
    if team is None:
        return render(request, "league/picks_no_team.html")
    return _picks_page(request, team)


@login_required
@require_POST
def pick_send(request: SignedInRequest, competition: str, number: int) -> HttpResponse:
    """Send one round's pick (post/redirect/get): the receipt on the page and by email, with the
    service's R11 warning.

    The form only gathers the pick (tiles or typed, R10) against everything the competition
    offers (``choices_any``, no query); whether the team still has it is the service's check,
    made under the team's lock. A pick not stored comes back in its form, checked against what
    the team has left as the page shows it, with the service's refusal.
    """
    team, round = pick_team_and_round(user=request.user, competition=competition, number=number)
    if team is None:
        return render(request, "league/picks_no_team.html", status=403)
    if round is None:
        raise Http404(_("There is no such round this season."))
    form = PickForm(
        request.POST, choices=choices_any(competition=round.competition), prefix=round_anchor(round)
    )
    if not form.is_valid():
        return _picks_page(request, team, forms=PickForms(request.POST, round.pk), status=400)
    notation = form.cleaned_data["pick"]
    try:
        submitted = services.pick_send(
            team=team, round=round, notation=notation, entered_by=request.user
        )
    except DeadlinePassed as error:
        refused = Refused(round=round, pick=notation, message=error.message)
        return _picks_page(request, team, refused=refused, status=409)
    except PickRejected as error:
        forms = PickForms(request.POST, round.pk, refusal=error)
        return _picks_page(request, team, forms=forms, status=400)
    if submitted.stale is not None:
        messages.warning(request, submitted.stale.message)
    response = redirect(reverse("picks") + "#receipt")
    response.set_signed_cookie(
        SENT_PICK_COOKIE,
        str(submitted.pick.pk),
        salt=SENT_PICK_COOKIE,
        max_age=SENT_PICK_MAX_AGE,
        path=reverse("picks"),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


@public_page
def infos_index(request: HttpRequest) -> HttpResponse:
    """Infos équipes: the coach's own division, or the Elite (of ``?season=N``, else the
    current season)."""
    season = season_asked(request)
    entry = None
    if request.user.is_authenticated:
        entry = Entry.objects.current_for(request.user, season=season).first()
    pools = Pool.objects.filter(season=season, competition=Competition.CHAMPIONSHIP)
    pool = (pools.filter(division=entry.division).first() if entry else None) or pools.order_by(
        "division__tier", "division__group"
    ).first()
    if pool is None:
        raise Http404(_("No pool is set up this season."))
    url = reverse("infos", kwargs={"competition": pool.competition, "pool": pool.slug})
    return redirect(url + season_query(season))


@public_page
def infos(request: HttpRequest, competition: str, pool: str) -> HttpResponse:
    """« Infos équipes » (public): a pool's teams × the columns, extra-time (and shootout) values
    and stocks, each cell saying whether the team can still play it after the *published*
    rounds — nothing of unpublished ones. A signed-in coach of the pool sees their team's
    opponents in the open rounds first and their own row marked. Any season: ``?season=N``,
    else the current one."""
    season = season_asked(request)
    grid = pool_infos_grid(
        season=season, competition=competition, pool_slug=pool, user=request.user
    )
    if grid is None:
        raise Http404(_("No such pool this season."))
    context = {"grid": grid, "season": season, "season_query": season_query(season)}
    return render(request, "league/infos.html", context)
