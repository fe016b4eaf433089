"""On PostgreSQL, picks and the stock ledger refuse UPDATE and DELETE in the database itself."""

from django.db import migrations

from matrixhockey.db import append_only_triggers


class Migration(migrations.Migration):
    dependencies = [("competitions", "0002_initial")]

    operations = [append_only_triggers("competitions_pick", "competitions_stockmovement")]
