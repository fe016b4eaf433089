"""Secrecy (issue 4): nobody reads another team's pick before its round is published — not
through the API, its error messages, its browsable pages or its schema."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, Pool, PoolRound, Round
from competitions.services import pick_submit
from league.models import Entry, Season
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]
SECRET = "K+++(X)"
URL = "/api/picks/championship/2/"


@pytest.fixture
def dogs(coach: User) -> Entry:
    return Entry.objects.get(team__coach=coach)


@pytest.fixture
def ass(other_coach: User) -> Entry:
    return Entry.objects.get(team__coach=other_coach)


@pytest.fixture
def open_round(season: Season) -> Round:
    """Championship round 2, its deadline a day ahead."""
    return competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=2,
        week=2,
        deadline=timezone.now() + timedelta(days=1),
    )


@pytest.fixture
def secret_pick(dogs: Entry, coach: User, open_round: Round) -> str:
    """The Sleigh Dogs' pick for the open round, which no one else may read."""
    pick_submit(team=dogs.team, round=open_round, notation=SECRET, channel="web", entered_by=coach)
    return SECRET


def leaks(text: str) -> bool:
    return SECRET in text or "K+++" in text


def test_another_coach_reads_only_their_own_teams_picks(
    api_as: SignIn, other_coach: User, secret_pick: str
) -> None:
    client = api_as(other_coach)
    for url in (URL, URL + "?team=sleigh-dogs", URL + "?entry=1"):
        response = client.get(url)
        assert response.status_code == 200
        assert (response.json()["current"], response.json()["history"]) == (None, [])
        assert not leaks(response.content.decode())


def test_there_is_no_url_with_a_team_in_it(
    api_as: SignIn, other_coach: User, secret_pick: str
) -> None:
    for url in (URL + "sleigh-dogs/", "/api/picks/sleigh-dogs/championship/2/"):
        assert api_as(other_coach).get(url).status_code == 404


@pytest.mark.parametrize("person", [None, "visitor", "referee", "admin_user"])
def test_people_without_a_team_read_no_pick(
    api_as: SignIn, secret_pick: str, person: str | None, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(person) if person else None
    response = api_as(user).get(URL)
    assert response.status_code in (401, 403)
    assert not leaks(response.content.decode())


def test_the_browsable_api_shows_another_coach_nothing_of_the_pick(
    other_coach: User, coach: User, secret_pick: str, api_client: APIClient
) -> None:
    api_client.force_login(other_coach)
    page = api_client.get(URL, headers={"accept": "text/html"})
    assert page.status_code == 200
    assert "text/html" in page["content-type"]
    assert not leaks(page.content.decode())
    api_client.force_login(coach)
    own = api_client.get(URL, headers={"accept": "text/html"}).content.decode()
    assert SECRET in own  # the page does show a pick: to its own coach


def test_infos_equipes_hide_what_an_unpublished_round_played(
    api_as: SignIn,
    dogs: Entry,
    elite_pool: Pool,
    championship_round: Round,
    record_played: ResultRecorder,
) -> None:
    # Round 1 is arbitrated, not published: its column G, extra time X and extra goals stay
    # unknown to everyone, the team's own coach included (infos équipes are public).
    record_played(
        dogs, championship_round, pool=elite_pool, column="G", extra_time="X", extra_goals=2
    )
    infos = api_as(None).get("/api/infos/championship/elite/").json()["teams"]["sleigh-dogs"]
    assert "G" in infos["columns"]
    assert "X" in infos["extra_time"]
    assert infos["extra_goals"] == 3
    PoolRound.objects.filter(pool=elite_pool, round=championship_round).update(
        status=PoolRound.Status.PUBLISHED, published_at=timezone.now()
    )
    infos = api_as(None).get("/api/infos/championship/elite/").json()["teams"]["sleigh-dogs"]
    assert ("G" in infos["columns"], "X" in infos["extra_time"]) == (False, False)
    assert infos["extra_goals"] == 1


def test_a_rejected_pick_says_nothing_of_another_teams_picks(
    api_as: SignIn,
    season: Season,
    dogs: Entry,
    ass: Entry,
    elite_pool: Pool,
    championship_round: Round,
    secret_pick: str,
    record_played: ResultRecorder,
    open_round: Round,
) -> None:
    # The Sleigh Dogs played K in round 1 and hold a secret pick for round 2; the Freezing Ass
    # played A in round 1 (arbitrated, not published).
    record_played(dogs, championship_round, pool=elite_pool, column="K", extra_time="X")
    record_played(ass, championship_round, pool=elite_pool, column="A", extra_time="1")
    client = api_as(ass.team.coach)
    messages = []
    for pick in ("A(2)", "B(1)(4)", "B###(2)", "B+(2)", "Q(2)", "B+#", "B(9)"):
        response = client.put(URL, {"pick": pick}, format="json")
        assert response.status_code == 400, pick
        messages += response.json()["pick"]
    # The team's own record only: A is gone for the Freezing Ass; K, played by the other, is not.
    assert messages[0].startswith("Column A is already used")
    assert messages[0].endswith("Columns left: B, C, D, E, F, G, H, I, J, K.")
    for message in messages:
        assert "Sleigh Dogs" not in message and "sleigh-dogs" not in message
        assert not leaks(message)
    assert client.put(URL, {"pick": "K(2)"}, format="json").status_code == 200


def test_a_late_pick_is_refused_without_a_word_of_the_others(
    api_as: SignIn, other_coach: User, dogs: Entry, coach: User, championship_round: Round
) -> None:
    pick_submit(
        team=dogs.team,
        round=championship_round,
        notation=SECRET,
        channel="web",
        entered_by=coach,
        received_at=championship_round.deadline - timedelta(hours=1),
    )
    response = api_as(other_coach).put(
        "/api/picks/championship/1/", {"pick": "F(2)"}, format="json"
    )
    assert response.status_code == 409
    assert not leaks(response.content.decode())


@pytest.mark.parametrize("person", [None, "visitor", "coach", "other_coach", "referee"])
def test_the_results_of_an_unpublished_round_hold_no_pick(
    api_as: SignIn,
    elite_pool: Pool,
    open_round: Round,
    secret_pick: str,
    person: str | None,
    request: pytest.FixtureRequest,
) -> None:
    pool_round = competitions.pool_round_create(pool=elite_pool, round=open_round)
    user = request.getfixturevalue(person) if person else None
    response = api_as(user).get("/api/results/championship/elite/2/")
    assert response.status_code == 200
    assert response.json() == {
        "competition": "championship",
        "pool": "elite",
        "round": 2,
        "status": "open",
        "seed_hash": pool_round.seed_hash,
        "matches": [],
        "voided_at": None,
        "void_reason": None,
    }
    assert not leaks(response.content.decode())
    assert pool_round.seed not in response.content.decode()


def test_the_schema_and_the_calendar_hold_no_pick(
    api_as: SignIn, coach: User, secret_pick: str
) -> None:
    schema = api_as(coach).get("/api/schema/", headers={"accept": "application/json"})
    assert schema.status_code == 200
    assert not leaks(schema.content.decode())
    picks = schema.json()["paths"]["/api/picks/{competition}/{round}/"]
    for operation in ("get", "put"):
        names = {p["name"] for p in picks[operation]["parameters"]}
        assert names == {"competition", "round"}  # no team: always the caller's own
    calendar = api_as(coach).get("/api/seasons/current/")
    assert not leaks(calendar.content.decode())
