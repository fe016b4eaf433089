"""R13: the deadline is Friday 17:00 Europe/Paris, daylight saving time included.

In 2026 summer time starts on Sunday 29 March and ends on Sunday 25 October: 17:00 in Paris is
16:00 UTC on the Fridays before the first and after the second, 15:00 UTC in between. The test
season starts on Monday 2 March 2026, so weeks 4, 5, 34 and 35 end on 27 March, 3 April, 23
October and 30 October.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, Pick, Round
from competitions.services import DeadlinePassed, pick_submit
from league.models import Season, Team

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)
# (round number, week, the deadline in UTC, its offset in Paris): worked out by hand above.
ROUNDS = [
    (1, 4, datetime(2026, 3, 27, 16, 0, tzinfo=UTC), "+01:00"),
    (2, 5, datetime(2026, 4, 3, 15, 0, tzinfo=UTC), "+02:00"),
    (3, 34, datetime(2026, 10, 23, 15, 0, tzinfo=UTC), "+02:00"),
    (4, 35, datetime(2026, 10, 30, 16, 0, tzinfo=UTC), "+01:00"),
]


@pytest.fixture
def rounds(season: Season) -> dict[int, Round]:
    """Four championship rounds whose deadlines default to the season's (R13)."""
    return {
        number: competitions.round_create(
            season=season, competition=Competition.CHAMPIONSHIP, number=number, week=week
        )
        for number, week, _, _ in ROUNDS
    }


@pytest.fixture
def send(coach: User) -> Callable[..., Pick]:
    team = Team.objects.get(coach=coach)

    def submit(round: Round, at: datetime, channel: str = "web", by: User | None = None) -> Pick:
        return pick_submit(
            team=team,
            round=round,
            notation="F(2)",
            channel=channel,
            entered_by=by or coach,
            received_at=at,
        ).pick

    return submit


@pytest.mark.parametrize(("number", "week", "deadline", "offset"), ROUNDS)
def test_the_deadline_is_five_pm_in_paris_on_both_sides_of_each_change_of_hour(
    rounds: dict[int, Round], number: int, week: int, deadline: datetime, offset: str
) -> None:
    assert rounds[number].deadline == deadline


@pytest.mark.parametrize(("number", "week", "deadline", "offset"), ROUNDS)
def test_a_pick_one_second_before_the_deadline_is_accepted(
    rounds: dict[int, Round],
    send: Callable[..., Pick],
    number: int,
    week: int,
    deadline: datetime,
    offset: str,
) -> None:
    pick = send(rounds[number], deadline - SECOND)
    assert pick.received_at == deadline - SECOND


@pytest.mark.parametrize("late", [timedelta(0), SECOND, timedelta(minutes=30)])
@pytest.mark.parametrize(("number", "week", "deadline", "offset"), ROUNDS)
def test_a_pick_at_or_after_the_deadline_is_refused(
    rounds: dict[int, Round],
    send: Callable[..., Pick],
    number: int,
    week: int,
    deadline: datetime,
    offset: str,
    late: timedelta,
) -> None:
    with pytest.raises(DeadlinePassed):
        send(rounds[number], deadline + late)
    assert not Pick.objects.exists()


@pytest.mark.parametrize(("number", "week", "deadline", "offset"), ROUNDS)
def test_the_referee_still_enters_a_pick_after_the_deadline(
    rounds: dict[int, Round],
    send: Callable[..., Pick],
    referee: User,
    number: int,
    week: int,
    deadline: datetime,
    offset: str,
) -> None:
    assert send(rounds[number], deadline + SECOND, channel="referee", by=referee)


def test_the_api_shows_each_deadline_with_its_paris_offset(
    rounds: dict[int, Round], api_as: Callable[[User | None], APIClient]
) -> None:
    body = api_as(None).get("/api/seasons/current/").json()
    shown = {r["number"]: r["deadline"] for r in body["competitions"]["championship"]}
    for number, _, deadline, offset in ROUNDS:
        assert shown[number].endswith(offset)
        assert datetime.fromisoformat(shown[number]) == deadline
        assert shown[number][11:19] == "17:00:00"
