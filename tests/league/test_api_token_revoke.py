"""The API token's end: its owner revokes it (``DELETE /api/token/``, « My account »), and every
way a password changes (the change form, a forgotten password's link, the admin's « set
password ») rotates it: the old token answers 401 from then on."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from league import services
from league.links import password_link

pytestmark = pytest.mark.django_db

URL = "/api/token/"
NEW = "Puck-Pukers-2027!"


def api_as(token: str) -> APIClient:
    caller = APIClient(headers={"accept-language": "en"})
    caller.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return caller


def answers(token: str) -> int:
    """What ``GET /api/me/`` answers to ``token``."""
    return api_as(token).get("/api/me/").status_code


@pytest.fixture
def token(coach: User) -> str:
    """The coach's API token, in use."""
    key = services.api_token_obtain(user=coach)
    assert answers(key) == 200
    return key


def test_the_owner_revokes_their_token_through_the_api(token: str) -> None:
    response = api_as(token).delete(URL)
    assert response.status_code == 204
    assert not response.content
    assert answers(token) == 401
    assert not Token.objects.exists()


def test_a_revoked_token_cannot_revoke_again(token: str) -> None:
    assert api_as(token).delete(URL).status_code == 204
    again = api_as(token).delete(URL)
    assert again.status_code == 401
    assert set(again.json()) == {"detail"}


def test_revoking_needs_the_token(api_client: APIClient, token: str) -> None:
    response = api_client.delete(URL)
    assert response.status_code == 401
    assert set(response.json()) == {"detail"}
    assert answers(token) == 200


def test_revoking_touches_only_the_caller_s_token(token: str, other_coach: User) -> None:
    others = services.api_token_obtain(user=other_coach)
    assert api_as(others).delete(URL).status_code == 204
    assert answers(token) == 200
    assert answers(others) == 401


def test_after_revoking_the_password_gives_a_new_token(api_client: APIClient, token: str) -> None:
    api_as(token).delete(URL)
    body = {"username": "sleigh-coach", "password": "secret-password"}
    fresh = api_client.post(URL, body, format="json").json()["token"]
    assert fresh != token
    assert answers(fresh) == 200


def test_the_token_is_still_obtained_with_a_stale_one_sent_along(token: str) -> None:
    """POST trades a password and reads no credentials: a revoked token sent with it by a
    script does not stand in the way of a new one."""
    api_as(token).delete(URL)
    body = {"username": "sleigh-coach", "password": "secret-password"}
    assert api_as(token).post(URL, body, format="json").status_code == 200


def test_the_schema_documents_the_revocation(api_client: APIClient, db: None) -> None:
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/token/"]["delete"]
    assert {"204", "401"} <= set(operation["responses"])
    assert "content" not in operation["responses"]["204"]
    assert operation["security"] == [{"tokenAuth": []}]


# --- « My account » -----------------------------------------------------------------------------


def test_my_account_offers_to_revoke_the_token_with_a_csrf_form(
    open_as, coach: User, token: str
) -> None:
    html = open_as(coach).get("/accounts/").text
    form = re.search(r'<form[^>]*action="/accounts/api-token/"[^>]*>.*?</form>', html, re.S)
    assert form is not None
    assert 'name="csrfmiddlewaretoken"' in form.group(0)
    assert "You have an API token" in html


def test_revoking_on_my_account_ends_the_token(open_as, coach: User, token: str) -> None:
    browser = open_as(coach, enforce_csrf_checks=False)
    response = browser.post("/accounts/api-token/", {"action": "revoke"}, follow=True)
    assert response.redirect_chain == [("/accounts/", 302)]
    assert "Your API token is revoked" in response.text
    assert answers(token) == 401
    assert "You have no API token" in response.text


def test_a_new_token_on_my_account_is_shown_once_and_the_old_one_ends(
    open_as, coach: User, token: str
) -> None:
    response = open_as(coach).post("/accounts/api-token/", {"action": "renew"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    fresh = Token.objects.get(user=coach).key
    assert fresh != token
    assert fresh in response.text
    assert answers(token) == 401
    assert answers(fresh) == 200
    # Shown once: the page read again does not show it.
    assert fresh not in open_as(coach).get("/accounts/").text


def test_my_account_in_french_names_the_action(open_as, coach: User, token: str) -> None:
    html = open_as(coach, language="fr").get("/accounts/").text
    assert "Révoquer mon jeton" in html


@pytest.mark.parametrize("action", ["", "drop", "\x00"])
def test_an_unknown_action_changes_nothing(open_as, coach: User, token: str, action: str) -> None:
    response = open_as(coach).post("/accounts/api-token/", {"action": action})
    assert response.status_code in (302, 400)
    assert answers(token) == 200


def test_the_token_form_needs_someone_signed_in(client: Client, token: str) -> None:
    response = client.post("/accounts/api-token/", {"action": "revoke"})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert answers(token) == 200


def test_the_token_form_is_posted_for(open_as, coach: User, token: str) -> None:
    assert open_as(coach).get("/accounts/api-token/").status_code == 405


# --- Every way a password changes ---------------------------------------------------------------


def test_changing_one_s_password_rotates_the_token(open_as, coach: User, token: str) -> None:
    response = open_as(coach).post(
        "/accounts/password/",
        {"old_password": "secret-password", "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302
    assert answers(token) == 401


def test_a_forgotten_password_s_link_rotates_the_token(
    client: Client, coach: User, token: str
) -> None:
    link = password_link(coach).removeprefix(settings.SITE_URL.rstrip("/"))
    landing = client.get(link, follow=True)
    form = landing.redirect_chain[-1][0]
    saved = client.post(form, {"new_password1": NEW, "new_password2": NEW})
    assert saved["Location"] == "/accounts/reset/done/"
    assert answers(token) == 401


def test_the_admin_setting_a_password_rotates_the_token(
    admin_client: Client, coach: User, token: str
) -> None:
    response = admin_client.post(
        f"/admin/auth/user/{coach.pk}/password/",
        {"password1": NEW, "password2": NEW, "usable_password": "true"},
    )
    assert response.status_code == 302, response.content
    assert answers(token) == 401


def test_any_password_set_and_saved_rotates_the_token(coach: User, token: str) -> None:
    """``manage.py changepassword`` and every other path: Django tells the password
    validators after ``set_password`` and ``save``."""
    coach.set_password(NEW)
    coach.save()
    assert answers(token) == 401


def test_signing_in_does_not_rotate_the_token(client: Client, coach: User, token: str) -> None:
    client.post("/accounts/login/", {"username": "sleigh-coach", "password": "secret-password"})
    assert answers(token) == 200


def test_the_password_forms_say_the_token_is_rotated(open_as, coach: User) -> None:
    html = open_as(coach).get("/accounts/password/").text
    assert "also ends your API token" in html
