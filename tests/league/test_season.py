"""Seasons: the weekly deadline (R13) and the current season."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest
from django.core.exceptions import ValidationError

from league.models import Season
from league.selectors import season_current
from league.services import season_create, season_make_current

pytestmark = pytest.mark.django_db


def test_the_deadline_is_friday_17_00_paris_by_default(season: Season) -> None:
    deadline = season.deadline_for_week(1)
    assert deadline.date() == date(2026, 3, 6)
    assert (deadline.weekday(), deadline.time()) == (4, time(17, 0))
    assert str(deadline.tzinfo) == "Europe/Paris"


def test_the_deadline_follows_paris_into_summer_time(season: Season) -> None:
    # Clocks go forward on Sunday 29 March 2026: 17:00 is 16:00 UTC before, 15:00 UTC after.
    assert season.deadline_for_week(4).astimezone(UTC) == datetime(2026, 3, 27, 16, 0, tzinfo=UTC)
    assert season.deadline_for_week(5).astimezone(UTC) == datetime(2026, 4, 3, 15, 0, tzinfo=UTC)


def test_the_deadline_follows_paris_back_to_winter_time() -> None:
    # Clocks go back on Sunday 25 October 2026.
    autumn = Season(number=9, starts_on=date(2026, 10, 5))
    assert autumn.deadline_for_week(3).astimezone(UTC) == datetime(2026, 10, 23, 15, 0, tzinfo=UTC)
    assert autumn.deadline_for_week(4).astimezone(UTC) == datetime(2026, 10, 30, 16, 0, tzinfo=UTC)


def test_a_season_may_set_another_deadline() -> None:
    season = Season(
        number=9,
        starts_on=date(2026, 3, 2),
        deadline_weekday=Season.Weekday.THURSDAY,
        deadline_time=time(20, 30),
        time_zone="America/Montreal",
    )
    assert season.deadline_for_week(2).astimezone(UTC) == datetime(2026, 3, 13, 0, 30, tzinfo=UTC)


def test_a_season_starts_on_a_monday(db: None) -> None:
    with pytest.raises(ValidationError) as error:
        season_create(number=2, starts_on=date(2026, 3, 3))
    assert "starts_on" in error.value.message_dict
    assert not Season.objects.exists()


def test_a_season_time_zone_must_exist(db: None) -> None:
    with pytest.raises(ValidationError) as error:
        season_create(number=2, starts_on=date(2026, 3, 2), time_zone="Europe/Atlantis")
    assert "Europe/Atlantis" in error.value.message_dict["time_zone"][0]


def test_making_a_season_current_retires_the_previous_one(season: Season) -> None:
    following = season_create(number=2, starts_on=date(2027, 3, 1))
    season_make_current(season=following)
    season.refresh_from_db()
    assert season_current() == following
    assert not season.is_current


def test_there_may_be_no_current_season(db: None) -> None:
    season_create(number=1, starts_on=date(2026, 3, 2))
    assert season_current() is None
