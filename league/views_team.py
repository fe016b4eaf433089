"""The coach's choice of a deputy (R12): the form lives on the team's page, the posts here.

Post/redirect/get: the outcome is a message on the team's page; every refusal says why.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from league.forms import DeputyForm
from league.models import Team
from league.services import DeputyRefused, team_deputy_remove, team_deputy_set
from matrixhockey.http import SignedInRequest


def _back(team: Team) -> HttpResponse:
    return redirect(reverse("team", args=[team.slug]) + "#deputy")


@login_required
@require_POST
def deputy_set(request: SignedInRequest, slug: str) -> HttpResponse:
    """The coach names a deputy by username or email address."""
    team = get_object_or_404(Team, slug=slug)
    form = DeputyForm(request.POST)
    if not form.is_valid():
        for problem in form.errors["who"]:  # each one worded, in the page's language
            messages.error(request, str(problem))
        return _back(team)
    try:
        team = team_deputy_set(team=team, by=request.user, who=form.cleaned_data["who"])
    except DeputyRefused as refusal:
        messages.error(request, str(refusal))
        return _back(team)
    messages.success(
        request,
        _("%(name)s is now your deputy: they may send the team's picks and get its reminders.")
        % {"name": team.deputy.get_username() if team.deputy else ""},
    )
    return _back(team)


@login_required
@require_POST
def deputy_remove(request: SignedInRequest, slug: str) -> HttpResponse:
    """The coach takes the deputy's right away."""
    team = get_object_or_404(Team, slug=slug)
    try:
        team_deputy_remove(team=team, by=request.user)
    except DeputyRefused as refusal:
        messages.error(request, str(refusal))
        return _back(team)
    messages.success(request, _("The team has no deputy any more."))
    return _back(team)
