"""The memory's API (issue 25): a head-to-head, the records and the records broken in a season
or a week — their figures the selectors', published results only (the running season's Elite week
2, arbitrated and not published, would break two records), bad input a 400 or a 404, documented
in the schema. The history is ``tests/competitions/memory_peers_league.py``'s."""

from __future__ import annotations

import pytest
from django.test import Client

from competitions.selectors.memory import head_to_head, record_breaks, records
from tests.competitions.memory_peers_league import Peers, peers_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def peers(monkeypatch: pytest.MonkeyPatch) -> Peers:
    return peers_history(monkeypatch)


def test_the_head_to_head_answers_the_selectors_balance_and_meetings(
    peers: Peers, client: Client
) -> None:
    teams = peers.history.teams
    rivalry = head_to_head(team_a=teams["elans"], team_b=teams["boucs"])
    data = client.get("/api/head-to-head/elans/boucs/").json()
    assert (data["a_wins"], data["b_wins"], data["draws"]) == (1, 0, 0)
    assert (data["a_goals"], data["b_goals"]) == (rivalry.a_goals, rivalry.b_goals) == (2, 2)
    [meeting] = data["meetings"]
    assert meeting["competition"] == "kdh" and meeting["stage"] == "final"
    assert (meeting["home"]["slug"], meeting["home_goals"], meeting["away_goals"]) == (
        "boucs",
        2,
        2,
    )
    assert (meeting["decided"], meeting["winner"]["slug"]) == ("shootout", "elans")
    fixture = rivalry.meetings[0].fixture_id
    assert meeting["game"]["page"] == f"/results/kdh/kdh/7/?season=1#game-{fixture}"
    assert meeting["game"]["api"] == "/api/results/kdh/kdh/7/?season=1"
    assert client.get(meeting["game"]["api"]).json()["status"] == "published"


def test_the_records_answer_every_record_with_its_holders_and_games(
    peers: Peers, client: Client
) -> None:
    data = client.get("/api/records/").json()
    lines = records()
    assert [row["kind"] for row in data] == [line.kind for line in lines]
    for row, line in zip(data, lines, strict=True):
        assert row["value"] == line.value
        assert [h["team"]["slug"] for h in row["holders"]] == [h.team.slug for h in line.holders]
        assert [h["this_season"] for h in row["holders"]] == [h.this_season for h in line.holders]
    goals = next(row for row in data if row["kind"] == "game_goals")
    [holder] = goals["holders"]
    assert (holder["team"]["slug"], holder["value"], holder["opponent"]["slug"]) == (
        "hiboux",
        6,
        "elans",
    )
    assert holder["game"]["page"].startswith("/results/championship/d2a/3/?season=1#game-")
    run = next(row for row in data if row["kind"] == "win_run")
    assert (run["value"], run["holders"][0]["since_season"], run["holders"][0]["season"]) == (
        4,
        1,
        2,
    )


def test_the_breaks_of_a_week_are_the_published_ones_only(peers: Peers, client: Client) -> None:
    season = peers.history.seasons[2]
    data = client.get("/api/records/breaks/?season=2&week=1").json()
    assert [(row["kind"], row["holder"]["value"]) for row in data] == [
        (row.kind, row.holder.value) for row in record_breaks(season=season, week=1)
    ]
    assert [row["kind"] for row in data] == ["win_run", "unbeaten_run"]
    assert data[0]["previous_value"] == 3 and data[0]["previous_team"]["slug"] == "aigles"
    # Week 2's Elite is arbitrated, not published: it would break two records.
    assert client.get("/api/records/breaks/?week=2").json() == []
    everything = client.get("/api/records/breaks/").json()
    assert [row["week"] for row in everything] == [1, 1]
    records_now = {row["kind"]: row["value"] for row in client.get("/api/records/").json()}
    assert (records_now["game_goals"], records_now["unbeaten_run"]) == (6, 4)
    assert client.get("/api/head-to-head/boucs/hiboux/").json()["meetings"] == []
    peers.history.publish(peers.secret)
    assert [row["kind"] for row in client.get("/api/records/breaks/?week=2").json()] == [
        "unbeaten_run",
        "game_goals",
    ]
    records_now = {row["kind"]: row["value"] for row in client.get("/api/records/").json()}
    assert (records_now["game_goals"], records_now["unbeaten_run"]) == (7, 5)


def test_bad_input_is_a_400_or_a_404_never_a_500(peers: Peers, client: Client) -> None:
    assert client.get("/api/head-to-head/aigles/nobody/").status_code == 404
    same = client.get("/api/head-to-head/aigles/aigles/")
    assert same.status_code == 400 and "two different teams" in same.json()["detail"]
    for week in ("0", "x", "-1", "1.5", "٣", "99999999999999999999"):
        answer = client.get(f"/api/records/breaks/?week={week}")
        assert answer.status_code == 400, week
        assert "week" in answer.json()
    assert client.get("/api/records/breaks/?season=9").status_code == 404
    assert client.get("/api/records/breaks/?season=x").status_code in (400, 404)


def test_the_answers_speak_the_callers_language(peers: Peers) -> None:
    french = Client(headers={"accept-language": "fr"})
    names = {row["kind"]: row["name"] for row in french.get("/api/records/").json()}
    assert names["win_run"] == "la plus longue série de victoires"
    same = french.get("/api/head-to-head/aigles/aigles/").json()
    assert same["detail"].startswith("Une équipe ne se joue pas elle-même")


def test_the_schema_documents_the_memorys_endpoints(client: Client) -> None:
    paths = client.get("/api/schema/", headers={"accept": "application/json"}).json()["paths"]
    for path in (
        "/api/head-to-head/{team_a}/{team_b}/",
        "/api/records/",
        "/api/records/breaks/",
    ):
        assert path in paths
        assert "200" in paths[path]["get"]["responses"]
