"""The pick's hot reads, written out: the few statements kept as SQL text because their ORM
queries missed the picks' user-facing target (84 coaches at once, p99 under 1 s).

Every coach's pick runs each of them once. Built by the ORM, each of these cost a pick 0.7–1.6 ms
of Python (building and compiling the query, then the model instances) where PostgreSQL runs it in
0.05–0.2 ms; on the 2-core machine with the whole league sending at once that was the difference
between about 150 and 55 picks a second (README, « Benchmarks »). Plain ``cursor.execute`` with
``%s`` parameters, nothing cached between calls. Each has its ORM twin in
``tests/competitions/test_hot_sql.py``, which checks on a played demo league that both read the
same rows; ``tests/test_architecture.py`` allows SQL text here and in ``matrixhockey/db.py``
only.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from django.db import connection, models

from competitions.models import (
    Competition,
    Pick,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    TeamResult,
)
from league.models import Entry, Season, Team

M = TypeVar("M", bound=models.Model)


def _columns(model: type[models.Model], alias: str) -> str:
    """Every concrete column of ``model`` read as table ``alias``, in its fields' order."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def _converted(fields: Sequence[models.Field[Any, Any]], values: Sequence[Any]) -> list[Any]:
    """Each value as the driver gives it, converted as the ORM converts a value of its field:
    the database backend's converters (SQLite's datetimes, read as text, made aware in UTC),
    then the field's own (``from_db_value``: a JSON text)."""
    converted = []
    for field, value in zip(fields, values, strict=True):
        column = field.get_col(field.model._meta.db_table)
        for converter in [
            *connection.ops.get_db_converters(column),
            *column.get_db_converters(connection),
        ]:
            value = converter(value, column, connection)
        converted.append(value)
    return converted


def _instance(model: type[M], values: Sequence[Any]) -> M:
    """A ``model`` instance from its concrete columns' values as the driver gives them, each
    converted as the ORM would (:func:`_converted`)."""
    fields = model._meta.concrete_fields
    return model.from_db(
        connection.alias, [field.attname for field in fields], _converted(fields, values)
    )


def pick_team_and_round(
    *, user_id: int, competition: str, number: int
) -> tuple[Team, Round | None] | None:
    """The team ``user_id`` coaches or is the deputy of (the first by name), with round
    ``number`` of ``competition`` in the current season and its season (``None`` when there is
    no such round); ``None`` without a team. One query: the ORM joins related rows only, and the
    round is not the team's."""
    sizes = [len(model._meta.concrete_fields) for model in (Team, Round, Season)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_columns(Team, 't')}, {_columns(Round, 'r')}, {_columns(Season, 's')}"
            f" FROM {Team._meta.db_table} t LEFT OUTER JOIN ({Round._meta.db_table} r"
            f" INNER JOIN {Season._meta.db_table} s ON s.id = r.season_id AND s.is_current)"
            " ON r.competition = %s AND r.number = %s"
            " WHERE t.coach_id = %s OR t.deputy_id = %s ORDER BY t.name, t.id, r.id LIMIT 1",
            [competition, number, user_id, user_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    team = _instance(Team, row[: sizes[0]])
    if row[sizes[0]] is None:
        return team, None
    round = _instance(Round, row[sizes[0] : sizes[0] + sizes[1]])
    round.season = _instance(Season, row[sizes[0] + sizes[1] :])
    return team, round


def division_pool_round_for_share(*, round: Round, team_id: int) -> tuple[int, str] | None:
    """The id and status of the championship pool round of ``round`` for the division of
    ``team_id``'s entry in its season (not replaced), locked ``FOR SHARE`` on PostgreSQL (the ORM
    has no word for it); ``None`` before the pools are drawn."""
    lock = " FOR SHARE OF pr" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pr.id, pr.status FROM {PoolRound._meta.db_table} pr"
            f" INNER JOIN {Pool._meta.db_table} p ON p.id = pr.pool_id"
            " WHERE pr.round_id = %s AND p.season_id = %s AND p.competition = %s"
            " AND p.division_id = (SELECT e.division_id"
            f" FROM {Entry._meta.db_table} e WHERE e.season_id = %s AND e.team_id = %s"
            " AND e.replaced_at IS NULL ORDER BY e.id LIMIT 1)"
            f" ORDER BY pr.id LIMIT 1{lock}",
            [round.pk, round.season_id, str(Competition.CHAMPIONSHIP), round.season_id, team_id],
        )
        row = cursor.fetchone()
    return (row[0], row[1]) if row else None


