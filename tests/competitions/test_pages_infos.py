"""« Infos équipes » (``/infos/<competition>/<pool>/``): public, what every team of a pool has
left after the *published* rounds only (R7, R19, R6 stocks), never a hint of unpublished ones."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions.services import pick_submit
from league.models import Team
from tests.competitions.infos_html import Row, grid
from tests.competitions.open_rounds import OpenLeague

pytestmark = pytest.mark.django_db

ELITE = "/infos/championship/elite/"


def row(html: str, team: str) -> Row:
    """The grid's row of ``team`` (its slug)."""
    return grid(html).row(team)


def columns_left(html: str, team: str) -> list[str]:
    """The columns ``team`` can still play, by their headers."""
    found = grid(html)
    cells = found.row(team).cells
    return [
        header
        for header, cell in zip(found.headers, cells, strict=True)
        if cell.playable and header.isalpha()
    ]


def counts(html: str, team: str) -> list[str]:
    """The extra-time (and shootout) cells then the stocks, as shown: uses left, ✗ or a stock."""
    found = grid(html)
    return [
        cell.shown
        for header, cell in zip(found.headers, found.row(team).cells, strict=True)
        if not header.isalpha()
    ]


@pytest.mark.parametrize("person", [None, "coach", "other_coach", "referee", "admin_user"])
def test_infos_are_public_and_the_same_for_everyone(
    client: Client, league, person: str | None, request: pytest.FixtureRequest
) -> None:
    if person:
        client.force_login(request.getfixturevalue(person))
    response = client.get(ELITE)
    assert response.status_code == 200
    html = response.content.decode()
    assert columns_left(html, "sleigh-dogs") == list("BCDEFGHIJK")
    assert columns_left(html, "freezing-ass") == list("ACDEFGHIJK")


def test_the_grid_has_a_caption_column_headers_with_the_quotas_and_row_headers(
    client: Client, league
) -> None:
    html = client.get(ELITE).content.decode()
    found = grid(html)
    assert found.caption == "What each team can still play — championship, Elite"
    # R19: eleven columns; R7: the championship's extra-time quotas; then + and #.
    assert found.headers == [*"ABCDEFGHIJK", "0×2", "1×3", "2×3", "3×2", "X×1", "+", "#"]
    assert '<th scope="colgroup" colspan="11">Columns</th>' in html
    assert "Sleigh Dogs" in found.row("sleigh-dogs").header
    assert 'role="region" aria-labelledby="infos-grid-caption"' in html


def test_a_cell_says_playable_or_used_in_words_not_only_in_colour(client: Client, league) -> None:
    html = client.get(ELITE).content.decode()
    sleigh = row(html, "sleigh-dogs")
    a, b = sleigh.cells[0], sleigh.cells[1]
    assert (a.shown, a.hidden, a.playable) == ("✗", "used", False)
    assert (b.shown, b.hidden, b.playable) == ("✓", "playable", True)
    x = sleigh.cells[15]  # extra time X, used in round 1 (published)
    assert (x.shown, x.hidden) == ("✗", "used up")
    zero = sleigh.cells[11]
    assert (zero.shown, zero.hidden.strip()) == ("2", "uses left")


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
    # Round 2 (arbitrated, unpublished): Sleigh played D(3) with an extra goal, Freezing K(1)
    # with a great save. None of it shows; round 1 (published) does: A(X) and B(0).
    assert "D" in columns_left(html, "sleigh-dogs")
    assert "K" in columns_left(html, "freezing-ass")
    # Extra time 0 1 2 3 X, then + and #.
    assert counts(html, "sleigh-dogs") == ["2", "3", "3", "2", "✗", "3", "2"]
    assert counts(html, "freezing-ass") == ["1", "3", "3", "2", "1", "0", "2"]
    assert "J#(2)" not in html


def test_the_kdh_shows_its_own_quotas_and_shootout_values_and_no_great_saves(
    client: Client, league: OpenLeague
) -> None:
    html = client.get("/infos/kdh/kdh/").content.decode()
    assert columns_left(html, "sleigh-dogs") == list("ABCDEFG")
    # Extra time 0 1 2 X (no 3 in the KDH), shootout 0–5 and X once each, then + only.
    assert grid(html).headers[7:] == [
        *("0×2", "1×2", "2×2", "X×1"),
        *("0×1", "1×1", "2×1", "3×1", "4×1", "5×1", "X×1"),
        "+",
    ]
    assert counts(html, "sleigh-dogs") == [
        *("2", "2", "2", "1", "1", "1", "1", "1", "1", "1", "1", "3")
    ]
    assert '<abbr title="great saves">#</abbr>' not in html
    assert "Shootout" in html
    assert grid(html).caption == "What each team can still play — KDH cup"


def test_the_signed_in_coach_s_team_is_marked(client: Client, league, coach: User) -> None:
    client.force_login(coach)
    html = client.get(ELITE).content.decode()
    assert "mine" in row(html, "sleigh-dogs").classes
    assert row(html, "sleigh-dogs").badges == ["you"]
    assert row(html, "freezing-ass").badges == []
    assert "mine" not in row(html, "freezing-ass").classes


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
