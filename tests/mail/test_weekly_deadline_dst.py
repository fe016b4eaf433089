"""Deadline closing and "this week" across the end of summer time (R13, DST included).

In 2026 Paris goes back from UTC+2 to UTC+1 at 03:00 on Sunday 25 October. The season here
starts on Monday 19 October: its week 1 (19–25 October) straddles the change. Friday 23 October
17:00 in Paris is 15:00 UTC, Friday 30 October 17:00 is 16:00 UTC; a season whose deadline is on
Sunday (a per-season setting, R13) closes week 1 at 17:00 on the day of the change, 16:00 UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from competitions import services as competitions
from competitions.models import Competition, Round
from competitions.tasks import rounds_close_due
from league import services as league
from league.models import Division, Season
from mail.weekly import season_week, weekly_emails_send
from tests.mail.weekly_league import rendered

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)


@pytest.fixture
def autumn(divisions: dict[str, Division]) -> Season:
    season = league.season_create(number=7, starts_on=date(2026, 10, 19))
    return league.season_make_current(season=season)


@pytest.fixture
def sunday_season(db: None) -> Season:
    return league.season_create(
        number=8,
        starts_on=date(2026, 10, 19),
        deadline_weekday=Season.Weekday.SUNDAY,
        deadline_time=time(17, 0),
    )


def championship(season: Season, number: int, week: int) -> Round:
    return competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=number, week=week
    )


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> Callable[[datetime], None]:
    """Set the clock the tasks read (``django.utils.timezone.now``)."""

    def set_clock(moment: datetime) -> None:
        monkeypatch.setattr(timezone, "now", lambda: moment)

    return set_clock


def status(round: Round) -> str:
    round.refresh_from_db()
    return round.status


def test_the_deadlines_on_both_sides_of_the_change_are_17_00_in_paris(
    autumn: Season, sunday_season: Season
) -> None:
    assert championship(autumn, 1, 1).deadline == datetime(2026, 10, 23, 15, 0, tzinfo=UTC)
    assert championship(autumn, 2, 2).deadline == datetime(2026, 10, 30, 16, 0, tzinfo=UTC)
    assert championship(sunday_season, 1, 1).deadline == datetime(2026, 10, 25, 16, 0, tzinfo=UTC)


def test_the_closing_task_closes_the_summer_week_at_17_00_summer_time(
    autumn: Season, at: Callable[[datetime], None]
) -> None:
    round = championship(autumn, 1, 1)
    at(datetime(2026, 10, 23, 15, 0, tzinfo=UTC) - SECOND)
    assert rounds_close_due.apply().get() == 0
    assert status(round) == Round.Status.OPEN
    at(datetime(2026, 10, 23, 15, 0, tzinfo=UTC))
    assert rounds_close_due.apply().get() == 1
    assert status(round) == Round.Status.CLOSED


def test_the_closing_task_closes_the_week_after_the_change_at_17_00_winter_time(
    autumn: Season, at: Callable[[datetime], None]
) -> None:
    round = championship(autumn, 2, 2)
    # 16:00 UTC + 1 h summer offset would be 17:00 "Paris" with a stale offset: still open.
    at(datetime(2026, 10, 30, 15, 0, tzinfo=UTC))
    assert rounds_close_due.apply().get() == 0
    at(datetime(2026, 10, 30, 16, 0, tzinfo=UTC) - SECOND)
    assert rounds_close_due.apply().get() == 0
    assert status(round) == Round.Status.OPEN
    at(datetime(2026, 10, 30, 16, 0, tzinfo=UTC))
    assert rounds_close_due.apply().get() == 1
    assert status(round) == Round.Status.CLOSED
    assert rounds_close_due.apply().get() == 0


def test_a_sunday_deadline_on_the_day_of_the_change_closes_at_17_00_winter_time(
    sunday_season: Season, at: Callable[[datetime], None]
) -> None:
    round = championship(sunday_season, 1, 1)
    at(datetime(2026, 10, 25, 16, 0, tzinfo=UTC) - SECOND)
    rounds_close_due.apply()
    assert status(round) == Round.Status.OPEN
    at(datetime(2026, 10, 25, 16, 0, tzinfo=UTC))
    rounds_close_due.apply()
    assert status(round) == Round.Status.CLOSED


def test_this_week_changes_at_midnight_in_paris_on_both_sides_of_the_change(
    autumn: Season,
) -> None:
    # Summer: Monday 00:00 in Paris is Sunday 22:00 UTC.
    assert season_week(season=autumn, at=datetime(2026, 10, 18, 21, 59, tzinfo=UTC)) == 0
    assert season_week(season=autumn, at=datetime(2026, 10, 18, 22, 0, tzinfo=UTC)) == 1
    # Winter, right after the change: Monday 26 October 00:00 in Paris is Sunday 23:00 UTC.
    assert season_week(season=autumn, at=datetime(2026, 10, 25, 22, 30, tzinfo=UTC)) == 1
    assert season_week(season=autumn, at=datetime(2026, 10, 25, 23, 0, tzinfo=UTC)) == 2


def test_the_weekly_email_after_the_change_shows_the_deadline_at_17_00(
    autumn: Season, divisions: dict[str, Division]
) -> None:
    coach = User.objects.create_user(username="autumn-coach", email="autumn@example.org")
    team = league.team_create(name="Autumn Leaves", coach=coach)
    competitions.entry_create(season=autumn, team=team, division=divisions["elite"], code=1)
    championship(autumn, 2, 2)
    # Wednesday 28 October 08:00 in Paris (winter time) is 07:00 UTC.
    assert weekly_emails_send(now=datetime(2026, 10, 28, 7, 0, tzinfo=UTC)) == 1
    [email] = rendered(template="weekly")
    assert "vendredi 30 octobre 2026, 17:00 (Europe/Paris)" in email.body_text
