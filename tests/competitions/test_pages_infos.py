"""« Infos équipes » (``/infos/<competition>/<pool>/``): public, what every team of a pool has
left after the *published* rounds only (R7, R19, R6 stocks), never a hint of unpublished ones."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions.models import Pool
from competitions.services import pick_submit
from league.models import Entry, Team
from tests.competitions.open_rounds import OpenLeague, open_league
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db

ELITE = "/infos/championship/elite/"


@pytest.fixture
def league(
    season, coach: User, other_coach: User, elite_pool: Pool, record_played: ResultRecorder
) -> OpenLeague:
    return open_league(
        season=season,
        coach_entry=Entry.objects.get(team__coach=coach),
        other_entry=Entry.objects.get(team__coach=other_coach),
        elite=elite_pool,
        record_played=record_played,
    )


def row(html: str, team: str) -> str:
    """The table row of ``team``."""
    match = re.search(
        rf"<tr[^>]*>\s*<th scope=\"row\"[^>]*>(?:(?!</tr>).)*{team}.*?</tr>", html, re.S
    )
    assert match is not None, f"no row for {team}"
    return match.group(0)


def columns_left(row_html: str) -> list[str]:
    return re.findall(r'<span class="dot-yes">([A-K])</span>', row_html)


def counts(row_html: str) -> list[str]:
    cells = re.findall(r'<td class="cell[^"]*">(.*?)</td>', row_html, re.S)
    return [re.sub(r"<[^>]+>", "", c).strip() for c in cells if "dot-" not in c or "–" in c]


@pytest.mark.parametrize("person", [None, "coach", "other_coach", "referee", "admin_user"])
def test_infos_are_public_and_the_same_for_everyone(
    client: Client, league, person: str | None, request: pytest.FixtureRequest
) -> None:
    if person:
        client.force_login(request.getfixturevalue(person))
    response = client.get(ELITE)
    assert response.status_code == 200
    html = response.content.decode()
    assert columns_left(row(html, "Sleigh Dogs")) == list("BCDEFGHIJK")
    assert columns_left(row(html, "Freezing Ass")) == list("ACDEFGHIJK")


def test_only_published_rounds_count_and_unpublished_picks_leave_no_trace(
    client: Client, league: OpenLeague, other_coach: User
) -> None:
    pick_submit(
        team=Team.objects.get(coach=other_coach),
        round=league.this_week,
        notation="J#(2)",
        channel="web",
        entered_by=other_coach,
    )
    html = client.get(ELITE).content.decode()
    sleigh = row(html, "Sleigh Dogs")
    freezing = row(html, "Freezing Ass")
    # Round 2 (arbitrated, unpublished): Sleigh played D(3) with an extra goal, Freezing K(1)
    # with a great save. None of it shows; round 1 (published) does: A(X) and B(0).
    assert "D" in columns_left(sleigh)
    assert "K" in columns_left(freezing)
    # Extra time 0 1 2 3 X, then + and #.
    assert counts(sleigh) == ["2", "3", "3", "2", "–", "3", "2"]
    assert counts(freezing) == ["1", "3", "3", "2", "1", "0", "2"]
    assert "J#(2)" not in html


def test_the_kdh_shows_its_own_quotas_and_shootout_values_and_no_great_saves(
    client: Client, league: OpenLeague
) -> None:
    html = client.get("/infos/kdh/kdh/").content.decode()
    sleigh = row(html, "Sleigh Dogs")
    assert columns_left(sleigh) == list("ABCDEFG")
    # Extra time 0 1 2 X (no 3 in the KDH), shootout 0–5 and X once each, then + only.
    assert counts(sleigh) == ["2", "2", "2", "1", "1", "1", "1", "1", "1", "1", "1", "3"]
    assert '<abbr title="great saves">#</abbr>' not in html
    assert "Shootout" in html


def test_the_signed_in_coach_s_team_is_marked(client: Client, league, coach: User) -> None:
    client.force_login(coach)
    html = client.get(ELITE).content.decode()
    assert 'class="mine"' in row(html, "Sleigh Dogs")
    assert 'class="mine"' not in row(html, "Freezing Ass")


def test_the_pools_of_the_season_are_linked(client: Client, league) -> None:
    html = client.get(ELITE).content.decode()
    assert 'href="/infos/championship/elite/" aria-current="page"' in html
    assert 'href="/infos/kdh/kdh/"' in html


def test_an_unknown_pool_or_competition_is_not_found(client: Client, league) -> None:
    assert client.get("/infos/championship/d9z/").status_code == 404
    assert client.get("/infos/hockey/elite/").status_code == 404
    assert client.get("/infos/kdh/elite/").status_code == 404


def test_infos_without_a_pool_open_the_coach_s_division_or_the_first_one(
    client: Client, league, coach: User
) -> None:
    assert client.get("/infos/")["Location"] == ELITE
    client.force_login(coach)
    assert client.get("/infos/")["Location"] == ELITE


def test_infos_speak_french(league) -> None:
    html = Client(headers={"accept-language": "fr"}).get(ELITE).content.decode()
    assert "Infos équipes" in html
    assert "Prolongation" in html
