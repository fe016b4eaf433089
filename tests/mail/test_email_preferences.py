"""Email preferences (``mail.preferences``): each person chooses the optional emails they get —
Wednesday's information, results, news — and every optional email carries a one-click unsubscribe
link in its footer and its ``List-Unsubscribe`` headers (RFC 8058); essential emails (receipts,
Friday's reminder while a pick is missing, invitations) carry none and are always sent."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from competitions.models import Pick, Pool, Round
from competitions.services import pick_record
from league.models import Entry, Profile, Season
from mail import emails
from mail.models import EmailPreferences, Mailing, OutboundEmail
from mail.preferences import email_preferences_save, email_wanted, unsubscribe_url
from mail.weekly import reminders_send, weekly_emails_send
from tests.competitions.results_league import RulesWeek, rules_week
from tests.mail.weekly_league import FRIDAY, WEDNESDAY, WeekLeague, recipients

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

Capture = Callable[..., object]
ONE_CLICK = "List-Unsubscribe=One-Click"


def stop(user: User, **choices: bool) -> None:
    wanted = {"weekly": True, "results": True, "news": True, **choices}
    email_preferences_save(user=user, **wanted)


def one_click_path(message: mail.EmailMessage) -> str:
    header = message.extra_headers["List-Unsubscribe"]
    assert header.startswith("<https://") or header.startswith("<http://")
    return urlsplit(header.strip("<>")).path


# --- Preferences honoured, per kind -------------------------------------------------------------


def test_wednesdays_email_skips_who_stopped_it_and_fridays_reminder_still_reaches_them(
    week: WeekLeague, coach: User, other_coach: User
) -> None:
    stop(coach, weekly=False)
    weekly_emails_send(now=WEDNESDAY)
    assert coach.email not in recipients("weekly")
    assert other_coach.email in recipients("weekly")
    # The Sleigh Dogs have sent nothing: the reminder stays on while a pick is missing.
    reminders_send(now=FRIDAY)
    assert coach.email in recipients("reminder")


@pytest.fixture
def results(
    season: Season,
    elite_pool: Pool,
    championship_round: Round,
    coach: User,
    other_coach: User,
    referee: User,
) -> RulesWeek:
    return rules_week(season=season, pool=elite_pool, round=championship_round, referee=referee)


def test_the_results_email_skips_who_stopped_it(
    results: RulesWeek, coach: User, other_coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    stop(other_coach, results=False)
    results.arbitrate()
    with django_capture_on_commit_callbacks(execute=True):
        results.publish()
    assert recipients("results-published") == [coach.email]
    [sent] = [m for m in mail.outbox if m.to == [coach.email]]
    assert sent.extra_headers["List-Unsubscribe-Post"] == ONE_CLICK
    assert "/emails/unsubscribe/" in sent.extra_headers["List-Unsubscribe"]


def test_stopping_one_kind_keeps_the_others(coach: User) -> None:
    stop(coach, news=False)
    assert not email_wanted(user=coach, kind="news")
    assert email_wanted(user=coach, kind="weekly")
    assert email_wanted(user=coach, kind="results")


# --- The headers: on optional emails, never on essential ones ------------------------------------


def test_the_wednesday_email_carries_the_one_click_headers_and_the_same_link_in_its_footer(
    week: WeekLeague, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        weekly_emails_send(now=WEDNESDAY)
    [message] = [m for m in mail.outbox if m.to == [coach.email]]
    header = message.extra_headers["List-Unsubscribe"]
    assert message.extra_headers["List-Unsubscribe-Post"] == ONE_CLICK
    link = header.strip("<>")
    assert link == unsubscribe_url(user=coach, kind="weekly")
    assert link in message.body
    [(html, _)] = message.alternatives
    assert link in html
    assert "/emails/preferences/" in message.body


def test_essential_emails_carry_no_unsubscribe_header(
    week: WeekLeague, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    stop(coach, weekly=False, results=False, news=False)
    with django_capture_on_commit_callbacks(execute=True):
        pick = pick_record(
            entry=Entry.objects.get(team__coach=coach),
            round=week.championship,
            notation="F(2)",
            normalized="F(2)",
            channel=Pick.Channel.WEB,
        )
        emails.email_pick_receipt(pick=pick)
        reminders_send(now=FRIDAY)  # still missing the KDH's pick
        emails.email_invitation(user=coach)
    templates = set(
        OutboundEmail.objects.filter(to=[coach.email]).values_list("template", flat=True)
    )
    assert templates == {"pick-receipt", "reminder", "invitation"}
    delivered = [m for m in mail.outbox if m.to == [coach.email]]
    assert len(delivered) == 3
    for message in delivered:
        assert "List-Unsubscribe" not in message.extra_headers
        assert "List-Unsubscribe-Post" not in message.extra_headers
        assert "/emails/unsubscribe/" not in message.body


# --- One click, end to end ----------------------------------------------------------------------


def test_a_mail_clients_one_click_post_from_the_header_unsubscribes_without_signing_in(
    week: WeekLeague, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        weekly_emails_send(now=WEDNESDAY)
    [message] = [m for m in mail.outbox if m.to == [coach.email]]
    mail_client = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})
    response = mail_client.post(
        one_click_path(message), ONE_CLICK, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    preferences = EmailPreferences.objects.get(user=coach)
    assert (preferences.weekly, preferences.results, preferences.news) == (False, True, True)
    OutboundEmail.objects.all().delete()
    Mailing.objects.all().delete()
    weekly_emails_send(now=WEDNESDAY)
    assert coach.email not in recipients("weekly")


def test_opening_the_link_asks_to_confirm_and_changes_nothing_until_the_button(
    client: Client, coach: User
) -> None:
    path = urlsplit(unsubscribe_url(user=coach, kind="results")).path
    page = client.get(path)
    assert page.status_code == 200
    assert "Stop « results published » for sleigh-coach@example.org?" in page.content.decode()
    assert email_wanted(user=coach, kind="results")
    done = client.post(path)
    assert "will no longer get « results published »" in done.content.decode()
    assert not email_wanted(user=coach, kind="results")
    assert email_wanted(user=coach, kind="weekly")


def test_an_altered_or_forged_link_is_a_404_and_changes_nothing(
    client: Client, coach: User
) -> None:
    path = urlsplit(unsubscribe_url(user=coach, kind="news")).path
    token = path.split("/")[-2]
    payload = json.dumps({"u": coach.pk, "k": "weekly"}, separators=(",", ":")).encode()
    swapped = base64.urlsafe_b64encode(payload).decode().rstrip("=") + ":" + token.split(":")[1]
    for bad in (token[:-2] + "zz", "nothing", swapped):
        assert client.post(f"/emails/unsubscribe/{bad}/").status_code == 404
        assert client.get(f"/emails/unsubscribe/{bad}/").status_code == 404
    assert not EmailPreferences.objects.exists()


# --- The form on « My account » -----------------------------------------------------------------


def test_a_person_chooses_their_emails_on_my_account(client: Client, coach: User) -> None:
    client.force_login(coach)
    page = client.get("/accounts/").content.decode()
    assert 'action="/emails/preferences/"' in page
    assert "Wednesday&#x27;s information" in page or "Wednesday's information" in page
    response = client.post(
        "/emails/preferences/", {"weekly": "on", "news": "on", "next": "/accounts/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/"
    preferences = EmailPreferences.objects.get(user=coach)
    assert (preferences.weekly, preferences.results, preferences.news) == (True, False, True)
    assert 'name="results" id="id_results"' in client.get("/accounts/").content.decode()


def test_the_preferences_form_needs_a_signed_in_person_and_its_csrf_token(
    client: Client, coach: User
) -> None:
    response = client.post("/emails/preferences/", {"news": "on"})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(coach)
    assert strict.post("/emails/preferences/", {"news": "on"}).status_code == 403
    assert not EmailPreferences.objects.exists()


def test_a_french_reader_gets_the_french_page(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="fr")
    french = Client(headers={"accept-language": "fr"})
    french.force_login(coach)
    assert french.get("/emails/preferences/").status_code == 200
