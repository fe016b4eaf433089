"""``team_create`` and ``entry_create``: the league's shape, enforced with messages."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from competitions.models import StockMovement
from competitions.services import entry_create
from league.models import DIVISION_SIZE, Division, Entry, Season, Team
from league.services import STANDARD_DIVISIONS, divisions_create_standard, team_create

pytestmark = pytest.mark.django_db


def test_the_standard_divisions_are_the_leagues_seven(db: None) -> None:
    divisions_create_standard()
    divisions_create_standard()
    shape = [(d.slug, d.tier, d.group) for d in Division.objects.all()]
    assert shape == [
        ("elite", 1, ""),
        ("d2a", 2, "A"),
        ("d2b", 2, "B"),
        ("d3a", 3, "A"),
        ("d3b", 3, "B"),
        ("d3c", 3, "C"),
        ("d3d", 3, "D"),
    ]
    assert len(STANDARD_DIVISIONS) == 7


def test_a_team_slug_defaults_to_its_slugified_name(db: None) -> None:
    assert team_create(name="Cybérians").slug == "cyberians"


def test_a_user_coaching_a_team_cannot_coach_a_second_one(coach: User) -> None:
    with pytest.raises(ValidationError, match="already coaches another team"):
        team_create(name="Second Team", coach=coach)
    assert Team.objects.count() == 1


def test_a_thirteenth_team_is_refused_with_a_message(
    fill_division: Callable[..., list[Entry]], season: Season, divisions: dict[str, Division]
) -> None:
    fill_division(DIVISION_SIZE)
    team = team_create(name="Thirteenth")
    with pytest.raises(ValidationError) as error:
        entry_create(season=season, team=team, division=divisions["elite"], code=7)
    assert error.value.message_dict["division"] == ["Elite already has 12 teams this season."]
    assert not Entry.objects.filter(team=team).exists()
    assert not StockMovement.objects.filter(entry__team=team).exists()


def test_a_taken_code_is_refused_naming_its_holder(
    enter_team: Callable[..., Entry], season: Season, divisions: dict[str, Division]
) -> None:
    enter_team("Sleigh Dogs", code=5)
    team = team_create(name="Snowmen")
    with pytest.raises(ValidationError) as error:
        entry_create(season=season, team=team, division=divisions["elite"], code=5)
    assert error.value.message_dict["code"] == ["Code 05 is already Sleigh Dogs's in Elite."]


def test_a_code_outside_01_to_12_is_refused(season: Season, divisions: dict[str, Division]) -> None:
    team = team_create(name="Snowmen")
    with pytest.raises(ValidationError) as error:
        entry_create(season=season, team=team, division=divisions["elite"], code=13)
    assert "code" in error.value.message_dict


def test_negative_starting_stocks_are_refused_and_nothing_is_saved(
    season: Season, divisions: dict[str, Division]
) -> None:
    team = team_create(name="Snowmen")
    with pytest.raises(ValidationError):
        entry_create(season=season, team=team, division=divisions["elite"], code=1, extra_goals=-1)
    assert not Entry.objects.exists()
