"""The deputy's journey (R12), end to end through the site: signed in, they land on their
team's pick page with « My picks » in the header and a home page that knows them; the pick they
send is recorded as theirs, its receipt goes by email to the team's coach and to them, once
each, and the coach's receipt and pick page say the deputy sent it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.open_rounds import OpenLeague, picks_sent

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


@pytest.fixture
def deputy(league: OpenLeague, coach: User) -> User:
    """The deputy the Sleigh Dogs' coach named."""
    user = User.objects.create_user("friend", email="friend@example.org", password="secret-pw-1")
    team = league.coach_entry.team
    team.deputy = user
    team.save(update_fields=["deputy"])
    return user


def signed_in(username: str, password: str) -> tuple[Client, str]:
    """A browser signed in through the sign-in form, and where it landed."""
    browser = Client(headers={"accept-language": "en"})
    response = browser.post(reverse("sign_in"), {"username": username, "password": password})
    assert response.status_code == 302
    return browser, response.url


def test_a_deputy_signs_in_to_their_team_s_picks_and_the_header_and_home_know_them(
    deputy: User,
) -> None:
    browser, landed = signed_in("friend", "secret-pw-1")
    assert landed == reverse("picks")
    page = browser.get(landed).content.decode()
    assert "Sleigh Dogs" in page
    assert f'href="{reverse("picks")}" aria-current="page">My picks</a>' in page
    home = browser.get(reverse("home")).content.decode()
    assert "Join the league" not in home
    account = browser.get(reverse("account")).content.decode()
    assert 'Sleigh Dogs</a> <span class="muted" data-deputy>(you are its deputy)' in account
    assert 'id="glance-coach"' in home and "Sleigh Dogs: your games" in home


def test_someone_who_is_no_team_s_coach_nor_deputy_is_still_offered_to_join(
    league: OpenLeague, visitor: User, open_as: Callable[..., Client]
) -> None:
    home = open_as(visitor).get(reverse("home")).content.decode()
    assert "Join the league" in home and 'id="glance-coach"' not in home


def test_the_deputy_s_pick_gets_its_receipt_to_the_coach_and_to_them_naming_the_sender(
    league: OpenLeague, coach: User, deputy: User
) -> None:
    browser, _ = signed_in("friend", "secret-pw-1")
    url = reverse("pick_send", args=["championship", 3])
    sent = browser.post(url, {"championship-3-notation": "C+(1)"})
    assert sent.status_code == 302
    pick = picks_sent().get()
    assert pick.entered_by == deputy

    receipt = browser.get(reverse("picks")).content.decode()
    assert "on its way by email to the team's coach and to its deputy" in receipt
    assert "<dd data-sender>friend (the team's deputy)</dd>" in receipt

    rows = OutboundEmail.objects.filter(template="pick-receipt")
    assert sorted(rows.values_list("user__username", flat=True)) == ["friend", "sleigh-coach"]
    emails_send_due()  # as the worker the commit wakes does
    assert sorted(tuple(m.to) for m in mail.outbox) == [
        ("friend@example.org",),
        ("sleigh-coach@example.org",),
    ]
    to_coach = next(m for m in mail.outbox if m.to == ["sleigh-coach@example.org"])
    to_deputy = next(m for m in mail.outbox if m.to == ["friend@example.org"])
    assert pick.receipt in to_coach.body and pick.receipt in to_deputy.body
    # The coach's receipt is in French (their account's language, the league's by default).
    assert "Envoyé par : friend, l’adjoint de l’équipe" in to_coach.body
    assert "Envoyé par : vous (friend)" in to_deputy.body
    html = to_coach.alternatives[0][0]
    assert "friend, l’adjoint de l’équipe" in html

    coach_page = Client(headers={"accept-language": "en"})
    coach_page.force_login(coach)
    page = coach_page.get(reverse("picks")).content.decode()
    # The pick that counts and its history name who sent it.
    assert page.count("friend (the team's deputy)") == 2


def test_a_coach_s_own_pick_reaches_the_deputy_too_and_a_removed_deputy_reads_none(
    league: OpenLeague, coach: User, deputy: User
) -> None:
    browser = Client()
    browser.force_login(coach)
    url = reverse("pick_send", args=["championship", 3])
    assert browser.post(url, {"championship-3-notation": "C(1)"}).status_code == 302
    emails_send_due()
    assert len(mail.outbox) == 2
    to_deputy = next(m for m in mail.outbox if m.to == ["friend@example.org"])
    assert "sleigh-coach, l’entraîneur de l’équipe" in to_deputy.body

    mail.outbox.clear()
    team = league.coach_entry.team
    team.deputy = None
    team.save(update_fields=["deputy"])
    # A receipt queued while they were deputy, sent once they are not: nobody reads it.
    pick = picks_sent().get()
    OutboundEmail.objects.create(template="pick-receipt", user=deputy, context={"pick": pick.pk})
    emails_send_due()
    assert mail.outbox == []


def test_the_deputy_sends_through_the_api_too_and_the_others_are_told_who_may(
    league: OpenLeague,
    deputy: User,
    visitor: User,
    api_as: Callable[[User | None], APIClient],
) -> None:
    answer = api_as(deputy).put("/api/picks/championship/3/", {"pick": "C(1)"}, format="json")
    assert answer.status_code == 200
    assert picks_sent().get().entered_by == deputy
    receipts = OutboundEmail.objects.filter(template="pick-receipt")
    assert sorted(receipts.values_list("user__username", flat=True)) == ["friend", "sleigh-coach"]
    refused = api_as(visitor).put("/api/picks/championship/3/", {"pick": "C(1)"}, format="json")
    assert refused.status_code == 403
    assert "coach or its deputy" in refused.json()["detail"]
