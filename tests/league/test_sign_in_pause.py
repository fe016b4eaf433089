"""Signing in is paused by django-axes after AXES_FAILURE_LIMIT (5) failures for one user name
or from one address (the address the API's throttles read, ``TRUSTED_PROXY_COUNT``), for
AXES_COOLOFF_TIME (15 minutes), with a clear, localized message."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings

from tests.matrixhockey.conftest import run_python, settings_in

pytestmark = pytest.mark.django_db

SIGN_IN = "/accounts/login/"


def attempt(username: str, password: str, address: str = "203.0.113.7", **headers: str) -> object:
    client = Client(headers={"accept-language": "en", **headers}, REMOTE_ADDR=address)
    return client.post(SIGN_IN, {"username": username, "password": password})


def test_five_failures_for_an_account_pause_it_from_every_address(coach: User) -> None:
    codes = [
        attempt("sleigh-coach", "guess", address=f"198.51.100.{n}").status_code for n in range(1, 6)
    ]
    assert codes == [200, 200, 200, 200, 429]
    paused = attempt("sleigh-coach", "secret-password", address="192.0.2.44")
    assert paused.status_code == 429
    assert paused["Retry-After"] == "900"
    assert "signing in is paused for 15 minutes" in paused.text
    assert 'href="/accounts/password_reset/"' in paused.text
    assert "_auth_user_id" not in paused.wsgi_request.session


def test_other_accounts_are_not_paused_by_one_account_s_failures(
    coach: User, other_coach: User
) -> None:
    for n in range(1, 6):
        attempt("sleigh-coach", "guess", address=f"198.51.100.{n}")
    assert attempt("freezing-coach", "secret-password", address="192.0.2.44").status_code == 302


def test_five_failures_from_an_address_pause_it_for_every_account(coach: User) -> None:
    codes = [attempt(f"someone-{n}", "guess").status_code for n in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    assert attempt("sleigh-coach", "secret-password").status_code == 429
    assert attempt("sleigh-coach", "secret-password", address="192.0.2.44").status_code == 302


def test_a_forged_x_forwarded_for_does_not_escape_the_pause(coach: User) -> None:
    """No trusted proxy (``TRUSTED_PROXY_COUNT=0``): the header is not believed."""
    for n in range(5):
        attempt(f"someone-{n}", "guess", **{"x-forwarded-for": f"10.9.8.{n}"})
    forged = attempt("sleigh-coach", "secret-password", **{"x-forwarded-for": "10.9.8.200"})
    assert forged.status_code == 429


def test_behind_a_trusted_proxy_the_address_it_saw_is_paused(
    coach: User, settings: Settings
) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "10.0.0.2"
    for n in range(5):
        attempt(f"someone-{n}", "guess", address=proxy, **{"x-forwarded-for": "192.0.2.10"})
    assert (
        attempt(
            "sleigh-coach", "secret-password", address=proxy, **{"x-forwarded-for": "192.0.2.10"}
        ).status_code
        == 429
    )
    # Another client behind the same proxy signs in.
    assert (
        attempt(
            "sleigh-coach", "secret-password", address=proxy, **{"x-forwarded-for": "192.0.2.11"}
        ).status_code
        == 302
    )


def test_the_pause_message_is_in_the_visitor_s_language(coach: User) -> None:
    for n in range(5):
        attempt("sleigh-coach", "guess", address=f"198.51.100.{n}")
    paused = attempt("sleigh-coach", "guess", **{"accept-language": "fr"})
    assert paused.status_code == 429
    assert '<html lang="fr">' in paused.text


def test_staff_lift_a_pause_by_deleting_the_attempts_in_the_admin(
    coach: User, admin_client: Client
) -> None:
    for n in range(1, 6):
        attempt("sleigh-coach", "guess", address=f"198.51.100.{n}")
    listing = admin_client.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200
    assert listing.text.count("sleigh-coach") >= 1
    AccessAttempt.objects.filter(username="sleigh-coach").delete()
    assert attempt("sleigh-coach", "secret-password", address="192.0.2.44").status_code == 302


def test_the_admin_s_sign_in_is_paused_too(admin_user: User) -> None:
    client = Client(headers={"accept-language": "en"}, REMOTE_ADDR="203.0.113.9")
    for _ in range(5):
        client.post("/admin/login/", {"username": "admin", "password": "guess"})
    page = client.post("/admin/login/", {"username": "admin", "password": "admin-password"})
    assert page.status_code == 429


def test_the_limits_are_read_from_the_environment() -> None:
    names = ("AXES_FAILURE_LIMIT", "AXES_COOLOFF_TIME", "AXES_LOCKOUT_PARAMETERS")
    defaults = settings_in({}, *names)
    assert defaults["AXES_FAILURE_LIMIT"] == 5
    assert defaults["AXES_COOLOFF_TIME"] == str(timedelta(minutes=15))
    assert defaults["AXES_LOCKOUT_PARAMETERS"] == ["username", "ip_address"]
    loaded = settings_in({"SIGN_IN_FAILURE_LIMIT": "8", "SIGN_IN_COOLOFF_MINUTES": "30"}, *names)
    assert loaded["AXES_FAILURE_LIMIT"] == 8
    assert loaded["AXES_COOLOFF_TIME"] == str(timedelta(minutes=30))


def test_a_bad_limit_stops_the_start() -> None:
    done = run_python("import django; django.setup()", {"SIGN_IN_FAILURE_LIMIT": "five"})
    assert done.returncode != 0
    assert "SIGN_IN_FAILURE_LIMIT='five' is not valid" in done.stderr
