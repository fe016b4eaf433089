"""A deputy coach (R12): the coach names one other person, who may send the team's picks —
recorded as entered by them — until the coach removes them; and the others may not."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from competitions.models import Pick, Round
from league.models import AuditLog, Team
from tests.competitions.open_rounds import OpenLeague

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


@pytest.fixture
def friend(db: None) -> User:
    return User.objects.create_user("friend", email="Friend@Example.org", password="x")


def name_deputy(browser: Client, who: str, team: str = "sleigh-dogs") -> str:
    response = browser.post(reverse("team_deputy_set", args=[team]), {"who": who}, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def send(browser: Client, round: Round, column: str = "B") -> object:
    prefix = f"{round.competition}-{round.number}"
    data = {f"{prefix}-column": column, f"{prefix}-extra_time": "0", f"{prefix}-extra_goals": 0}
    return browser.post(reverse("pick_send", args=[round.competition, round.number]), data)


def test_the_coach_names_a_deputy_by_email_who_then_sends_picks_as_themselves(
    league: OpenLeague, coach: User, friend: User, open_as: Callable
) -> None:
    html = name_deputy(open_as(coach), "friend@example.org")
    assert "friend is now your deputy" in html
    assert Team.objects.get(slug="sleigh-dogs").deputy == friend
    assert AuditLog.objects.filter(action="team_deputy_set", actor=coach).count() == 1

    deputy = open_as(friend)
    page = deputy.get("/picks/").content.decode()
    assert "Sleigh Dogs" in page and 'id="round-championship-3"' in page
    response = send(deputy, league.this_week)
    assert response.status_code == 302
    pick = Pick.objects.get(round=league.this_week, entry__team__slug="sleigh-dogs")
    assert pick.entered_by == friend  # R12: recorded as entered by the deputy


def test_once_removed_the_deputy_may_not_send_any_more(
    league: OpenLeague, coach: User, friend: User, open_as: Callable
) -> None:
    name_deputy(open_as(coach), "friend")
    response = open_as(coach).post(reverse("team_deputy_remove", args=["sleigh-dogs"]))
    assert response.status_code == 302
    assert Team.objects.get(slug="sleigh-dogs").deputy is None
    assert send(open_as(friend), league.this_week).status_code == 403
    assert not Pick.objects.filter(round=league.this_week).exists()


@pytest.mark.parametrize(
    ("who", "message"),
    [
        ("nobody-here", "Nobody of the league has this username"),
        ("sleigh-coach", "choose someone else"),
        ("freezing-coach", "coaches a team of their own"),
        ("", "Nobody of the league has this username"),
    ],
)
def test_a_deputy_who_cannot_be_is_refused_with_a_reason(
    league: OpenLeague, coach: User, open_as: Callable, who: str, message: str
) -> None:
    html = name_deputy(open_as(coach), who)
    assert message in html
    assert Team.objects.get(slug="sleigh-dogs").deputy is None


@pytest.mark.parametrize(
    ("who", "message"),
    [
        ("friend\x00", "Null characters are not allowed."),
        ("\x00", "Null characters are not allowed."),
        ("f" * 255 + "@example.org", "Ensure this value has at most 254 characters"),
    ],
)
def test_a_name_no_account_can_have_is_a_form_error_not_a_server_error(
    league: OpenLeague, coach: User, friend: User, open_as: Callable, who: str, message: str
) -> None:
    html = name_deputy(open_as(coach), who)
    assert message in html
    assert Team.objects.get(slug="sleigh-dogs").deputy is None


def test_a_person_is_the_deputy_of_one_team_at_most(
    league: OpenLeague, coach: User, other_coach: User, friend: User, open_as: Callable
) -> None:
    name_deputy(open_as(other_coach), "friend", team="freezing-ass")
    assert "already another team" in name_deputy(open_as(coach), "friend")
    assert Team.objects.get(slug="sleigh-dogs").deputy is None


@pytest.mark.parametrize("who", ["other_coach", "referee", "visitor", "friend", "admin_user"])
def test_only_the_coach_chooses_the_deputy(
    league: OpenLeague, open_as: Callable, who: str, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(who)
    html = name_deputy(open_as(user), "visitor" if who != "visitor" else "friend")
    assert "Only the team" in html
    assert Team.objects.get(slug="sleigh-dogs").deputy is None


def test_a_visitor_not_signed_in_is_sent_to_sign_in(league: OpenLeague, client: Client) -> None:
    response = client.post(reverse("team_deputy_set", args=["sleigh-dogs"]), {"who": "x"})
    assert response.status_code == 302 and "/accounts/login/" in response.url


def test_the_deputy_form_is_on_the_coach_s_team_page_only(
    league: OpenLeague, coach: User, friend: User, open_as: Callable
) -> None:
    assert 'id="deputy"' in open_as(coach).get("/teams/sleigh-dogs/").content.decode()
    name_deputy(open_as(coach), "friend")
    assert 'id="deputy"' not in open_as(friend).get("/teams/sleigh-dogs/").content.decode()
    assert 'id="deputy"' not in Client().get("/teams/sleigh-dogs/").content.decode()
