"""Every kind of email is one outbox row holding its kind, its recipient and the ids and codes
its context needs — never rendered text, never a token — rendered by the worker that sends it,
in the recipient's language then; a rendering that fails or a mail server that refuses leaves the
row to be tried again, and nothing is lost (``mail.outbox``).

The worker is not run here: the sweep is called as the worker calls it.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core import mail
from django.utils import timezone
from pytest_django.fixtures import Settings

from competitions.models import LatePick, Round
from competitions.services import late_pick_reject, pool_round_create
from league.models import Entry, News, Profile, Season, WaitingListEntry
from mail import emails, emails_accounts, outbox
from mail.models import InboundEmail, OutboundEmail
from mail.news import news_emails_send
from mail.weekly import reminders_send, watchdog_alerts_send, weekly_emails_send
from tests.mail.test_ingest_email import (
    AUTHSERV_ID,
    COACH,
    EmailLeague,
    build_email_league,
    ingest,
)
from tests.mail.weekly_league import DEADLINE, FRIDAY, WEDNESDAY, WeekLeague

pytestmark = pytest.mark.django_db

TEMPLATES = Path(django_settings.BASE_DIR) / "templates" / "emails"


def speaks(user: User, language: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"language": language})


def unrendered(email: OutboundEmail) -> None:
    """``email`` is queued as its kind and ids: no subject, body or header rendered, no link."""
    assert (email.status, email.subject, email.body_text, email.body_html) == ("queued", "", "", "")
    assert email.headers == {}
    assert "http" not in str(email.context) and "token" not in str(email.context)


def sent_to(address: str) -> list[mail.EmailMessage]:
    return [message for message in mail.outbox if message.to == [address]]


def test_every_email_template_is_a_kind_with_its_rendering() -> None:
    kinds = {path.name.removesuffix("-subject.txt") for path in TEMPLATES.glob("*-subject.txt")}
    assert kinds == set(outbox.RENDERINGS)


# --- The emails of people's access ---------------------------------------------------------------


@pytest.fixture
def late_pick(championship_round: Round, coach: User) -> LatePick:
    return LatePick.objects.create(
        entry=Entry.objects.get(team__coach=coach),
        round=championship_round,
        notation="E+(1)",
        received_at=championship_round.deadline + timedelta(minutes=42),
    )


def written(kind: str, coach: User, late_pick: LatePick, referee: User) -> OutboundEmail:
    """The row of ``kind`` written for ``coach``, as its cause writes it."""
    if kind == "invitation":
        email = emails.email_invitation(user=coach)
    elif kind == "password-reset":
        email = emails_accounts.email_password_reset(user=coach)
    elif kind == "pick-reply":
        late_pick_reject(late_pick=late_pick, by=referee)
        email = OutboundEmail.objects.get(template="pick-reply")
    else:
        news = News.objects.create(
            title_fr="Trêve (fr)",
            title_en="Break (en)",
            body_fr="Pas de match.",
            body_en="No games.",
            published_at=timezone.now() - timedelta(minutes=1),
        )
        assert news_emails_send(news_id=news.pk) == 1  # the one coach, who wants news
        email = OutboundEmail.objects.get(template="news", user=coach)
    assert email is not None
    return email


KINDS = {
    # kind: (the ids its row holds, its English subject, words of its French body)
    "invitation": (
        {},
        "Matrix Hockey: choose your password to coach Sleigh Dogs",
        "Bonjour",
    ),
    "password-reset": ({}, "Matrix Hockey: choose a new password", "Bonjour"),
    "pick-reply": (
        {"kind": "late_rejected", "late_pick": None},
        "Your late pick was not accepted",
        "Bonjour",
    ),
    "news": ({"news": None}, "News: Break (en)", "Trêve (fr)"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_an_email_is_written_as_ids_and_rendered_in_the_language_of_its_sending(
    kind: str, coach: User, late_pick: LatePick, referee: User
) -> None:
    speaks(coach, "fr")
    email = written(kind, coach, late_pick, referee)
    unrendered(email)
    ids, english_subject, _french = KINDS[kind]
    assert set(email.context) == set(ids)
    assert (email.user, email.to) == (coach, [coach.email])
    if kind == "pick-reply":
        assert email.context == {"kind": "late_rejected", "late_pick": late_pick.pk}

    speaks(coach, "en")  # the coach changes language before the worker runs
    assert outbox.emails_send_due().sent >= 1
    [message] = sent_to(coach.email)
    assert message.subject == english_subject
    email.refresh_from_db()
    assert (email.status, email.language) == ("sent", "en")


@pytest.mark.parametrize("kind", KINDS)
def test_a_french_reader_gets_it_in_french(
    kind: str, coach: User, late_pick: LatePick, referee: User
) -> None:
    speaks(coach, "en")
    written(kind, coach, late_pick, referee)
    speaks(coach, "fr")
    outbox.emails_send_due()
    [message] = sent_to(coach.email)
    assert KINDS[kind][2] in message.body
    assert 'lang="fr"' in message.alternatives[0][0]


def test_the_password_link_is_made_when_the_email_is_rendered(coach: User) -> None:
    email = emails_accounts.email_password_reset(user=coach)
    assert email is not None
    unrendered(email)
    outbox.emails_send_due()
    [message] = mail.outbox
    [link] = re.findall(r"https?://\S+/accounts/reset/\S+/", message.body)
    assert message.extra_headers == {"Auto-Submitted": "auto-generated"}
    assert link not in str(OutboundEmail.objects.get(pk=email.pk).context)


def test_the_waiting_list_email_goes_to_an_address_in_the_language_chosen_then(
    db: None,
) -> None:
    entry = WaitingListEntry.objects.create(
        name="Les Tardifs", email="tardifs@example.org", language="en"
    )
    email = emails_accounts.email_waiting_list(entry=entry, known=False)
    unrendered(email)
    assert (email.user, email.to, email.context) == (
        None,
        ["tardifs@example.org"],
        {"entry": entry.pk, "known": False},
    )
    WaitingListEntry.objects.filter(pk=entry.pk).update(language="fr")
    assert outbox.emails_send_due().sent == 1
    [message] = mail.outbox
    assert message.to == ["tardifs@example.org"]
    assert "/join/confirm/" in message.body
    assert 'lang="fr"' in message.alternatives[0][0]


def test_a_waiting_list_entry_gone_before_the_sending_is_dropped(db: None) -> None:
    entry = WaitingListEntry.objects.create(name="Les Partis", email="partis@example.org")
    email = emails_accounts.email_waiting_list(entry=entry, known=True)
    entry.delete()
    assert outbox.emails_send_due().sent == 0
    email.refresh_from_db()
    assert email.status == OutboundEmail.Status.DROPPED
    assert mail.outbox == []


# --- Replies to picks by email -------------------------------------------------------------------


@pytest.fixture
def email_league(season: Season, coach: User, other_coach: User, settings: Settings) -> EmailLeague:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    return build_email_league(season, coach, other_coach)


def test_a_reply_to_picks_holds_the_message_s_id_and_its_lines_as_codes(
    email_league: EmailLeague,
) -> None:
    ingest("bad-notation.eml")
    inbound = InboundEmail.objects.get(message_id="<bad-notation.3@mail.example.org>")
    reply = OutboundEmail.objects.get(template="pick-reply")
    unrendered(reply)
    assert reply.context == {
        "kind": "picks",
        "inbound": inbound.pk,
        "team": email_league.entry.team_id,
    }
    assert inbound.reply == reply
    error, recorded = sorted(inbound.report, key=lambda line: line["status"])
    assert (error["code"], error["fault"], error["facts"]) == (
        "notation",
        "extra_time_value",
        {"part": "(7)"},
    )
    assert recorded["status"] == "recorded" and recorded["pick_id"] is not None


def test_a_reply_to_picks_is_worded_from_its_codes_in_the_coach_s_language_when_sent(
    email_league: EmailLeague,
) -> None:
    ingest("bad-notation.eml")  # a French coach: the record keeps the French words
    [error] = [line for line in InboundEmail.objects.get().report if line["status"] == "error"]
    assert "doit être" in error["message"]
    speaks(email_league.coach, "en")
    assert outbox.emails_send_due().sent == 1
    [message] = mail.outbox
    assert message.to == [COACH]
    assert message.subject == "Your picks by email: 1 line to correct"
    assert "“(7)”: the extra-time value must be 0, 1, 2, 3 or X." in message.body
    assert "Receipt (SHA-256 of the stored pick):" in message.body
    # Threaded under the coach's message, an automatic reply (RFC 3834), as always.
    assert message.extra_headers == {
        "In-Reply-To": "<bad-notation.3@mail.example.org>",
        "References": "<bad-notation.3@mail.example.org>",
        "Auto-Submitted": "auto-replied",
    }


def test_a_competition_s_refusal_keeps_its_facts_in_no_language_and_is_worded_in_the_coach_s(
    email_league: EmailLeague,
) -> None:
    speaks(email_league.coach, "en")
    ingest("kdh-great-save.eml")
    [line] = InboundEmail.objects.get().report
    assert (line["code"], line["fault"]) == ("not_allowed", "great_saves")
    assert line["facts"]["competition"] == "kdh"  # a code, not a label
    speaks(email_league.coach, "fr")
    outbox.emails_send_due()
    [message] = mail.outbox
    assert "Les super-arrêts (#) se jouent seulement en championnat, pas en coupe KDH." in (
        " ".join(message.body.split())
    )


def test_a_reply_to_an_unknown_sender_goes_to_its_address_in_its_message_s_language(
    email_league: EmailLeague,
) -> None:
    ingest("unknown-sender.eml")
    reply = OutboundEmail.objects.get(template="pick-reply")
    unrendered(reply)
    assert reply.user is None and reply.context["kind"] == "unknown"
    [address] = reply.to
    assert set(reply.context) == {"kind", "inbound", "language"}
    outbox.emails_send_due()
    [message] = mail.outbox
    assert message.to == [address]
    assert address in message.body
    assert message.extra_headers["Auto-Submitted"] == "auto-replied"


# --- The week's clock ----------------------------------------------------------------------------


def test_the_week_s_emails_are_written_as_ids_and_rendered_in_the_reader_s_language(
    week: WeekLeague, coach: User, referee: User
) -> None:
    pool_round_create(pool=week.elite, round=week.championship)  # not arbitrated, 49 hours late
    weekly_emails_send(now=WEDNESDAY)
    reminders_send(now=FRIDAY)
    watchdog_alerts_send(now=DEADLINE + timedelta(hours=49))
    rows = list(OutboundEmail.objects.filter(user__in=[coach, referee]))
    assert {row.template for row in rows} == {"weekly", "reminder", "watchdog"}
    for row in rows:
        unrendered(row)
    weekly = next(row for row in rows if row.template == "weekly")
    assert weekly.context == {
        "entry": week.sleigh.pk,
        "week": 3,
        "rounds": [week.championship.pk, week.kdh.pk],
        "at": WEDNESDAY.isoformat(),
    }
    watchdog = next(row for row in rows if row.template == "watchdog")
    assert set(watchdog.context) == {"pool_round", "at"}

    speaks(coach, "en")
    speaks(referee, "en")
    outbox.emails_send_due()
    sent = OutboundEmail.objects.filter(pk__in=[row.pk for row in rows])
    by_template = {row.template: row for row in sent}
    assert {row.status for row in by_template.values()} == {"sent"}
    assert {row.language for row in by_template.values()} == {"en"}
    assert "Friday 20 March 2026, 17:00 (Europe/Paris)" in by_template["weekly"].body_text
    assert "  - Round 3, Championship\n" in by_template["reminder"].body_text
    assert by_template["watchdog"].subject.startswith("Not arbitrated 48 hours after its deadline")
    assert "List-Unsubscribe" in by_template["weekly"].headers
    assert "List-Unsubscribe" not in by_template["reminder"].headers


# --- Nothing lost --------------------------------------------------------------------------------


def test_a_rendering_that_fails_is_tried_again_from_the_row_and_sent_once_mended(
    email_league: EmailLeague, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outbox, "EMAIL_RETRY_BASE_SECONDS", 0)  # due again at once
    ingest("bad-notation.eml")
    reply = OutboundEmail.objects.get(template="pick-reply")
    OutboundEmail.objects.filter(pk=reply.pk).update(context={**reply.context, "kind": "lost"})
    assert outbox.emails_send_due().sent == 0
    broken = OutboundEmail.objects.get(pk=reply.pk)
    assert (broken.status, broken.attempts, broken.body_text) == ("queued", 1, "")
    assert "KeyError" in broken.last_error
    OutboundEmail.objects.filter(pk=reply.pk).update(context=reply.context)
    assert outbox.emails_send_due().sent == 1
    assert outbox.emails_send_due().sent == 0
    [message] = mail.outbox
    assert message.extra_headers["In-Reply-To"] == "<bad-notation.3@mail.example.org>"


def test_a_mail_server_that_refuses_leaves_every_kind_queued_and_sent_when_it_is_back(
    coach: User,
    late_pick: LatePick,
    referee: User,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outbox, "EMAIL_RETRY_BASE_SECONDS", 0)
    rows = [written(kind, coach, late_pick, referee) for kind in KINDS]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    assert outbox.emails_send_due().sent == 0
    for email in OutboundEmail.objects.filter(pk__in=[row.pk for row in rows]):
        assert (email.status, email.attempts) == ("queued", 1)
        assert email.body_text  # rendered once: the next attempt sends it as it is
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    outbox.emails_send_due()
    statuses = OutboundEmail.objects.filter(pk__in=[row.pk for row in rows])
    assert set(statuses.values_list("status", flat=True)) == {"sent"}
    assert len(sent_to(coach.email)) == len(KINDS)


def test_an_email_queued_rendered_is_sent_as_it_is(db: None) -> None:
    """A row that holds its text is sent as it stands: the worker renders only a row without a
    body (the rows queued with their text when this version is deployed go out unchanged)."""
    email = OutboundEmail.objects.create(
        template="invitation",
        to=["old@example.org"],
        subject="Matrix Hockey : votre équipe vous attend",
        body_text="Bonjour,\n",
        headers={"Auto-Submitted": "auto-generated"},
    )
    assert outbox.emails_send_due().sent == 1
    [message] = mail.outbox
    assert (message.to, message.subject, message.body) == (
        ["old@example.org"],
        "Matrix Hockey : votre équipe vous attend",
        "Bonjour,\n",
    )
    email.refresh_from_db()
    assert email.status == "sent"
