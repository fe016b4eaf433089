"""The pages write every date in the site's one shape (``matrixhockey/formats/``): « Friday 27
November 2026, 17:00 » for a moment, « Friday 27 November 2026 » for a date, whoever reads them
(a coach, a referee, the admin, a visitor)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone, translation
from django.utils.formats import date_format

from tests.competitions.matrix_values import matrices_create
from tests.competitions.open_rounds import OpenLeague
from tests.date_shapes import dates_on

pytestmark = pytest.mark.django_db


def test_a_coach_s_pages_write_each_date_in_the_site_s_shape(
    league: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    matrices_create(season=league.elite.season)
    browser = open_as(coach)
    deadline = timezone.localtime(league.this_week.deadline)
    with translation.override("en"):
        expected = date_format(deadline, "DATETIME_FORMAT")
    assert re.fullmatch(r"\w+day \d{1,2} \w+ \d{4}, 17:00", expected), expected
    team = league.coach_entry.team.slug
    for path in ("/picks/", "/", "/matrices/", f"/teams/{team}/"):
        response = browser.get(path)
        assert response.status_code == 200, path
        shaped, odd = dates_on(response.content.decode())
        assert shaped, path
        assert odd == [], path
    picks = browser.get("/picks/").content.decode()
    assert f">{expected}</time>" in picks


def test_a_referee_s_and_the_admin_s_pages_write_each_date_in_the_site_s_shape(
    league: OpenLeague, referee: User, admin_user: User, open_as: Callable[..., Client]
) -> None:
    pool = league.elite.slug
    for who, path in (
        (referee, "/referee/"),
        (referee, f"/referee/championship/{pool}/2/"),
        (referee, f"/referee/championship/{pool}/1/"),
        (admin_user, "/desk/season/"),
        (admin_user, f"/admin/competitions/round/{league.this_week.pk}/change/"),
        (admin_user, "/admin/competitions/round/"),
    ):
        response = open_as(who).get(path)
        assert response.status_code == 200, path
        shaped, odd = dates_on(response.content.decode())
        assert odd == [], path
        if path.startswith("/referee/"):
            assert shaped, path
