"""``GET /api/me/``: who the caller is (API.md)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, Pool
from league import services as league
from league.models import Season

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]
URL = "/api/me/"


def test_a_coach_sees_their_team(api_as: SignIn, coach: User) -> None:
    assert api_as(coach).get(URL).json() == {
        "username": "sleigh-coach",
        "team": "sleigh-dogs",
        "roles": ["coach"],
    }


def test_a_referee_has_no_team(api_as: SignIn, referee: User) -> None:
    assert api_as(referee).get(URL).json() == {
        "username": "referee",
        "team": None,
        "roles": ["referee"],
    }


def test_an_admin_is_an_admin(api_as: SignIn, admin_user: User) -> None:
    assert api_as(admin_user).get(URL).json()["roles"] == ["admin"]


def test_a_visitor_has_no_role(api_as: SignIn, visitor: User) -> None:
    assert api_as(visitor).get(URL).json() == {"username": "visitor", "team": None, "roles": []}


def test_a_coach_who_referees_and_is_staff_has_every_role(
    api_as: SignIn, coach: User, elite_pool: Pool
) -> None:
    elite_pool.referees.add(coach)
    User.objects.filter(pk=coach.pk).update(is_staff=True)
    assert api_as(coach).get(URL).json()["roles"] == ["coach", "referee", "admin"]


def test_a_referee_of_a_past_season_only_is_no_referee_now(
    api_as: SignIn, referee: User, season: Season
) -> None:
    later = league.season_create(number=2, starts_on=date(2027, 3, 1))
    league.season_make_current(season=later)
    assert api_as(referee).get(URL).json()["roles"] == []
    competitions.pool_create(season=later, competition=Competition.KDH, referees=[referee])
    assert api_as(referee).get(URL).json()["roles"] == ["referee"]


def test_an_anonymous_caller_gets_401(api_as: SignIn) -> None:
    response = api_as(None).get(URL)
    assert response.status_code == 401
    assert set(response.json()) == {"detail"}