def entry_for_update(*, season_id: int, team_id: int) -> Entry | None:
    """``team_id``'s entry in ``season_id`` (not replaced), with its team, locked ``FOR UPDATE``
    (the entry's row only) on PostgreSQL; ``None`` without one."""
    size = len(Entry._meta.concrete_fields)
    lock = " FOR UPDATE OF e" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_columns(Entry, 'e')}, {_columns(Team, 't')} FROM {Entry._meta.db_table} e"
            f" INNER JOIN {Team._meta.db_table} t ON t.id = e.team_id"
            " WHERE e.season_id = %s AND e.team_id = %s AND e.replaced_at IS NULL"
            f" ORDER BY e.id LIMIT 1{lock}",
            [season_id, team_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    entry = _instance(Entry, row[:size])
    entry.team = _instance(Team, row[size:])
    return entry


def used_rows(
    *,
    entry_ids: Sequence[int],
    competitions: Sequence[str],
    statuses: Sequence[str],
    before_round: int | None,
) -> list[tuple[int, str, str, str, str, str, str | None]]:
    """The team results of ``entry_ids`` in ``competitions``' pool rounds of ``statuses`` (below
    round ``before_round``), in play order: entry, competition, column, extra time, shootout,
    the pool round's status and the normalized notation of the pick played (``None``: no pick,
    an ONR or a dummy team's random one)."""

    def marks(values: Sequence[Any]) -> str:
        return ", ".join(["%s"] * len(values))

    before = " AND r.number < %s" if before_round is not None else ""
    params: list[Any] = [*entry_ids, *map(str, competitions), *map(str, statuses)]
    if before_round is not None:
        params.append(before_round)
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT tr.entry_id, r.competition, tr."column", tr.extra_time, tr.shootout,'
            " pr.status, p.normalized"
            f" FROM {TeamResult._meta.db_table} tr"
            f" INNER JOIN {PoolRound._meta.db_table} pr ON pr.id = tr.pool_round_id"
            f" INNER JOIN {Round._meta.db_table} r ON r.id = pr.round_id"
            f" LEFT OUTER JOIN {Pick._meta.db_table} p ON p.id = tr.pick_id"
            f" WHERE tr.entry_id IN ({marks(entry_ids)})"
            f" AND r.competition IN ({marks(competitions)}) AND pr.status IN ({marks(statuses)})"
            f"{before} ORDER BY r.number, tr.id",
            params,
        )
        return cursor.fetchall()


def unplayed_rounds(
    *,
    season_id: int,
    before: datetime,
    division_id: int | None,
    entry_id: int,
    played: Sequence[str],
) -> list[Round]:
    """The rounds of ``season_id`` with a deadline before ``before`` whose pool round for the
    entry ``entry_id`` (its championship division ``division_id``, the cups' pools it is a member
    of) has none of the statuses ``played``: their id,
    competition, number and deadline only (the rest deferred)."""
    played = [str(status) for status in played]
    marks = ", ".join(["%s"] * len(played))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT r.id, r.competition, r.number, r.deadline FROM {Round._meta.db_table} r"
            " WHERE r.season_id = %s AND r.deadline < %s AND NOT EXISTS (SELECT 1"
            f" FROM {PoolRound._meta.db_table} pr INNER JOIN {Pool._meta.db_table} p"
            f" ON p.id = pr.pool_id LEFT OUTER JOIN {PoolMember._meta.db_table} m"
            f" ON m.pool_id = p.id WHERE pr.round_id = r.id AND pr.status IN ({marks})"
            " AND ((p.competition = %s AND p.division_id = %s) OR m.entry_id = %s))",
            [
                season_id,
                connection.ops.adapt_datetimefield_value(before),
                *played,
                str(Competition.CHAMPIONSHIP),
                division_id,
                entry_id,
            ],
        )
        rows = cursor.fetchall()
    names = ["id", "competition", "number", "deadline"]
    concrete = {field.name: field for field in Round._meta.concrete_fields}
    fields = [concrete[name] for name in names]
    return [Round.from_db(connection.alias, names, _converted(fields, row)) for row in rows]


def round_picks(*, entry_id: int, round_ids: Sequence[int]) -> list[tuple[int, str]]:
    """The picks of the entry ``entry_id`` for ``round_ids`` (round and normalized notation), by
    round, time received and id: the last of a round is its current pick (R12)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT round_id, normalized FROM {Pick._meta.db_table}"
            f" WHERE entry_id = %s AND round_id IN ({', '.join(['%s'] * len(round_ids))})"
            " ORDER BY round_id, received_at, id",
            [entry_id, *round_ids],
        )
        return cursor.fetchall()
