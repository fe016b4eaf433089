"""A number in an address that no column can hold is a plain « no such page », never an error
of the database (``<num:…>``, ``matrixhockey.converters``)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

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
