"""Secrecy through the admin: nobody but staff opens it, so no coach or referee reads another
team's pick there before the round is published (issue 4)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from competitions import services as competitions
from competitions.models import Competition, Pick
from competitions.services import pick_submit
from mail.emails import email_pick_receipt

pytestmark = pytest.mark.django_db

SECRET = "K+(X)"
PAGES = [
    "/admin/",
    "/admin/competitions/pick/",
    "/admin/competitions/pick/{pick}/change/",
    "/admin/competitions/latepick/",
    "/admin/mail/inboundemail/",
    "/admin/mail/outboundemail/",
    "/admin/mail/pickreceiptdue/",
    "/admin/competitions/teamresult/",
]


@pytest.fixture
def secret_pick(season, coach: User) -> Pick:
    round = competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=1,
        week=1,
        deadline=timezone.now() + timedelta(days=3),
    )
    team = coach.team
    return pick_submit(
        team=team, round=round, notation=SECRET, channel="web", entered_by=coach
    ).pick


@pytest.mark.parametrize("person", ["other_coach", "referee", "visitor", "coach"])
@pytest.mark.parametrize("page", PAGES)
def test_the_admin_shows_no_pick_to_anyone_but_staff(
    request: pytest.FixtureRequest, client: Client, secret_pick: Pick, person: str, page: str
) -> None:
    user = request.getfixturevalue(person)
    assert not user.is_staff
    client.force_login(user)
    response = client.get(page.format(pick=secret_pick.pk), follow=True)
    assert response.redirect_chain, "a non-staff user is sent to the admin's sign-in page"
    assert "/admin/login/" in response.redirect_chain[-1][0]
    assert SECRET not in response.content.decode()


def test_staff_see_the_receipts_still_queued_without_the_picks(
    admin_client: Client, secret_pick: Pick
) -> None:
    # A receipt queued by the pick's id, which no worker rendered yet.
    email_pick_receipt(pick=secret_pick)
    response = admin_client.get("/admin/mail/outboundemail/?status__exact=queued")
    assert response.status_code == 200
    page = response.content.decode()
    assert "pick-receipt" in page
    assert SECRET not in page


def test_staff_read_the_pick_history_in_the_admin(admin_client: Client, secret_pick: Pick) -> None:
    response = admin_client.get(f"/admin/competitions/pick/{secret_pick.pk}/change/")
    assert response.status_code == 200
    assert SECRET in response.content.decode()
