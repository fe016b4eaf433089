"""A person is never coach of one team and deputy of another (a deputy's picks are the team's,
R12): whoever becomes a coach — a waiting-list team placed (R14, R24), a team made with them as
its coach, the admin's choice of coach — stops deputising in the same transaction, and the team
they deputised hears of it by email in its coach's language; naming a coach as deputy is
refused with a reason (the team page's form, the service, the admin's form)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse

from competitions import services as competitions
from competitions.models import OnrSanction
from league import services as league
from league.models import AuditLog, Division, Entry, Profile, Season, Team, WaitingListEntry
from league.services import DeputyRefused
from mail.models import OutboundEmail
from tests.admin_forms import errors, form_data
from tests.competitions.arbitration_league import League, build_league

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

Capture = Callable[..., object]


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def d3a(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return build_league(
        season=season,
        divisions=divisions,
        referee=referee,
        division_slugs=["d3a"],
        stocks=lambda d, c: (5, 6),
    )


@pytest.fixture
def helper(db: None) -> User:
    """A league member on the waiting list with a team of their own, meanwhile deputy of
    another team."""
    return User.objects.create_user("helper", email="helper@example.org", password="x")


@pytest.fixture
def deputised(d3a: League, helper: User) -> Team:
    """D3A's team 03, coached by a French speaker, ``helper`` its deputy."""
    coach = User.objects.create_user("d3-coach", email="d3-coach@example.org", password="x")
    Profile.objects.create(user=coach, language="fr")
    team = Team.objects.get(slug="d3a-03")
    Team.objects.filter(pk=team.pk).update(coach=coach)
    team.refresh_from_db()
    league.team_deputy_set(team=team, by=coach, who="helper")
    return Team.objects.get(pk=team.pk)


def third_onr(made: League, team: str) -> OnrSanction:
    """``team``'s third ONR, its round published (the replacement waits for that, R14, R23)."""
    for number in (1, 2, 3):
        made.play_published("d3a", number, skip=[team])
    return OnrSanction.objects.get(entry=made.entries[team], week=3)


def test_a_deputy_placed_from_the_waiting_list_stops_deputising(
    d3a: League,
    referee: User,
    helper: User,
    deputised: Team,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    sanction = third_onr(d3a, "d3a-07")
    WaitingListEntry.objects.create(name="Helpers United", email="h@example.org", user=helper)

    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)

    assert new.team.coach == helper
    assert Team.objects.get(pk=deputised.pk).deputy is None
    # Their picks go to their own team only.
    assert list(Entry.objects.current_for(helper, season=d3a.season)) == [new]
    ended = AuditLog.objects.get(action="team_deputy_end")
    assert ended.payload == {"deputy": "helper", "coaches": new.team.slug}
    [email] = OutboundEmail.objects.filter(template="deputy-ended")
    assert email.user == deputised.coach
    # The coach also got the published rounds' results: the one about their deputy, in French
    # (the coach's language).
    [sent] = [m for m in mail.outbox if m.to == ["d3-coach@example.org"] and "adjoint" in m.subject]
    assert "helper" in sent.body and "Helpers United" in sent.body
    assert reverse("team", args=["d3a-03"]) in sent.body


def test_a_team_made_with_a_deputy_as_its_coach_ends_the_deputyship(
    helper: User, deputised: Team
) -> None:
    team = league.team_create(name="Helpers Again", coach=helper)
    assert Team.objects.get(pk=deputised.pk).deputy is None
    assert Team.objects.get(pk=team.pk).coach == helper
    [email] = OutboundEmail.objects.filter(template="deputy-ended")
    assert email.context == {"team": deputised.pk, "deputy": helper.pk}


def test_a_coach_named_deputy_by_the_service_is_refused(
    helper: User, deputised: Team, other_coach: User
) -> None:
    with pytest.raises(DeputyRefused, match="coaches a team of their own"):
        league.team_deputy_set(team=deputised, by=deputised.coach, who="freezing-coach")  # type: ignore[arg-type]
    assert Team.objects.get(pk=deputised.pk).deputy == helper


# --- The admin ----------------------------------------------------------------------------------


def change_url(team: Team) -> str:
    return reverse("admin:league_team_change", args=[team.pk])


def test_the_admin_making_a_deputy_a_coach_ends_the_deputyship(
    admin_client: Client, helper: User, deputised: Team
) -> None:
    other = Team.objects.get(slug="d3a-05")
    page = admin_client.get(change_url(other))
    response = admin_client.post(change_url(other), form_data(page, coach=helper.pk))
    assert response.status_code == 302, errors(response)
    assert Team.objects.get(pk=other.pk).coach == helper
    assert Team.objects.get(pk=deputised.pk).deputy is None
    assert OutboundEmail.objects.filter(template="deputy-ended").count() == 1


def test_the_admin_naming_a_coach_deputy_is_refused_with_a_reason(
    admin_client: Client, helper: User, deputised: Team, other_coach: User
) -> None:
    other = Team.objects.get(slug="d3a-05")
    page = admin_client.get(change_url(other))
    response = admin_client.post(change_url(other), form_data(page, deputy=other_coach.pk))
    assert response.status_code == 200
    assert "This person coaches a team of their own." in errors(response)
    assert Team.objects.get(pk=other.pk).deputy is None
