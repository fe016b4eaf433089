"""The home page (``/``): the week at a glance — the next deadline with its countdown, a
deadline moved in the past week (from what to what), each pool's public status in the week being
played, the latest published results and, for a
signed-in coach or deputy, the team's games of the coming week with their pick status — then
the league's news and the divisions with their teams.

It lives with the competitions because the week is theirs (the registry below knows nothing of
rounds). Kept whole for anonymous visitors (``@public_page``): everything they see is public
(statuses and published results only, R23). For everyone, the public part is a public fragment
(``public_fragment``, kept under the same version); a signed-in visitor gets it with their own
part added (the join link or not, their team's games and picks sent), computed every time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from competitions.models import Competition, PoolRound, Round, Stage
from competitions.selectors.glance import (
    CoachGame,
    WeekGlance,
    coach_week,
    week_glance,
)
from competitions.selectors.memory import record_breaks
from competitions.selectors.people import request_person
from competitions.views.picks import countdown_labels
from league.models import Season, Team
from league.public_cache import public_fragment, public_page, slot, slots_fill
from league.season_lookup import SEASON_PARAMETER, season_asked, season_query
from league.selectors import news_latest, season_current, season_divisions

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
class DeadlineMove:
    """A round whose deadline moved this past week: the round in words, the deadline it
    replaced and its deadline now."""

    title: str
    before: datetime
    after: datetime


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
        if round.kind.has_stages:
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


@dataclass(frozen=True)
class HomePublic:
    """The home page's public part, kept as a public fragment: its markup (with the viewer's
    slots), and what the viewer's part is computed from."""

    body: str
    season: Season | None
    next_rounds: tuple[Round, ...] | None
    """The coming week's rounds of the current season (``None``: no week shown)."""
    next_week: int | None
    countdown: bool
    """The page counts down to a deadline (its script is needed)."""


@public_page
def home(request: HttpRequest) -> HttpResponse:
    """The current season's week, news and divisions; ``?season=N`` shows another season's
    divisions (an unknown one is a 404) without the week; without a current season, the page
    says so. The public part is a public fragment, the same for everyone; the viewer's own part
    (the join link, a coach's games of the week) is added to it."""
    public = public_fragment(request, "home", lambda: _public(request))
    parts: dict[str, str] = {
        "join": render_to_string(
            "league/_home_join.html", {"season": public.season}, request=request
        )
    }
    team = request_person(request).team
    if team is not None and public.next_rounds is not None:
        parts["coach"] = _coach(request, team, public)
    context = {"body": mark_safe(slots_fill(public.body, parts)), "countdown": public.countdown}
    return render(request, "league/home.html", context)


def _public(request: HttpRequest) -> HomePublic:
    """The page for everyone: the season, the week at a glance, news and divisions."""
    season = season_asked(request) if request.GET.get(SEASON_PARAMETER) else season_current()
    context: dict[str, object] = {
        "league_name": settings.LEAGUE_NAME,
        "season": season,
        "season_query": season_query(season) if season is not None else "",
        "divisions": season_divisions(season=season) if season is not None else [],
        "news": news_latest(language=translation.get_language()),
        "slots": {"join": slot("join"), "coach": slot("coach")},
    }
    glance = None
    if season is not None and season.is_current:
        glance = week_glance(season=season)
        context.update(_week(glance, season))
    return HomePublic(
        body=render_to_string("league/_home_body.html", context),
        season=season,
        next_rounds=glance.next_rounds if glance is not None else None,
        next_week=glance.next_week if glance is not None else None,
        countdown=glance is not None and glance.next_deadline is not None,
    )


def _week(glance: WeekGlance, season: Season) -> dict[str, object]:
    """The week at a glance, everyone's part."""
    words = _Words()
    # Issue 25: the records the latest published week broke (published rounds only); the
    # records page links their games.
    broken = (
        record_breaks(season=season, week=glance.results_week)
        if glance.results_week is not None
        else []
    )
    return {
        "record_breaks": broken,
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
        "countdown_labels": countdown_labels(),
        "deadline_moves": [
            DeadlineMove(
                title=words.title(round), before=round.deadline_moved_from, after=round.deadline
            )
            for round in glance.deadline_moves
            if round.deadline_moved_from is not None
        ],
    }


def _coach(request: HttpRequest, team: Team, public: HomePublic) -> str:
    """The signed-in coach's or deputy's games of the week (their picks sent or not): their own
    part, computed every time."""
    assert public.season is not None and public.next_rounds is not None
    coach = coach_week(team=team, season=public.season, rounds=public.next_rounds)
    words = _Words()
    context = {
        "coach": coach,
        "coach_games": [GameLine(game=game, title=words.title(game.round)) for game in coach.games],
        "next_week": public.next_week,
    }
    return render_to_string("league/_glance_coach.html", context, request=request)
