"""Small helpers for database constraints shared by the apps."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, connection, migrations, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.backends.signals import connection_created
from django.db.backends.utils import CursorWrapper
from django.db.migrations.state import StateApps
from django.dispatch import receiver

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django_stubs_ext import StrOrPromise

M = TypeVar("M", bound=models.Model)


def save_valid(instance: M, *, exclude: tuple[str, ...] = ()) -> M:
    """Validate ``instance`` (fields, ``clean()``, constraints) and save it; services write rows
    this way so that callers get a ``ValidationError`` with a message, not an IntegrityError."""
    instance.full_clean(exclude=exclude)
    instance.save()
    return instance


def choices_constraint(
    field: str, choices: type[models.Choices], name: str
) -> models.CheckConstraint:
    """A check that ``field`` holds one of ``choices``' values, so no writer can bypass them."""
    return models.CheckConstraint(condition=models.Q(**{f"{field}__in": choices.values}), name=name)


class AppendOnlyError(Exception):
    """A write that would change or delete a row of an append-only history."""


class AppendOnlyQuerySet(models.QuerySet):
    """Refuses bulk updates and deletes: history rows are only ever added."""

    def update(self, **kwargs: object) -> int:
        raise AppendOnlyError(f"{self.model._meta.label} is append-only: update refused")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"{self.model._meta.label} is append-only: delete refused")


class AppendOnlyModel(models.Model):
    """A history row: saved once, never changed or deleted (on PostgreSQL a trigger enforces it)."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError(f"{self._meta.label} is append-only: change refused")
        super().save(*args, **kwargs)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"{self._meta.label} is append-only: delete refused")


_APPEND_ONLY_FUNCTION = """
CREATE OR REPLACE FUNCTION matrixhockey_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def append_only_triggers(*tables: str) -> migrations.RunPython:
    """A migration operation: on PostgreSQL, ``tables`` refuse UPDATE and DELETE in the database
    itself. The models refuse them too (:class:`AppendOnlyModel`); the trigger also stops raw
    SQL and any path that bypasses the ORM. SQLite, the embedded development default, keeps only
    the model-level guard."""

    def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(_APPEND_ONLY_FUNCTION, params=None)
        for table in tables:
            schema_editor.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION matrixhockey_append_only()"
            )

    def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        for table in tables:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")

    return migrations.RunPython(create, drop)


