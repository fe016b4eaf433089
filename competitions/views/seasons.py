"""The archives' pages, for everyone: every season with its roll of honour, a season's page (its
divisions' tables, champions and cup winners) and a team's honours across seasons.

Views stay thin: they read through :mod:`competitions.selectors.seasons` (published results only)
and render.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from competitions.selectors.seasons import season_record, seasons_winners, team_honours
from league.public_cache import public_page
from league.season_lookup import season_query
from league.selectors import season_find, seasons_all, team_find, teams_all


@public_page
def seasons(request: HttpRequest) -> HttpResponse:
    """Every season, newest first, with who won what; every team, to its honours."""
    context = {
        "winners": seasons_winners(seasons=seasons_all()),
        "teams": teams_all(),
    }
    return render(request, "seasons/index.html", context)


@public_page
def season(request: HttpRequest, number: int) -> HttpResponse:
    """A season: its divisions' tables and champions, the KDH's and the WG's winners."""
    found = season_find(number=number)
    if found is None:
        raise Http404(_("There is no season %(number)d.") % {"number": number})
    context = {
        "season": found,
        "season_query": season_query(found),
        "record": season_record(season=found),
    }
    return render(request, "seasons/season.html", context)


@public_page
def season_team(request: HttpRequest, slug: str) -> HttpResponse:
    """A team's honours across seasons: division and place, moves, cups."""
    team = team_find(slug=slug)
    if team is None:
        raise Http404(_("There is no team “%(team)s”.") % {"team": slug})
    return render(request, "seasons/team.html", {"team": team, "honours": team_honours(team=team)})
