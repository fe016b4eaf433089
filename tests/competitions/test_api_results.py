"""``GET /api/results/{competition}/{pool}/{round}/`` (``shared/API.md``): anyone reads a pool
round's status and seed hash; games, played picks, seed and draws only once it is published
(R10, R23)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from competitions.models import PoolRound
from competitions.services import pool_round_create, pool_round_replay, round_create
from engine import commitment
from tests.competitions.results_league import SEED, RulesWeek

pytestmark = pytest.mark.django_db

SignIn = Callable[[User | None], APIClient]
URL = "/api/results/championship/elite/1/"
PEOPLE = [None, "visitor", "coach", "other_coach", "referee", "admin_user"]
# What the rules week's teams played (R10); none may show before publication.
SECRET_MARKS = ["F+(2)", "D++", "ONR", "B(X)", "F#(3)", "K(3)", "display", SEED]


def person(request: pytest.FixtureRequest, name: str | None) -> User | None:
    return request.getfixturevalue(name) if name else None


@pytest.mark.parametrize("who", PEOPLE)
def test_before_arbitration_anyone_gets_the_status_and_the_seed_hash_only(
    api_as: SignIn, week: RulesWeek, who: str | None, request: pytest.FixtureRequest
) -> None:
    response = api_as(person(request, who)).get(URL)
    assert response.status_code == 200
    assert response.json() == {
        "competition": "championship",
        "pool": "elite",
        "round": 1,
        "status": "closed",  # the deadline has passed, nothing is played yet
        "seed_hash": commitment(SEED),
        "matches": [],
        "voided_at": None,
        "void_reason": None,
    }


@pytest.mark.parametrize("who", PEOPLE)
def test_an_arbitrated_round_stays_secret_to_everyone_until_published(
    api_as: SignIn, week: RulesWeek, who: str | None, request: pytest.FixtureRequest
) -> None:
    week.arbitrate()
    response = api_as(person(request, who)).get(URL)
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["matches"]) == ("arbitrated", [])
    assert set(body) == {
        "competition",
        "pool",
        "round",
        "status",
        "seed_hash",
        "matches",
        "voided_at",
        "void_reason",
    }
    assert body["voided_at"] is body["void_reason"] is None
    text = response.content.decode()
    for mark in SECRET_MARKS:
        assert mark not in text


def test_once_published_anyone_reads_the_matches_picks_seed_and_draws(
    api_as: SignIn, week: RulesWeek
) -> None:
    week.arbitrate()
    week.publish()
    body = api_as(None).get(URL).json()
    assert body["status"] == "published"
    assert body["seed"] == SEED
    assert commitment(body["seed"]) == body["seed_hash"]
    assert body["matches"][3] == {
        "home": "freezing-ass",
        "away": "groggs",
        "home_goals": 6,
        "away_goals": 3,
        "decided": "regulation",
        "winner": "freezing-ass",
    }
    assert body["matches"][2]["decided"] == "extra_time"  # Snowmen 4-3 AP
    igloos = body["matches"][4]
    assert (igloos["home_goals"], igloos["away_goals"], igloos["decided"]) == (2, 2, "draw")
    assert igloos["winner"] is None
    assert body["bonus_goal"] == "freezing-ass"
    shown = {team: played["display"] for team, played in body["teams"].items()}
    assert shown["freezing-ass"] == "D++*(1)"
    assert shown["cyberians"] == "ONR : F(X)"
    assert shown["igloos"] == "F#(3)"
    assert len(shown) == 12
    assert [(d["what"], d["result"]) for d in body["draws"]] == [
        ("bonus_goal", "freezing-ass"),
        ("onr_column:cyberians", "F"),
        ("onr_extra_time:cyberians", "X"),
    ]
    assert all(draw["seed"] == SEED and draw["options"] for draw in body["draws"])


def test_the_matches_are_the_engines_round_output(api_as: SignIn, week: RulesWeek) -> None:
    week.arbitrate()
    replayed = pool_round_replay(pool_round=week.pool_round).as_dict()
    week.publish()
    body = api_as(None).get(URL).json()
    assert body["matches"] == replayed["matches"]
    # Each team as the engine's output gives it, with its explanation besides (R3).
    played = {
        team: {key: value for key, value in fields.items() if key != "explanation"}
        for team, fields in body["teams"].items()
    }
    assert played == replayed["teams"]
    assert [{k: d[k] for k in ("what", "options", "result")} for d in body["draws"]] == replayed[
        "draws"
    ]


def test_an_open_round_says_open(api_as: SignIn, week: RulesWeek) -> None:
    later = round_create(
        season=week.season,
        competition="championship",
        number=2,
        week=2,
        deadline=week.round.deadline.replace(year=2099),
    )
    pool_round_create(pool=week.pool, round=later)
    body = api_as(None).get("/api/results/championship/elite/2/").json()
    assert (body["status"], body["matches"]) == ("open", [])
    assert body["seed_hash"] == PoolRound.objects.get(round=later).seed_hash


@pytest.mark.parametrize(
    "url",
    [
        "/api/results/championship/elite/9/",
        "/api/results/championship/d2a/1/",
        "/api/results/kdh/elite/1/",
        "/api/results/hockey/elite/1/",
    ],
)
def test_an_unknown_competition_pool_or_round_is_a_404(
    api_as: SignIn, week: RulesWeek, url: str
) -> None:
    response = api_as(None).get(url)
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


def test_the_schema_describes_the_results(api_as: SignIn) -> None:
    schema = api_as(None).get("/api/schema/", headers={"accept": "application/json"}).json()
    operation = schema["paths"]["/api/results/{competition}/{pool}/{round}/"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert names == {"competition", "pool", "round", "season"}
    published = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert published == {"$ref": "#/components/schemas/Results"}
    assert "200" in operation["responses"] and "404" in operation["responses"]


@pytest.mark.parametrize("who", [None, "coach", "referee", "admin_user"])
def test_the_results_are_read_only_for_everyone(
    api_as: SignIn, week: RulesWeek, who: str | None, request: pytest.FixtureRequest
) -> None:
    client = api_as(person(request, who))
    for method in (client.post, client.put, client.patch, client.delete):
        response = method(URL, {"matches": []}, format="json")
        assert response.status_code in (401, 403, 405)
    assert client.get(URL).json()["matches"] == []  # nothing was changed or revealed
