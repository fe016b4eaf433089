"""A forgotten password (``/accounts/password_reset/``), followed from the emailed link to
signing in with the new password; changing one's password (``/accounts/password/``)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from pytest_django.fixtures import Settings

from league.models import Profile
from tests.league.accounts_helpers import Capture, html_of, link_in, post_committed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("delivered")]

RESET = "/accounts/password_reset/"
NEW = "Puck-Pukers-2027!"


def sign_in(client: Client, username: str, password: str) -> int:
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return response.status_code


def ask_and_follow(client: Client, capture: Capture, email: str) -> str:
    """Ask for a link for ``email``; the form's path the emailed link leads to."""
    asked = post_committed(client, capture, RESET, {"email": email})
    assert asked["Location"] == "/accounts/password_reset/done/"
    [sent] = mail.outbox
    landing = client.get(link_in(sent, r"/accounts/reset/\S+/"), follow=True)
    assert landing.status_code == 200
    assert "Choose your password" in landing.text
    return landing.redirect_chain[-1][0]


def test_the_sign_in_page_offers_a_new_password(client: Client, db: None) -> None:
    html = client.get("/accounts/login/").text
    assert 'href="/accounts/password_reset/"' in html
    assert 'href="/join/"' in html


def test_a_forgotten_password_is_reset_with_the_emailed_link_and_signs_in(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    form = ask_and_follow(client, django_capture_on_commit_callbacks, "Sleigh-Coach@Example.org")
    [sent] = mail.outbox
    assert sent.to == ["sleigh-coach@example.org"]
    assert "sleigh-coach" in sent.body
    saved = client.post(form, {"new_password1": NEW, "new_password2": NEW}, follow=True)
    assert saved.redirect_chain[-1][0] == "/accounts/reset/done/"
    assert "Password saved" in saved.text
    fresh = Client(headers={"accept-language": "en"})
    assert sign_in(fresh, "sleigh-coach", "secret-password") == 200  # the old one is refused
    assert sign_in(fresh, "sleigh-coach", NEW) == 302
    # The link worked once.
    again = client.get(link_in(sent, r"/accounts/reset/\S+/"), follow=True)
    assert "This link is not valid any more" in again.text
    assert 'href="/accounts/password_reset/"' in again.text


def test_the_reset_email_is_in_the_person_s_language_in_text_and_html(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    Profile.objects.create(user=coach, language="fr")
    post_committed(client, django_capture_on_commit_callbacks, RESET, {"email": coach.email})
    [sent] = mail.outbox
    assert 'lang="fr"' in html_of(sent)
    assert "/accounts/reset/" in html_of(sent)


def test_the_reset_email_follows_an_english_profile(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    Profile.objects.create(user=coach, language="en")
    french = Client(headers={"accept-language": "fr"})
    post_committed(french, django_capture_on_commit_callbacks, RESET, {"email": coach.email})
    [sent] = mail.outbox
    assert sent.subject == "Matrix Hockey: choose a new password"
    assert 'lang="en"' in html_of(sent)


def test_an_unknown_address_gets_the_same_answer_and_no_email(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    asked = post_committed(
        client, django_capture_on_commit_callbacks, RESET, {"email": "nobody@example.org"}
    )
    assert asked["Location"] == "/accounts/password_reset/done/"
    assert mail.outbox == []


def test_a_bad_address_is_refused_on_the_form(client: Client, coach: User) -> None:
    response = client.post(RESET, {"email": "not an address"})
    assert response.status_code == 200
    assert "Enter a valid email address." in response.text
    assert mail.outbox == []


def test_an_invited_coach_whose_link_expired_gets_a_new_one(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    coach.set_unusable_password()
    coach.save()
    form = ask_and_follow(client, django_capture_on_commit_callbacks, coach.email)
    client.post(form, {"new_password1": NEW, "new_password2": NEW})
    assert sign_in(Client(), "sleigh-coach", NEW) == 302


def test_a_link_for_one_person_does_not_serve_another(
    client: Client,
    coach: User,
    other_coach: User,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    post_committed(client, django_capture_on_commit_callbacks, RESET, {"email": coach.email})
    own = link_in(mail.outbox[0], r"/accounts/reset/\S+/")
    uid = own.split("/")[3]
    forged = own.replace(uid, urlsafe_base64_encode(force_bytes(other_coach.pk)))
    page = client.get(forged, follow=True)
    assert "This link is not valid any more" in page.text
    assert User.objects.get(pk=other_coach.pk).check_password("secret-password")


def test_the_form_sends_ten_emails_an_hour_from_one_address(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture, settings: Settings
) -> None:
    settings.PASSWORD_RESET_RATE_PER_EMAIL = 100
    codes = [
        post_committed(
            client, django_capture_on_commit_callbacks, RESET, {"email": coach.email}
        ).status_code
        for _ in range(11)
    ]
    assert codes == [302] * 10 + [429]
    assert len(mail.outbox) == 10


def test_saving_a_new_password_lifts_the_account_s_sign_in_pause(
    client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    for _ in range(5):
        client.post(
            "/accounts/login/",
            {"username": "sleigh-coach", "password": "guess"},
            REMOTE_ADDR="198.51.100.1",
        )
    assert sign_in(Client(REMOTE_ADDR="198.51.100.1"), "sleigh-coach", "secret-password") == 429
    form = ask_and_follow(client, django_capture_on_commit_callbacks, coach.email)
    client.post(form, {"new_password1": NEW, "new_password2": NEW})
    assert sign_in(Client(REMOTE_ADDR="198.51.100.1"), "sleigh-coach", NEW) == 302


def test_a_recipient_gets_three_reset_emails_an_hour_whoever_asks(
    coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    """PASSWORD_RESET_RATE_PER_EMAIL (3): six askers from six addresses, three emails; every
    asker gets the answer an address without an account gets."""
    answers = [
        post_committed(
            Client(REMOTE_ADDR=f"203.0.113.{n}"),
            django_capture_on_commit_callbacks,
            RESET,
            {"email": coach.email.upper()},
        )
        for n in range(1, 7)
    ]
    unknown = post_committed(
        Client(REMOTE_ADDR="203.0.113.99"),
        django_capture_on_commit_callbacks,
        RESET,
        {"email": "nobody@example.org"},
    )
    assert len(mail.outbox) == 3
    assert {(a.status_code, a["Location"]) for a in answers} == {
        (unknown.status_code, unknown["Location"])
    }


# --- Changing one's password, signed in --------------------------------------------------------


def test_a_visitor_is_sent_to_sign_in_before_changing_a_password(client: Client, db: None) -> None:
    response = client.get("/accounts/password/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/accounts/password/")


def test_a_coach_changes_their_password_from_my_account(client: Client, coach: User) -> None:
    client.force_login(coach)
    assert 'href="/accounts/password/"' in client.get("/accounts/").text
    page = client.get("/accounts/password/")
    assert page.status_code == 200 and 'autocomplete="current-password"' in page.text
    wrong = client.post(
        "/accounts/password/",
        {"old_password": "not-it", "new_password1": NEW, "new_password2": NEW},
    )
    assert wrong.status_code == 200
    assert "Your old password was entered incorrectly" in wrong.text
    done = client.post(
        "/accounts/password/",
        {"old_password": "secret-password", "new_password1": NEW, "new_password2": NEW},
        follow=True,
    )
    assert done.redirect_chain[-1][0] == "/accounts/"
    assert "Your password is changed." in done.text
    # Still signed in on this browser, and the new password is the one.
    assert client.get("/accounts/").status_code == 200
    assert User.objects.get(pk=coach.pk).check_password(NEW)
