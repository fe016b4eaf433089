"""The standings' « no promotion » badge and promotion places (R14, R22) follow published
results only: a second ONR found by an arbitration that is not published yet shows nowhere.

D2A, whose first two go up (R22). Its team 05 sends no picks in rounds 1 and 2: the first ONR
is published; the second, which bars it from promotion (R14), is arbitrated but not published.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions.services import pool_round_publish
from league.models import Division, Entry, Season
from tests.competitions.arbitration_league import League, build_league
from tests.competitions.test_pages_standings import rows, zones

pytestmark = pytest.mark.django_db

ONR_TEAM = "d2a-05"


@pytest.fixture
def league_d2a(season: Season, divisions: dict[str, Division], referee: User) -> League:
    made = build_league(season=season, divisions=divisions, referee=referee, division_slugs=["d2a"])
    made.play("d2a", 1, skip=[ONR_TEAM])
    pool_round_publish(pool_round=made.pool_round("d2a", 1), by=referee)
    return made


def page(client: Client) -> str:
    return client.get("/standings/d2a/").content.decode()


def test_a_second_onr_not_yet_published_shows_no_badge_and_moves_no_place(
    client: Client, league_d2a: League
) -> None:
    before = page(client)
    league_d2a.play("d2a", 2, skip=[ONR_TEAM])
    assert league_d2a.entry(ONR_TEAM).promotion_barred  # R14, known to the referee only
    after = page(client)
    assert "no promotion" not in after
    assert (rows(after), zones(after)) == (rows(before), zones(before))


def test_the_badge_shows_once_the_round_is_published(
    client: Client, league_d2a: League, referee: User
) -> None:
    league_d2a.play("d2a", 2, skip=[ONR_TEAM])
    pool_round_publish(pool_round=league_d2a.pool_round("d2a", 2), by=referee)
    [barred] = [row for row in rows(page(client)) if "no promotion" in row[1]]
    assert barred[1].startswith(Entry.objects.get(team__slug=ONR_TEAM).team.name)


def test_a_bar_an_admin_set_shows_as_it_is(client: Client, league_d2a: League) -> None:
    Entry.objects.filter(team__slug="d2a-07").update(promotion_barred=True)
    [barred] = [row for row in rows(page(client)) if "no promotion" in row[1]]
    assert barred[1].startswith(Entry.objects.get(team__slug="d2a-07").team.name)
