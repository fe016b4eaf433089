"""A team's page (``/teams/<slug>/``), for everyone: its season from the published results and
its history across seasons; its coach also reads the team's ledger there. And the WG race
(``/wg/race/``): the twelve teams next season's WG would have if the season ended now.

Views stay thin: they read through :mod:`competitions.selectors.teams` and render.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from competitions.charts import goals_chart, stocks_chart
from competitions.selectors.charts import stocks_over_season, team_goals
from competitions.selectors.seasons import team_honours
from competitions.selectors.teams import coach_ledger, team_entry, team_season
from competitions.selectors.wg_race import wg_race as wg_race_of
from competitions.services.season_plan import season_plan_wg_draws
from league.season_lookup import season_asked, season_query
from league.selectors import team_find


def team(request: HttpRequest, slug: str) -> HttpResponse:
    """The team's season, games and cups, its history; the ledger for its own coach only."""
    found = team_find(slug=slug)
    if found is None:
        raise Http404(_("There is no team “%(team)s”.") % {"team": slug})
    entry = team_entry(team=found)
    is_coach = request.user.is_authenticated and found.coach_id == request.user.pk
    season = team_season(entry=entry) if entry else None
    ledger = coach_ledger(entry=entry) if entry and is_coach else None
    context = {
        "team": found,
        "entry": entry,
        "season": season,
        "honours": team_honours(team=found),
        "ledger": ledger,
        "is_coach": is_coach,
        "goals_chart": goals_chart(
            goals=team_goals(games=season.championship_games), team=found.name
        )
        if season
        else None,
        "stocks_chart": stocks_chart(
            points=stocks_over_season(
                movements=ledger.movements,
                rounds=[game.pool_round.round for game in season.games],
            ),
            team=found.name,
        )
        if ledger and season
        else None,
    }
    return render(request, "teams/team.html", context)


def wg_race(request: HttpRequest) -> HttpResponse:
    """Who would play next season's WG if the season ended now (R18), published results only;
    once the season is closed, the draws the next season's plan made for its ties (R23)."""
    season = season_asked(request)
    return render(
        request,
        "teams/wg_race.html",
        {
            "season": season,
            "season_query": season_query(season),
            "race": wg_race_of(season=season),
            # R18, R23: the plan's own draws, once the season is closed (every round published).
            "plan": season_plan_wg_draws(season=season),
        },
    )
