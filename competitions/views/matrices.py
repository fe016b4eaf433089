"""The matrices' page (``/matrices/``, R19, R25): every competition's matrix of a season, a row
per round with its week and deadline, the round picks are open for highlighted.

R25: public from the season's start, for the whole season and its archive; a season still
prepared is a 404 like an unknown one (only admins see its matrices, on the desk and in the
admin). No pick is shown here, of any round.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from competitions.selectors.matrices import matrices_public, season_matrices
from league.public_cache import public_page
from league.season_lookup import season_asked, season_query


@public_page
def matrices(request: HttpRequest) -> HttpResponse:
    """The matrices of ``?season=N``, else of the current season."""
    season = season_asked(request)
    if not matrices_public(season=season):
        raise Http404(_("The matrices are public once the season has started (R25)."))
    found = season_matrices(season=season)
    if not found:
        raise Http404(_("This season has no matrix."))
    context = {
        "season": season,
        "season_query": season_query(season),
        "matrices": list(found.values()),
        "zone": ZoneInfo(season.time_zone),
    }
    return render(request, "league/matrices.html", context)
