"""Wednesday's "missing picks" list reveals no result that is not published yet.

Week 2 of the test season played the KDH's qualifying round (round 1): Igloos against Snowmen,
who sent no picks (ONR: a forfeit, R15). The referee arbitrated it but has not published it, and
its arbitration drew the round of 64 (round 2, week 3): Igloos went on, Snowmen are out. Until
the publication nobody but the referee may learn that from the league — a list of teams still
missing their week-3 picks that named Igloos (no KDH pick) and not Snowmen would tell it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from competitions import services as competitions
from competitions.models import Competition, Pool, PoolMember, PoolRound, Stage, TeamResult
from league.models import Season
from mail.weekly import weekly_emails_send
from tests.conftest import TeamMaker
from tests.mail.test_weekly_email import missing_teams
from tests.mail.weekly_league import WEDNESDAY, WeekLeague, emails_to, week_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def week(
    season: Season, enter_team: TeamMaker, coach: User, other_coach: User, elite_pool: Pool
) -> WeekLeague:
    week = week_league(
        season=season,
        enter_team=enter_team,
        coach=coach,
        other_coach=other_coach,
        elite_pool=elite_pool,
    )
    PoolMember.objects.create(pool=week.kdh_pool, entry=week.snowmen)
    qualifying = competitions.round_create(
        season=season, competition=Competition.KDH, number=1, week=2, stage=Stage.QUALIFYING
    )
    played = competitions.pool_round_create(pool=week.kdh_pool, round=qualifying)
    competitions.fixture_create(pool_round=played, home=week.igloos, away=week.snowmen)
    PoolRound.objects.filter(pk=played.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=datetime(2026, 3, 14, tzinfo=UTC)
    )
    TeamResult.objects.create(
        pool_round=played, entry=week.igloos, column="A", extra_time="1", goals=1, display="A(1)"
    )
    TeamResult.objects.create(
        pool_round=played, entry=week.snowmen, onr=True, goals=0, display="ONR"
    )
    played.qualified.add(week.igloos)
    # All but Groggs send the championship's round 3; nobody the KDH's round 2 yet.
    for entry in (week.sleigh, week.freezing, week.snowmen, week.igloos, week.no_address):
        week.send(entry, week.championship)
    return week


def test_the_winner_and_the_onr_loser_of_an_unpublished_round_are_listed_alike(
    week: WeekLeague,
) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    # The round of 64's teams follow from the unpublished qualifying round: the list leaves
    # that round out rather than tell who went on; the championship still counts.
    assert missing_teams(email) == {"Groggs"}
    assert "Igloos" not in email.body_text and "Snowmen" not in email.body_text


def test_once_the_round_is_published_the_list_counts_the_next_round(week: WeekLeague) -> None:
    PoolRound.objects.filter(pool=week.kdh_pool, round__number=1).update(
        status=PoolRound.Status.PUBLISHED, published_at=datetime(2026, 3, 15, tzinfo=UTC)
    )
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    assert missing_teams(email) == {"Sleigh Dogs", "Freezing Ass", "Igloos", "Groggs"}
