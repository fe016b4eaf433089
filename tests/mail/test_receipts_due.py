"""The receipts' outbox (``mail.models.PickReceiptDue``): a pick is stored with its receipt due,
in one transaction; a worker writes each due receipt once, however many workers run."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from competitions.models import Pick, Round
from competitions.services import PickRejected, pick_record, pick_send
from league.models import Entry
from mail import emails
from mail.models import OutboundEmail, PickReceiptDue

pytestmark = pytest.mark.usefixtures("eager")


@pytest.fixture
def open_round(championship_round: Round) -> Round:
    championship_round.deadline = timezone.now() + timedelta(days=2)
    championship_round.save()
    return championship_round


def receipts() -> list[OutboundEmail]:
    return list(OutboundEmail.objects.filter(template="pick-receipt").order_by("pk"))


@pytest.mark.django_db
def test_a_pick_is_stored_with_its_receipt_due_and_a_refused_one_with_nothing(
    coach: User, open_round: Round, django_capture_on_commit_callbacks: Callable
) -> None:
    team = Entry.objects.get(team__coach=coach).team
    with django_capture_on_commit_callbacks(execute=False) as wakes:
        pick = pick_send(team=team, round=open_round, notation="F+(1)", entered_by=coach).pick
    # Due in the pick's transaction; nothing written by the request, the worker woken on commit.
    assert list(PickReceiptDue.objects.values_list("pick_id", flat=True)) == [pick.pk]
    assert receipts() == []
    assert wakes == [emails.email_receipts_wake]

    with pytest.raises(PickRejected):
        pick_send(team=team, round=open_round, notation="F+(9)", entered_by=coach)
    assert PickReceiptDue.objects.count() == 1
    assert Pick.objects.count() == 1


@pytest.mark.django_db
def test_the_worker_writes_each_due_receipt_once(
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
        PickReceiptDue.objects.create(pick=pick)
        picks.append(pick)

    assert emails.email_pick_receipts_write(batch=2) == 3
    written = receipts()
    assert [email.to for email in written] == [
        ["sleigh-coach@example.org"],
        ["sleigh-coach@example.org"],
        ["freezing-coach@example.org"],
    ]
    assert all(p.receipt in e.body_text for p, e in zip(picks, written, strict=True))
    assert not PickReceiptDue.objects.exists()
    # Done: a second run (a late wake-up, beat's sweep) writes nothing more.
    assert emails.email_pick_receipts_write() == 0
    assert len(receipts()) == 3


@pytest.mark.django_db(transaction=True)
def test_workers_running_at_once_write_each_receipt_once(coach: User, open_round: Round) -> None:
    entry = Entry.objects.get(team__coach=coach)
    picks = [
        pick_record(entry=entry, round=open_round, notation=n, normalized=n, channel="web")
        for n in [f"{column}(1)" for column in "ABCDEFGHIJ"] * 3
    ]
    PickReceiptDue.objects.bulk_create(PickReceiptDue(pick=pick) for pick in picks)
    done: list[int] = []
    start = threading.Barrier(3)

    def worker() -> None:
        try:
            start.wait()
            done.append(emails.email_pick_receipts_write(batch=4))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    # Each due row done by one worker only (SKIP LOCKED): thirty receipts, one a pick.
    assert sum(done) == len(picks) == 30
    bodies = [email.body_text for email in receipts()]
    assert len(bodies) == 30
    assert all(sum(pick.receipt in body for body in bodies) == 1 for pick in picks)
    assert not PickReceiptDue.objects.exists()
