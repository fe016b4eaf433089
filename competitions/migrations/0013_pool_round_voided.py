"""A pool round keeps the date and reason of its last void, for the pages that say it was
voided and replayed (the audit log is history, read by nothing that decides)."""

from django.db import migrations, models


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
    ]
