"""On PostgreSQL, the histories refuse UPDATE and DELETE in the database itself.

The models refuse them too (``matrixhockey.db.AppendOnlyModel``); the trigger also stops raw SQL
and any path that bypasses the ORM. SQLite, the embedded development default, keeps only the
model-level guard.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

TABLES = ("league_pick", "league_stockmovement", "league_auditlog")

FUNCTION = """
CREATE OR REPLACE FUNCTION matrixhockey_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION, params=None)
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION matrixhockey_append_only()"
        )


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
    schema_editor.execute("DROP FUNCTION IF EXISTS matrixhockey_append_only()")


class Migration(migrations.Migration):
    dependencies = [("league", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
