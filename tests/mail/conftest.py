"""The mail's tests' shared set-up."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from competitions.models import Pool
from league.models import Season
from tests.conftest import TeamMaker
from tests.mail.weekly_league import WeekLeague, week_league


@pytest.fixture
def week(
    season: Season, enter_team: TeamMaker, coach: User, other_coach: User, elite_pool: Pool
) -> WeekLeague:
    """The week's league (:func:`~tests.mail.weekly_league.week_league`)."""
    return week_league(
        season=season,
        enter_team=enter_team,
        coach=coach,
        other_coach=other_coach,
        elite_pool=elite_pool,
    )
