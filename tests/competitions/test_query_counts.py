"""A page costs a constant number of queries whatever the league's size and week (issue 11).

The demo league (``load_demo``, :mod:`competitions.demo`) is built at week 3 and at week 6 —
twice as far into its season: more published rounds, the KDH three rounds further, the WG's
group stage under way — and every public page and API read, the admin's match list and a
coach's ``/picks/`` is requested once on each, its SQL queries counted. A page must cost the
same at both weeks, and no more than its bound below.

Each league is built once for the module (in a transaction rolled back afterwards) and every
page is measured on it then, with the caches emptied before each request, so that what is
counted is the uncached path; the tests compare the figures. A page marked ``kept`` is asked
twice with the cache of public reads on, and its second answer counted: what a signed-in
person pays once the public part of the page is kept (``league.public_cache.public_fragment``).

The referee's desk builds every pool round of the week at once: the demo's referee holds every
pool (the week's seven divisions and both cups), another referee one division only, and both
desks cost the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from pytest_django import DjangoDbBlocker

from competitions.demo import REFEREE, DemoLeague
from competitions.models import Pool, Round
from league.public_cache import public_cache_forget
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
    """``""`` (a visitor), ``admin``, ``coach`` (the Elite's code-01 coach, in both cups),
    ``referee`` (the demo's, of every pool) or ``elite referee`` (of the Elite's pool only)."""
    status: int = 200
    kept: bool = False
    """Counted the second time, with the cache of public reads on."""


PAGES: dict[str, Page] = {
    # The home page reads the records its latest published week broke (issue 25): one query.
    "home": Page(lambda week: "/", 7),
    "home for a coach": Page(lambda week: "/", 16, who="coach"),
    # The public part kept, the coach's own added: their team's games and picks of the week.
    "home for a coach, kept": Page(lambda week: "/", 9, who="coach", kept=True),
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
    "standings elite for a coach": Page(lambda week: "/standings/elite/", 14, who="coach"),
    "standings elite for a coach, kept": Page(
        lambda week: "/standings/elite/", 5, who="coach", kept=True
    ),
    "standings kdh": Page(lambda week: "/standings/kdh/", 12),
    "standings kdh followed": Page(lambda week: "/standings/kdh/?team={team}", 12),
    "standings kdh for a coach": Page(lambda week: "/standings/kdh/", 16, who="coach"),
    "standings wg": Page(lambda week: "/standings/wg/", 12),
    "api standings elite": Page(lambda week: "/api/standings/elite/", 8),
    "api standings wg": Page(lambda week: "/api/standings/wg/", 8),
    # Infos équipes.
    "infos index": Page(lambda week: "/infos/", 4, status=302),
    "infos elite": Page(lambda week: "/infos/championship/elite/", 10),
    "infos kdh": Page(lambda week: "/infos/kdh/kdh/", 10),
    "infos wg": Page(lambda week: "/infos/wg/wg/", 10),
    "infos elite for a coach": Page(lambda week: "/infos/championship/elite/", 12, who="coach"),
    "infos kdh for a coach": Page(lambda week: "/infos/kdh/kdh/", 15, who="coach"),
    "api infos elite": Page(lambda week: "/api/infos/championship/elite/", 8),
    "api infos kdh": Page(lambda week: "/api/infos/kdh/kdh/", 8),
    # The matrices (R25).
    "matrices": Page(lambda week: "/matrices/", 3),
    "api matrices": Page(lambda week: "/api/matrices/kdh/", 3),
    # The seasons and their honours.
    "seasons": Page(lambda week: "/seasons/", 8),
    "season": Page(lambda week: "/seasons/1/", 12),
    # A team's honours: its entries, then its season lines (every closed season's, issue 25).
    "season team": Page(lambda week: "/seasons/teams/{team}/", 11),
    "api seasons": Page(lambda week: "/api/seasons/", 3),
    "api season current": Page(lambda week: "/api/seasons/current/", 4),
    "api season": Page(lambda week: "/api/seasons/1/", 4),
    # The rules: the guide reads nothing (its examples are played in memory), the rulings one.
    "rules": Page(lambda week: "/rules/", 0),
    "rulings": Page(lambda week: "/rules/rulings/", 1),
    # The admin's match list, the coach's pick page.
    "admin fixtures": Page(lambda week: "/admin/competitions/fixture/", 8, who="admin"),
    # R25: each round's matrix row, and its crowding pool's columns left (R2) — 6 of the 22;
    # the header's team and referee rights are the view's one read of the team.
    "picks": Page(lambda week: "/picks/", 22, who="coach"),
    # A team's page (its coach also reads the ledger there), the WG race; its division's table
    # read once, for the season's place and the history; its cup runs' games to come: the
    # unpublished cup rounds, their public pairings (two) and whether the WG's semis are drawn;
    # its history's closed seasons from its season lines (issue 25).
    "team": Page(lambda week: "/teams/{team}/", 21),
    "team for its coach": Page(lambda week: "/teams/{team}/", 30, who="coach"),
    "team, kept": Page(lambda week: "/teams/{team}/", 0, kept=True),
    "team for its coach, kept": Page(lambda week: "/teams/{team}/", 11, who="coach", kept=True),
    "team for another coach, kept": Page(lambda week: "/teams/{other}/", 4, who="coach", kept=True),
    "wg race": Page(lambda week: "/wg/race/", 10),
    # The WG cup's page for a coach of one of its teams (their row and games highlighted); its
    # knockout stages are counted in test_wg_cup.py, the demo being in the group stage here.
    "standings wg for a coach": Page(lambda week: "/standings/wg/", 13, who="coach"),
    # The referee's desk: every pool round of the week, the same queries for one or nine.
    "referee desk": Page(lambda week: "/referee/", 12, who="referee"),
    "referee desk of one pool": Page(lambda week: "/referee/", 12, who="elite referee"),
    "referee desk for staff": Page(lambda week: "/referee/", 12, who="admin"),
    "referee round": Page(lambda week: f"/referee/championship/elite/{week}/", 14, who="referee"),
}


def _client(league: DemoLeague, who: str) -> Client:
    client = Client(headers={"Accept-Language": "en"})
    if who == "admin":
        client.force_login(league.admin)
    elif who == "coach":
        client.force_login(_elite_first_coach(league))
    elif who == "referee":
        client.force_login(User.objects.get(username=REFEREE[0]))
    elif who == "elite referee":
        client.force_login(_elite_referee(league))
    return client


def _elite_referee(league: DemoLeague) -> User:
    """A referee of the Elite's pool only: one pool round a week on their desk."""
    referee, _made = User.objects.get_or_create(username="elite-referee")
    Pool.objects.get(season=league.season, slug="elite").referees.add(referee)
    return referee


def _elite_first_coach(league: DemoLeague) -> User:
    entry = league.season.entries.select_related("team__coach").get(division__slug="elite", code=1)
    return entry.team.coach


def _measure(league: DemoLeague) -> dict[str, tuple[int, int]]:
    """Every page's status and query count on ``league``, each asked once its caches are
    emptied (a ``kept`` page: asked again with the cache of public reads on)."""
    team = _elite_first_coach(league).team.slug
    other = league.season.entries.get(division__slug="d3a", code=2).team.slug
    counts = {}
    for name, page in PAGES.items():
        client = _client(league, page.who)
        path = page.path(league.week).format(team=team, other=other)
        for cache in caches.all():
            cache.clear()
        public_cache_forget()
        with override_settings(PUBLIC_CACHE_SECONDS=60 if page.kept else 0):
            if page.kept:
                client.get(path)
            with CaptureQueriesContext(connection) as queries:
                response = client.get(path)
        counts[name] = (response.status_code, len(queries))
    for cache in caches.all():
        cache.clear()
    public_cache_forget()
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


def test_the_referee_desk_costs_the_same_for_one_pool_round_as_for_a_whole_week(
    counts: dict[int, dict[str, tuple[int, int]]],
) -> None:
    for week in (EARLY, LATER):
        assert counts[week]["referee desk of one pool"] == counts[week]["referee desk"]


def test_a_kept_page_costs_a_signed_in_person_fewer_queries(
    counts: dict[int, dict[str, tuple[int, int]]],
) -> None:
    later = counts[LATER]
    for computed, kept in [
        ("home for a coach", "home for a coach, kept"),
        ("standings elite for a coach", "standings elite for a coach, kept"),
        ("team for its coach", "team for its coach, kept"),
        ("team", "team, kept"),
    ]:
        assert later[kept][1] < later[computed][1], (computed, later[computed], later[kept])


@pytest.mark.parametrize("name", list(PAGES))
def test_a_page_costs_the_same_queries_later_in_the_season(
    counts: dict[int, dict[str, tuple[int, int]]], name: str
) -> None:
    (early_status, early), (later_status, later) = counts[EARLY][name], counts[LATER][name]
    print(f"{name}: {early} → {later}")
    assert early_status == later_status == PAGES[name].status
    assert early == later, f"{name}: {early} queries at week {EARLY}, {later} at week {LATER}"
    assert later <= PAGES[name].bound, f"{name}: {later} queries, over {PAGES[name].bound}"


def test_the_pick_page_costs_the_same_for_one_open_week_as_for_every_week_ahead(
    demo_worlds: DemoWorlds,
) -> None:
    """Picks in advance: every round whose deadline is ahead is on the page, each its own card,
    and the page reads them all at once."""
    league = demo_worlds.load(week=LATER)
    client = _client(league, "coach")

    def measured() -> tuple[int, int]:
        for cache in caches.all():
            cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/picks/")
        assert response.status_code == 200
        return len(queries), response.content.decode().count('class="pick-form')

    every_week, cards = measured()
    open_rounds = Round.objects.filter(season=league.season, status=Round.Status.OPEN)
    first_week = open_rounds.order_by("week").values_list("week", flat=True).first()
    open_rounds.exclude(week=first_week).update(status=Round.Status.CLOSED)
    one_week, fewer_cards = measured()
    assert fewer_cards < cards
    assert one_week == every_week
