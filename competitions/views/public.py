"""The public results pages: a pool's round, a week's results, standings and cup brackets.

Views stay thin: they read through selectors and render. Every page shows the season asked for
with ``?season=N``, else the current one (:mod:`league.season_lookup`), and a past season's links
keep it (``season_query``). Secrecy (R23, API.md): publishing is
what makes results public, so a page shows a pool round's games, played picks, seed and draws
only once it is published — to everyone alike, its referees and its coaches included (referees
see their unpublished results on their own pages). Before that it shows the seed's SHA-256.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from competitions.charts import places_chart
from competitions.kinds import Page
from competitions.models import Competition, Pool, PoolRound, Stage
from competitions.selectors import (
    GameResult,
    PoolRoundResults,
    pool_round_find,
    pool_round_fixtures,
    pool_round_results,
    pool_rounds_fixtures,
    pool_rounds_qualified,
    pool_rounds_results,
    pool_standings_table,
    results_weeks,
    table_lines,
    week_results,
)
from competitions.selectors.charts import pool_places
from competitions.services import pool_round_input_document
from competitions.views.bracket import kdh_bracket_context
from competitions.views.wg import wg_standings
from league.models import Entry, Season
from league.public_cache import (
    PUBLIC_PARTS_PAGE,
    PublicParts,
    public_fragment,
    public_page,
    public_parts_render,
)
from league.season_lookup import season_asked, season_query

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# --- Draws, in words (R23) ------------------------------------------------------------------------


def _draw_kinds() -> dict[str, str]:
    """What each kind of draw of the engine decided (its ``what`` before ``:`` or the number)."""
    return {
        "bonus_goal": _("Bonus goal (R5)"),
        "onr_column": _("ONR: column (R4)"),
        "onr_extra_time": _("ONR: extra-time value (R4)"),
        "onr_shootout": _("ONR: shootout value (R4)"),
        "dummy_column": _("Dummy team: column (R14)"),
        "dummy_extra_time": _("Dummy team: extra-time value (R14)"),
        "dummy_shootout": _("Dummy team: shootout value (R14)"),
        "redraw_column": _("Redrawn column (R11)"),
        "redraw_extra_time": _("Redrawn extra-time value (R11)"),
        "redraw_shootout": _("Redrawn shootout value (R11)"),
        "extra_time_x": _("X in extra time: the die (R7)"),
        "shootout_x": _("X in the shootout: the die (R7)"),
        "tie_die": _("Still tied: the die (R8)"),
        "forfeit_die": _("Both teams ONR: the die (R15)"),
        "lucky_loser_die": _("Lucky loser: the die (R15)"),
        "kdh.pairings": _("KDH pairings (R17)"),
        "kdh.bye": _("Bye to the next round"),
        "kdh.qualifying": _("Qualifying round: who plays it (R17)"),
        "wg.groups": _("WG groups (R18)"),
        "wg.semi_finals": _("Semi-final pairings (R18)"),
    }


@dataclass(frozen=True)
class DrawLine:
    """One draw of the log, for people: what it decided (and for whom), options, result."""

    number: int
    what: str
    label: str
    subject: str
    options: list[str]
    result: list[str]
    """One option, or for a shuffle (pairings, groups) the options' new order."""
    seed: str

    @property
    def many_options(self) -> bool:
        return len(self.options) > 12

    @property
    def is_order(self) -> bool:
        return len(self.result) > 1


def _draw_lines(results: PoolRoundResults) -> list[DrawLine]:
    names = {pick.team: pick.entry.team.name for pick in results.teams}
    games = {}
    for game in results.games:
        home, away = game.home.team, game.away.team
        names.setdefault(home.slug, home.name)
        names.setdefault(away.slug, away.name)
        games[f"{home.slug}-{away.slug}"] = f"{home.name} – {away.name}"
    kinds = _draw_kinds()
    lines = []
    for number, draw in enumerate(results.draws, start=1):
        what = str(draw["what"])
        kind, _sep, subject = what.partition(":")
        lines.append(
            DrawLine(
                number=number,
                what=what,
                label=kinds.get(kind) or kinds.get(kind.rsplit(".", 1)[0]) or what,
                # A team (ONR, redraw, X), a game (tie and forfeit dice) or a number.
                subject=games.get(subject) or names.get(subject, subject),
                options=[names.get(str(option), str(option)) for option in draw["options"]],
                # A shuffle's result is the new order, space-separated.
                result=[names.get(part, part) for part in str(draw["result"]).split()],
                seed=str(draw.get("seed", "")),
            )
        )
    return lines


# --- Finding things ------------------------------------------------------------------------------


