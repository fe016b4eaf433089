"""The outbox's task against a real SMTP server (aiosmtpd on 127.0.0.1) and a real Celery worker
on the real Redis broker: a failing mail server delays mail, it never loses it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import Message

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session
from celery import Celery
from celery.contrib.testing.worker import start_worker
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper
from rest_framework.test import APIClient

from competitions.models import Competition, Round
from competitions.services import pick_record, round_create
from league.models import Entry, Season
from mail import emails, outbox, tasks
from mail.models import OutboundEmail
from tests.conftest import celery_on_redis, redis_commands, redis_url
from tests.mail.smtp_server import free_port, smtp_serving

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


@dataclass
class MailServer:
    """An SMTP server that answers "451 try again later" to the first ``refusals`` messages."""

    refusals: int = 0
    refused: int = 0
    received: list[Message] = field(default_factory=list)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list
    ) -> str:
        if self.refused < self.refusals:
            self.refused += 1
            return "451 4.3.0 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.received.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 Message accepted"


@pytest.fixture
def mail_server(settings: SettingsWrapper) -> Iterator[MailServer]:
    """A real SMTP server on 127.0.0.1, and the site's email backend pointed at it."""
    handler = MailServer()
    with smtp_serving(handler, settings):
        yield handler


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Celery]:
    """A real Celery worker on the test Redis, with retries a second apart (not minutes) and
    four attempts at most; the test Redis emptied before and after
    (:func:`tests.conftest.celery_on_redis`)."""
    monkeypatch.setattr(outbox, "EMAIL_RETRY_BASE_SECONDS", 1)
    monkeypatch.setattr(outbox, "EMAIL_MAX_ATTEMPTS", 4)
    with (
        celery_on_redis() as celery,
        start_worker(celery, pool="solo", perform_ping_check=False, shutdown_timeout=10),
    ):
        yield celery


@pytest.fixture
def queue_receipt(coach: User, championship_round: Round) -> Callable[[], OutboundEmail]:
    """Record a pick of the Sleigh Dogs and queue its receipt (committed: the woken worker
    renders and sends it)."""

    def queue() -> OutboundEmail:
        entry = Entry.objects.get(team__coach=coach)
        pick = pick_record(
            entry=entry,
            round=championship_round,
            notation="F+(2)",
            normalized="F+(2)",
            channel="web",
        )
        return emails.email_pick_receipt(pick=pick)

    return queue


def wait_for(email: OutboundEmail, status: str, timeout: float = 30) -> OutboundEmail:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        email.refresh_from_db()
        if email.status == status:
            return email
        time.sleep(0.05)
    raise AssertionError(
        f"email stayed {email.status} ({email.attempts} attempts): {email.last_error}"
    )


def test_a_mail_server_that_refuses_then_accepts_gets_the_email_on_a_retry(
    mail_server: MailServer, worker: Celery, queue_receipt: Callable[[], OutboundEmail]
) -> None:
    mail_server.refusals = 2
    email = wait_for(queue_receipt(), OutboundEmail.Status.SENT)
    assert email.attempts == 3
    assert mail_server.refused == 2
    [received] = mail_server.received
    assert received["Subject"].strip() == email.subject
    assert received["To"] == "sleigh-coach@example.org"
    assert email.last_error == ""


def test_an_unreachable_mail_server_keeps_the_email_and_records_why(
    mail_server: MailServer,
    worker: Celery,
    settings: SettingsWrapper,
    queue_receipt: Callable[[], OutboundEmail],
) -> None:
    settings.EMAIL_PORT = free_port()  # nobody listens there
    email = wait_for(queue_receipt(), OutboundEmail.Status.FAILED)
    # Three retries after the first attempt, then the email is failed, never lost.
    assert email.attempts == 4
    assert "Connection refused" in email.last_error or "ConnectionRefused" in email.last_error
    assert OutboundEmail.objects.filter(pk=email.pk).exists()


def test_a_failed_email_resent_by_an_admin_goes_out_when_the_server_is_back(
    mail_server: MailServer, worker: Celery, queue_receipt: Callable[[], OutboundEmail]
) -> None:
    mail_server.refusals = 4  # more than the attempts allowed
    email = wait_for(queue_receipt(), OutboundEmail.Status.FAILED)
    assert mail_server.received == []
    outbox.email_resend(email=email)
    email = wait_for(email, OutboundEmail.Status.SENT)
    assert len(mail_server.received) == 1
    assert email.attempts == 5


