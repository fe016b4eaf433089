"""``PUT`` and ``GET /api/picks/{competition}/{round}/``: the caller's own team's pick (API.md)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, Pick, Round, Stage
from league.models import Entry, Season
from mail.models import OutboundEmail

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]


@pytest.fixture
def open_round(season: Season) -> Round:
    """Championship round 1, its deadline three days ahead."""
    return competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=1,
        week=1,
        deadline=timezone.now() + timedelta(days=3),
    )


URL = "/api/picks/championship/1/"


def put(client: APIClient, pick: str, url: str = URL) -> object:
    return client.put(url, {"pick": pick}, format="json")


# --- PUT: the coach sends their team's pick ------------------------------------------------------


def test_the_coach_sends_a_pick_and_gets_its_receipt(
    api_as: SignIn, coach: User, open_round: Round
) -> None:
    response = put(api_as(coach), "f + (2)")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"pick", "receipt", "submitted_at", "warning"}
    assert body["warning"] is None  # no earlier round's pick uses column F (R11)
    stored = Pick.objects.get()
    assert stored.entry.team.coach == coach
    assert (stored.notation, stored.channel, stored.entered_by) == ("f + (2)", "web", coach)
    assert body["pick"] == "F+(2)"
    assert body["receipt"] == hashlib.sha256(stored.canonical().encode()).hexdigest()
    assert datetime.fromisoformat(body["submitted_at"]) == stored.received_at


def test_a_pick_sent_through_the_api_gets_its_receipt_by_email_too(
    api_as: SignIn,
    coach: User,
    open_round: Round,
    django_capture_on_commit_callbacks: Callable,
    eager: None,
) -> None:
    # Written by a task queued once the pick commits (here run in the test's process).
    with django_capture_on_commit_callbacks(execute=True):
        body = put(api_as(coach), "F+(2)").json()
    (email,) = OutboundEmail.objects.all()
    assert email.to == [coach.email]
    assert body["receipt"] in email.body_text


def test_the_last_pick_sent_is_the_current_one(
    api_as: SignIn, coach: User, open_round: Round
) -> None:
    client = api_as(coach)
    put(client, "A(1)")
    put(client, "B+(2)")
    body = client.get(URL).json()
    assert body["current"]["pick"] == "B+(2)"
    assert [p["pick"] for p in body["history"]] == ["B+(2)", "A(1)"]


@pytest.mark.parametrize(
    ("pick", "quoted"),
    [("F+", "“F+”"), ("F(7)", "“(7)”"), ("FF(1)", "“FF”"), ("F(1)(2)", "“(2)”")],
)
def test_a_wrong_pick_gets_400_saying_which_part_is_wrong(
    api_as: SignIn, coach: User, open_round: Round, pick: str, quoted: str
) -> None:
    response = put(api_as(coach), pick)
    assert response.status_code == 400
    [message] = response.json()["pick"]
    assert quoted in message
    assert not Pick.objects.exists()


def test_a_pick_above_the_teams_stock_gets_400(
    api_as: SignIn, coach: User, open_round: Round
) -> None:
    response = put(api_as(coach), "F####(1)")
    assert response.status_code == 400
    assert response.json() == {
        "pick": ["You ask for 4 great saves (#) but your team has 2 left."],
        "faults": [
            {"code": "unavailable", "fault": "great_saves_left", "asked": 4, "have": 2},
        ],
    }


def test_a_missing_pick_gets_400_on_the_field(
    api_as: SignIn, coach: User, open_round: Round
) -> None:
    response = api_as(coach).put(URL, {}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["pick"]


def test_a_pick_after_the_deadline_gets_409(
    api_as: SignIn, coach: User, championship_round: Round
) -> None:
    assert championship_round.deadline < timezone.now()
    response = put(api_as(coach), "F(2)")
    assert response.status_code == 409
    assert "deadline" in response.json()["detail"]
    assert not Pick.objects.exists()


def test_the_deadline_is_checked_on_the_servers_clock(
    api_as: SignIn, coach: User, season: Season
) -> None:
    competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=1,
        week=1,
        deadline=timezone.now() + timedelta(seconds=2),
    )
    client = api_as(coach)
    assert put(client, "F(2)").status_code == 200
    time.sleep(2.1)
    assert put(client, "G(2)").status_code == 409
    assert Pick.objects.get().normalized == "F(2)"


def test_a_kdh_pick_from_a_team_outside_the_kdh_gets_403(
    api_as: SignIn, coach: User, season: Season
) -> None:
    competitions.pool_create(season=season, competition=Competition.KDH)
    competitions.round_create(
        season=season,
        competition=Competition.KDH,
        number=1,
        week=1,
        stage=Stage.ROUND_OF_64,
        deadline=timezone.now() + timedelta(days=1),
    )
    response = put(api_as(coach), "A(1)(2)", "/api/picks/kdh/1/")
    assert response.status_code == 403
    assert "does not play" in response.json()["detail"]


@pytest.mark.parametrize("url", ["/api/picks/nhl/1/", "/api/picks/championship/9/"])
def test_an_unknown_competition_or_round_gets_404(
    api_as: SignIn, coach: User, open_round: Round, url: str
) -> None:
    assert put(api_as(coach), "F(2)", url).status_code == 404
    assert api_as(coach).get(url).status_code == 404


# --- And the others may not ----------------------------------------------------------------------


def test_an_anonymous_caller_gets_401(api_as: SignIn, open_round: Round) -> None:
    client = api_as(None)
    for response in (put(client, "F(2)"), client.get(URL)):
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == "Token"
        assert set(response.json()) == {"detail"}
    assert not Pick.objects.exists()


@pytest.mark.parametrize("person", ["visitor", "referee", "admin_user"])
def test_a_user_coaching_no_team_gets_403(
    api_as: SignIn, open_round: Round, person: str, request: pytest.FixtureRequest, coach: User
) -> None:
    client = api_as(request.getfixturevalue(person))
    for response in (put(client, "F(2)"), client.get(URL)):
        assert response.status_code == 403
        assert set(response.json()) == {"detail"}
    assert not Pick.objects.exists()


def test_another_coach_can_only_send_for_their_own_team(
    api_as: SignIn, coach: User, other_coach: User, open_round: Round
) -> None:
    response = put(api_as(other_coach), "F(2)")
    assert response.status_code == 200
    assert Pick.objects.get().entry == Entry.objects.get(team__coach=other_coach)
    assert not Pick.objects.filter(entry__team__coach=coach).exists()


def test_a_team_in_the_url_is_ignored(
    api_as: SignIn, coach: User, other_coach: User, open_round: Round
) -> None:
    put(api_as(coach), "K+++(X)")
    body = api_as(other_coach).get(URL + "?team=sleigh-dogs").json()
    assert (body["current"], body["history"]) == (None, [])


# --- GET: the coach reads their pick and its history --------------------------------------------


def test_the_coach_reads_the_round_and_no_pick_yet(
    api_as: SignIn, coach: User, open_round: Round
) -> None:
    body = api_as(coach).get(URL).json()
    assert body["competition"] == "championship"
    assert body["round"] == 1
    assert body["status"] == "open"
    assert datetime.fromisoformat(body["deadline"]) == open_round.deadline
    assert (body["current"], body["history"]) == (None, [])


def test_the_history_shows_each_pick_as_received_with_its_channel_and_receipt(
    api_as: SignIn, coach: User, open_round: Round
) -> None:
    client = api_as(coach)
    receipt = put(client, "f+(2)").json()["receipt"]
    [entry] = client.get(URL).json()["history"]
    assert entry == {
        "pick": "F+(2)",
        "as_received": "f+(2)",
        "channel": "web",
        "receipt": receipt,
        "submitted_at": entry["submitted_at"],
    }
