"""``POST /api/token/``: a user name and password for an API token (API.md)."""

from __future__ import annotations

from datetime import datetime

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.utils import timezone
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


def test_a_user_name_longer_than_any_account_s_is_the_body_s_fault(
    api_client: APIClient, coach: User
) -> None:
    response = api_client.post(URL, {"username": "a" * 300, "password": "x"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"username": ["Ensure this field has no more than 150 characters."]}
    assert not AccessAttempt.objects.exists()  # no sign-in was tried, so none was recorded


def test_the_token_is_kept_by_no_cache(api_client: APIClient, coach: User) -> None:
    body = {"username": "sleigh-coach", "password": "secret-password"}
    assert api_client.post(URL, body, format="json")["Cache-Control"] == "no-store"


def test_a_token_is_only_posted_for(api_client: APIClient) -> None:
    assert api_client.get(URL).status_code == 405


def test_an_unknown_token_gets_401(api_client: APIClient) -> None:
    api_client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    assert api_client.get("/api/me/").status_code == 401


def test_token_requests_are_throttled_by_address(
    api_client: APIClient, coach: User, settings: Settings
) -> None:
    # API_THROTTLE_TOKEN: 20 a minute by default (README), right passwords or not.
    body = {"username": "sleigh-coach", "password": "secret-password"}
    codes = [api_client.post(URL, body, format="json").status_code for _ in range(21)]
    assert codes[:20] == [200] * 20
    assert codes[20] == 429
    assert "detail" in api_client.post(URL, body, format="json").json()


def test_failed_passwords_pause_the_account_from_that_address_with_a_clear_message(
    api_client: APIClient, coach: User
) -> None:
    """league.sign_in: SIGN_IN_FAILURE_LIMIT (5) wrong passwords for a user name from one
    address: the fifth is answered with the pause (429), which says what is paused and until
    when; even the right password is refused there, not from another address."""
    wrong = {"username": "sleigh-coach", "password": "guess"}
    codes = [
        api_client.post(URL, wrong, format="json", REMOTE_ADDR="203.0.113.1").status_code
        for _ in range(5)
    ]
    assert codes == [400, 400, 400, 400, 429]
    right = {"username": "sleigh-coach", "password": "secret-password"}
    paused = api_client.post(URL, right, format="json", REMOTE_ADDR="203.0.113.1")
    assert paused.status_code == 429
    body = paused.json()
    assert "signing in to this account from your address is paused until" in body["detail"]
    assert body["paused"] == "account"
    until = datetime.fromisoformat(body["paused_until"])
    assert 0 < (until - timezone.now()).total_seconds() <= 900
    assert 0 < int(paused["Retry-After"]) <= 900
    assert not Token.objects.exists()
    elsewhere = api_client.post(URL, right, format="json", REMOTE_ADDR="198.51.100.9")
    assert elsewhere.status_code == 200


def test_a_stranger_hammering_a_user_name_does_not_lock_its_coach_out_of_the_api(
    api_client: APIClient, coach: User, settings: Settings
) -> None:
    settings.SIGN_IN_SLOWDOWN_MILLISECONDS = 1
    wrong = {"username": "sleigh-coach", "password": "guess"}
    for n in range(1, 11):
        for _ in range(4):
            api_client.post(URL, wrong, format="json", REMOTE_ADDR=f"203.0.113.{n}")
    right = {"username": "sleigh-coach", "password": "secret-password"}
    assert api_client.post(URL, right, format="json", REMOTE_ADDR="198.51.100.9").status_code == 200


def test_failed_passwords_from_one_address_pause_it_for_every_account(
    api_client: APIClient, coach: User, other_coach: User, settings: Settings
) -> None:
    # Past API_THROTTLE_TOKEN (20 a minute): this test is about the pause.
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "token": "100/minute", "anon": "100/minute"},
    }
    codes = [
        api_client.post(URL, {"username": f"someone-{n}", "password": "x"}, format="json")
        for n in range(30)
    ]
    assert [response.status_code for response in codes] == [400] * 29 + [429]
    right = {"username": "sleigh-coach", "password": "secret-password"}
    paused = api_client.post(URL, right, format="json")
    assert paused.status_code == 429
    assert paused.json()["paused"] == "address"
    # Another address is not paused, nor is the account.
    other = api_client.post(URL, right, format="json", REMOTE_ADDR="198.51.100.9")
    assert other.status_code == 200
