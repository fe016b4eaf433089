"""Receipts in the outbox (``mail.models.OutboundEmail``): a pick is stored with its receipt's
row, in one transaction, rendering nothing; a worker renders and sends each receipt once,
however many workers run — one queue, no stage before it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection
from django.utils import timezone

from competitions.models import Pick, Round
from competitions.services import PickRejected, pick_record, pick_send
from league.models import Entry
from mail import emails, outbox
from mail.models import OutboundEmail

pytestmark = pytest.mark.usefixtures("eager")


@pytest.fixture
def open_round(championship_round: Round) -> Round:
    championship_round.deadline = timezone.now() + timedelta(days=2)
    championship_round.save()
    return championship_round


def receipts() -> list[OutboundEmail]:
    return list(OutboundEmail.objects.filter(template="pick-receipt").order_by("pk"))


@pytest.mark.django_db
def test_a_pick_is_stored_with_its_receipt_queued_and_a_refused_one_with_nothing(
    coach: User, open_round: Round, django_capture_on_commit_callbacks: Callable
) -> None:
    team = Entry.objects.get(team__coach=coach).team
    with django_capture_on_commit_callbacks(execute=False) as wakes:
        pick = pick_send(team=team, round=open_round, notation="F+(1)", entered_by=coach).pick
    # Queued in the pick's transaction by its ids, rendered by nobody yet; a worker woken on
    # commit.
    [email] = receipts()
    assert (email.status, email.context, email.subject) == ("queued", {"pick": pick.pk}, "")
    assert wakes == [outbox.email_outbox_wake]

    with pytest.raises(PickRejected):
        pick_send(team=team, round=open_round, notation="F+(9)", entered_by=coach)
    assert len(receipts()) == 1
    assert Pick.objects.count() == 1


@pytest.mark.django_db
def test_the_worker_renders_and_sends_each_receipt_once(
    coach: User, other_coach: User, open_round: Round
) -> None:
    picks = []
    for user, notation in ((coach, "A(1)"), (coach, "B(2)"), (other_coach, "C(0)")):
        pick = pick_record(
            entry=Entry.objects.get(team__coach=user),
            round=open_round,
            notation=notation,
            normalized=notation,
            channel="web",
        )
        emails.email_pick_receipt(pick=pick)
        picks.append(pick)

    assert outbox.emails_send_due(batch=2).sent == 3
    written = receipts()
    assert [email.to for email in written] == [
        ["sleigh-coach@example.org"],
        ["sleigh-coach@example.org"],
        ["freezing-coach@example.org"],
    ]
    assert all(p.receipt in e.body_text for p, e in zip(picks, written, strict=True))
    assert {email.status for email in written} == {"sent"}
    assert len(mail.outbox) == 3
    # Done: a second run (a late wake-up, beat's sweep) sends nothing more.
    assert outbox.emails_send_due().sent == 0
    assert len(mail.outbox) == 3


@pytest.mark.django_db(transaction=True)
def test_workers_running_at_once_send_each_receipt_once(coach: User, open_round: Round) -> None:
    entry = Entry.objects.get(team__coach=coach)
    picks = [
        pick_record(entry=entry, round=open_round, notation=n, normalized=n, channel="web")
        for n in [f"{column}(1)" for column in "ABCDEFGHIJ"] * 3
    ]
    OutboundEmail.objects.bulk_create(  # written without waking a worker: three run below
        OutboundEmail(template="pick-receipt", context={"pick": pick.pk}) for pick in picks
    )
    done: list[int] = []
    start = threading.Barrier(3)

    def worker() -> None:
        try:
            start.wait()
            done.append(outbox.emails_send_due(batch=4).sent)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    # Each row claimed by one worker only (a conditional update): thirty receipts, one a pick,
    # each sent once.
    assert sum(done) == len(picks) == 30
    assert len(mail.outbox) == 30
    bodies = [email.body_text for email in receipts()]
    assert all(sum(pick.receipt in body for body in bodies) == 1 for pick in picks)
    assert all(sum(pick.receipt in sent.body for sent in mail.outbox) == 1 for pick in picks)
