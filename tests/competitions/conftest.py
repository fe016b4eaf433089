"""The competitions' shared set-ups; a module that needs another league of the same name
defines its own fixture."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from competitions.models import Pool, Round
from league.models import Division, Season
from tests.competitions.desk_league import Desk, desk_sent
from tests.competitions.open_rounds import OpenLeague, coaches_open_league
from tests.competitions.results_league import RulesWeek, rules_week
from tests.conftest import ResultRecorder


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    """The referee's desk league with the Elite's first round sent (:func:`desk_sent`)."""
    return desk_sent(season=season, divisions=divisions)


@pytest.fixture
def league(
    coach: User,
    other_coach: User,
    elite_pool: Pool,
    record_played: ResultRecorder,
) -> OpenLeague:
    """The open-rounds league (:func:`~tests.competitions.open_rounds.open_league`): the
    coach's and the other coach's teams with this week's and later rounds open."""
    return coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )


@pytest.fixture
def week(
    season: Season,
    elite_pool: Pool,
    championship_round: Round,
    coach: User,
    other_coach: User,
    referee: User,
) -> RulesWeek:
    """The rules' worked week (section 3.1.4) as the Elite's round 1, picks in, not yet
    arbitrated; the Sleigh Dogs' and the Freezing Ass' coaches entered first (codes 01, 02)."""
    return rules_week(season=season, pool=elite_pool, round=championship_round, referee=referee)
