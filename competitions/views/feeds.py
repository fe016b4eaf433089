"""The calendar feeds (``competitions.feeds``): the league's, public, and a coach's, at its
signed address; and renewing that address."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from competitions import services
from competitions.feeds import FeedInvalid, coach_calendar, coach_feed_check, league_calendar
from competitions.selectors import (
    entry_games,
    entry_rounds_calendar,
    season_rounds_calendar,
    team_entry_current,
)
from league.models import Language
from league.selectors import season_current, user_language
from matrixhockey.http import SignedInRequest
from matrixhockey.redirects import redirect_back

CALENDAR_TYPE = "text/calendar; charset=utf-8"


def _calendar_response(document: bytes, filename: str, *, private: bool) -> HttpResponse:
    response = HttpResponse(document, content_type=CALENDAR_TYPE)
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = "private, no-store" if private else "public, max-age=300"
    if private:
        # The address is a key: never pass it on to another site.
        response["Referrer-Policy"] = "no-referrer"
    return response


@require_GET
def calendar_league(request: HttpRequest) -> HttpResponse:
    """Every round's deadline of the current season; ``?lang=en`` or ``fr`` for its words (else
    the request's language)."""
    asked = request.GET.get("lang", "")
    language = asked if asked in Language.values else translation.get_language()
    season = season_current()
    rounds = season_rounds_calendar(season=season) if season is not None else []
    document = league_calendar(season=season, rounds=rounds, language=language)
    return _calendar_response(document, "matrix-hockey.ics", private=False)


@require_GET
def calendar_coach(request: HttpRequest, token: str) -> HttpResponse:
    """A coach's rounds with a reminder the day before each deadline, in the coach's language.
    A forged, altered or renewed address is a 404, as is one of a person who coaches no team."""
    try:
        holder = coach_feed_check(token)
    except FeedInvalid as error:
        raise Http404(_("No such calendar.")) from error
    season = season_current()
    entry = team_entry_current(team=holder.team, season=season) if season is not None else None
    rounds = entry_rounds_calendar(entry=entry) if entry is not None else []
    games = entry_games(entry=entry, rounds=rounds) if entry is not None else {}
    document = coach_calendar(
        team=holder.team, rounds=rounds, games=games, language=user_language(holder.user)
    )
    return _calendar_response(document, f"{holder.team.slug}.ics", private=True)


@login_required
@require_POST
def calendar_coach_renew(request: SignedInRequest) -> HttpResponse:
    """« New address »: the private calendar's old address stops working."""
    services.calendar_feed_key_renew(user=request.user)
    messages.success(
        request,
        _(
            "Your calendar has a new private address: the old one no longer works. Subscribe "
            "again with the new one."
        ),
    )
    return redirect_back(request, "account")
