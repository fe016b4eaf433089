"""The hot reads written out (``matrixhockey.db``): prepared once per PostgreSQL session and
executed from then on, whatever the transactions around them do, and read back as the ORM would."""

from __future__ import annotations

import pytest
from django.db import ProgrammingError, connection, transaction
from django.test.utils import CaptureQueriesContext

from league.models import Team
from matrixhockey.db import execute_prepared, fetch_models, fetch_values, model_columns

pytestmark = pytest.mark.django_db

TEAM_BY_SLUG = f"SELECT {model_columns(Team, 't')} FROM league_team t WHERE t.slug = %s"


def prepared_here() -> list[str]:
    """The statements prepared in this database session, as PostgreSQL lists them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements ORDER BY prepare_time")
        return [row[0] for row in cursor.fetchall()]


def test_a_hot_read_is_prepared_once_then_executed(enter_team) -> None:
    enter_team("Sleigh Dogs", code=1)
    enter_team("Freezing Ass", code=2)
    with CaptureQueriesContext(connection) as queries:
        [(first,)] = fetch_models(TEAM_BY_SLUG, ["sleigh-dogs"], Team)
        [(second,)] = fetch_models(TEAM_BY_SLUG, ["freezing-ass"], Team)
    assert (first.name, second.name) == ("Sleigh Dogs", "Freezing Ass")
    assert isinstance(first, Team) and first._state.db == "default"
    # The request's queries are the two EXECUTEs; the PREPARE is the session's, once.
    assert [q["sql"].split("(")[0].split()[0] for q in queries] == ["EXECUTE", "EXECUTE"]
    mine = [s for s in prepared_here() if "league_team t WHERE t.slug = $1" in s]
    assert len(mine) == 1


def test_a_rolled_back_transaction_keeps_the_statement_and_a_new_session_prepares_it_again(
    enter_team,
) -> None:
    enter_team("Sleigh Dogs", code=1)
    sql = "SELECT t.name FROM league_team t WHERE t.slug = %s AND %s"
    with pytest.raises(RuntimeError), transaction.atomic():
        assert fetch_values(sql, ["sleigh-dogs", True], [None]) == [("Sleigh Dogs",)]
        raise RuntimeError("rolled back")
    # Prepared in the rolled-back transaction: still there, not prepared twice (which fails).
    assert fetch_values(sql, ["sleigh-dogs", True], [None]) == [("Sleigh Dogs",)]
    assert fetch_values(sql, ["sleigh-dogs", False], [None]) == []


@pytest.mark.django_db(transaction=True)
def test_a_new_database_session_prepares_its_own(enter_team) -> None:
    enter_team("Sleigh Dogs", code=1)
    sql = "SELECT count(*) FROM league_team t WHERE t.slug <> %s"
    assert fetch_values(sql, ["nobody"], [None]) == [(1,)]
    before = connection.connection.info.backend_pid
    connection.close()  # as after a restart of PostgreSQL, or CONN_MAX_AGE
    assert fetch_values(sql, ["nobody"], [None]) == [(1,)]
    assert connection.connection.info.backend_pid != before
    assert len([s for s in prepared_here() if "t.slug <> $1" in s]) == 1


def test_placeholders_and_literal_percent_signs_reach_postgresql_as_written() -> None:
    with connection.cursor() as cursor:
        execute_prepared(cursor, "SELECT %s || '%%', %s + 1, 'a%%b' LIKE 'a%%'", ["50", 2])
        assert cursor.fetchone() == ("50%", 3, True)
        execute_prepared(cursor, "SELECT 1", [])
        assert cursor.fetchone() == (1,)


def test_a_parameter_compares_as_its_literal_would_whatever_the_column_s_type(
    championship_round,
) -> None:
    # The round's number is a smallint: a number beyond it matches nothing, and is no error
    # (an API caller may ask for round 1332554).
    sql = "SELECT r.id FROM competitions_round r WHERE r.number = %s"
    assert fetch_values(sql, [1], [None]) == [(championship_round.pk,)]
    assert fetch_values(sql, [1332554], [None]) == []
    assert fetch_values(sql, [None], [None]) == []
    assert fetch_values("SELECT %s::text, %s", ["7", [1, 2]], [None, None]) == [("7", [1, 2])]


def test_a_broken_statement_raises_django_s_error_and_the_next_one_runs() -> None:
    with pytest.raises(ProgrammingError), transaction.atomic():
        fetch_values("SELECT nothing FROM no_such_table WHERE x = %s", [1], [None])
    assert fetch_values("SELECT %s::int * 2", [21], [None]) == [(42,)]
