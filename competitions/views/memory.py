"""The league's memory, for everyone (issue 25): the all-time tables (``/all-time/``), a coach's
page (``/coaches/<username>/``) and a team page's history in full with its « elevator » chart.

Views stay thin: they check the query string with :class:`~competitions.memory_forms.AllTimeForm`,
read the rows the season closes stored (:mod:`competitions.selectors.memory`, a constant number
of queries whatever the number of seasons) and render.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from competitions.charts import elevator_chart
from competitions.memory_forms import AllTimeForm
from competitions.models import MemoryScope, Stage
from competitions.selectors.careers import coach_page, memory_through, team_coaches
from competitions.selectors.memory import (
    ALL_TIME_ORDERS,
    TeamSeason,
    all_time_table,
    coach_career,
    team_history,
)
from league.models import Season, Team
from league.public_cache import public_page

LOWEST_FIRST = frozenset({"goals_against", "name"})
"""The orders that put the smallest value first (:data:`ALL_TIME_ORDERS`)."""


@dataclass(frozen=True)
class Column:
    """A sortable heading of the all-time table: its order, its words, the link that sorts."""

    order: str
    short: str
    title: str
    href: str
    current: bool
    ascending: bool


def _columns(scope: str, order: str) -> list[Column]:
    words = {
        "name": (_("Team"), _("team")),
        "seasons": (pgettext("all-time column: seasons", "Seas."), _("seasons")),
        "games": (pgettext("standings column: games played", "P"), _("games played")),
        "wins": (pgettext("standings column: wins", "W"), _("wins")),
        "draws": (pgettext("standings column: draws", "D"), _("draws")),
        "losses": (pgettext("standings column: losses", "L"), _("losses")),
        "goals_for": (pgettext("standings column: goals for", "GF"), _("goals for")),
        "goals_against": (pgettext("standings column: goals against", "GA"), _("goals against")),
        "goal_difference": (
            pgettext("standings column: goal difference", "Diff"),
            _("goal difference"),
        ),
        "points": (pgettext("standings column: points", "Pts"), _("points")),
        "titles": (_("Titles"), _("titles: Elite, then KDH, then WG")),
    }
    return [
        Column(
            order=key,
            short=short,
            title=title,
            href="?" + urlencode({"scope": scope, "order": key}),
            current=key == order,
            ascending=key in LOWEST_FIRST,
        )
        for key, (short, title) in words.items()
        if key in ALL_TIME_ORDERS
    ]


@public_page
def all_time(request: HttpRequest) -> HttpResponse:
    """Every team that ever played, overall or in one tier's seasons, sorted by any column,
    counted through the last closed season. A bad ``?scope=`` or ``?order=`` is a 400 that
    says what the page takes."""
    form = AllTimeForm(request.GET)
    if not form.is_valid():
        return render(request, "400.html", {"reason": form.refusal()}, status=400)
    scope, order = form.scope_order()
    context = {
        "rows": all_time_table(scope=scope, order=order),
        "through": memory_through(),
        "scope": scope,
        "scope_label": MemoryScope(scope).label,
        "scopes": [
            (value, label, "?" + urlencode({"scope": value, "order": order}))
            for value, label in MemoryScope.choices
        ],
        "columns": _columns(scope, order),
    }
    return render(request, "memory/all_time.html", context)


@public_page
def coach(request: HttpRequest, username: str) -> HttpResponse:
    """A coach's career: every team and closed season they coached, their promotions, titles
    and the records they hold. An opted-out coach's page is a 404 for everyone but them."""
    found = coach_page(username=username, reader=request.user)
    if found is None:
        raise Http404(_("There is no coach page “%(coach)s”.") % {"coach": username[:40]})
    context = {
        "coach": found,
        "career": coach_career(user=found.user),
        "through": memory_through(),
    }
    return render(request, "memory/coach.html", context)


@dataclass(frozen=True)
class HistoryRow:
    """A closed season on a team page: its figures, its coach's page when it is public (the
    name is linked then), its cup runs in words."""

    season: TeamSeason
    coach_url: str | None
    kdh: str
    wg: str


def _cup_words() -> Callable[[int | None, str, str], str]:
    """A cup run in words: the place won (R17: KDH 1–2; R18: WG 1–4), else the last round
    played. The words are translated once for every row of a page."""
    places = {
        1: pgettext("a cup run", "winner"),
        2: pgettext("a cup run", "finalist"),
        3: pgettext("a cup run", "third"),
        4: pgettext("a cup run", "fourth"),
    }
    group_words = _("group %(group)s")
    stages = {stage.value: str(stage.label) for stage in Stage}

    def words(place: int | None, stage: str, group: str = "") -> str:
        if place is not None:
            return places[place]
        if stage == Stage.GROUP and group:
            return group_words % {"group": group}
        return stages[stage] if stage else ""

    return words


def team_memory(*, team: Team, asked: Season | None) -> dict[str, object]:
    """What a team page shows of its history (``teams/_memory.html``): every closed season up
    to the one asked for (``?season=N``), newest first, and the « elevator » chart. Two
    queries; each coach's address is reversed once."""
    until = asked.number if asked else None
    history = team_history(team=team, until=until)
    coaches = team_coaches(team=team, until=until)
    pages = {name: reverse("coach", args=[name]) for name in set(coaches.values())}
    cup_words = _cup_words()
    rows = [
        HistoryRow(
            season=season,
            coach_url=pages.get(coaches.get(season.season_number, "")),
            kdh=cup_words(season.kdh_place, season.kdh_stage, ""),
            wg=cup_words(season.wg_place, season.wg_stage, season.wg_group),
        )
        for season in reversed(history)
    ]
    return {"history": rows, "elevator": elevator_chart(history=history, team=team.name)}