def test_an_email_whose_wake_up_was_lost_is_sent_by_beats_sweep(
    mail_server: MailServer, worker: Celery, coach: User, championship_round: Round
) -> None:
    entry = Entry.objects.get(team__coach=coach)
    pick = pick_record(
        entry=entry, round=championship_round, notation="A(1)", normalized="A(1)", channel="web"
    )
    # As if the broker had been down: the row is committed but no worker was ever woken.
    email = OutboundEmail.objects.create(template="pick-receipt", context={"pick": pick.pk})
    time.sleep(outbox.OUTBOX_WAKE_DELAY + 1)
    assert OutboundEmail.objects.get(pk=email.pk).status == OutboundEmail.Status.QUEUED
    tasks.emails_send_due.delay()  # what beat queues every minute
    email = wait_for(email, OutboundEmail.Status.SENT)
    assert [m["Subject"].strip() for m in mail_server.received] == [email.subject]
    assert pick.receipt in email.body_text


def test_a_wake_up_emptied_with_its_queue_does_not_hold_back_the_next_email(
    mail_server: MailServer,
    queue_receipt: Callable[[], OutboundEmail],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A test that woke the outbox leaves its wake-up task in its Redis database, emptied when
    it ends; the next test's first email, however soon it comes, still wakes a worker: the
    process forgot the wake-up that was lost with the queue, whatever ran before. A minute
    between wake-ups here, so that « soon » holds on any machine."""
    monkeypatch.setattr(outbox, "OUTBOX_WAKE_EVERY", 60)
    with celery_on_redis():
        outbox.email_outbox_wake()  # an earlier test's wake-up, emptied with its queue
    with (
        celery_on_redis() as celery,
        start_worker(celery, pool="solo", perform_ping_check=False, shutdown_timeout=10),
    ):
        email = wait_for(queue_receipt(), OutboundEmail.Status.SENT)
    assert [m["Subject"].strip() for m in mail_server.received] == [email.subject]


def test_the_backoff_doubles_and_stops_at_an_hour() -> None:
    waits = [outbox.email_retry_countdown(n) for n in range(10)]
    assert waits[:3] == [30, 60, 120]
    assert waits[-1] == 3600
    assert waits == sorted(waits)


def test_the_receipts_of_picks_sent_together_are_rendered_and_sent_by_the_worker(
    mail_server: MailServer,
    worker: Celery,
    api_as: Callable[[User | None], APIClient],
    coach: User,
    season: Season,
) -> None:
    for number in (1, 2):
        round_create(
            season=season,
            competition=Competition.CHAMPIONSHIP,
            number=number,
            week=number,
            deadline=timezone.now() + timedelta(days=3 + 7 * (number - 1)),
        )
    # Each pick commits its receipt's row; the first wakes the worker (in two seconds), and the
    # second, a moment later, is read by that same wake-up: the worker renders and sends both.
    api = api_as(coach)
    receipts = []
    for number, pick in ((1, "F(1)"), (2, "G(2)")):
        answer = api.put(f"/api/picks/championship/{number}/", {"pick": pick}, format="json")
        assert answer.status_code == 200, answer.content
        receipts.append(answer.json()["receipt"])
    deadline = time.monotonic() + 30
    while OutboundEmail.objects.filter(template="pick-receipt", status="sent").count() < 2:
        assert time.monotonic() < deadline, "the worker did not render and send both receipts"
        time.sleep(0.05)
    assert {tuple(e.to) for e in OutboundEmail.objects.filter(template="pick-receipt")} == {
        ("sleigh-coach@example.org",)
    }
    bodies = sorted(m.get_body(("plain",)).get_content() for m in mail_server.received)
    assert len(bodies) == 2
    assert all(any(receipt in body for body in bodies) for receipt in receipts)


WAKE_FOR_THE_OUTBOX = """
import os, time, django, redis
django.setup()
from matrixhockey.celery import app
from mail import outbox
server = redis.Redis.from_url(os.environ["REDIS_URL"])
app.control.purge()
before = server.llen("celery")
for _ in range(10):  # ten picks committed within the second
    outbox.email_outbox_wake()
first = server.llen("celery") - before
time.sleep(outbox.OUTBOX_WAKE_EVERY)
for _ in range(10):
    outbox.email_outbox_wake()
print(first, server.llen("celery") - before)
app.control.purge()
"""


def test_a_web_process_wakes_the_outbox_worker_once_a_second_and_reads_no_result() -> None:
    """Picks committed together wake the worker once: ten in a second queue one task, ten more
    after that second one more (not a task a pick, with the whole league sending at once). And
    nobody reads the task's result, so the process subscribes to no result channel on Redis. In
    a process of its own, as a web server's: the test process's Celery app runs eager tasks and
    has run workers."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "matrixhockey.settings",
        "REDIS_URL": redis_url(),
    }
    with redis_commands(redis_url()) as commands:
        done = subprocess.run(
            [sys.executable, "-c", WAKE_FOR_THE_OUTBOX],
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    assert done.stdout.strip().splitlines()[-1] == "1 2", done.stdout + done.stderr
    assert commands["subscribe"] == 0
    assert commands["lpush"] >= 2  # the count sees the process's commands
