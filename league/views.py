"""The league's public pages."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from league.selectors import season_current, season_divisions


def home(request: HttpRequest) -> HttpResponse:
    """The current season's divisions and their teams."""
    season = season_current()
    divisions = season_divisions(season=season) if season is not None else []
    return render(request, "league/home.html", {"season": season, "divisions": divisions})


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and container health checks: the process answers and the database too."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


@login_required
def picks(request: HttpRequest) -> HttpResponse:
    """The coach's picks for every open round of their team."""
    return render(request, "league/picks.html", {})
