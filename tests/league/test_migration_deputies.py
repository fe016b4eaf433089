"""League migration 0009: a deputy who coaches another team stops deputising (rows written
before the site ended such a deputyship when its holder became a coach)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from league.models import Team

pytestmark = pytest.mark.django_db

migration = importlib.import_module("league.migrations.0009_deputy_coaches_no_other_team")


def test_a_deputy_who_coaches_another_team_stops_deputising_and_the_others_stay() -> None:
    people = {
        name: User.objects.create_user(username=name, email=f"{name}@example.org")
        for name in ("a", "b", "c", "helper")
    }
    Team.objects.create(name="A", slug="a", coach=people["a"])
    Team.objects.create(name="B", slug="b", coach=people["b"], deputy=people["a"])
    Team.objects.create(name="C", slug="c", coach=people["c"], deputy=people["helper"])

    migration.deputyships_of_coaches_end(apps, None)

    assert dict(Team.objects.values_list("slug", "deputy__username")) == {
        "a": None,
        "b": None,
        "c": "helper",
    }
