"""A page costs a constant number of queries whatever the league's size and week (issue 11).

The demo league (``load_demo``, :mod:`competitions.demo`) is built at week 3 and at week 6 —
twice as far into its season: more published rounds, the KDH three rounds further, the WG's
group stage under way — and every public page and API read, the admin's match list and a
coach's ``/picks/`` is requested once on each, its SQL queries counted. A page must cost the
same at both weeks, and no more than its bound below.

Each league is built once for the module (in a transaction rolled back afterwards) and every
page is measured on it then, with the caches emptied before each request, so that what is
counted is the uncached path; the tests compare the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoDbBlocker

from competitions.demo import DemoLeague
from tests.demo_worlds import DemoWorlds

pytestmark = pytest.mark.django_db

EARLY, LATER = 3, 6
"""The two weeks the demo is built at: the later one twice as far into the season."""


@dataclass(frozen=True)
class Page:
    """A page to measure: its path at a week of the demo, who asks, and its bound."""

    path: Callable[[int], str]
    bound: int
    who: str = ""
    """``""`` (a visitor), ``admin`` or ``coach`` (the Elite's code-01 coach, in both cups)."""
    status: int = 200


PAGES: dict[str, Page] = {
    "home": Page(lambda week: "/", 6),
    "home for a coach": Page(lambda week: "/", 18, who="coach"),
    # The results: the latest published week, a pool's round, the cup's round, the API's.
    "results latest": Page(lambda week: "/results/", 4, status=302),
    "results week": Page(lambda week: f"/results/week/1/{week - 1}/", 10),
    "results week waiting": Page(lambda week: f"/results/week/1/{week}/", 10),
    "results elite round": Page(lambda week: f"/results/championship/elite/{week - 1}/", 12),
    "results kdh round": Page(lambda week: f"/results/kdh/kdh/{week - 2}/", 12),
    "results elite input": Page(
        lambda week: f"/results/championship/elite/{week - 1}/input.json", 14
    ),
    "api results elite": Page(lambda week: f"/api/results/championship/elite/{week - 1}/", 8),
    "api results kdh": Page(lambda week: f"/api/results/kdh/kdh/{week - 2}/", 8),
    # Standings and cups.
    "standings index": Page(lambda week: "/standings/", 4, status=302),
    "standings elite": Page(lambda week: "/standings/elite/", 10),
    "standings d3a": Page(lambda week: "/standings/d3a/", 10),
    "standings kdh": Page(lambda week: "/standings/kdh/", 12),
    "standings kdh followed": Page(lambda week: "/standings/kdh/?team={team}", 12),
    "standings kdh for a coach": Page(lambda week: "/standings/kdh/", 17, who="coach"),
    "standings wg": Page(lambda week: "/standings/wg/", 12),
    "api standings elite": Page(lambda week: "/api/standings/elite/", 8),
    "api standings wg": Page(lambda week: "/api/standings/wg/", 8),
    # Infos équipes.
    "infos index": Page(lambda week: "/infos/", 4, status=302),
    "infos elite": Page(lambda week: "/infos/championship/elite/", 10),
    "infos kdh": Page(lambda week: "/infos/kdh/kdh/", 10),
    "infos wg": Page(lambda week: "/infos/wg/wg/", 10),
    "infos elite for a coach": Page(lambda week: "/infos/championship/elite/", 13, who="coach"),
    "infos kdh for a coach": Page(lambda week: "/infos/kdh/kdh/", 16, who="coach"),
    "api infos elite": Page(lambda week: "/api/infos/championship/elite/", 8),
    "api infos kdh": Page(lambda week: "/api/infos/kdh/kdh/", 8),
    # The matrices (R25).
    "matrices": Page(lambda week: "/matrices/", 3),
    "api matrices": Page(lambda week: "/api/matrices/kdh/", 3),
    # The seasons and their honours.
    "seasons": Page(lambda week: "/seasons/", 8),
    "season": Page(lambda week: "/seasons/1/", 12),
    "season team": Page(lambda week: "/seasons/teams/{team}/", 10),
    "api seasons": Page(lambda week: "/api/seasons/", 3),
    "api season current": Page(lambda week: "/api/seasons/current/", 4),
    "api season": Page(lambda week: "/api/seasons/1/", 4),
    # The rules: the guide reads nothing (its examples are played in memory), the rulings one.
    "rules": Page(lambda week: "/rules/", 0),
    "rulings": Page(lambda week: "/rules/rulings/", 1),
    # The admin's match list, the coach's pick page.
    "admin fixtures": Page(lambda week: "/admin/competitions/fixture/", 8, who="admin"),
    # R25: each round's matrix row, and its crowding pool's columns left (R2) — 7 of the 28.
    "picks": Page(lambda week: "/picks/", 28, who="coach"),
    # A team's page (its coach also reads the ledger there), the WG race.
    "team": Page(lambda week: "/teams/{team}/", 22),
    "team for its coach": Page(lambda week: "/teams/{team}/", 32, who="coach"),
    "wg race": Page(lambda week: "/wg/race/", 29),
    # The WG cup's page for a coach of one of its teams (their row and games highlighted); its
    # knockout stages are counted in test_wg_cup.py, the demo being in the group stage here.
    "standings wg for a coach": Page(lambda week: "/standings/wg/", 14, who="coach"),
}


def _client(league: DemoLeague, who: str) -> Client:
    client = Client(headers={"Accept-Language": "en"})
    if who == "admin":
        client.force_login(league.admin)
    elif who == "coach":
        client.force_login(_elite_first_coach(league))
    return client


def _elite_first_coach(league: DemoLeague) -> User:
    entry = league.season.entries.select_related("team__coach").get(division__slug="elite", code=1)
    return entry.team.coach


def _measure(league: DemoLeague) -> dict[str, tuple[int, int]]:
    """Every page's status and query count on ``league``, each asked once its caches are
    emptied."""
    team = _elite_first_coach(league).team.slug
    counts = {}
    for name, page in PAGES.items():
        client = _client(league, page.who)
        path = page.path(league.week).format(team=team)
        for cache in caches.all():
            cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        counts[name] = (response.status_code, len(queries))
    return counts


@pytest.fixture(scope="module")
def counts(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> dict[int, dict[str, tuple[int, int]]]:
    """Each page's query count at both weeks (each league built, measured, rolled back)."""
    measured = {}
    for week in (EARLY, LATER):
        with django_db_blocker.unblock(), transaction.atomic():
            measured[week] = _measure(demo_worlds.load(week=week))
            transaction.set_rollback(True)
    return measured


@pytest.mark.parametrize("name", list(PAGES))
def test_a_page_costs_the_same_queries_later_in_the_season(
    counts: dict[int, dict[str, tuple[int, int]]], name: str
) -> None:
    (early_status, early), (later_status, later) = counts[EARLY][name], counts[LATER][name]
    print(f"{name}: {early} → {later}")
    assert early_status == later_status == PAGES[name].status
    assert early == later, f"{name}: {early} queries at week {EARLY}, {later} at week {LATER}"
    assert later <= PAGES[name].bound, f"{name}: {later} queries, over {PAGES[name].bound}"
