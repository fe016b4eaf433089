"""On PostgreSQL, the audit log refuses UPDATE and DELETE in the database itself."""

from django.db import migrations

from matrixhockey.db import append_only_triggers


class Migration(migrations.Migration):
    dependencies = [("league", "0001_initial")]

    operations = [append_only_triggers("league_auditlog")]