def _pool_name(pool: Pool) -> StrOrPromise:
    return capfirst(pool.display_name)


def _round_title(pool_round: PoolRound) -> str:
    round = pool_round.round
    return _("%(competition)s, round %(number)d") % {
        "competition": capfirst(Competition(round.competition).label),
        "number": round.number,
    }


def _my_entry(request: HttpRequest, season: Season) -> Entry | None:
    if not request.user.is_authenticated:
        return None
    return Entry.objects.current_for(request.user, season=season).select_related("team").first()


# --- Results -------------------------------------------------------------------------------------


@public_page
def results_latest(request: HttpRequest) -> HttpResponse:
    """The season's latest week with published results (or an empty page before the first)."""
    season = season_asked(request)
    weeks = results_weeks(season_id=season.pk)
    if weeks:
        return redirect("results_week", season=season.number, week=weeks[-1])
    context = {"season": season, "season_query": season_query(season), "week": None, "pools": []}
    return render(request, "results/week.html", context)


@public_page
def results_week(request: HttpRequest, season: int, week: int) -> HttpResponse:
    """Every pool's results of a week: published ones in full, the others as « to come »."""
    found = Season.objects.filter(number=season).first()
    if found is None:
        raise Http404(_("No such season."))
    weeks = results_weeks(season_id=found.pk)
    pools = week_results(season_id=found.pk, week=week)
    if not pools and week not in weeks:
        raise Http404(_("No round is played that week."))
    entry = _my_entry(request, found)
    earlier = [w for w in weeks if w < week]
    later = [w for w in weeks if w > week]
    shown: list[_PoolShown] = [
        {
            "results": results,
            "name": _pool_name(results.pool_round.pool),
            "title": _round_title(results.pool_round),
            "games": _games_mine_first(results, entry),
        }
        for results in pools
    ]
    context = {
        "season": found,
        "season_query": season_query(found),
        "week": week,
        "weeks": weeks,
        "previous_week": earlier[-1] if earlier else None,
        "next_week": later[0] if later else None,
        "pools": [pool for pool in shown if pool["results"].revealed],
        "to_come": [pool for pool in shown if not pool["results"].revealed],
        "mine": entry.pk if entry else None,
    }
    return render(request, "results/week.html", context)


class _PoolShown(TypedDict):
    """A pool's results in the week's page."""

    results: PoolRoundResults
    name: StrOrPromise
    title: str
    games: list[GameResult]


def _games_mine_first(results: PoolRoundResults, entry: Entry | None) -> list[GameResult]:
    games = list(results.games)
    if entry is not None:
        games.sort(key=lambda game: not game.involves(entry.pk))
    return games


def _pool_round_or_404(request: HttpRequest, competition: str, pool: str, round: int) -> PoolRound:
    season = season_asked(request)
    if competition not in Competition.values:
        raise Http404(_("No such competition."))
    found = pool_round_find(
        season_id=season.pk, competition=competition, pool_slug=pool, number=round
    )
    if found is None:
        raise Http404(_("There is no such round in this pool."))
    return found


@public_page
def results_pool_round(
    request: HttpRequest, competition: str, pool: str, round: int
) -> HttpResponse:
    """A pool's round in the rules' display (section 3.1.4), each game opening on how its goals
    were made (R3, once published), with its fairness panel (R23)."""
    pool_round = _pool_round_or_404(request, competition, pool, round)
    results = pool_round_results(pool_round=pool_round, explain=True)
    season = pool_round.round.season
    entry = _my_entry(request, season)
    siblings = (
        PoolRound.objects.filter(round=pool_round.round)
        .select_related("pool__division")
        .order_by("pool__division__tier", "pool__division__group")
    )
    numbers = list(
        PoolRound.objects.filter(pool=pool_round.pool)
        .order_by("round__number")
        .values_list("round__number", flat=True)
    )
    index = numbers.index(round)
    context = {
        "results": results,
        "season": season,
        "season_query": season_query(season),
        "pool_round": pool_round,
        "pool_name": _pool_name(pool_round.pool),
        "title": _round_title(pool_round),
        "games": _games_mine_first(results, entry),
        "fixtures": None if results.revealed else pool_round_fixtures(pool_round=pool_round),
        "draws": _draw_lines(results) if results.revealed else [],
        "siblings": [(sibling.pool, _pool_name(sibling.pool)) for sibling in siblings],
        "previous_round": numbers[index - 1] if index > 0 else None,
        "next_round": numbers[index + 1] if index + 1 < len(numbers) else None,
        "mine": entry.pk if entry else None,
        "has_table": pool_round.pool.kind.has_table,
    }
    return render(request, "results/pool_round.html", context)


