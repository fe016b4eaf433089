"""A person is never coach of one team and deputy of another (a deputy's picks are the team's,
R12): rows written before the site ended a deputyship when its holder became a coach lose that
deputyship. Nothing to undo: the rule holds either way."""

from django.db import migrations
from django.db.models import F, Q


def deputyships_of_coaches_end(apps, schema_editor):
    Team = apps.get_model("league", "Team")
    Team.objects.filter(deputy__team__isnull=False).filter(
        ~Q(deputy__team__pk=F("pk"))
    ).update(deputy=None)


class Migration(migrations.Migration):
    dependencies = [("league", "0008_season_rules_version_and_rulings")]

    operations = [
        migrations.RunPython(deputyships_of_coaches_end, migrations.RunPython.noop),
    ]
