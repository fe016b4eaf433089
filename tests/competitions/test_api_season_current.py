"""``GET /api/seasons/current/``: the calendar, deadlines with their offset (R13), statuses."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, Round, Stage
from league.models import Season

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]
URL = "/api/seasons/current/"


def test_anyone_reads_the_rounds_of_each_competition(
    api_as: SignIn, season: Season, championship_round: Round
) -> None:
    competitions.round_create(
        season=season, competition=Competition.KDH, number=1, week=2, stage=Stage.QUALIFYING
    )
    body = api_as(None).get(URL).json()
    assert (body["number"], body["name"], body["time_zone"]) == (1, "Saison 2026", "Europe/Paris")
    assert body["competitions"]["wg"] == []
    [kdh] = body["competitions"]["kdh"]
    assert (kdh["number"], kdh["week"], kdh["stage"]) == (1, 2, "qualifying")
    [first] = body["competitions"]["championship"]
    # Week 1's Friday is 6 March 2026: 17:00 in Paris is 16:00 UTC in winter.
    assert first["deadline"] == "2026-03-06T17:00:00+01:00"
    assert datetime.fromisoformat(first["deadline"]) == datetime(2026, 3, 6, 16, tzinfo=UTC)


def test_a_deadline_in_summer_time_carries_its_offset(api_as: SignIn, season: Season) -> None:
    competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=10
    )
    [round] = api_as(None).get(URL).json()["competitions"]["championship"]
    assert round["deadline"] == "2026-05-08T17:00:00+02:00"


def test_statuses_open_closed_arbitrated_published(api_as: SignIn, season: Season) -> None:
    future = timezone.now() + timedelta(days=2)
    rounds = [
        competitions.round_create(
            season=season,
            competition=Competition.CHAMPIONSHIP,
            number=n,
            week=n,
            deadline=future if n == 1 else None,
        )
        for n in (1, 2, 3, 4)
    ]
    Round.objects.filter(pk=rounds[2].pk).update(status=Round.Status.ARBITRATED)
    Round.objects.filter(pk=rounds[3].pk).update(status=Round.Status.PUBLISHED)
    body = api_as(None).get(URL).json()
    statuses = [(r["number"], r["status"]) for r in body["competitions"]["championship"]]
    # Round 2's deadline (March 2026) is past: an open round past its deadline is closed.
    assert statuses == [(1, "open"), (2, "closed"), (3, "arbitrated"), (4, "published")]


def test_no_current_season_is_404(api_as: SignIn, db: None) -> None:
    response = api_as(None).get(URL)
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


def test_signed_in_people_read_the_same(
    api_as: SignIn, coach: User, visitor: User, championship_round: Round
) -> None:
    assert api_as(coach).get(URL).json() == api_as(visitor).get(URL).json()