@public_page
def results_input(request: HttpRequest, competition: str, pool: str, round: int) -> HttpResponse:
    """The engine's ``round`` input that replays a published pool round (R23), to download and
    run with ``python -m engine round``. Not before publication: it holds the seed and picks."""
    pool_round = _pool_round_or_404(request, competition, pool, round)
    if not pool_round.is_published:
        raise Http404(_("This round is not published yet."))
    document = pool_round_input_document(pool_round=pool_round)
    response = HttpResponse(
        json.dumps(document, ensure_ascii=False, indent=2) + "\n",
        content_type="application/json; charset=utf-8",
    )
    name = f"{competition}-{pool}-round-{round}-input.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


# --- Standings and cups --------------------------------------------------------------------------


@public_page
def standings_index(request: HttpRequest) -> HttpResponse:
    """The standings of the coach's own division, or the Elite's."""
    season = season_asked(request)
    entry = _my_entry(request, season)
    pools = Pool.objects.filter(season=season, competition=Competition.CHAMPIONSHIP)
    pool = (pools.filter(division=entry.division).first() if entry else None) or pools.order_by(
        "division__tier", "division__group"
    ).first()
    if pool is None:
        raise Http404(_("No pool is set up this season."))
    return redirect(reverse("standings", kwargs={"pool": pool.slug}) + season_query(season))


def _rounds_results(pool: Pool, stages: tuple[str, ...] | None = None) -> list[PoolRoundResults]:
    pool_rounds = PoolRound.objects.filter(pool=pool).order_by("round__number")
    if stages is not None:
        pool_rounds = pool_rounds.filter(round__stage__in=stages)
    return pool_rounds_results(pool_rounds=pool_rounds)


@public_page
def standings(request: HttpRequest, pool: str) -> HttpResponse:
    """A division's table (R9, zones R22); the WG's groups and knockout; the KDH's bracket. The
    page but its header is a public fragment, one copy per team highlighted (the signed-in
    coach's own)."""
    season = season_asked(request)
    entry = _my_entry(request, season)
    page = public_fragment(
        request,
        "standings",
        lambda: _standings(request, season=season, slug=pool, entry=entry),
        variant=entry.pk if entry else "",
    )
    return render(request, PUBLIC_PARTS_PAGE, {"page": page})


def _standings(
    request: HttpRequest, *, season: Season, slug: str, entry: Entry | None
) -> PublicParts:
    found = Pool.objects.filter(season=season, slug=slug).select_related("division").first()
    if found is None:
        raise Http404(_("No such pool this season."))
    context: dict[str, object] = {
        "season": season,
        "season_query": season_query(season),
        "pool": found,
        "pool_name": _pool_name(found),
        "pools": Pool.objects.filter(season=season)
        .select_related("division")
        .order_by("competition", "division__tier", "division__group"),
        "mine": entry.pk if entry else None,
    }
    page = found.kind.page
    if page is Page.TABLE:
        table = pool_standings_table(pool=found)
        context["lines"] = table_lines(pool=found, rows=table.rows, dies=table.dies)
        context["dies"] = table.dies
        context["tier"] = found.division.tier if found.division else 0
        context["places"] = places_chart(
            places=pool_places(pool=found),
            division=str(context["pool_name"]),
            of_division=found.of_name,
            mine=entry.team.slug if entry else "",
        )
        template = "standings/division.html"
    elif page is Page.GROUPS:
        template = wg_standings(pool=found, context=context)
    else:
        context.update(
            kdh_bracket_context(request, pool=found, entry=entry, season_query=season_query(season))
        )
        template = "standings/kdh.html"
    return public_parts_render(template, context)


def _cup_rounds(pool: Pool, stages: tuple[str, ...] | None) -> list[dict[str, object]]:
    """A cup's rounds for its bracket: the published ones with their games, the others with
    their pairings once these are public, else « to be drawn »."""
    shown = _rounds_results(pool, stages)
    pool_rounds = [results.pool_round for results in shown]
    fixtures = pool_rounds_fixtures(
        pool_rounds=[results.pool_round for results in shown if not results.revealed]
    )
    qualified = pool_rounds_qualified(
        pool_rounds=[results.pool_round for results in shown if results.revealed]
    )
    stage_names = {stage.value: str(stage.label) for stage in Stage}
    return [
        {
            "results": results,
            "stage": stage_names[pool_round.round.stage],
            "fixtures": fixtures.get(pool_round.pk),
            "qualified": qualified.get(pool_round.pk, set()),
        }
        for results, pool_round in zip(shown, pool_rounds, strict=True)
    ]
