"""``POST /api/token/``: a user name and password for an API token (API.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

URL = "/api/token/"


def test_a_user_gets_a_token_that_signs_them_in(api_client: APIClient, coach: User) -> None:
    response = api_client.post(
        URL, {"username": "sleigh-coach", "password": "secret-password"}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert token == Token.objects.get(user=coach).key
    me = APIClient(headers={"accept-language": "en"})
    me.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert me.get("/api/me/").json()["username"] == "sleigh-coach"


def test_asking_again_gives_the_same_token(api_client: APIClient, coach: User) -> None:
    body = {"username": "sleigh-coach", "password": "secret-password"}
    first = api_client.post(URL, body, format="json").json()["token"]
    assert api_client.post(URL, body, format="json").json()["token"] == first
    assert Token.objects.count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"username": "sleigh-coach", "password": "wrong"},
        {"username": "nobody", "password": "secret-password"},
    ],
)
def test_wrong_credentials_get_400_and_no_token(
    api_client: APIClient, coach: User, body: dict[str, str]
) -> None:
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"detail"}
    assert not Token.objects.exists()


def test_an_inactive_user_gets_no_token(api_client: APIClient, coach: User) -> None:
    User.objects.filter(pk=coach.pk).update(is_active=False)
    body = {"username": "sleigh-coach", "password": "secret-password"}
    assert api_client.post(URL, body, format="json").status_code == 400
    assert not Token.objects.exists()


def test_a_missing_field_is_named(api_client: APIClient, coach: User) -> None:
    response = api_client.post(URL, {"username": "sleigh-coach"}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["password"]


def test_a_token_is_only_posted_for(api_client: APIClient) -> None:
    assert api_client.get(URL).status_code == 405


def test_an_unknown_token_gets_401(api_client: APIClient) -> None:
    api_client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    assert api_client.get("/api/me/").status_code == 401


def test_anonymous_callers_are_throttled(api_client: APIClient, settings: Settings) -> None:
    # API_THROTTLE_ANON: 60 a minute by default (README); a quick hasher keeps the test short.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    body = {"username": "nobody", "password": "guess"}
    codes = [api_client.post(URL, body, format="json").status_code for _ in range(61)]
    assert codes[:60] == [400] * 60
    assert codes[60] == 429
    assert "detail" in api_client.post(URL, body, format="json").json()
