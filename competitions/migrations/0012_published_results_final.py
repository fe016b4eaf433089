"""On PostgreSQL, an arbitrated or published pool round's record refuses UPDATE and DELETE in the
database itself, unless the void-and-redo path is at work.

Once a pool round is arbitrated its games, their results, its team results and its draws are
final: only ``competitions.services.void.pool_round_void`` (public and audited) takes them back,
and it says so to the database by setting ``matrixhockey.void`` to ``on`` for its transaction
(``matrixhockey.db.published_results_void``). Any other writer — the admin, a shell, a script,
raw SQL — gets an integrity error naming the pool round. The picks and the stock ledger are
append-only already (0003). INSERTs stay open (arbitration writes the results, a cup round
draws the next one's games); TRUNCATE (tests' flush) fires no row trigger.

A played pool round may still go from ``arbitrated`` to ``published`` (publication) and, while
arbitrated, have draws appended to its draw log (a cup round's next-round draw, written in the
arbitration's transaction); nothing else of it changes.

SQLite, the embedded development default, keeps the admin's guard only.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

# The statuses whose record is final (competitions.selectors.entries.PLAYED).
_FUNCTIONS = """
CREATE OR REPLACE FUNCTION matrixhockey_voiding() RETURNS boolean AS $$
    SELECT coalesce(current_setting('matrixhockey.void', true), '') = 'on'
$$ LANGUAGE sql STABLE;

CREATE OR REPLACE FUNCTION matrixhockey_pool_round_final(pool_round_id bigint) RETURNS void AS $$
DECLARE
    played text;
BEGIN
    IF pool_round_id IS NULL OR matrixhockey_voiding() THEN
        RETURN;
    END IF;
    SELECT status INTO played FROM competitions_poolround
        WHERE id = pool_round_id AND status IN ('arbitrated', 'published');
    IF played IS NOT NULL THEN
        RAISE EXCEPTION 'pool round % is %: its games, results and draws are final; '
            'only voiding the round (pool_round_void) takes them back', pool_round_id, played
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION matrixhockey_pool_round_row_final() RETURNS trigger AS $$
BEGIN
    PERFORM matrixhockey_pool_round_final(OLD.pool_round_id);
    IF TG_OP = 'UPDATE' THEN
        PERFORM matrixhockey_pool_round_final(NEW.pool_round_id);
        RETURN NEW;
    END IF;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION matrixhockey_fixture_result_final() RETURNS trigger AS $$
BEGIN
    PERFORM matrixhockey_pool_round_final(
        (SELECT pool_round_id FROM competitions_fixture WHERE id = OLD.fixture_id));
    IF TG_OP = 'UPDATE' THEN
        PERFORM matrixhockey_pool_round_final(
            (SELECT pool_round_id FROM competitions_fixture WHERE id = NEW.fixture_id));
        RETURN NEW;
    END IF;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION matrixhockey_poolround_final() RETURNS trigger AS $$
BEGIN
    IF OLD.status NOT IN ('arbitrated', 'published') OR matrixhockey_voiding() THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'UPDATE'
        AND NEW.pool_id = OLD.pool_id
        AND NEW.round_id = OLD.round_id
        AND NEW.seed = OLD.seed
        AND NEW.seed_hash = OLD.seed_hash
        AND NEW.arbitrated_at = OLD.arbitrated_at
        AND NEW.arbitrated_by_id IS NOT DISTINCT FROM OLD.arbitrated_by_id
        AND (NEW.status = OLD.status
             OR (OLD.status = 'arbitrated' AND NEW.status = 'published'))
        AND (OLD.status = 'arbitrated'
             OR (NEW.published_at = OLD.published_at
                 AND NEW.published_by_id IS NOT DISTINCT FROM OLD.published_by_id))
        -- The draw log only grows while arbitrated (the old one is its beginning), never after.
        AND (NEW.draw_log = OLD.draw_log
             OR (OLD.status = 'arbitrated'
                 AND jsonb_array_length(NEW.draw_log) > jsonb_array_length(OLD.draw_log)
                 AND (SELECT coalesce(jsonb_agg(draw ORDER BY n), '[]'::jsonb)
                      FROM jsonb_array_elements(NEW.draw_log) WITH ORDINALITY AS d(draw, n)
                      WHERE n <= jsonb_array_length(OLD.draw_log)) = OLD.draw_log))
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'pool round % is %: its games, results and draws are final; '
        'only voiding the round (pool_round_void) takes them back', OLD.id, OLD.status
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER competitions_fixture_final BEFORE UPDATE OR DELETE ON competitions_fixture
    FOR EACH ROW EXECUTE FUNCTION matrixhockey_pool_round_row_final();
CREATE TRIGGER competitions_fixtureresult_final BEFORE UPDATE OR DELETE
    ON competitions_fixtureresult
    FOR EACH ROW EXECUTE FUNCTION matrixhockey_fixture_result_final();
CREATE TRIGGER competitions_teamresult_final BEFORE UPDATE OR DELETE ON competitions_teamresult
    FOR EACH ROW EXECUTE FUNCTION matrixhockey_pool_round_row_final();
CREATE TRIGGER competitions_poolround_final BEFORE UPDATE OR DELETE ON competitions_poolround
    FOR EACH ROW EXECUTE FUNCTION matrixhockey_poolround_final();
"""

_DROP = """
DROP TRIGGER IF EXISTS competitions_fixture_final ON competitions_fixture;
DROP TRIGGER IF EXISTS competitions_fixtureresult_final ON competitions_fixtureresult;
DROP TRIGGER IF EXISTS competitions_teamresult_final ON competitions_teamresult;
DROP TRIGGER IF EXISTS competitions_poolround_final ON competitions_poolround;
DROP FUNCTION IF EXISTS matrixhockey_poolround_final();
DROP FUNCTION IF EXISTS matrixhockey_fixture_result_final();
DROP FUNCTION IF EXISTS matrixhockey_pool_round_row_final();
DROP FUNCTION IF EXISTS matrixhockey_pool_round_final(bigint);
DROP FUNCTION IF EXISTS matrixhockey_voiding();
"""


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_FUNCTIONS, params=None)


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("competitions", "0011_verification_failure")]

    operations = [migrations.RunPython(create, drop)]
