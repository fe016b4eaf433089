"""The demo league's worlds (``demo_load(week=N)``), each played through the services once per
test session and restored, row for row, wherever a test module asks for it again.

Playing the demo costs from one second (week 1) to about five (week 11) on the 2-core CI
machine, and a dozen modules ask for it. The first ask of a week builds it with
:func:`competitions.demo.demo_load` inside a savepoint and copies, with PostgreSQL's ``COPY``,
every table the demo changed; the savepoint is then rolled back. Every ask (the first one
included) restores those rows with ``COPY … FROM`` in the caller's transaction and sets the
tables' id sequences after them, so the module's own rollback (or ``flush``) removes them as it
removed a world it built itself, and what a test writes never reaches the next module.

Why a copy restored in the caller's transaction rather than a template database
(``CREATE DATABASE … TEMPLATE``): pytest-django keeps its connections to the one test database
for the whole session, and each test's ``db`` isolation is a transaction on that database;
switching the database under it per module would mean closing every connection and copying the
whole database's files (hundreds of milliseconds to seconds here), while the rows of a demo world
are restored in well under a second and the modules keep their ``atomic()`` + rollback shape.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from competitions.demo import DemoLeague, demo_load, demo_starts_on
from tests.final_results import unguarded


@dataclass(frozen=True)
class _World:
    league: DemoLeague
    rows: dict[str, bytes]
    """Each table the demo changed: its whole content, as ``COPY … TO STDOUT`` wrote it."""
    replaced: frozenset[str]
    """Of those, the tables that held rows before (the migrations' own): emptied first."""
    kept: dict[str, bytes]
    """The other tables that held rows before (content types, permissions…), as they were: the
    demo's rows point at them (the audit log at content types), so the world is restored only
    onto the same (a flush followed by ``post_migrate`` numbers the content types anew)."""


def _tables() -> list[str]:
    return sorted(connection.introspection.table_names(include_views=False))


def _copy_out(tables: list[str]) -> dict[str, bytes]:
    contents = {}
    with connection.cursor() as cursor:
        for table in tables:
            buffer = io.BytesIO()
            cursor.copy_expert(f"COPY {connection.ops.quote_name(table)} TO STDOUT", buffer)
            contents[table] = buffer.getvalue()
    return contents


def content_types_reread() -> None:
    """Read Django's per-process cache of content types again from the table. Building,
    restoring or rolling back a world can renumber ``django_content_type`` under that cache; a
    test then writing an audit record would point at a content type that is gone. Read for the
    models only, not their many-to-many tables, which have no content type (a lookup creates a
    missing one, which is a write)."""
    ContentType.objects.clear_cache()
    ContentType.objects.get_for_models(*apps.get_models())


def content_types_forget() -> None:
    """Empty Django's per-process cache of content types (the next lookup reads the table), where
    the database cannot be read: after a flush followed by the session's serialized rows, which
    brings back the first ids without ``post_migrate``, hence without its own clearing."""
    ContentType.objects.clear_cache()


def _models_by_table() -> dict[str, type[Model]]:
    return {
        model._meta.db_table: model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }


class DemoWorlds:
    """The session's demo worlds, by week (see the module's docstring)."""

    def __init__(self) -> None:
        self._worlds: dict[tuple[int, object], _World] = {}

    def load(self, *, week: int) -> DemoLeague:
        """The demo at ``week`` placed around now, as ``demo_load(week=week)`` makes it, in the
        caller's transaction (the database must hold no league, as for ``demo_load``)."""
        # The demo is placed around now (its waiting week's deadline the last one passed): a
        # world built before a deadline passed is built again after it.
        key = (week, demo_starts_on(timezone.now(), week))
        world = self._worlds.get(key)
        if world is None or _copy_out(list(world.kept)) != world.kept:
            world = self._worlds[key] = self._build(week)
        self._restore(world)
        return copy.deepcopy(world.league)

    @staticmethod
    def _build(week: int) -> _World:
        tables = _tables()
        with transaction.atomic():
            before = _copy_out(tables)
            league = demo_load(week=week)
            after = _copy_out(tables)
            transaction.set_rollback(True)
        content_types_reread()
        changed = {table: rows for table, rows in after.items() if rows != before[table]}
        return _World(
            league=league,
            rows=changed,
            replaced=frozenset(table for table in changed if before[table]),
            kept={table: rows for table, rows in before.items() if rows and table not in changed},
        )

    @staticmethod
    def _restore(world: _World) -> None:
        models = _models_by_table()
        # One transaction (a savepoint inside the caller's): the foreign keys, deferred, are
        # checked once every table is back. Rows of played rounds restored over others are
        # written past the database's guard on final results (tests.final_results).
        with unguarded(), connection.cursor() as cursor:
            for table, rows in world.rows.items():
                name = connection.ops.quote_name(table)
                if table in world.replaced:
                    cursor.execute(f"DELETE FROM {name}")
                cursor.copy_expert(f"COPY {name} FROM STDIN", io.BytesIO(rows))
            restored = [models[table] for table in world.rows if table in models]
            for statement in connection.ops.sequence_reset_sql(no_style(), restored):
                cursor.execute(statement)
        content_types_reread()


def demo_world(week: int, *, scope: Literal["module", "class"] = "module") -> Callable[..., Any]:
    """A fixture: the demo at ``week``, restored once for the tests of a module (or a class) and
    rolled back after them; each test's own changes are rolled back after it (``db``).

    ``week_6 = demo_world(6)`` in a test module names the fixture ``week_6``."""

    @pytest.fixture(scope=scope)
    def world(
        django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
    ) -> Iterator[DemoLeague]:
        with django_db_blocker.unblock():
            with transaction.atomic():
                yield demo_worlds.load(week=week)
                transaction.set_rollback(True)
            content_types_reread()

    return world
