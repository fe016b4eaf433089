"""Failed sign-ins pause signing in as OWASP's authentication guidance has it
(``league.sign_in``): an account from one address after SIGN_IN_FAILURE_LIMIT (5) failures, an
address after SIGN_IN_ADDRESS_FAILURE_LIMIT (30) whatever the user names, and a user name
alone never (only slowed), for AXES_COOLOFF_TIME (15 minutes) from the last failure; the
message says what is paused and until when. The address is the one the API's throttles read
(``TRUSTED_PROXY_COUNT``). Behind a real proxy: ``test_sign_in_behind_proxy.py``."""

from __future__ import annotations

import logging
from datetime import UTC, timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings

from tests.matrixhockey.conftest import run_python, settings_in

pytestmark = pytest.mark.django_db

SIGN_IN = "/accounts/login/"


def attempt(username: str, password: str, address: str = "203.0.113.7", **headers: str) -> Any:
    client = Client(headers={"accept-language": "en", **headers}, REMOTE_ADDR=address)
    return client.post(SIGN_IN, {"username": username, "password": password})


def test_five_failures_for_an_account_pause_it_from_that_address_only(coach: User) -> None:
    codes = [attempt("sleigh-coach", "guess").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    paused = attempt("sleigh-coach", "secret-password")
    assert paused.status_code == 429
    assert 0 < int(paused["Retry-After"]) <= 900
    assert "signing in to this account from your address is paused until" in paused.text
    assert 'href="/accounts/password_reset/"' in paused.text
    assert "_auth_user_id" not in paused.wsgi_request.session
    assert attempt("sleigh-coach", "secret-password", address="192.0.2.44").status_code == 302


def test_a_stranger_hammering_a_user_name_from_everywhere_never_locks_its_coach_out(
    coach: User, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Four wrong passwords from each of ten addresses (40, past SIGN_IN_SLOWDOWN_AFTER): the
    name is slowed, never paused; the right password from a clean address signs in."""
    settings.SIGN_IN_SLOWDOWN_MILLISECONDS = 1
    for n in range(1, 11):
        for _ in range(4):
            assert attempt("sleigh-coach", "guess", address=f"198.51.100.{n}").status_code == 200
    with caplog.at_level(logging.WARNING, logger="league.sign_in"):
        assert attempt("sleigh-coach", "secret-password", address="192.0.2.44").status_code == 302
    assert "Sign-in slowed by 1 ms: its user name failed 40 times" in caplog.text
    assert "sleigh-coach" not in caplog.text


def test_a_user_name_is_not_slowed_before_its_failures_reach_the_threshold(
    coach: User, caplog: pytest.LogCaptureFixture
) -> None:
    for n in range(1, 10):
        attempt("sleigh-coach", "guess", address=f"198.51.100.{n}")
    with caplog.at_level(logging.WARNING, logger="league.sign_in"):
        assert attempt("sleigh-coach", "secret-password", address="192.0.2.44").status_code == 302
    assert "slowed" not in caplog.text


def test_other_accounts_are_not_paused_by_one_account_s_failures(
    coach: User, other_coach: User
) -> None:
    for _ in range(5):
        attempt("sleigh-coach", "guess")
    assert attempt("freezing-coach", "secret-password").status_code == 302


def test_thirty_failures_from_an_address_pause_it_for_every_account(coach: User) -> None:
    codes = [attempt(f"someone-{n}", "guess").status_code for n in range(30)]
    assert codes == [200] * 29 + [429]
    paused = attempt("sleigh-coach", "secret-password")
    assert paused.status_code == 429
    assert "signing in from your address is paused until" in paused.text
    assert attempt("sleigh-coach", "secret-password", address="192.0.2.44").status_code == 302


def test_the_message_says_until_when_in_the_league_s_time_and_the_visitor_s(coach: User) -> None:
    for _ in range(5):
        attempt("sleigh-coach", "guess")
    last = AccessAttempt.objects.get(username="sleigh-coach").attempt_time
    until = timezone.localtime(last + timedelta(minutes=15))
    paused = attempt("sleigh-coach", "guess")
    assert f"{until:%H:%M} (Europe/Paris time)" in paused.text
    assert f'data-deadline="{until.astimezone(UTC):%Y-%m-%dT%H:%M:%S}' in paused.text
    assert 'data-zone="Europe/Paris"' in paused.text
    assert "Your time:" in paused.text and "js/countdown" in paused.text


def test_the_pause_is_not_moved_by_failures_during_it(coach: User) -> None:
    for _ in range(5):
        attempt("sleigh-coach", "guess")
    first = attempt("sleigh-coach", "guess")["Retry-After"]
    again = attempt("sleigh-coach", "guess")["Retry-After"]
    assert int(again) <= int(first)


def test_a_forged_x_forwarded_for_does_not_escape_the_pause(
    coach: User, settings: Settings
) -> None:
    """No trusted proxy (``TRUSTED_PROXY_COUNT=0``): the header is not believed."""
    settings.SIGN_IN_ADDRESS_FAILURE_LIMIT = 5
    for n in range(5):
        attempt(f"someone-{n}", "guess", **{"x-forwarded-for": f"10.9.8.{n}"})
    forged = attempt("sleigh-coach", "secret-password", **{"x-forwarded-for": "10.9.8.200"})
    assert forged.status_code == 429


def test_behind_a_trusted_proxy_the_address_it_saw_is_paused(
    coach: User, settings: Settings
) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "10.0.0.2"
    for _ in range(5):
        attempt("sleigh-coach", "guess", address=proxy, **{"x-forwarded-for": "192.0.2.10"})
    seen = {"x-forwarded-for": "192.0.2.10"}
    assert attempt("sleigh-coach", "secret-password", address=proxy, **seen).status_code == 429
    # Another client behind the same proxy signs in.
    other = {"x-forwarded-for": "192.0.2.11"}
    assert attempt("sleigh-coach", "secret-password", address=proxy, **other).status_code == 302


def test_the_pause_message_is_in_the_visitor_s_language(coach: User) -> None:
    for _ in range(5):
        attempt("sleigh-coach", "guess")
    paused = attempt("sleigh-coach", "guess", **{"accept-language": "fr"})
    assert paused.status_code == 429
    assert '<html lang="fr">' in paused.text
    assert "est suspendue jusqu’au" in paused.text


def test_staff_lift_a_pause_by_deleting_the_attempts_in_the_admin(
    coach: User, admin_client: Client
) -> None:
    for _ in range(5):
        attempt("sleigh-coach", "guess")
    listing = admin_client.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200
    assert listing.text.count("sleigh-coach") >= 1
    AccessAttempt.objects.filter(username="sleigh-coach").delete()
    assert attempt("sleigh-coach", "secret-password").status_code == 302


def test_the_admin_s_sign_in_is_paused_too(admin_user: User) -> None:
    client = Client(headers={"accept-language": "en"}, REMOTE_ADDR="203.0.113.9")
    for _ in range(5):
        client.post("/admin/login/", {"username": "admin", "password": "guess"})
    page = client.post("/admin/login/", {"username": "admin", "password": "admin-password"})
    assert page.status_code == 429
    assert "signing in to this account from your address is paused until" in page.text
    elsewhere = Client(REMOTE_ADDR="192.0.2.45")
    answer = elsewhere.post("/admin/login/", {"username": "admin", "password": "admin-password"})
    assert answer.status_code == 302


def test_the_limits_are_read_from_the_environment() -> None:
    names = (
        "AXES_FAILURE_LIMIT",
        "AXES_COOLOFF_TIME",
        "AXES_LOCKOUT_PARAMETERS",
        "AXES_CLIENT_IP_CALLABLE",
        "SIGN_IN_ADDRESS_FAILURE_LIMIT",
        "SIGN_IN_SLOWDOWN_AFTER",
        "SIGN_IN_SLOWDOWN_MILLISECONDS",
    )
    defaults = settings_in({}, *names)
    assert defaults["AXES_FAILURE_LIMIT"] == 5
    assert defaults["AXES_COOLOFF_TIME"] == str(timedelta(minutes=15))
    assert defaults["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"], "ip_address"]
    assert defaults["AXES_CLIENT_IP_CALLABLE"] == "matrixhockey.api.client_address"
    assert defaults["SIGN_IN_ADDRESS_FAILURE_LIMIT"] == 30
    assert defaults["SIGN_IN_SLOWDOWN_AFTER"] == 10
    assert defaults["SIGN_IN_SLOWDOWN_MILLISECONDS"] == 1000
    loaded = settings_in(
        {
            "SIGN_IN_FAILURE_LIMIT": "8",
            "SIGN_IN_COOLOFF_MINUTES": "30",
            "SIGN_IN_ADDRESS_FAILURE_LIMIT": "50",
            "SIGN_IN_SLOWDOWN_AFTER": "20",
            "SIGN_IN_SLOWDOWN_MILLISECONDS": "0",
        },
        *names,
    )
    assert loaded["AXES_FAILURE_LIMIT"] == 8
    assert loaded["AXES_COOLOFF_TIME"] == str(timedelta(minutes=30))
    assert loaded["SIGN_IN_ADDRESS_FAILURE_LIMIT"] == 50
    assert loaded["SIGN_IN_SLOWDOWN_AFTER"] == 20
    assert loaded["SIGN_IN_SLOWDOWN_MILLISECONDS"] == 0


def test_a_bad_limit_stops_the_start() -> None:
    done = run_python("import django; django.setup()", {"SIGN_IN_FAILURE_LIMIT": "five"})
    assert done.returncode != 0
    assert "SIGN_IN_FAILURE_LIMIT='five' is not valid" in done.stderr
