"""A beat entry firing twice (two beat processes, a retried or redelivered task) never sends a
second weekly email or reminder to the same coach for the same week: the ``Mailing`` row is
written in the transaction that queues the email, and its unique constraint lets one through.

The last tests run the tasks twice at once on a real Celery worker (two threads) taking them
from the real Redis broker."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker
from django.contrib.auth.models import User
from django.db import IntegrityError, connections, transaction
from django.utils import timezone

from competitions.models import Round
from league.models import Season
from mail import weekly
from mail.models import Mailing, OutboundEmail
from mail.tasks import reminders_send, weekly_emails_send
from tests.conftest import celery_on_redis
from tests.mail.weekly_league import FRIDAY, PARIS, WEDNESDAY, WeekLeague

COACHES = 5  # the week's coaches with an address (weekly_league)


def per_coach(template: str) -> Counter[str]:
    return Counter(e.to[0] for e in OutboundEmail.objects.filter(template=template))


# --- The services, called twice -----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("week")
def test_the_weekly_email_sent_twice_reaches_each_coach_once() -> None:
    assert weekly.weekly_emails_send(now=WEDNESDAY) == COACHES
    assert weekly.weekly_emails_send(now=WEDNESDAY + timedelta(minutes=1)) == 0
    assert set(per_coach("weekly").values()) == {1}
    assert len(per_coach("weekly")) == COACHES


@pytest.mark.django_db
@pytest.mark.usefixtures("week")
def test_the_reminder_sent_twice_reaches_each_coach_once() -> None:
    assert weekly.reminders_send(now=FRIDAY) == COACHES
    assert weekly.reminders_send(now=FRIDAY) == 0
    assert set(per_coach("reminder").values()) == {1}


@pytest.mark.django_db
@pytest.mark.usefixtures("week")
def test_the_weekly_email_and_the_reminder_are_different_kinds() -> None:
    weekly.weekly_emails_send(now=WEDNESDAY)
    assert weekly.reminders_send(now=FRIDAY) == COACHES


@pytest.mark.django_db
@pytest.mark.usefixtures("week")
def test_an_email_that_fails_to_queue_leaves_no_record_and_goes_on_the_next_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_send = weekly.email_queue

    def failing_for_one(**kwargs: Any) -> OutboundEmail:
        if kwargs["user"].email == "igloo-coach@example.org":
            raise RuntimeError("the email could not be written")
        return real_send(**kwargs)

    monkeypatch.setattr(weekly, "email_queue", failing_for_one)
    with pytest.raises(RuntimeError):
        weekly.weekly_emails_send(now=WEDNESDAY)
    # The Mailing row went with the email: rolled back together.
    assert not Mailing.objects.filter(user__username="igloo-coach").exists()
    sent_before = sum(per_coach("weekly").values())
    monkeypatch.setattr(weekly, "email_queue", real_send)
    assert weekly.weekly_emails_send(now=WEDNESDAY) == COACHES - sent_before
    assert per_coach("weekly")["igloo-coach@example.org"] == 1
    assert set(per_coach("weekly").values()) == {1}


@pytest.mark.django_db
def test_the_database_refuses_a_second_mailing_for_the_same_week_kind_and_person(
    season: Season, coach: User
) -> None:
    Mailing.objects.create(season=season, week=3, kind=Mailing.Kind.WEEKLY, user=coach)
    Mailing.objects.create(season=season, week=3, kind=Mailing.Kind.REMINDER, user=coach)
    Mailing.objects.create(season=season, week=4, kind=Mailing.Kind.WEEKLY, user=coach)
    with pytest.raises(IntegrityError), transaction.atomic():
        Mailing.objects.create(season=season, week=3, kind=Mailing.Kind.WEEKLY, user=coach)


# --- The tasks, twice at once, on a real worker --------------------------------------------------


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Celery]:
    """A real Celery worker with two threads on the test Redis. Queuing an email takes a little
    while, so the two runs overlap: the second one meets the first one's uncommitted rows. The
    test Redis is emptied before and after (:func:`tests.conftest.celery_on_redis`)."""
    real_send = weekly.email_queue

    def slow_send(**kwargs: Any) -> OutboundEmail:
        time.sleep(0.2)
        return real_send(**kwargs)

    monkeypatch.setattr(weekly, "email_queue", slow_send)
    try:
        with (
            celery_on_redis() as celery,
            start_worker(
                celery, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=10
            ),
        ):
            yield celery
    finally:
        connections.close_all()


@pytest.fixture
def this_week(week: WeekLeague) -> WeekLeague:
    """The week league placed in the real current week (the tasks read the real clock): week 3
    is this week in Paris, its deadline a day from now."""
    season = week.season
    today = timezone.localtime(timezone.now(), PARIS).date()
    monday = today - timedelta(days=today.weekday())
    Season.objects.filter(pk=season.pk).update(starts_on=monday - timedelta(weeks=2))
    season.refresh_from_db()
    assert season.week_monday(3) == monday and isinstance(monday, date)
    Round.objects.filter(season=season).update(deadline=timezone.now() + timedelta(days=1))
    return week


def two_at_once(task: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Queue ``task`` twice, as two beat processes would, and check that the worker ran the two
    at once (the service each calls is timed, and what it returned kept: the tasks store no
    result)."""
    spans: list[tuple[float, float]] = []
    counts: list[int] = []
    service = getattr(weekly, task.name.removeprefix("mail."))

    def timed(**kwargs: Any) -> int:
        start = time.monotonic()
        try:
            count = service(**kwargs)
            counts.append(count)
            return count
        finally:
            spans.append((start, time.monotonic()))

    monkeypatch.setattr(weekly, service.__name__, timed)
    task.delay()
    task.delay()
    deadline = time.monotonic() + 60
    while len(spans) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(counts) == 2, "the worker did not run both"
    (start_a, end_a), (start_b, end_b) = spans
    assert start_a < end_b and start_b < end_a, "the two runs did not overlap"
    return counts


def wait_for_delivery(count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if OutboundEmail.objects.filter(status=OutboundEmail.Status.SENT).count() >= count:
            return
        time.sleep(0.05)


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_the_weekly_task_run_twice_at_once_on_a_worker_sends_one_email_each(
    this_week: WeekLeague, worker: Celery, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sum(two_at_once(weekly_emails_send, monkeypatch)) == COACHES
    assert set(per_coach("weekly").values()) == {1}
    assert len(per_coach("weekly")) == COACHES
    assert Mailing.objects.filter(kind=Mailing.Kind.WEEKLY).count() == COACHES
    wait_for_delivery(COACHES)
    assert OutboundEmail.objects.filter(status=OutboundEmail.Status.SENT).count() == COACHES


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_the_reminder_task_run_twice_at_once_on_a_worker_sends_one_email_each(
    this_week: WeekLeague, worker: Celery, monkeypatch: pytest.MonkeyPatch
) -> None:
    this_week.send(this_week.sleigh, this_week.championship, this_week.kdh)
    assert sum(two_at_once(reminders_send, monkeypatch)) == COACHES - 1
    assert set(per_coach("reminder").values()) == {1}
    assert "sleigh-coach@example.org" not in per_coach("reminder")
