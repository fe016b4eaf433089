"""Wednesday's "missing picks" list and Friday's reminder reveal no result that is not published
yet.

Week 2 of the test season played the KDH's qualifying round (round 1): Igloos against Snowmen,
who sent no picks (ONR: a forfeit, R15). The referee arbitrated it but has not published it, and
its arbitration drew the round of 64 (round 2, week 3): Igloos went on, Snowmen are out. Until
the publication nobody but the referee may learn that from the league — a list of teams still
missing their week-3 picks that named Igloos (no KDH pick) and not Snowmen would tell it, and so
would a reminder to pick for the round of 64 that Igloos' coach gets and Snowmen's does not. Who
plays the round of 64 follows the published results only (:func:`engine.cups.plays_round`): every
team of the qualifying round, and the teams it exempts (R17), are listed and reminded alike.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from competitions import services as competitions
from competitions.models import Competition, PoolMember, PoolRound, Stage, TeamResult
from mail.weekly import reminders_send, weekly_emails_send
from tests.mail.test_weekly_email import missing_teams
from tests.mail.weekly_league import (
    FRIDAY,
    WEDNESDAY,
    WeekLeague,
    emails_to,
    recipients,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def week(week: WeekLeague) -> WeekLeague:
    """The mail tests' week (``tests/mail/conftest.py``) with Snowmen in the KDH and its
    qualifying round arbitrated, not published, as the module's docstring tells."""
    PoolMember.objects.create(pool=week.kdh_pool, entry=week.snowmen)
    qualifying = competitions.round_create(
        season=week.season, competition=Competition.KDH, number=1, week=2, stage=Stage.QUALIFYING
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
    # The round of 64's teams follow from the published results: the unpublished qualifying
    # round's winner and its ONR loser alike, and the teams it exempts (nobody sent a KDH pick);
    # Groggs miss the championship's too.
    assert missing_teams(email) == {"Sleigh Dogs", "Freezing Ass", "Snowmen", "Igloos", "Groggs"}


def test_once_the_round_is_published_the_list_counts_the_next_round(week: WeekLeague) -> None:
    PoolRound.objects.filter(pool=week.kdh_pool, round__number=1).update(
        status=PoolRound.Status.PUBLISHED, published_at=datetime(2026, 3, 15, tzinfo=UTC)
    )
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    assert missing_teams(email) == {"Sleigh Dogs", "Freezing Ass", "Igloos", "Groggs"}


def _publish_the_qualifying_round(week: WeekLeague) -> None:
    PoolRound.objects.filter(pool=week.kdh_pool, round__number=1).update(
        status=PoolRound.Status.PUBLISHED, published_at=datetime(2026, 3, 15, tzinfo=UTC)
    )


def test_the_winner_and_the_onr_loser_of_an_unpublished_round_are_reminded_alike(
    week: WeekLeague,
) -> None:
    reminders_send(now=FRIDAY)
    # Every team the published results leave in the KDH is reminded of the round of 64: the
    # unpublished qualifying round's winner (Igloos) and its ONR loser (Snowmen) alike, and the
    # teams it exempts.
    assert recipients("reminder") == [
        "freezing-coach@example.org",
        "grogg-coach@example.org",
        "igloo-coach@example.org",
        "sleigh-coach@example.org",
        "snow-coach@example.org",
    ]
    [igloos] = emails_to("igloo-coach@example.org", "reminder")
    [snowmen] = emails_to("snow-coach@example.org", "reminder")
    assert "KDH" in igloos.body_text and "KDH" in snowmen.body_text
    # Nor does Igloos' name its drawn opponent (Groggs), which the draw made from the unpublished
    # round decided.
    assert "Groggs" not in igloos.body_text and "Groggs" not in igloos.body_html


def test_the_weekly_email_names_the_cup_round_alike_to_the_winner_and_the_onr_loser(
    week: WeekLeague,
) -> None:
    weekly_emails_send(now=WEDNESDAY)
    # The week's calendar is the same for every coach, in the KDH or not: it tells nobody who
    # went on.
    for address in ("igloo-coach@example.org", "snow-coach@example.org"):
        [email] = emails_to(address, "weekly")
        assert "KDH" in email.body_text


def test_once_the_round_is_published_the_reminder_names_the_next_round(week: WeekLeague) -> None:
    _publish_the_qualifying_round(week)
    reminders_send(now=FRIDAY)
    assert recipients("reminder") == [
        "freezing-coach@example.org",
        "grogg-coach@example.org",
        "igloo-coach@example.org",
        "sleigh-coach@example.org",
    ]
    [email] = emails_to("igloo-coach@example.org", "reminder")
    assert "KDH" in email.body_text
    assert emails_to("snow-coach@example.org", "reminder") == []
