"""A team's page (``/teams/<slug>/``), for everyone: its season from the published results and
its history across seasons; its coach also reads the team's ledger there. And the WG race
(``/wg/race/``): the twelve teams next season's WG would have if the season ended now.

Views stay thin: they read through :mod:`competitions.selectors.teams` and render.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from competitions.charts import goals_chart, stocks_chart
from competitions.models import Round
from competitions.selectors.charts import stocks_over_season, team_goals
from competitions.selectors.teams import coach_ledger, team_entry, team_season
from competitions.selectors.wg_race import wg_race as wg_race_of
from competitions.services.season_plan import season_plan_wg_draws
from competitions.views.memory import team_memory
from league.forms import DeputyForm
from league.models import Entry, Season, Team
from league.public_cache import (
    PUBLIC_PARTS_PAGE,
    PublicParts,
    public_fragment,
    public_page,
    public_parts_render,
    slot,
)
from league.season_lookup import SEASON_PARAMETER, season_asked, season_query
from league.selectors import team_find


@dataclass(frozen=True)
class TeamPublic:
    """A team's page as everyone sees it, kept as a public fragment, and what its coach's own
    part is computed from."""

    page: PublicParts
    entry: Entry | None
    rounds: list[Round]
    """The rounds of the team's published games (its stocks chart's)."""


@public_page
def team(request: HttpRequest, slug: str) -> HttpResponse:
    """The team's season, games and cups, its history — kept whole for anonymous visitors, and
    as a public fragment, the same for everyone —; the ledger and the deputy for its own coach
    only, added for them."""
    found = team_find(slug=slug)
    if found is None:
        raise Http404(_("There is no team “%(team)s”.") % {"team": slug})
    # ``?season=N``: the team's page in that season, every link on it staying there.
    asked = season_asked(request) if request.GET.get(SEASON_PARAMETER) is not None else None
    public = public_fragment(request, "team", lambda: _team_public(found, asked))
    is_coach = request.user.is_authenticated and found.coach_id == request.user.pk
    parts = {"coach": _coach_part(request, found, public)} if is_coach else {}
    return render(request, PUBLIC_PARTS_PAGE, {"page": public.page.filled(parts)})


def _team_public(team: Team, asked: Season | None) -> TeamPublic:
    entry = team_entry(team=team, season=asked)
    season = team_season(entry=entry) if entry else None
    context = {
        "team": team,
        "entry": entry,
        "season": season,
        "asked": asked,
        "season_query": season_query(entry.season) if entry else "",
        "goals_chart": goals_chart(
            goals=team_goals(games=season.championship_games), team=team.name
        )
        if season
        else None,
        "slots": {"coach": slot("coach")},
        # Issue 25: every closed season in full (up to the one asked for), the elevator chart.
        **team_memory(team=team, asked=asked),
    }
    return TeamPublic(
        page=public_parts_render("teams/team.html", context),
        entry=entry,
        rounds=[game.pool_round.round for game in season.games] if season else [],
    )


def _coach_part(request: HttpRequest, team: Team, public: TeamPublic) -> str:
    """The team's ledger (every pick it sent, its stocks) and its deputy, for its coach."""
    ledger = coach_ledger(entry=public.entry) if public.entry else None
    # ``?deputy=``: the address a coach's ADJOINT / DEPUTY email named (mail.command_answers),
    # filled in for them to confirm with the form's own post.
    asked = DeputyForm({"who": request.GET.get("deputy", "")})
    context = {
        "team": team,
        "deputy_asked": asked.cleaned_data["who"] if asked.is_valid() else "",
        "ledger": ledger,
        "is_coach": True,
        "stocks_chart": stocks_chart(
            points=stocks_over_season(movements=ledger.movements, rounds=public.rounds),
            team=team.name,
        )
        if ledger
        else None,
    }
    return render_to_string("teams/_coach.html", context, request=request)


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
