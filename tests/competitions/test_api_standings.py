"""``GET /api/standings/{pool}/``: a pool's table over its *published* rounds (R9)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import (
    Competition,
    FixtureResult,
    Pool,
    PoolMember,
    PoolRound,
    Round,
)
from league.models import Entry, Season

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]


def play(
    pool: Pool, round: Round, home: Entry, away: Entry, score: tuple[int, int], status: str
) -> None:
    """A game of ``pool``'s ``round`` won in regulation, its pool round at ``status``."""
    pool_round = PoolRound.objects.filter(pool=pool, round=round).first()
    if pool_round is None:
        pool_round = competitions.pool_round_create(pool=pool, round=round)
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=status,
        arbitrated_at=timezone.now(),
        published_at=timezone.now() if status == PoolRound.Status.PUBLISHED else None,
    )
    fixture = competitions.fixture_create(pool_round=pool_round, home=home, away=away)
    winner = home if score[0] > score[1] else away
    FixtureResult.objects.create(
        fixture=fixture,
        home_goals=score[0],
        away_goals=score[1],
        decided="regulation",
        winner=winner,
    )


@pytest.fixture
def teams(coach: User, other_coach: User) -> tuple[Entry, Entry]:
    return Entry.objects.get(team__coach=coach), Entry.objects.get(team__coach=other_coach)


def test_a_divisions_table_counts_only_published_rounds(
    api_as: SignIn,
    season: Season,
    elite_pool: Pool,
    teams: tuple[Entry, Entry],
    championship_round: Round,
) -> None:
    dogs, ass = teams
    play(elite_pool, championship_round, dogs, ass, (3, 1), PoolRound.Status.PUBLISHED)
    round_2 = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    play(elite_pool, round_2, ass, dogs, (5, 0), PoolRound.Status.ARBITRATED)
    body = api_as(None).get("/api/standings/elite/").json()
    assert body["pool"] == "elite"
    first, second = body["table"]
    assert (first["team"], first["rank"], first["points"], first["played"]) == (
        "sleigh-dogs",
        1,
        2,
        1,
    )
    assert (first["goals_for"], first["goals_against"], first["group"]) == (3, 1, None)
    assert (second["team"], second["points"], second["losses"]) == ("freezing-ass", 0, 1)


def test_the_wg_shows_its_groups(
    api_as: SignIn, season: Season, teams: tuple[Entry, Entry]
) -> None:
    wg = competitions.pool_create(season=season, competition=Competition.WG)
    for entry, group in zip(teams, "AB", strict=True):
        PoolMember.objects.create(pool=wg, entry=entry, group=group)
    table = api_as(None).get("/api/standings/wg/").json()["table"]
    assert [(row["team"], row["group"], row["played"]) for row in table] == [
        ("sleigh-dogs", "A", 0),
        ("freezing-ass", "B", 0),
    ]


@pytest.mark.parametrize("pool", ["kdh", "d9z"])
def test_a_pool_without_a_table_is_404(
    api_as: SignIn, season: Season, elite_pool: Pool, pool: str
) -> None:
    competitions.pool_create(season=season, competition=Competition.KDH)
    response = api_as(None).get(f"/api/standings/{pool}/")
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}
