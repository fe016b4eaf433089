"""The statements the ORM cannot say (``matrixhockey.db``): each returns what its ORM twin does,
with only the clause the ORM has no word for added."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Case, Exists, QuerySet, Value, When
from django.test.utils import CaptureQueriesContext

from competitions.models import Competition, Pool, PoolRound, Round
from league.models import Entry, Team
from matrixhockey.db import database_answers, rows_for_share, update_returning

pytestmark = pytest.mark.django_db


def test_the_database_answers() -> None:
    with CaptureQueriesContext(connection) as queries:
        database_answers()
    assert [query["sql"] for query in queries] == ["SELECT 1"]


def _division_pool_round(entry: Entry, round: Round, **more: object) -> QuerySet:
    """The pick's read (``services.picks``): its division's championship pool round."""
    return (
        PoolRound.objects.filter(
            round_id=round.pk,
            pool__season_id=round.season_id,
            pool__competition=Competition.CHAMPIONSHIP,
            pool__division_id=entry.division_id,
            **more,
        )
        .order_by("pk")
        .values_list("id", "status")[:1]
    )


def test_rows_read_for_share_are_the_orm_s_rows(
    elite_pool: Pool, championship_round: Round, coach: object
) -> None:
    pool_round = PoolRound.objects.create(pool=elite_pool, round=championship_round, seed="s")
    entry = Entry.objects.get(team=Team.objects.get(coach=coach))
    read = _division_pool_round(entry, championship_round)
    assert rows_for_share(read) == list(read) == [(pool_round.pk, PoolRound.Status.PENDING)]
    nothing = _division_pool_round(entry, championship_round, status=PoolRound.Status.PUBLISHED)
    assert rows_for_share(nothing) == list(nothing) == []


def test_rows_read_for_share_are_locked_for_share_and_only_in_their_own_table(
    elite_pool: Pool, championship_round: Round, coach: object
) -> None:
    PoolRound.objects.create(pool=elite_pool, round=championship_round, seed="s")
    entry = Entry.objects.get(team=Team.objects.get(coach=coach))
    with CaptureQueriesContext(connection) as queries:
        rows_for_share(_division_pool_round(entry, championship_round))
    [query] = queries
    assert query["sql"].endswith(f'FOR SHARE OF "{PoolRound._meta.db_table}"')


def _status(round: Round) -> Case:
    """A status worked out by the database, as ``round_status_refresh`` does."""
    pool_rounds = PoolRound.objects.filter(round_id=round.pk)
    return Case(
        When(~Exists(pool_rounds), then=Value(Round.Status.CLOSED)),
        When(
            ~Exists(pool_rounds.exclude(status=PoolRound.Status.PUBLISHED)),
            then=Value(Round.Status.PUBLISHED),
        ),
        default=Value(Round.Status.OPEN),
    )


@pytest.mark.parametrize("drawn", [False, True])
def test_an_update_returning_gives_what_the_orm_s_update_stores(
    elite_pool: Pool, championship_round: Round, drawn: bool
) -> None:
    if drawn:
        PoolRound.objects.create(pool=elite_pool, round=championship_round, seed="s")
    rounds = Round.objects.filter(pk=championship_round.pk)
    with CaptureQueriesContext(connection) as queries:
        returned = update_returning(rounds, "status", _status(championship_round))
    assert len(queries) == 1
    stored = list(rounds.values_list("status", flat=True))
    assert returned == stored == [Round.Status.OPEN if drawn else Round.Status.CLOSED]
    rounds.update(status=Round.Status.ARBITRATED)
    assert rounds.update(status=_status(championship_round)) == 1  # the ORM twin
    assert list(rounds.values_list("status", flat=True)) == returned


def test_an_update_returning_of_no_row_returns_nothing(championship_round: Round) -> None:
    nothing = Round.objects.filter(pk=championship_round.pk + 1000)
    assert update_returning(nothing, "status", Value(Round.Status.CLOSED)) == []
    assert nothing.update(status=Value(Round.Status.CLOSED)) == 0
