"""The cups' pages (``/standings/kdh/``, ``/standings/wg/``): the KDH bracket round by round, the
WG's groups and knockout — a round's games once published, the next round's pairings only once
the round that drew them is published (R17, R23). The bracket's own page is test_bracket.py."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions import services as competitions
from league.models import Division, Season
from tests.competitions.arbitration_league import League, add_kdh, add_wg, build_league
from tests.competitions.results_league import bracket_columns, bracket_slots, game_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def made(season: Season, divisions: dict[str, Division]) -> League:
    referee = User.objects.create_user("cup-referee", password="x")
    return build_league(season=season, divisions=divisions, referee=referee)


def test_the_kdh_bracket_shows_each_round_once_published(client: Client, made: League) -> None:
    add_kdh(made)  # R17: twelve teams, codes 05–12 play the qualifying round
    made.play("kdh", 1)
    html = client.get("/standings/kdh/").content.decode()
    assert "Qualifying round" in html
    # Round 1's pairings are public, its results are not; round 2's pairings would tell the
    # winners, so they wait for the publication.
    found = bracket_columns(html)
    assert [len(bracket_slots(column)) for column in found.values()] == [4, 4, 2, 1]
    qualifying = bracket_slots(found[1])
    assert all(kind == "slot-drawn" and text.endswith(" to come") for kind, text in qualifying)
    assert all(kind == "slot-empty" for kind, _ in bracket_slots(found[2]))
    assert "Drawn when the previous round is published." in found[2]

    competitions.pool_round_publish(pool_round=made.pool_round("kdh", 1), by=made.referee)
    found = bracket_columns(client.get("/standings/kdh/").content.decode())
    played = bracket_slots(found[1])
    assert [kind for kind, _ in played] == ["slot-game"] * 4  # with their scores
    assert all(re.search(r"\d", text) for _, text in played)
    following = made.games("kdh", 2)
    drawn = [text for kind, text in bracket_slots(found[2]) if kind == "slot-drawn"]
    assert len(drawn) == len(following) == 4
    assert "4 teams go on." in found[1]


def test_the_wg_page_shows_its_three_groups_and_links_the_group_rounds(
    client: Client, made: League
) -> None:
    add_wg(made, list(made.entries))
    response = client.get("/standings/wg/")
    assert response.status_code == 200
    html = response.content.decode()
    for name in ("Group A", "Group B", "Group C"):
        assert name in html
    assert html.count('<tr class="') == 12  # four teams a group, no zones
    assert 'href="/results/wg/wg/6/"' in html
    made.play("wg", 1)
    competitions.pool_round_publish(pool_round=made.pool_round("wg", 1), by=made.referee)
    html = client.get("/results/wg/wg/1/").content.decode()
    assert len(game_lines(html)) == 6


def test_the_cup_pages_speak_french(client: Client, made: League) -> None:
    add_kdh(made)
    html = client.get("/standings/kdh/", headers={"accept-language": "fr"}).content.decode()
    assert '<html lang="fr">' in html
