"""The head-to-head page (issue 25): two teams' every published meeting, in every competition
and season, with the balance; each game linked to its explanation on its results page.

``/head-to-head/`` picks the two teams (a GET form, so the answer is an address to share);
``/head-to-head/<a>/<b>/`` reads them through
:func:`competitions.selectors.memory.head_to_head` (published results only: a meeting is stored
when its round is published). An unknown team is a 404; the same team twice, the form again
with why.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from competitions.forms_memory import HeadToHeadForm
from competitions.selectors.memory import head_to_head as head_to_head_of
from league.public_cache import public_page
from league.selectors import team_find, teams_all


@public_page
def head_to_head_pick(request: HttpRequest) -> HttpResponse:
    """The form; once two different teams are picked, their head-to-head's address."""
    form = HeadToHeadForm(request.GET or None, teams=teams_all())
    if form.is_valid():
        return redirect(
            "head_to_head", team_a=form.cleaned_data["team_a"], team_b=form.cleaned_data["team_b"]
        )
    return render(request, "memory/head_to_head.html", {"form": form, "rivalry": None})


@public_page
def head_to_head(request: HttpRequest, team_a: str, team_b: str) -> HttpResponse:
    """``team_a`` against ``team_b``: the balance, then every meeting, newest first."""
    found_a, found_b = team_find(slug=team_a), team_find(slug=team_b)
    for slug, found in ((team_a, found_a), (team_b, found_b)):
        if found is None:
            raise Http404(_("There is no team “%(team)s”.") % {"team": slug})
    assert found_a is not None and found_b is not None
    form = HeadToHeadForm({"team_a": team_a, "team_b": team_b}, teams=teams_all())
    if found_a.pk == found_b.pk:
        form.is_valid()  # its error says why: the same team twice
        return render(
            request, "memory/head_to_head.html", {"form": form, "rivalry": None}, status=400
        )
    context = {"form": form, "rivalry": head_to_head_of(team_a=found_a, team_b=found_b)}
    return render(request, "memory/head_to_head.html", context)
