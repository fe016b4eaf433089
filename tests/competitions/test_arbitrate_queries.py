"""``pool_round_arbitrate`` costs a constant number of queries (issue 11): the same for a
division early in the season (the demo at week 2) and well into it (week 6, more results, picks
and stock movements behind every team), whatever the division, so that a query added per team,
per game or per past round fails here. A team's ONR adds the read of its week (R14) and its
sanction's row, two queries, however many teams are ONR. How fast it is, is for
``bench/bench_arbitration.py`` to say.

Counted inside the test's transaction: the arbitration's own transaction is a savepoint here
(``SAVEPOINT`` and ``RELEASE`` are two of the queries counted).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoDbBlocker

from competitions.demo import DemoLeague
from competitions.models import Competition, PoolRound, StockMovement, TeamResult
from competitions.services import pool_round_arbitrate
from tests.demo_worlds import DemoWorlds

DIVISION_QUERIES = 18
"""A championship division's arbitration, without ONR team (one of them moves the public
pages' version: « played, being checked »). It was 20: the claim is now the locked read of the
pool round, and the round's status is worked out and written in one ``UPDATE``."""

ONR_QUERIES = 2
"""What a division with ONR teams adds (R14): their week read (its ONRs and sanctions, whether
someone waits), in one query, and their sanctions, in one insert. The entries' lock reads no
more than the entries: most divisions have no ONR team."""
STOCKS_QUERIES = 2
"""What a division where a team spent a stock (R6) adds: the balances in one update, the ledger's
lines in one insert. The demo's coaches pick at random, so a division may spend none."""

CUP_QUERIES = 27
"""The most a cup's pool round costs: its arbitration, its qualified teams and the next round
drawn (R15, R17, R18), and with a forfeit the week read of :data:`ONR_QUERIES`."""


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test here reads the database (and is skipped or fails without PostgreSQL)."""


def build(blocker: DjangoDbBlocker, worlds: DemoWorlds, week: int) -> Iterator[DemoLeague]:
    """The demo at ``week`` for the tests of one class, then rolled back."""
    with blocker.unblock(), transaction.atomic():
        yield worlds.load(week=week)
        transaction.set_rollback(True)


@pytest.fixture(scope="class")
def week_2(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> Iterator[DemoLeague]:
    yield from build(django_db_blocker, demo_worlds, 2)


@pytest.fixture(scope="class")
def week_6(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> Iterator[DemoLeague]:
    yield from build(django_db_blocker, demo_worlds, 6)


def arbitrate_week(demo: DemoLeague) -> dict[str, tuple[int, bool]]:
    """Arbitrate every pool round of the demo's waiting week in the referee's order; per pool
    (a division's slug, or the cup's), the queries it cost, less :data:`STOCKS_QUERIES` where no
    stock moved, and whether a team was ONR in it."""
    pool_rounds = (
        PoolRound.objects.filter(round__season=demo.season, round__week=demo.week)
        .select_related("pool__division", "round")
        .order_by("round__competition", "round__number", "pool__slug")
    )
    counted = {}
    for pool_round in pool_rounds:
        with CaptureQueriesContext(connection) as queries:
            pool_round_arbitrate(pool_round=pool_round, by=demo.referee)
        pool = pool_round.pool
        name = pool.division.slug if pool.division_id else pool.competition
        onr = TeamResult.objects.filter(pool_round=pool_round, onr=True).exists()
        spent = StockMovement.objects.filter(
            round=pool_round.round,
            entry__in=TeamResult.objects.filter(pool_round=pool_round).values("entry"),
        ).exists()
        counted[name] = (len(queries) + (0 if spent else STOCKS_QUERIES), onr)
    return counted


class TestWeek2:
    def test_every_division_costs_the_same_queries_and_an_onr_one_more(
        self, week_2: DemoLeague
    ) -> None:
        counted = arbitrate_week(week_2)
        divisions = {name: count for name, count in counted.items() if name not in Competition}
        assert len(divisions) == 7
        assert any(onr for _, onr in divisions.values())  # D3D's 05 (the demo's week 2)
        for name, (queries, onr) in divisions.items():
            assert queries == DIVISION_QUERIES + (ONR_QUERIES if onr else 0), name
        assert counted["kdh"][0] <= CUP_QUERIES


class TestWeek6:
    def test_a_division_costs_what_it_cost_at_week_2(self, week_6: DemoLeague) -> None:
        assert TeamResult.objects.filter(pool_round__round__week__lt=6).count() > 5 * 84
        counted = arbitrate_week(week_6)
        divisions = {name: count for name, count in counted.items() if name not in Competition}
        assert len(divisions) == 7
        assert sum(onr for _, onr in divisions.values()) == 2  # D2B's 09 (a second ONR), D3B's 11
        for name, (queries, onr) in divisions.items():
            assert queries == DIVISION_QUERIES + (ONR_QUERIES if onr else 0), name
        assert counted["kdh"][0] <= CUP_QUERIES
        assert counted["wg"][0] <= CUP_QUERIES
