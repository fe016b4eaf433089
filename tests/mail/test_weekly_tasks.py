"""The week's clock's tasks are thin: each calls its one service. The mailbox task, scheduled
everywhere, does nothing where no mailbox is configured."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from competitions.models import Pool
from league.models import Season
from mail import intake as services
from mail import weekly
from mail.models import OutboundEmail
from mail.tasks import email_fetch_picks, reminders_send, watchdog_alerts_send, weekly_emails_send
from tests.conftest import TeamMaker
from tests.mail.weekly_league import WEDNESDAY, week_league


def test_without_imap_settings_the_fetch_task_does_nothing(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.IMAP_HOST = ""

    def no_mailbox() -> None:
        raise AssertionError("the mailbox must not be opened")

    monkeypatch.setattr(services, "mailbox_open", no_mailbox)
    monkeypatch.setattr(services, "email_fetch", no_mailbox)
    result = email_fetch_picks.apply()
    assert result.successful()
    assert result.get() == {"ingested": 0, "failed": 0, "set_aside": 0}


def test_with_a_mailbox_the_fetch_task_reads_it(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.IMAP_HOST = "imap.example.org"
    calls: list[str] = []
    monkeypatch.setattr(services, "email_fetch", lambda: calls.append("fetched") or [])
    assert email_fetch_picks.apply().get() == {"ingested": 0, "failed": 0, "set_aside": 0}
    assert calls == ["fetched"]


@pytest.mark.django_db
def test_the_weekly_and_reminder_tasks_call_their_service_with_the_clock(
    season: Season,
    enter_team: TeamMaker,
    coach: User,
    other_coach: User,
    elite_pool: Pool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    week_league(
        season=season,
        enter_team=enter_team,
        coach=coach,
        other_coach=other_coach,
        elite_pool=elite_pool,
    )
    monkeypatch.setattr(weekly.timezone, "now", lambda: WEDNESDAY)
    assert weekly_emails_send.apply().get() == 5
    assert reminders_send.apply().get() == 5
    assert watchdog_alerts_send.apply().get() == 0
    assert OutboundEmail.objects.filter(template="weekly").count() == 5
