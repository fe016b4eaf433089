"""A form's ``next`` (``matrixhockey.redirects``): a path of this site is followed; anything else
— a bare word, nothing, another site, a scheme — leads to the view's default page, never to a
server error or another site."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db

NOT_A_SITE_PATH = [
    "x",
    "",
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example/",
    "javascript:alert(1)",
    "picks/",
    "http://testserver/picks/",
]
"""Values the site never writes in a form's ``next`` (its pages write ``get_full_path()``)."""


@pytest.mark.parametrize("back", NOT_A_SITE_PATH)
@pytest.mark.parametrize(
    ("address", "default"),
    [("/emails/preferences/", "/emails/preferences/"), ("/calendar/coach/renew/", "/accounts/")],
)
def test_a_next_that_is_not_a_path_of_the_site_leads_to_the_default_page(
    coach: User, open_as: Callable[..., Client], address: str, default: str, back: str
) -> None:
    response = open_as(coach).post(address, {"next": back})
    assert response.status_code == 302
    assert response["Location"] == default


@pytest.mark.parametrize("address", ["/emails/preferences/", "/calendar/coach/renew/"])
def test_a_path_of_the_site_is_followed_with_its_query(
    coach: User, open_as: Callable[..., Client], address: str
) -> None:
    response = open_as(coach).post(address, {"next": "/standings/elite/?season=1"})
    assert response["Location"] == "/standings/elite/?season=1"


@pytest.mark.parametrize("back", NOT_A_SITE_PATH)
def test_signing_in_with_a_next_that_is_not_a_site_path_lands_where_the_person_works(
    coach: User, back: str
) -> None:
    response = Client().post(
        "/accounts/login/",
        {"username": "sleigh-coach", "password": "secret-password", "next": back},
    )
    assert response.status_code == 302
    assert response["Location"] == "/picks/"


def test_signing_in_follows_a_path_of_the_site(coach: User) -> None:
    response = Client().post(
        "/accounts/login/?next=/standings/elite/",
        {"username": "sleigh-coach", "password": "secret-password"},
    )
    assert response["Location"] == "/standings/elite/"


@pytest.mark.parametrize(
    ("back", "lands"), [*((b, "/") for b in NOT_A_SITE_PATH), ("/rules/", "/rules/")]
)
def test_signing_out_goes_to_a_path_of_the_site_or_home(
    coach: User, open_as: Callable[..., Client], back: str, lands: str
) -> None:
    response = open_as(coach).post("/accounts/logout/", {"next": back})
    assert response.status_code == 302
    assert response["Location"] == lands
