"""The statements the ORM cannot say (``matrixhockey.db``): each returns what its ORM twin does,
with only the clause the ORM has no word for added."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Case, Exists, Value, When
from django.test.utils import CaptureQueriesContext

from competitions.models import Pool, PoolRound, Round
from matrixhockey.db import database_answers, update_returning

pytestmark = pytest.mark.django_db


def test_the_database_answers() -> None:
    with CaptureQueriesContext(connection) as queries:
        database_answers()
    assert [query["sql"] for query in queries] == ["SELECT 1"]


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
