"""A Celery worker killed with SIGKILL in the middle of sending the outbox: a real worker process
(prefork) on the test Redis takes beat's sweep after a publication and is held inside the send
of its first email (the test's SMTP server holds that message's DATA, as a slow mail server
would), then its whole process group is killed. Nothing is lost: the email it held is still
queued, claimed until its lease runs out (``EMAIL_CLAIM_SECONDS``, ten minutes by default,
seconds here), and the next sweep, on a new worker, sends every email of the outbox once —
the held one included, none twice."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import Message
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from django.utils import timezone

from competitions import services
from league.models import Division, Season
from mail import tasks
from mail.models import OutboundEmail
from tests.competitions.desk_league import Desk, desk_build
from tests.faults.conftest import worker_env
from tests.faults.services import celery_worker, wait_for

pytestmark = [
    pytest.mark.faults,
    pytest.mark.celery_worker,
    pytest.mark.django_db(transaction=True),
]

CLAIM_SECONDS = 4
"""The workers' lease on an email they claimed, here: a dead worker's email is due after it."""
VISIBILITY_SECONDS = 5


class HoldingMailServer:
    """An SMTP server that holds the first message's DATA until :attr:`release` is set (and then
    refuses it: that sender is gone), and accepts every other."""

    def __init__(self) -> None:
        self.held = threading.Event()
        self.release = threading.Event()
        self.accepted: list[tuple[list[str], Message]] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if not self.held.is_set():
            self.held.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            return "451 4.3.0 Try again later"
        message = message_from_bytes(envelope.content, policy=policy.default)
        self.accepted.append((list(envelope.rcpt_tos), message))
        return "250 Message accepted"


@pytest.fixture
def mail_server() -> Iterator[tuple[HoldingMailServer, int]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    handler = HoldingMailServer()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        handler.release.set()
        controller.stop()


@pytest.fixture
def published(season: Season, divisions: dict[str, Division]) -> Desk:
    """The elite's round 1 played and published: its two coaches' results emails (and their
    picks' receipts) committed in the outbox, sent by nobody yet."""
    desk = desk_build(season=season, divisions=divisions)
    pool_round = desk.league.play("elite", 1)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    assert OutboundEmail.objects.filter(template="results-published").count() == 2
    return desk


def test_a_worker_killed_mid_send_loses_no_email_and_the_sweep_sends_each_once(
    published: Desk,
    mail_server: tuple[HoldingMailServer, int],
    broker: str,
    tmp_path: Path,
) -> None:
    handler, port = mail_server
    env = {
        **worker_env(broker, visibility_seconds=VISIBILITY_SECONDS),
        "EMAIL_BACKEND": "smtp",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_CLAIM_SECONDS": str(CLAIM_SECONDS),
    }
    rows = list(OutboundEmail.objects.order_by("pk"))
    assert {(email.status, email.body_text) for email in rows} == {("queued", "")}  # by ids
    assert {email.template for email in rows} >= {"results-published"}

    first = celery_worker(env, tmp_path / "first.log", name="first")
    try:
        tasks.emails_send_due.delay()  # beat's sweep
        wait_for(handler.held.is_set, timeout=30, what="the worker sending its first email")
        first.kill()
        first.process.wait(timeout=10)
        killed_at = time.monotonic()
    finally:
        first.stop()
    handler.release.set()

    # The email it was sending is queued still, claimed by nobody alive until its lease ends;
    # nothing was accepted, nothing is marked sent.
    held = OutboundEmail.objects.get(attempts=1)
    assert held.status == OutboundEmail.Status.QUEUED
    assert held.due_at > timezone.now()
    # What the killed worker rendered is written with an attempt's outcome: none came, so the
    # next attempt renders it again, from the row's ids.
    assert held.body_text == ""
    assert not OutboundEmail.objects.filter(status=OutboundEmail.Status.SENT).exists()
    assert handler.accepted == []

    # A new worker, once the lease has run out, and beat's next sweep: every email goes out.
    time.sleep(max(0.0, CLAIM_SECONDS + 1 - (time.monotonic() - killed_at)))
    second = celery_worker(env, tmp_path / "second.log", name="second")
    try:
        tasks.emails_send_due.delay()
        wait_for(
            lambda: not OutboundEmail.objects.exclude(status=OutboundEmail.Status.SENT).exists(),
            timeout=60,
            what=f"every email sent ({second.text()[-2000:]})",
        )
        time.sleep(VISIBILITY_SECONDS + 1)  # the killed worker's task, handed out again, runs
        tasks.emails_send_due.delay()  # and one more sweep: nothing is sent twice
        time.sleep(2)
    finally:
        second.stop()

    sent = list(OutboundEmail.objects.order_by("pk"))
    assert len(handler.accepted) == len(sent) == len(rows)
    assert sorted(to for to, _message in handler.accepted) == sorted(e.to for e in sent)
    assert sorted(m["Subject"].strip() for _to, m in handler.accepted) == sorted(
        e.subject for e in sent
    )
    assert OutboundEmail.objects.get(pk=held.pk).attempts == 2
    assert all(email.attempts == 1 for email in sent if email.pk != held.pk)
