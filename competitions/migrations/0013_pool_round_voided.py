"""A pool round keeps the time and reason of its last void, for the pages that say it was
voided and replayed (the audit log is history, read by nothing that decides).

Both are written by ``pool_round_void`` under the void setting; once the round is arbitrated
again the database's guard on final results (0012) refuses to change them too, so a published
notice can be rewritten by nothing but another void.
"""

from importlib import import_module

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

_GUARD = import_module("competitions.migrations.0012_published_results_final")._FUNCTIONS
_START = "CREATE OR REPLACE FUNCTION matrixhockey_poolround_final()"
_END = "$$ LANGUAGE plpgsql;"
# 0012's guard of the pool round's own row, as it stands.
_BEFORE = _GUARD[_GUARD.index(_START) :]
_BEFORE = _BEFORE[: _BEFORE.index(_END) + len(_END)]
_KEPT = "        AND NEW.arbitrated_by_id IS NOT DISTINCT FROM OLD.arbitrated_by_id\n"
assert _KEPT in _BEFORE
# The same, with the last void's time and reason final as well.
_AFTER = _BEFORE.replace(
    _KEPT,
    _KEPT
    + "        AND NEW.voided_at IS NOT DISTINCT FROM OLD.voided_at\n"
    + "        AND NEW.void_reason = OLD.void_reason\n",
)


def guard(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_AFTER, params=None)


def unguard(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_BEFORE, params=None)


class Migration(migrations.Migration):
    dependencies = [("competitions", "0012_published_results_final")]

    operations = [
        migrations.AddField(
            model_name="poolround",
            name="voided_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="voided at"
            ),
        ),
        migrations.AddField(
            model_name="poolround",
            name="void_reason",
            field=models.TextField(blank=True, editable=False, verbose_name="void reason"),
        ),
        migrations.RunPython(guard, unguard),
    ]
