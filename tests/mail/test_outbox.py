"""One outbox (``mail.emails``), from a publication: the results emails' rows are written in the
publication's transaction — in as many queries for the KDH's 64 as for a division's 12, none
rendered in the referee's request —; a failure after the commit leaves each row due for the
sweep, and no email is lost; a publication swept twice sends each email once.

On the demo league at week 3, whose KDH round is its round of 64 (every team has a coach with
an address who gets results). Workers are not run here: the sweep is called as the worker
calls it (the real worker's tests are ``test_tasks_email.py`` and
``tests/faults/test_outbox_worker_killed.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection, transaction
from django.db.models import QuerySet
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from competitions.demo import DemoLeague
from competitions.models import Competition, PoolRound, TeamResult
from competitions.services import pool_round_arbitrate, pool_round_publish
from mail import emails, outbox
from mail.models import OutboundEmail
from tests.demo_worlds import DemoWorlds

pytestmark = pytest.mark.django_db

PUBLISH_QUERIES = 24
"""The referee's « Publish » request, whatever the number of coaches to email: the session, the
referee, the season, the pool round and whether they referee it; in the publication's
transaction (a savepoint here, two of the queries) its conditional update, the pool round read
again, the round's status, the audit record, the public pages' version, the league's memory
(the round's games as meetings and the records they break: nine), and the results emails in
three: whether this publication's rows are written already, the coaches who get them, the
rows."""


@pytest.fixture
def week_3(demo_worlds: DemoWorlds) -> DemoLeague:
    return demo_worlds.load(week=3)


def arbitrated(demo: DemoLeague, competition: Competition) -> PoolRound:
    """The first pool round of ``competition`` in the demo's waiting week, arbitrated."""
    pool_round = (
        PoolRound.objects.filter(
            round__season=demo.season, round__week=demo.week, round__competition=competition
        )
        .select_related("pool", "round")
        .order_by("pool__slug")
        .first()
    )
    assert pool_round is not None
    pool_round_arbitrate(pool_round=pool_round, by=demo.referee)
    return pool_round


def results_rows(pool_round: PoolRound) -> QuerySet[OutboundEmail]:
    return OutboundEmail.objects.filter(
        template="results-published", context__pool_round=pool_round.pk
    ).order_by("pk")


def publish_url(pool_round: PoolRound) -> str:
    pool = pool_round.pool
    return reverse("referee_publish", args=[pool.competition, pool.slug, pool_round.round.number])


def test_the_publication_writes_its_results_emails_in_the_same_queries_for_64_as_for_12(
    week_3: DemoLeague, django_capture_on_commit_callbacks: Callable
) -> None:
    referee = Client()
    referee.force_login(week_3.referee)
    counted = {}
    for competition in (Competition.KDH, Competition.CHAMPIONSHIP):
        pool_round = arbitrated(week_3, competition)
        with (
            django_capture_on_commit_callbacks(execute=False) as wakes,
            CaptureQueriesContext(connection) as queries,
        ):
            answer = referee.post(publish_url(pool_round))
        assert answer.status_code == 302
        assert outbox.email_outbox_wake in wakes  # a worker is woken once the rows commit
        counted[competition] = (len(queries), results_rows(pool_round).count())

    teams = {
        competition: TeamResult.objects.filter(
            pool_round__round__week=3, pool_round__round__competition=competition
        ).count()
        for competition in counted
    }
    assert teams == {Competition.KDH: 64, Competition.CHAMPIONSHIP: 12}
    # One row per coach who played, whatever their number, in the same queries.
    assert counted == {
        Competition.KDH: (PUBLISH_QUERIES, 64),
        Competition.CHAMPIONSHIP: (PUBLISH_QUERIES, 12),
    }
    # The request rendered none: each row holds its recipient and the ids its worker reads.
    for email in OutboundEmail.objects.filter(template="results-published"):
        assert (email.status, email.subject, email.body_text) == ("queued", "", "")
        assert email.user_id is not None and email.to
        assert set(email.context) == {"pool_round", "published_at", "entry"}
    assert mail.outbox == []


def test_the_results_emails_commit_with_the_publication_or_not_at_all(
    week_3: DemoLeague,
) -> None:
    pool_round = arbitrated(week_3, Competition.CHAMPIONSHIP)
    with pytest.raises(RuntimeError), transaction.atomic():
        pool_round_publish(pool_round=pool_round, by=week_3.referee)
        assert results_rows(pool_round).count() == 12
        raise RuntimeError("the publication's transaction fails after its emails were written")
    assert not results_rows(pool_round).exists()
    assert PoolRound.objects.get(pk=pool_round.pk).status == PoolRound.Status.ARBITRATED


def test_a_send_that_fails_after_the_commit_leaves_every_email_to_the_sweep(
    week_3: DemoLeague,
    settings: SettingsWrapper,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    monkeypatch.setattr(outbox, "EMAIL_RETRY_BASE_SECONDS", 0)  # due again at once
    pool_round = arbitrated(week_3, Competition.CHAMPIONSHIP)
    with django_capture_on_commit_callbacks(execute=False):
        pool_round_publish(pool_round=pool_round, by=week_3.referee)

    # The mail server is out of reach when the worker runs, after the publication's commit.
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    run = outbox.emails_send_due()
    assert (run.sent, run.retry_in) == (0, 0)
    rows = list(results_rows(pool_round))
    assert len(rows) == 12
    for email in rows:
        assert (email.status, email.attempts) == (OutboundEmail.Status.QUEUED, 1)
        assert "Connection refused" in email.last_error or "ConnectionRefused" in email.last_error
        assert email.body_text  # rendered once, kept for the next attempt

    # The server is back: the sweep (beat's, or the task queued for the retry) sends them all.
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert outbox.emails_send_due().sent == 12
    assert sorted(sent.to[0] for sent in mail.outbox) == sorted(row.to[0] for row in rows)
    for email in results_rows(pool_round):
        assert (email.status, email.attempts, email.last_error) == ("sent", 2, "")


def test_a_rendering_that_fails_leaves_the_email_due_and_it_goes_out_once_it_renders(
    week_3: DemoLeague, django_capture_on_commit_callbacks: Callable
) -> None:
    pool_round = arbitrated(week_3, Competition.CHAMPIONSHIP)
    with django_capture_on_commit_callbacks(execute=False):
        pool_round_publish(pool_round=pool_round, by=week_3.referee)
    first = results_rows(pool_round).first()
    assert first is not None
    # A row its rendering fails on (ids it cannot read), as a bug or a bad row would make it.
    OutboundEmail.objects.filter(pk=first.pk).update(context={**first.context, "pool_round": "x"})
    assert outbox.emails_send_due().sent == 11
    broken = OutboundEmail.objects.get(pk=first.pk)
    assert (broken.status, broken.attempts, broken.body_text) == ("queued", 1, "")
    assert broken.last_error
    assert broken.due_at > broken.created_at

    # Mended (its ids back) and due: the sweep renders and sends it, and no other twice.
    OutboundEmail.objects.filter(pk=first.pk).update(context=first.context, due_at=first.due_at)
    assert outbox.emails_send_due().sent == 1
    assert len(mail.outbox) == 12
    assert len({sent.to[0] for sent in mail.outbox}) == 12


def test_a_publication_swept_twice_sends_each_email_once(
    week_3: DemoLeague, django_capture_on_commit_callbacks: Callable
) -> None:
    pool_round = arbitrated(week_3, Competition.KDH)
    with django_capture_on_commit_callbacks(execute=False):
        pool_round_publish(pool_round=pool_round, by=week_3.referee)
        # The receiver firing again in the same publication writes nothing more.
        assert emails.email_results_published(pool_round=pool_round) == []

    # The woken worker and beat's sweep, one after the other (at once: ``test_outbox_receipts``).
    assert outbox.emails_send_due().sent == 64
    assert outbox.emails_send_due().sent == 0
    assert len(mail.outbox) == 64
    assert len({sent.to[0] for sent in mail.outbox}) == 64
    assert set(results_rows(pool_round).values_list("status", flat=True)) == {"sent"}
    # Each coach's own game first, in their language (the demo's coaches keep French).
    english = [sent for sent in mail.outbox if sent.subject.startswith("Results")]
    assert english == []
    assert all(sent.subject.startswith("Résultats") for sent in mail.outbox)


def test_a_claim_held_through_a_database_error_is_given_back_if_still_held() -> None:
    """A run the database failed under gives back the claim it held (``EmailClaimHeld``); a
    claim another run took since (a later lease's end) is left alone."""
    lease_until = timezone.now() + timedelta(minutes=10)
    email = OutboundEmail.objects.create(
        template="pick-receipt", to=["coach@example.org"], attempts=1, due_at=lease_until
    )
    later = lease_until + timedelta(minutes=5)
    assert outbox.email_claims_release(held=[(email.pk, later)]) == 0
    assert OutboundEmail.objects.get(pk=email.pk).due_at == lease_until

    assert outbox.email_claims_release(held=[(email.pk, lease_until)]) == 1
    assert OutboundEmail.objects.get(pk=email.pk).due_at <= timezone.now()
