"""Headers every answer carries: ``Permissions-Policy`` (django-permissions-policy,
``PERMISSIONS_POLICY``) on all of them, and ``Cache-Control: private, no-store`` on those made
for someone signed in (``matrixhockey.middleware.PrivateAnswersMiddleware``), while the public
pages stay cacheable for visitors."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from competitions.feeds import coach_feed_token
from league.models import Team
from tests.competitions.open_rounds import OpenLeague, coaches_open_league
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db

REFUSED_FEATURES = ("camera=()", "microphone=()", "geolocation=()", "payment=()", "usb=()")


@pytest.fixture
def league(
    coach: User, other_coach: User, elite_pool: object, record_played: ResultRecorder
) -> OpenLeague:
    return coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )


@pytest.fixture
def deputy(league: OpenLeague, coach: User) -> User:
    friend = User.objects.create_user("friend", email="friend@example.org", password="x")
    Team.objects.filter(slug="sleigh-dogs").update(deputy=friend)
    return friend


def _policy(response: object) -> list[str]:
    return [part.strip() for part in response["Permissions-Policy"].split(",")]  # type: ignore[index]


@pytest.mark.parametrize(
    ("address", "status"),
    [
        ("/", 200),
        ("/standings/elite/", 200),
        ("/api/seasons/current/", 200),
        ("/no-such-page/", 404),
        ("/api/picks/championship/1/", 401),
        ("/robots.txt", 200),
        ("/standings/?%00", 400),
    ],
)
def test_every_answer_refuses_the_features_no_page_uses(
    league: OpenLeague, client: Client, address: str, status: int
) -> None:
    response = client.get(address)
    assert response.status_code == status
    assert set(REFUSED_FEATURES) <= set(_policy(response))


def test_the_admin_s_answers_carry_the_policy_too(admin_client: Client) -> None:
    assert "camera=()" in _policy(admin_client.get("/admin/"))


@pytest.mark.parametrize(
    "address",
    ["/picks/", "/teams/sleigh-dogs/", "/accounts/", "/emails/preferences/", "/"],
)
@pytest.mark.parametrize("who", ["coach", "deputy"])
def test_a_signed_in_person_s_pages_are_kept_by_no_cache(
    league: OpenLeague,
    deputy: User,
    open_as: Callable[..., Client],
    request: pytest.FixtureRequest,
    who: str,
    address: str,
) -> None:
    response = open_as(request.getfixturevalue(who)).get(address)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize("address", ["/api/picks/championship/3/", "/api/me/"])
def test_a_token_holder_s_api_answers_are_kept_by_no_cache(
    league: OpenLeague, coach: User, api_as: Callable[..., APIClient], address: str
) -> None:
    response = api_as(coach).get(address)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"


def test_a_pick_refused_by_the_page_is_kept_by_no_cache(
    league: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    response = open_as(coach).post(reverse("pick_send", args=["championship", 3]), {})
    assert response.status_code == 400
    assert response["Cache-Control"] == "private, no-store"


def test_the_private_calendar_feed_stays_private(
    league: OpenLeague, coach: User, client: Client
) -> None:
    address = reverse("calendar_coach", args=[coach_feed_token(coach)])
    assert client.get(address)["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize("address", ["/", "/standings/elite/", "/teams/sleigh-dogs/"])
def test_a_visitor_s_public_pages_are_not_marked_private(
    league: OpenLeague, client: Client, address: str
) -> None:
    response = client.get(address)
    assert response.status_code == 200
    assert "private" not in response.get("Cache-Control", "")
