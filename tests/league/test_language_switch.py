"""The header's language switch (``/i18n/setlang/``): the pages' language, and for a signed-in
person their emails' too (their profile, as « My account » sets it)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from league.models import Profile
from league.selectors import user_language

pytestmark = pytest.mark.django_db

SWITCH = "/i18n/setlang/"


def test_the_switch_saves_a_signed_in_coach_s_language(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="fr")
    client.force_login(coach)
    response = client.post(SWITCH, {"language": "en", "next": "/accounts/"})
    assert response.status_code == 302 and response["Location"] == "/accounts/"
    assert response.cookies["django_language"].value == "en"
    assert user_language(coach) == "en"
    # « My account » now says English is the emails' language.
    account = client.get("/accounts/").text
    assert 'value="en" checked' in account
    assert 'value="fr" checked' not in account


def test_the_switch_creates_the_profile_of_someone_who_had_none(
    client: Client, referee: User
) -> None:
    client.force_login(referee)
    client.post(SWITCH, {"language": "en", "next": "/"})
    assert Profile.objects.get(user=referee).language == "en"


def test_a_visitor_s_switch_changes_the_pages_only(client: Client, coach: User) -> None:
    response = client.post(SWITCH, {"language": "en", "next": "/"})
    assert response.cookies["django_language"].value == "en"
    assert not Profile.objects.exists()


def test_a_language_the_league_does_not_speak_changes_nothing(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="fr")
    client.force_login(coach)
    response = client.post(SWITCH, {"language": "de", "next": "/"})
    assert response.status_code == 302
    assert user_language(coach) == "fr"


def test_the_switch_takes_a_post_only(client: Client, coach: User) -> None:
    client.force_login(coach)
    assert client.get(SWITCH, {"language": "en"}).status_code == 405
    assert not Profile.objects.exists()


def test_the_header_form_posts_to_the_switch(client: Client, coach: User) -> None:
    client.force_login(coach)
    assert 'action="/i18n/setlang/"' in client.get("/").text


def test_a_signed_in_person_s_pages_follow_their_account_not_their_browser(
    client: Client, coach: User
) -> None:
    Profile.objects.create(user=coach, language="fr")
    client.force_login(coach)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    assert '<html lang="fr">' in page.text
    assert page["Content-Language"] == "fr"
    # The browser's language cookie loses too: the account's language is the emails'.
    client.cookies["django_language"] = "fr"
    Profile.objects.filter(user=coach).update(language="en")
    assert '<html lang="en">' in client.get("/", HTTP_ACCEPT_LANGUAGE="fr").text


def test_a_visitor_s_pages_follow_their_browser(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="fr")
    assert '<html lang="en">' in client.get("/", HTTP_ACCEPT_LANGUAGE="en").text


def test_the_switch_says_it_changes_the_emails_language_too(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="fr")
    client.force_login(coach)
    header = client.get("/").text
    assert "la langue de vos pages et de vos e-mails" in header
    page = client.post(SWITCH, {"language": "en", "next": "/"}, follow=True).text
    assert "Your emails and pages are in this language now." in page
