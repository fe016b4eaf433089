"""Celery beat's schedule (``matrixhockey/beat.py``): every entry names a registered task, and the
crontabs fire at the intended hours in Paris, in summer and in winter time.

Run times are found with celery's own ``crontab.is_due`` from fixed instants, as beat asks it
every tick: with beat's clock in the app's time zone (``CELERY_TIMEZONE``)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from celery.schedules import crontab
from django.conf import settings

from matrixhockey.beat import SCHEDULE
from matrixhockey.celery import app

PARIS = ZoneInfo("Europe/Paris")


def due(name: str, *, last_run_at: datetime, now: datetime) -> bool:
    """Whether beat, having run entry ``name`` at ``last_run_at``, runs it again at ``now``:
    celery's own ``is_due``, with beat's clock (``app.now()``, in the app's time zone)."""
    schedule = SCHEDULE[name]["schedule"]
    assert isinstance(schedule, crontab)
    at_now = copy.copy(schedule)
    at_now.nowfun = lambda: now.astimezone(app.timezone)
    return at_now.is_due(last_run_at.astimezone(app.timezone)).is_due


def next_runs(name: str, after: datetime, count: int = 1) -> list[datetime]:
    """The next ``count`` times beat runs entry ``name`` after a run at ``after``, to the second
    and in Paris time: the first instant ``is_due`` says yes (it says no before, yes after)."""
    runs = []
    last = after.astimezone(UTC)
    for _ in range(count):
        low, high = 0, 8 * 24 * 3600  # seconds after the last run; every entry runs weekly
        assert due(name, last_run_at=last, now=last + timedelta(seconds=high))
        while high - low > 1:
            middle = (low + high) // 2
            if due(name, last_run_at=last, now=last + timedelta(seconds=middle)):
                high = middle
            else:
                low = middle
        last = last + timedelta(seconds=high)
        runs.append(last.astimezone(PARIS))
    return runs


def paris(*args: int) -> datetime:
    return datetime(*args, tzinfo=PARIS)


def test_the_settings_give_beat_this_schedule_in_paris_time() -> None:
    assert settings.CELERY_BEAT_SCHEDULE is SCHEDULE
    assert app.conf.beat_schedule == SCHEDULE
    assert app.conf.timezone == "Europe/Paris"


def test_every_entry_names_a_registered_task() -> None:
    app.loader.import_default_modules()  # autodiscovery, as a worker does at start
    names = {entry["task"] for entry in SCHEDULE.values()}
    assert names <= set(app.tasks), names - set(app.tasks)
    assert {
        "mail.weekly_emails_send",
        "mail.reminders_send",
        "competitions.rounds_close_due",
        "mail.watchdog_alerts_send",
        "mail.email_fetch_picks",
        "mail.emails_send_due",
        "competitions.season_rounds_verify",
    } == names


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        # Winter time: 08:00 in Paris is 07:00 UTC.
        (paris(2026, 3, 16, 12, 0), paris(2026, 3, 18, 8, 0)),
        # Summer time (from Sunday 29 March): 08:00 in Paris is 06:00 UTC.
        (paris(2026, 3, 30, 12, 0), paris(2026, 4, 1, 8, 0)),
        # Across the change back (Sunday 25 October): still 08:00 in Paris.
        (paris(2026, 10, 21, 8, 30), paris(2026, 10, 28, 8, 0)),
    ],
)
def test_the_weekly_email_goes_on_wednesday_at_8_in_paris(
    after: datetime, expected: datetime
) -> None:
    [run] = next_runs("weekly-email", after)
    assert run == expected
    assert (run.weekday(), run.hour, run.minute) == (2, 8, 0)


def test_the_weekly_email_hour_in_utc_follows_summer_time() -> None:
    [winter] = next_runs("weekly-email", datetime(2026, 3, 16, tzinfo=UTC))
    [summer] = next_runs("weekly-email", datetime(2026, 3, 30, tzinfo=UTC))
    assert winter.astimezone(UTC).hour == 7
    assert summer.astimezone(UTC).hour == 6


@pytest.mark.parametrize(
    "after", [paris(2026, 3, 17, 9, 0), paris(2026, 7, 1, 0, 0), paris(2026, 10, 26, 0, 0)]
)
def test_the_reminder_goes_on_friday_at_8_in_paris_before_the_deadline(after: datetime) -> None:
    [run] = next_runs("picks-reminder", after)
    assert (run.weekday(), run.hour, run.minute) == (4, 8, 0)
    assert run - after < timedelta(weeks=1)
    deadline = run.replace(hour=17)  # R13: Friday 17:00 in Paris
    assert deadline - run == timedelta(hours=9)


@pytest.mark.parametrize(
    "after", [paris(2026, 3, 20, 16, 58), paris(2026, 10, 23, 16, 58), paris(2026, 10, 30, 16, 58)]
)
def test_the_deadline_closing_runs_every_5_minutes_and_at_17_00_in_paris(
    after: datetime,
) -> None:
    runs = next_runs("rounds-close-due", after, count=3)
    assert [(run.hour, run.minute) for run in runs] == [(17, 0), (17, 5), (17, 10)]


def test_the_watchdog_runs_every_hour() -> None:
    runs = next_runs("arbitration-watchdog", paris(2026, 3, 22, 16, 30), count=3)
    assert [run.hour for run in runs] == [17, 18, 19]
    assert len({run.minute for run in runs}) == 1


def test_the_published_rounds_are_verified_every_night_at_3_30_in_paris() -> None:
    runs = next_runs("rounds-verify", paris(2026, 3, 28, 12, 0), count=2)
    # Across the change to summer time (29 March): 03:30 in Paris both nights.
    assert runs == [paris(2026, 3, 29, 3, 30), paris(2026, 3, 30, 3, 30)]


def test_the_mailbox_is_read_every_two_minutes() -> None:
    runs = next_runs("email-picks-fetch", paris(2026, 3, 20, 16, 59, 30), count=3)
    assert [(run.hour, run.minute) for run in runs] == [(17, 0), (17, 2), (17, 4)]


def test_the_outbox_is_swept_every_minute() -> None:
    runs = next_runs("emails-send-due", paris(2026, 3, 20, 16, 59, 30), count=3)
    assert [(run.hour, run.minute) for run in runs] == [(17, 0), (17, 1), (17, 2)]
    assert SCHEDULE["emails-send-due"]["task"] == "mail.emails_send_due"


def test_the_frequent_entries_expire_before_their_next_tick() -> None:
    # A tick queued while no worker ran is dropped: the next one does the same work.
    for name, every in (
        ("rounds-close-due", 300),
        ("email-picks-fetch", 120),
        ("emails-send-due", 60),
    ):
        assert SCHEDULE[name]["options"]["expires"] < every
