"""The home page (``/``): the week at a glance — the next deadline with its countdown, each
pool's public status in the week being played, the latest published results and, for a
signed-in coach or deputy, the team's games of the coming week with their pick status — then
the league's news and the divisions with their teams.

It lives with the competitions because the week is theirs (the registry below knows nothing of
rounds). Kept whole for anonymous visitors (``@public_page``): everything they see is public
(statuses and published results only, R23); a signed-in visitor gets it computed, with their
team's part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from competitions.models import Competition, PoolRound, Round, Stage
from competitions.selectors.glance import CoachGame, coach_week, week_glance
from competitions.views.picks import countdown_labels
from league.models import Season
from league.public_cache import public_page
from league.season_lookup import SEASON_PARAMETER, season_asked, season_query
from league.selectors import news_latest, season_current, season_divisions, user_team

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class PoolLine:
    """A pool's round on the page: its name (a division, a cup), its round in words, and its
    public status in words."""

    pool_round: PoolRound
    name: StrOrPromise
    title: str
    status: str = ""
    label: str = ""


@dataclass(frozen=True)
class GameLine:
    """One of a coach's games of the coming week, its round in words."""

    game: CoachGame
    title: str


class _Words:
    """The competitions', stages' and statuses' words, worded once for the page."""

    def __init__(self) -> None:
        self.competitions = {value: capfirst(label) for value, label in Competition.choices}
        self.stages = {value: str(label) for value, label in Stage.choices}
        self.statuses = {
            "open": _("picks open"),
            "closed": _("to be played"),
            PoolRound.Status.ARBITRATED: _("played, being checked"),
            PoolRound.Status.PUBLISHED: _("published"),
        }
        self.round = _("%(competition)s, round %(number)d")
        self.number = _("round %(number)d")

    def title(self, round: Round, *, named: bool = True) -> str:
        """The round in words: « KDH cup, round 3 · round of 32 »; without the competition's
        name (``named=False``) where the pool already says it: « round 3 · round of 32 »."""
        if named:
            title = self.round % {
                "competition": self.competitions.get(round.competition, round.competition),
                "number": round.number,
            }
        else:
            title = self.number % {"number": round.number}
        if round.competition != Competition.CHAMPIONSHIP:
            title = f"{title} · {self.stages.get(round.stage, round.stage)}"
        return title

    def pool(self, pool_round: PoolRound, status: str = "") -> PoolLine:
        pool = pool_round.pool
        return PoolLine(
            pool_round=pool_round,
            name=pool.division.name if pool.division else self.competitions[pool.competition],
            title=self.title(pool_round.round, named=pool.division is not None),
            status=status,
            label=self.statuses.get(status, status),
        )


@public_page
def home(request: HttpRequest) -> HttpResponse:
    """The current season's week, news and divisions; ``?season=N`` shows another season's
    divisions (an unknown one is a 404) without the week; without a current season, the page
    says so."""
    season = season_asked(request) if request.GET.get(SEASON_PARAMETER) else season_current()
    context: dict[str, object] = {
        "season": season,
        "season_query": season_query(season) if season is not None else "",
        "divisions": season_divisions(season=season) if season is not None else [],
        "news": news_latest(language=translation.get_language()),
    }
    if season is not None and season.is_current:
        context.update(_week(request, season))
    return render(request, "league/home.html", context)


def _week(request: HttpRequest, season: Season) -> dict[str, object]:
    """The week at a glance: everyone's part, and the signed-in coach's or deputy's."""
    glance = week_glance(season=season)
    words = _Words()
    team = user_team(user=request.user)
    coach = (
        coach_week(team=team, season=season, rounds=glance.next_rounds)
        if team is not None
        else None
    )
    return {
        "glance": glance,
        "zone": ZoneInfo(season.time_zone),
        "next_rounds": [words.title(round) for round in glance.next_rounds],
        "played": [words.pool(pool.pool_round, pool.status) for pool in glance.played],
        "played_published": any(pool.published for pool in glance.played),
        "results": [words.pool(pool_round) for pool_round in glance.results],
        "results_published_at": max(
            (pool_round.published_at for pool_round in glance.results if pool_round.published_at),
            default=None,
        ),
        "coach": coach,
        "coach_games": [GameLine(game=game, title=words.title(game.round)) for game in coach.games]
        if coach is not None
        else [],
        "countdown_labels": countdown_labels(),
    }
