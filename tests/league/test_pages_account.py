"""Signing in and out, and « My account » where a person picks the language of their emails."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from league.models import Profile
from league.selectors import user_language

pytestmark = pytest.mark.django_db


def sign_in(client: Client, username: str, password: str, next: str = "") -> object:
    return client.post(
        "/accounts/login/", {"username": username, "password": password, "next": next}
    )


def test_the_sign_in_page_is_a_styled_form_with_its_csrf_token(client: Client, db) -> None:
    html = client.get("/accounts/login/").content.decode()
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'autocomplete="current-password"' in html
    assert '<link rel="stylesheet" href="/static/css/site.css">' in html


def test_a_coach_signing_in_lands_on_their_picks(client: Client, coach: User) -> None:
    response = sign_in(client, "sleigh-coach", "secret-password")
    assert response["Location"] == "/picks/"


def test_a_referee_signing_in_lands_on_the_referee_desk(client: Client, referee: User) -> None:
    response = sign_in(client, "referee", "secret-password")
    assert response["Location"] == "/referee/"


def test_staff_signing_in_land_on_the_season_desk(client: Client, admin_user: User) -> None:
    response = sign_in(client, "admin", "admin-password")
    assert response["Location"] == "/desk/season/"


def test_someone_with_no_team_nor_pool_lands_on_the_home_page(
    client: Client, visitor: User
) -> None:
    response = sign_in(client, "visitor", "secret-password")
    assert response["Location"] == "/"


def test_a_safe_next_wins_over_the_landing_page(client: Client, referee: User) -> None:
    response = sign_in(client, "referee", "secret-password", next="/standings/")
    assert response["Location"] == "/standings/"


def test_a_next_to_another_site_is_ignored(client: Client, admin_user: User) -> None:
    response = sign_in(client, "admin", "admin-password", next="https://evil.example/")
    assert response["Location"] == "/desk/season/"


def test_signing_in_goes_back_where_the_person_was_going(client: Client, coach: User) -> None:
    response = sign_in(client, "sleigh-coach", "secret-password", next="/infos/")
    assert response["Location"] == "/infos/"


def test_a_wrong_password_is_refused_with_a_message(client: Client, coach: User) -> None:
    response = sign_in(client, "sleigh-coach", "not-it")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'role="alert"' in html
    assert 'value="sleigh-coach"' in html


def test_signing_in_switches_the_pages_to_the_coach_s_language(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="en")
    response = sign_in(client, "sleigh-coach", "secret-password")
    assert response.cookies["django_language"].value == "en"


def test_signing_out_takes_a_post_and_goes_home(client: Client, coach: User) -> None:
    client.force_login(coach)
    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")
    assert response["Location"] == "/"
    assert client.get("/accounts/").status_code == 302


def test_my_account_is_for_signed_in_people(client: Client, db) -> None:
    response = client.get("/accounts/")
    assert response["Location"] == "/accounts/login/?next=/accounts/"


@pytest.mark.parametrize("person", ["coach", "other_coach", "referee", "admin_user", "visitor"])
def test_everyone_signed_in_has_an_account_page(
    client: Client, person: str, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(person)
    client.force_login(user)
    html = client.get("/accounts/").content.decode()
    assert user.email in html
    assert 'name="language" value="fr" checked' in html


def test_a_coach_chooses_english_for_emails_and_pages(client: Client, coach: User) -> None:
    client.force_login(coach)
    assert user_language(coach) == "fr"
    response = client.post("/accounts/", {"language": "en"})
    assert response["Location"] == "/accounts/"
    assert response.cookies["django_language"].value == "en"
    assert user_language(coach) == "en"
    page = client.get("/accounts/").content.decode()
    assert "Saved. Your emails and pages are in this language now." in page
    assert 'name="language" value="en" checked' in page


def test_the_saved_message_is_in_the_language_just_chosen(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="en")
    client.force_login(coach)
    client.post("/accounts/", {"language": "fr"})
    # The page was English; the confirmation speaks the language just chosen.
    html = client.get("/accounts/").content.decode()
    assert "Enregistré. Vos e-mails et vos pages sont désormais dans cette langue." in html


def test_an_unknown_language_is_refused(client: Client, coach: User) -> None:
    client.force_login(coach)
    response = client.post("/accounts/", {"language": "de"})
    assert response.status_code == 200
    assert user_language(coach) == "fr"
    assert not Profile.objects.exists()
