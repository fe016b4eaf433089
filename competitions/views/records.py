"""The records page (issue 25): each of the league's records with its holders (ties share it),
its value and when, linked to the game that set it (its explanation on the results page) or to
the season; a record broken this season marked so, and this season's breaks listed in the order
they fell. Published results only: a break is stored when its round is published
(:mod:`competitions.services.memory_records`)."""

from __future__ import annotations

from itertools import chain

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from competitions.selectors.memory import record_breaks, records
from competitions.selectors.memory_links import game_places
from league.public_cache import public_page
from league.selectors import season_current

HOLDERS_IN_FULL = 1
"""A record's holders shown with their game or season: the first to reach it
(``memory/records.html`` slices the same); those who equalled it are named. The page stays as
long whether a record is held by one team or shared by many."""


@public_page
def records_page(request: HttpRequest) -> HttpResponse:
    """Every record, in :class:`~competitions.models.RecordKind`'s order; the current season's
    breaks. A constant number of queries whatever the number of seasons."""
    lines = records()
    season = season_current()
    broken = record_breaks(season=season) if season is not None else []
    fixtures = chain(
        (holder.fixture_id for line in lines for holder in line.holders[:HOLDERS_IN_FULL]),
        (row.holder.fixture_id for row in broken),
    )
    context = {
        "lines": lines,
        "season": season,
        "broken": broken,
        "places": game_places(fixture_ids=fixtures),
    }
    return render(request, "memory/records.html", context)
