"""Small helpers for database constraints shared by the apps, PostgreSQL's advisory locks for
work under way, and the few statements the ORM cannot say (with the pick's hot reads in
``competitions/hot_sql.py``, the project's only SQL outside migrations)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.conf import settings
from django.core.management.color import no_style
from django.db import DatabaseError, connection, migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps
from django.db.models import QuerySet
from django.db.models.sql import UpdateQuery

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


# --- Statements the ORM cannot say ----------------------------------------------------------------
#
# SQL text, which tests/test_architecture.py allows here and in competitions/hot_sql.py only (the
# pick's hot reads): each function takes what the ORM builds and adds the one clause it has no
# word for, and tests/matrixhockey/test_db.py checks that it returns what its ORM twin does.


def database_answers() -> None:
    """Ask the database for ``SELECT 1``; a :class:`DatabaseError` when it does not answer (the
    health check: a pooled connection that went away is found by a query, not by a look at it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def published_results_void() -> None:
    """Let this transaction change an arbitrated or published pool round's record: its games,
    results and draws, its cup's qualified teams and its ONR sanctions, which the database
    otherwise refuses to change or delete (migrations ``competitions/0012_published_results_final``
    and ``0014_published_results_final_cups_onr``). Only the void-and-redo path
    (``competitions.services.void``, public and audited) says this, inside its own atomic block:
    the setting is transaction-local (``set_config(…, true)``), undone by a rollback, and taken
    back by :func:`published_results_final` when the void is done."""
    if connection.vendor != "postgresql":
        return
    if not connection.in_atomic_block:
        raise RuntimeError("published_results_void() needs a transaction")
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('matrixhockey.void', 'on', true)")


def published_results_final() -> None:
    """Make an arbitrated or published pool round's record final again in this transaction
    (the end of :func:`published_results_void`)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('matrixhockey.void', 'off', true)")


def update_returning(queryset: QuerySet, field: str, value: Any) -> list[Any]:
    """``queryset.update(**{field: value})`` in one statement that also gives back the value
    each updated row got (``RETURNING``): a value the database works out (a ``Case`` over the
    rows as this transaction sees them) without a second read. The ORM's ``update`` returns only
    a count; its query is built by the ORM, run here with that clause added."""
    query = cast(UpdateQuery, queryset.query.chain(UpdateQuery))
    query.add_update_values({field: value})
    sql, params = query.get_compiler(queryset.db).as_sql()
    column = connection.ops.quote_name(queryset.model._meta.get_field(field).column)
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} RETURNING {column}", params)
        return [row[0] for row in cursor.fetchall()]


def id_sequences_reset(model_classes: Collection[type[models.Model]]) -> None:
    """Move the id sequences of ``model_classes`` (and of their many-to-many tables) past the
    highest id each holds, after rows were written under ids of their own (a league moved in
    whole); the statements are Django's own, as ``loaddata`` runs them."""
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), list(model_classes)):
            cursor.execute(statement)