def done_by(verbose_name: StrOrPromise) -> models.ForeignKey[User | None, User | None]:
    """A field for the person who did something to a row (entered a pick, arbitrated a round…):
    optional (a task or a command acts for nobody), kept when the person goes, no reverse
    accessor on the user."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=verbose_name,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )


# --- Work under way, as PostgreSQL sees it -------------------------------------------------------


@contextmanager
def work_lock(namespace: int, key: int) -> Iterator[bool]:
    """Hold PostgreSQL's session advisory lock ``(namespace, key)`` while the block runs; yields
    whether it was free (``False``: another session holds it, the block runs anyway).

    The lock says "this work is under way on a live process": a worker killed with SIGKILL or
    whose machine went away loses its database session, and PostgreSQL releases the lock with it,
    so :func:`work_lock_held` tells a running job from one whose worker died without any clock or
    heartbeat. Elsewhere than on PostgreSQL (SQLite, the embedded default) nothing is locked.
    """
    if connection.vendor != "postgresql":
        yield True
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [namespace, key])
        taken = bool(cursor.fetchone()[0])
    try:
        yield taken
    finally:
        if taken:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [namespace, key])
            except DatabaseError:
                # The session is gone (the database restarted, the connection broke): so is
                # the lock; the block's own error is the one to hear about.
                pass


def work_locks_tell() -> bool:
    """Whether :func:`work_lock_held` can tell a live worker from a lost one (PostgreSQL)."""
    return connection.vendor == "postgresql"


def work_lock_held(namespace: int, key: int) -> bool:
    """Whether a live session holds :func:`work_lock` ``(namespace, key)`` (a plain read of
    ``pg_locks``; always ``False`` elsewhere than on PostgreSQL)."""
    return key in work_locks_held(namespace, [key])


def work_locks_held(namespace: int, keys: Collection[int]) -> set[int]:
    """Which of ``keys`` a live session holds :func:`work_lock` ``(namespace, key)`` on, in one
    read of ``pg_locks`` (a page listing many jobs asks once); none elsewhere than on
    PostgreSQL, and no query for no key."""
    if connection.vendor != "postgresql" or not keys:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND classid = %s AND objid = ANY(%s) AND objsubid = 2",
            [namespace, list(keys)],
        )
        return {int(objid) for (objid,) in cursor.fetchall()}


# --- Hot reads written out ------------------------------------------------------------------------

_PREPARED: dict[int, set[str]] = {}
"""Per open PostgreSQL connection (``id`` of the driver's connection), the names of the
statements :func:`execute_prepared` has prepared in its session; emptied for every new one."""


@receiver(connection_created, dispatch_uid="matrixhockey.db.prepared_forget")
def _prepared_forget(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    """A new database session has no prepared statement (the driver's object may reuse the
    ``id`` of a closed one)."""
    if connection.vendor == "postgresql":
        _PREPARED[id(connection.connection)] = set()


def _numbered(sql: str) -> str:
    """``sql`` as PostgreSQL's ``PREPARE`` takes it, sent without parameters: its ``%s``
    placeholders as ``$1``, ``$2``…, and ``%%`` as the ``%`` the driver would have made of it."""
    count = itertools.count(1)
    return re.sub(r"%[%s]", lambda m: "%" if m.group() == "%%" else f"${next(count)}", sql)


_SCALAR_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),  # before int, of which it is a kind
    (int, "bigint"),
    (float, "double precision"),
    (Decimal, "numeric"),
    (str, "text"),
    (datetime, "timestamptz"),
    (date, "date"),
)


def _parameter_type(value: object) -> str:
    """The type a prepared statement's parameter is declared with, from the Python value the
    driver would have written as a literal; ``unknown`` leaves PostgreSQL to infer it.

    Declared, not inferred from the column: a smallint column's inferred parameter would refuse
    a larger number (an error) where the literal simply matched no row."""
    if isinstance(value, datetime) and value.tzinfo is None:
        return "timestamp"
    for kind, name in _SCALAR_TYPES:
        if isinstance(value, kind):
            return name
    if isinstance(value, list | tuple) and value:
        types = {_parameter_type(item) for item in value}
        if len(types) == 1 and "unknown" not in types and not next(iter(types)).endswith("]"):
            return f"{types.pop()}[]"
    return "unknown"


def execute_prepared(cursor: CursorWrapper, sql: str, params: list[Any]) -> None:
    """Run ``sql`` (``%s`` placeholders) on ``cursor``; on PostgreSQL, as a statement prepared
    once per database session and executed with ``params`` from then on.

    A written-out hot read is the same text at every call, and PostgreSQL spends longer planning
    such a join than running it (0.15–0.25 ms against 0.03–0.1 ms for a pick's reads, measured
    with ``EXPLAIN (ANALYZE, SUMMARY)``): prepared, it is planned once, or a few times until
    PostgreSQL keeps a generic plan. One statement per text and parameter types
    (:func:`_parameter_type`), so that it compares as the literal would have. The ``PREPARE``
    goes through the driver's own cursor, as the session's set-up rather than one of the
    request's queries (query counts stay what the request asks); its errors are Django's, like
    any query's. A prepared statement outlives a rolled-back transaction, so it is prepared once
    whatever happens after.
    """
    if connection.vendor != "postgresql":
        cursor.execute(sql, params)
        return
    types = ", ".join(_parameter_type(value) for value in params)
    name = "hot_" + hashlib.blake2b(f"{sql}|{types}".encode(), digest_size=8).hexdigest()
    prepared = _PREPARED.setdefault(id(connection.connection), set())
    if name not in prepared:
        declared = f" ({types})" if params else ""
        with connection.wrap_database_errors:
            cursor.cursor.execute(f"PREPARE {name}{declared} AS {_numbered(sql)}")
        prepared.add(name)
    arguments = f"({', '.join(['%s'] * len(params))})" if params else ""
    cursor.execute(f"EXECUTE {name}{arguments}", params)


def model_columns(model: type[models.Model], alias: str) -> str:
    """The select list of every concrete column of ``model`` read as table ``alias``, in the
    order :func:`fetch_models` reads them back."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


_CONVERTERS: dict[tuple[str, type[models.Model]], list[tuple[int, list, object]]] = {}


def _converters(model: type[models.Model]) -> list[tuple[int, list, object]]:
    """Per column of ``model``, the backend's and the field's converters, as the ORM's compiler
    applies them to what the database driver returns (a JSON text, SQLite's dates…)."""
    key = (connection.vendor, model)
    found = _CONVERTERS.get(key)
    if found is None:
        found = []
        for index, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(model._meta.db_table)
            functions = connection.ops.get_db_converters(column) + column.get_db_converters(
                connection
            )
            if functions:
                found.append((index, functions, column))
        _CONVERTERS[key] = found
    return found


def fetch_models(
    sql: str, params: list[object], *models_read: type[models.Model]
) -> list[tuple[Any, ...]]:
    """Run ``sql`` — selecting :func:`model_columns` of each of ``models_read`` in turn — and
    give each row as instances of them (``None`` for one whose primary key is null: an outer
    join that found nothing), as the ORM would build them, without building the query.

    For the few hot reads where building a query costs several times running it (a pick, an
    arbitration, on a busy machine): the statement is written once, the rows are the models'.
    """
    with connection.cursor() as cursor:
        execute_prepared(cursor, sql, params)
        rows = cursor.fetchall()
    specs = []
    for model in models_read:
        fields = model._meta.concrete_fields
        specs.append((model, [field.attname for field in fields], _converters(model)))
    found = []
    for row in rows:
        instances: list[Any] = []
        start = 0
        for model, names, converters in specs:
            values = list(row[start : start + len(names)])
            start += len(names)
            if values[0] is None:
                instances.append(None)
                continue
            for index, functions, column in converters:
                value = values[index]
                for function in functions:
                    value = function(value, column, connection)
                values[index] = value
            instances.append(model.from_db(connection.alias, names, values))
        instances += row[start:]  # what the statement selects after the models' columns
        found.append(tuple(instances))
    return found


def fetch_values(sql: str, params: list[object], fields: list[models.Field | None]) -> list[tuple]:
    """Run ``sql`` and give its rows with each column converted as the ORM converts the model
    field ``fields`` names for it (``None``: as the driver returns it) — a ``values_list`` of a
    hot read, written out (see :func:`fetch_models`)."""
    with connection.cursor() as cursor:
        execute_prepared(cursor, sql, params)
        rows = cursor.fetchall()
    converters = []
    for index, field in enumerate(fields):
        if field is None:
            continue
        column = field.get_col(field.model._meta.db_table)
        functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if functions:
            converters.append((index, functions, column))
    if not converters:
        return rows
    converted = []
    for row in rows:
        values = list(row)
        for index, functions, column in converters:
            for function in functions:
                values[index] = function(values[index], column, connection)
        converted.append(tuple(values))
    return converted


def db_datetime(value: Any) -> Any:
    """A datetime as a written-out statement's parameter, as the ORM would pass it (naive UTC on
    SQLite, which compares texts; unchanged on PostgreSQL)."""
    return connection.ops.adapt_datetimefield_value(value)
