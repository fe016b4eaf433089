"""The database's guard on final results (0012) also covers what an arbitration writes besides
games, results and draws: a cup round's qualified teams and the ONR sanctions it found (R14,
R15, R17, R18).

- A qualified team (``competitions_poolround_qualified``) is final while its pool round is
  arbitrated or published, like the round's games.
- An ONR sanction names its round, not its pool round: it is final while the team's result in
  that round (the team result the same arbitration wrote) belongs to an arbitrated or published
  pool round.

Only the void-and-redo path (``competitions.services.void.pool_round_void``, under
``matrixhockey.void``) changes or deletes them then; INSERTs stay open (the arbitration writes
them after marking its round arbitrated). SQLite keeps the admin's guard only.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

_FUNCTIONS = """
CREATE OR REPLACE FUNCTION matrixhockey_qualified_final() RETURNS trigger AS $$
BEGIN
    PERFORM matrixhockey_pool_round_final(OLD.poolround_id);
    IF TG_OP = 'UPDATE' THEN
        PERFORM matrixhockey_pool_round_final(NEW.poolround_id);
        RETURN NEW;
    END IF;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql;

-- The played pool round of the team result ``entry`` has in ``round``, if any.
CREATE OR REPLACE FUNCTION matrixhockey_onr_sanction_pool_round(entry bigint, round bigint)
RETURNS bigint AS $$
    SELECT result.pool_round_id FROM competitions_teamresult result
        JOIN competitions_poolround pool_round ON pool_round.id = result.pool_round_id
        WHERE result.entry_id = entry AND pool_round.round_id = round
            AND pool_round.status IN ('arbitrated', 'published')
        LIMIT 1
$$ LANGUAGE sql STABLE;

CREATE OR REPLACE FUNCTION matrixhockey_onr_sanction_final() RETURNS trigger AS $$
BEGIN
    PERFORM matrixhockey_pool_round_final(
        matrixhockey_onr_sanction_pool_round(OLD.entry_id, OLD.round_id));
    IF TG_OP = 'UPDATE' THEN
        PERFORM matrixhockey_pool_round_final(
            matrixhockey_onr_sanction_pool_round(NEW.entry_id, NEW.round_id));
        RETURN NEW;
    END IF;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER competitions_poolround_qualified_final BEFORE UPDATE OR DELETE
    ON competitions_poolround_qualified
    FOR EACH ROW EXECUTE FUNCTION matrixhockey_qualified_final();
CREATE TRIGGER competitions_onrsanction_final BEFORE UPDATE OR DELETE ON competitions_onrsanction
    FOR EACH ROW EXECUTE FUNCTION matrixhockey_onr_sanction_final();
"""

_DROP = """
DROP TRIGGER IF EXISTS competitions_poolround_qualified_final ON competitions_poolround_qualified;
DROP TRIGGER IF EXISTS competitions_onrsanction_final ON competitions_onrsanction;
DROP FUNCTION IF EXISTS matrixhockey_onr_sanction_final();
DROP FUNCTION IF EXISTS matrixhockey_onr_sanction_pool_round(bigint, bigint);
DROP FUNCTION IF EXISTS matrixhockey_qualified_final();
"""


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_FUNCTIONS, params=None)


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("competitions", "0013_pool_round_voided")]

    operations = [migrations.RunPython(create, drop)]
