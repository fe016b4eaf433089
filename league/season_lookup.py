"""The one lookup every public page and API read shares (``shared/SEASON.md``, "Past seasons"):
the season asked for with ``?season=N``, else the current one — and the query that keeps a past
season's links in it.

An unknown season number or a value that is not a number is a 404 with a message that says so
(a page: the site's localized 404 page; the API: ``{"detail": …}``), never a 500.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from league.models import Season
from league.selectors import season_from_query

SEASON_PARAMETER = "season"
"""The query parameter naming a season by its number: ``?season=2``."""


def _not_found_message(value: str | None) -> str:
    if value is None or value == "":
        return _("No season is under way.")
    message = _("There is no season “%(season)s”: a season is named by its number (?season=1).")
    return message % {"season": value[:20]}


def season_asked(request: HttpRequest) -> Season:
    """The season a public page shows: ``?season=N``, else the current season (404 otherwise)."""
    value = request.GET.get(SEASON_PARAMETER)
    season = season_from_query(value=value)
    if season is None:
        raise Http404(_not_found_message(value))
    return season


def season_asked_api(request: Request) -> Season:
    """The season a public API read answers for: ``?season=N``, else the current season
    (404 ``{"detail": …}`` otherwise)."""
    value = request.query_params.get(SEASON_PARAMETER)
    season = season_from_query(value=value)
    if season is None:
        raise NotFound(_not_found_message(value))
    return season


def season_query(season: Season) -> str:
    """What a link inside ``season``'s pages appends to stay in it: ``?season=N`` for any season
    but the current one, nothing for the current one (its links stay short)."""
    if season.is_current:
        return ""
    return "?" + urlencode({SEASON_PARAMETER: season.number})
