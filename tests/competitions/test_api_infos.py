"""``GET /api/infos/{competition}/{pool}/``: « infos équipes », after the published rounds."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, Pool, PoolMember, PoolRound, Round, Stage
from league.models import Entry, Season
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]

# R7's quotas, one item per use: the championship's X×1, 0×2, 3×2, 1×3, 2×3.
CHAMPIONSHIP_EXTRA_TIME = ["0", "0", "1", "1", "1", "2", "2", "2", "3", "3", "X"]


@pytest.fixture
def dogs(coach: User) -> Entry:
    return Entry.objects.get(team__coach=coach)


def test_a_new_seasons_teams_have_everything_left(
    api_as: SignIn, dogs: Entry, other_coach: User, elite_pool: Pool
) -> None:
    body = api_as(None).get("/api/infos/championship/elite/").json()
    assert (body["competition"], body["pool"]) == ("championship", "elite")
    assert list(body["teams"]) == ["sleigh-dogs", "freezing-ass"]  # by code
    assert body["teams"]["sleigh-dogs"] == {
        "columns": list("ABCDEFGHIJK"),
        "extra_time": CHAMPIONSHIP_EXTRA_TIME,
        "shootout": [],
        "extra_goals": 3,
        "great_saves": 2,
    }


def test_what_a_team_played_in_published_rounds_is_gone(
    api_as: SignIn,
    season: Season,
    dogs: Entry,
    elite_pool: Pool,
    championship_round: Round,
    record_played: ResultRecorder,
) -> None:
    record_played(
        dogs,
        championship_round,
        pool=elite_pool,
        column="F",
        extra_time="2",
        extra_goals=1,
        great_saves=1,
        status=PoolRound.Status.PUBLISHED,
    )
    infos = api_as(None).get("/api/infos/championship/elite/").json()["teams"]["sleigh-dogs"]
    assert infos["columns"] == list("ABCDEGHIJK")
    expected = list(CHAMPIONSHIP_EXTRA_TIME)
    expected.remove("2")
    assert infos["extra_time"] == expected
    assert (infos["extra_goals"], infos["great_saves"]) == (2, 1)


def test_the_kdh_shows_its_shootout_values_and_members_only(
    api_as: SignIn,
    season: Season,
    dogs: Entry,
    other_coach: User,
    record_played: ResultRecorder,
) -> None:
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    PoolMember.objects.create(pool=kdh, entry=dogs)
    round = competitions.round_create(
        season=season, competition=Competition.KDH, number=1, week=1, stage=Stage.ROUND_OF_64
    )
    record_played(
        dogs,
        round,
        pool=kdh,
        column="C",
        extra_time="1",
        shootout="4",
        status=PoolRound.Status.PUBLISHED,
    )
    teams = api_as(None).get("/api/infos/kdh/kdh/").json()["teams"]
    assert list(teams) == ["sleigh-dogs"]
    assert teams["sleigh-dogs"]["columns"] == list("ABDEFG")
    # R7: KDH extra time X×1, 0×2, 1×2, 2×2; shootout 0–5 and X once each.
    assert teams["sleigh-dogs"]["extra_time"] == ["0", "0", "1", "2", "2", "X"]
    assert teams["sleigh-dogs"]["shootout"] == ["0", "1", "2", "3", "5", "X"]


@pytest.mark.parametrize(
    "url", ["/api/infos/championship/d9z/", "/api/infos/nhl/elite/", "/api/infos/kdh/elite/"]
)
def test_an_unknown_pool_is_404(api_as: SignIn, elite_pool: Pool, url: str) -> None:
    response = api_as(None).get(url)
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


def test_everyone_reads_the_same_infos(
    api_as: SignIn, coach: User, other_coach: User, referee: User, elite_pool: Pool
) -> None:
    url = "/api/infos/championship/elite/"
    anonymous = api_as(None).get(url).json()
    for person in (coach, other_coach, referee):
        assert api_as(person).get(url).json() == anonymous
