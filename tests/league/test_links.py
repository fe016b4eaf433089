"""The one-click link of reminder emails (``league.links.pick_link``): it signs the coach in and
opens their picks; expired, tampered or not a coach's, it asks to sign in normally."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client

from league.links import LINK_MAX_AGE, pick_link, pick_link_token
from league.models import Profile

pytestmark = pytest.mark.django_db


def path_of(link: str) -> str:
    return urlsplit(link).path


def signed_in_as(client: Client) -> str | None:
    # The pick page: what a link's session reads (league.picks_only).
    response = client.get("/picks/")
    return response.context["user"].get_username() if response.status_code == 200 else None


def test_the_link_is_absolute_on_the_site_s_address(coach: User, settings) -> None:
    settings.SITE_URL = "https://hockey.example.org"
    link = pick_link(coach)
    assert link.startswith("https://hockey.example.org/picks/link/")
    assert link.endswith("/")


def test_a_valid_link_signs_the_coach_in_and_opens_their_picks(client: Client, coach: User) -> None:
    response = client.get(path_of(pick_link(coach)))
    assert response.status_code == 302
    assert response["Location"] == "/picks/"
    assert response["Referrer-Policy"] == "no-referrer"
    assert client.get("/picks/").status_code == 200
    assert signed_in_as(client) == "sleigh-coach"


def test_the_link_opens_the_site_in_the_coach_s_language(client: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="en")
    response = client.get(path_of(pick_link(coach)))
    assert response.cookies["django_language"].value == "en"


def test_the_link_works_more_than_once_within_its_week(client: Client, coach: User) -> None:
    # Mail scanners open links before the coach: a single-use link would be burnt by them.
    link = path_of(pick_link(coach))
    assert client.get(link).status_code == 302
    other = Client()
    assert other.get(link).status_code == 302
    assert signed_in_as(other) == "sleigh-coach"


def test_an_expired_link_asks_to_sign_in_normally(
    client: Client, coach: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    made_at = time.time() - LINK_MAX_AGE.total_seconds() - 60
    with monkeypatch.context() as past:
        past.setattr("django.core.signing.time.time", lambda: made_at)
        token = pick_link_token(coach)
    response = client.get(f"/picks/link/{token}/")
    assert response.status_code == 410
    html = response.content.decode()
    assert "This link has expired" in html
    assert 'href="/accounts/login/?next=/picks/"' in html
    assert signed_in_as(client) is None


def test_a_link_a_day_short_of_a_week_still_works(
    client: Client, coach: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    made_at = time.time() - LINK_MAX_AGE.total_seconds() + 86400
    with monkeypatch.context() as past:
        past.setattr("django.core.signing.time.time", lambda: made_at)
        token = pick_link_token(coach)
    assert client.get(f"/picks/link/{token}/").status_code == 302


@pytest.mark.parametrize(
    "tamper",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),
        lambda t: "x" + t,
        lambda t: t.split(":")[0],
        lambda t: "nothing-signed-here",
    ],
)
def test_a_tampered_link_does_not_sign_anyone_in(client: Client, coach: User, tamper) -> None:
    response = client.get(f"/picks/link/{tamper(pick_link_token(coach))}/")
    assert response.status_code == 400
    assert "This link does not work" in response.content.decode()
    assert signed_in_as(client) is None


def test_a_link_made_for_another_purpose_is_refused(client: Client, coach: User) -> None:
    token = signing.TimestampSigner(salt="another-purpose").sign_object({"u": coach.pk})
    assert client.get(f"/picks/link/{token}/").status_code == 400


@pytest.mark.parametrize("person", ["referee", "admin_user", "visitor"])
def test_a_link_for_someone_who_coaches_no_team_does_not_sign_them_in(
    client: Client, person: str, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(person)
    response = client.get(path_of(pick_link(user)))
    assert response.status_code == 400
    assert signed_in_as(client) is None


def test_a_password_change_retires_older_links(client: Client, coach: User) -> None:
    link = path_of(pick_link(coach))
    coach.set_password("a-brand-new-password")
    coach.save()
    assert client.get(link).status_code == 400
    assert client.get(path_of(pick_link(coach))).status_code == 302


def test_a_deactivated_coach_s_link_does_not_work(client: Client, coach: User) -> None:
    link = path_of(pick_link(coach))
    coach.is_active = False
    coach.save()
    assert client.get(link).status_code == 400


def test_someone_else_signed_in_on_the_device_is_replaced_by_the_link_s_coach(
    client: Client, coach: User, other_coach: User
) -> None:
    client.force_login(other_coach)
    client.get(path_of(pick_link(coach)))
    assert signed_in_as(client) == "sleigh-coach"


def test_the_link_page_speaks_french(coach: User) -> None:
    french = Client(headers={"accept-language": "fr"})
    response = french.get("/picks/link/broken/")
    assert "Ce lien ne fonctionne pas" in response.content.decode()
