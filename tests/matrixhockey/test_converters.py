"""A number in an address that no column can hold is a plain « no such page », never an error
of the database (``<num:…>``, ``matrixhockey.converters``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter
from rest_framework.test import APIClient

from matrixhockey.converters import NumberConverter

HUGE = "2729037577424753235672956928"


@pytest.mark.django_db
@pytest.mark.parametrize("staff", [False, True])
def test_a_pick_for_a_round_number_too_big_for_any_column_is_a_404(staff: bool) -> None:
    user = User.objects.create_user("someone", password="not-used", is_staff=staff)
    api = APIClient()
    api.force_authenticate(user)
    answer = api.put(f"/api/picks/kdh/{HUGE}/", {"pick": "C(1)"}, format="json")
    assert answer.status_code == 404
    # Nine digits still reach the view, which answers as for any round the caller has not.
    nine = api.put("/api/picks/kdh/999999999/", {"pick": "C(1)"}, format="json")
    assert nine.status_code in (403, 404)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "address",
    [f"/results/week/1/{HUGE}/", f"/results/championship/elite/{HUGE}/", f"/api/seasons/{HUGE}/"],
)
def test_a_page_for_a_number_too_big_is_a_404(address: str) -> None:
    assert Client().get(address).status_code == 404


def test_the_converter_reads_and_writes_the_number() -> None:
    assert reverse("api-picks", kwargs={"competition": "kdh", "round": 7}) == "/api/picks/kdh/7/"


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, dict[str, object]]]:
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        converters = getattr(entry.pattern, "converters", {})
        if isinstance(entry, URLResolver):
            yield from _routes(entry, route)
        else:
            yield route, converters


def test_no_route_takes_a_number_of_any_length() -> None:
    """Django's ``<int:…>`` takes any number of digits: every route of the site that takes a
    number takes ``<num:…>``."""
    unbounded = [
        route
        for route, converters in _routes(get_resolver())
        if any(isinstance(converter, IntConverter) for converter in converters.values())
    ]
    assert not unbounded


@pytest.mark.django_db
@pytest.mark.parametrize("number", [str(2**63), HUGE])
def test_every_address_with_a_number_is_a_404_for_one_no_column_holds(
    number: str, coach: User, referee: User, admin_user: User
) -> None:
    parts = {"competition": "championship", "pool": "elite", "decision": "accept"}
    routes = [
        route
        for route, converters in _routes(get_resolver())
        if any(isinstance(converter, NumberConverter) for converter in converters.values())
    ]
    assert len(routes) >= 14
    for user in (coach, referee, admin_user):
        browser = Client(raise_request_exception=False)
        browser.force_login(user)
        for route in routes:
            if route.startswith("admin/") and not user.is_staff:
                continue  # the admin's catch-all sends whoever is not staff to its sign-in
            address = "/" + re.sub(
                r"<(\w+):(\w+)>",
                lambda part: number if part[1] == "num" else parts.get(part[2], "x"),
                route,
            )
            for method in (browser.get, browser.post):
                status = method(address, follow=True).status_code
                if route.startswith("admin/"):
                    # Past <num:…>, Django's own admin routes answer it, as for any unknown row.
                    assert status < 500, (method.__name__, address)
                else:
                    assert status == 404, (method.__name__, address)
