"""The email helper (``mail.emails``): stored in the outbox, rendered in the recipient's
language, sent once the transaction commits; the pick receipt goes to the team's coach only."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core import mail

from competitions.models import Pick, Round
from competitions.services import pick_record
from league.models import Entry, Language, Profile
from mail import emails, outbox
from mail.models import OutboundEmail

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


@pytest.fixture
def sleigh_pick(coach: User, championship_round: Round) -> Pick:
    entry = Entry.objects.get(team__coach=coach)
    return pick_record(
        entry=entry, round=championship_round, notation="f+ (2)", normalized="F+(2)", channel="web"
    )


def speaks(user: User, language: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"language": language})


def test_an_email_is_stored_in_the_outbox_and_sent_when_the_transaction_commits(
    sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        email = emails.email_pick_receipt(pick=sleigh_pick)
    assert email is not None
    assert email.status == OutboundEmail.Status.QUEUED
    assert mail.outbox == []
    for callback in callbacks:
        callback()
    email.refresh_from_db()
    assert email.status == OutboundEmail.Status.SENT
    assert email.attempts == 1
    assert email.sent_at is not None
    [sent] = mail.outbox
    assert sent.to == ["sleigh-coach@example.org"]
    assert sent.subject == email.subject
    assert sent.body == email.body_text
    assert sent.alternatives[0][1] == "text/html"


def test_nothing_is_sent_for_a_rolled_back_action(
    sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        emails.email_pick_receipt(pick=sleigh_pick)
    # A rolled-back transaction drops its on_commit callbacks: none was run, nothing was sent.
    assert len(callbacks) == 1
    assert mail.outbox == []


def test_the_pick_receipt_is_in_french_for_a_coach_who_speaks_french(
    coach: User, sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    speaks(coach, Language.FRENCH)
    with django_capture_on_commit_callbacks(execute=True):
        email = emails.email_pick_receipt(pick=sleigh_pick)
    email.refresh_from_db()
    assert email.language == "fr"
    [sent] = mail.outbox
    assert sent.subject.startswith("Ordre reçu")
    assert "championnat" in sent.subject
    assert "Reçu (SHA-256 de l’ordre enregistré)" in sent.body
    assert sleigh_pick.receipt in sent.body
    assert sleigh_pick.receipt in sent.alternatives[0][0]
    assert 'lang="fr"' in sent.alternatives[0][0]


def test_the_pick_receipt_is_in_english_for_a_coach_who_chose_english(
    coach: User, sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    speaks(coach, Language.ENGLISH)
    with django_capture_on_commit_callbacks(execute=True):
        emails.email_pick_receipt(pick=sleigh_pick)
    [sent] = mail.outbox
    assert sent.subject == "Pick received — championship, round 1: F+(2)"
    assert "Receipt (SHA-256 of the stored pick)" in sent.body
    assert "f+ (2)" in sent.body
    assert "http://127.0.0.1:8000/picks/" in sent.body


def test_a_coach_without_a_profile_gets_french_the_league_s_language(coach: User) -> None:
    assert not Profile.objects.filter(user=coach).exists()
    assert emails.user_language(coach) == "fr"


def test_the_receipt_goes_only_to_the_team_s_own_coach(
    sleigh_pick: Pick, other_coach: User, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        emails.email_pick_receipt(pick=sleigh_pick)
    assert [m.to for m in mail.outbox] == [["sleigh-coach@example.org"]]
    assert all("freezing" not in address for m in mail.outbox for address in m.to)


def test_no_receipt_for_a_team_without_a_coach(
    enter_team: Callable[..., Entry],
    championship_round: Round,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    entry = enter_team("Groggs", code=5)
    pick = pick_record(
        entry=entry, round=championship_round, notation="B(X)", normalized="B(X)", channel="web"
    )
    with django_capture_on_commit_callbacks(execute=True):
        email = emails.email_pick_receipt(pick=pick)
    email.refresh_from_db()
    assert email.status == OutboundEmail.Status.DROPPED
    assert (email.to, email.subject) == ([], "")
    assert mail.outbox == []


def test_a_subject_is_always_one_line(sleigh_pick: Pick) -> None:
    subject, _text, _html = outbox.email_render(
        template="pick-receipt",
        context={
            "coach": sleigh_pick.entry.team.coach,
            "team": sleigh_pick.entry.team,
            "round": sleigh_pick.round,
            "pick": sleigh_pick,
            "received_at": sleigh_pick.received_at,
            "deadline": sleigh_pick.round.deadline,
            "time_zone": "Europe/Paris",
            "picks_url": "http://127.0.0.1:8000/picks/",
        },
        language="en",
    )
    assert subject.startswith("Pick received") and "\n" not in subject


def test_a_row_written_rendered_is_sent_with_its_recipients_reply_to_and_headers(
    db: None,
) -> None:
    email = OutboundEmail.objects.create(
        template="pick-receipt",
        to=["a@example.org", "b@example.org"],
        reply_to=["picks@example.org"],
        headers={"In-Reply-To": "<abc@example.org>"},
        subject="Pick received",
        body_text="Received.\n",
    )
    assert outbox.emails_send_due().sent == 1
    [sent] = mail.outbox
    assert sent.to == ["a@example.org", "b@example.org"]
    assert sent.reply_to == ["picks@example.org"]
    assert sent.extra_headers == {"In-Reply-To": "<abc@example.org>"}
    email.refresh_from_db()
    assert email.status == OutboundEmail.Status.SENT


def test_an_unknown_language_is_refused(
    sleigh_pick: Pick, coach: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    email = OutboundEmail(template="pick-receipt", context={"pick": sleigh_pick.pk})
    german = outbox.Rendering(user=coach, language="de", context={})
    monkeypatch.setitem(outbox.RENDERINGS, "pick-receipt", lambda email, memo: german)
    with pytest.raises(ValueError):
        outbox.email_render_queued(email=email, memo={})


def test_a_sent_email_is_not_sent_twice_by_a_second_task(
    sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        email = emails.email_pick_receipt(pick=sleigh_pick)
    assert email is not None
    assert outbox.email_deliver(email_id=email.pk) is None
    assert len(mail.outbox) == 1


def test_two_workers_reading_the_same_due_email_send_it_once(
    sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    """Two sweeps (beat's and a woken worker's, or a task handed out twice by the broker) read
    the same due row: the conditional update on the ``due_at`` they read lets one claim it."""
    with django_capture_on_commit_callbacks(execute=False):  # not delivered yet
        email = emails.email_pick_receipt(pick=sleigh_pick)
    email.refresh_from_db()
    seen = email.due_at
    assert outbox.email_deliver(email_id=email.pk, due_at=seen) is not None
    assert outbox.email_deliver(email_id=email.pk, due_at=seen) is None
    assert outbox.emails_send_due().sent == 0
    assert len(mail.outbox) == 1
    email.refresh_from_db()
    assert (email.status, email.attempts) == (OutboundEmail.Status.SENT, 1)


def test_an_admin_resends_an_email(
    admin_client, sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        email = emails.email_pick_receipt(pick=sleigh_pick)
    assert email is not None
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/mail/outboundemail/",
            {"action": "resend", "_selected_action": [email.pk]},
        )
    assert response.status_code == 302
    assert len(mail.outbox) == 2
    assert mail.outbox[1].subject == mail.outbox[0].subject
    email.refresh_from_db()
    assert email.status == OutboundEmail.Status.SENT
    assert email.attempts == 2


def test_the_outbox_admin_lists_and_shows_emails_read_only(
    admin_client, sleigh_pick: Pick, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        email = emails.email_pick_receipt(pick=sleigh_pick)
    email.refresh_from_db()
    listing = admin_client.get("/admin/mail/outboundemail/?status__exact=sent&q=sleigh")
    assert listing.status_code == 200
    assert email.subject in listing.content.decode()
    page = admin_client.get(f"/admin/mail/outboundemail/{email.pk}/change/")
    assert page.status_code == 200
    assert 'name="subject"' not in page.content.decode()
    assert sleigh_pick.receipt in page.content.decode()


def test_the_outbox_is_for_staff_only(client, coach: User) -> None:
    client.force_login(coach)
    response = client.get("/admin/mail/outboundemail/")
    assert response.status_code == 302
