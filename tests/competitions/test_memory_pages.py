"""The league's memory on its pages (issue 25): the all-time tables (every figure the close
stored, each scope, each order, a bad query string), a team page's history in full with its
« elevator » chart and ``?season=N``, in French and in English, and their cost: the same
number of queries after one season and after two.

The league: :mod:`tests.competitions.memory_pages_league` (its docstring has the figures).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client

from competitions.charts import elevator_chart
from competitions.selectors.memory import ALL_TIME_ORDERS, TeamSeason
from tests.competitions.memory_league import History
from tests.competitions.memory_pages_league import history_for_module

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def history(django_db_setup: None, django_db_blocker: Any) -> Iterator[History]:
    with history_for_module(django_db_blocker) as made:
        yield made


def page(open_as: Callable[..., Client], path: str, language: str = "en") -> str:
    response = open_as(None, language).get(path)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def table_rows(html: str) -> list[tuple[str, ...]]:
    """The all-time table's rows: rank, team slug, then each figure as the page shows it."""
    rows = []
    for slug, body in re.findall(r'<tr data-team="([^"]+)">(.*?)</tr>', html, re.S):
        cells = [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", body, re.S)
        ]
        rows.append((cells[0], slug, *cells[2:]))
    return rows


def test_the_all_time_table_shows_every_team_s_stored_figures_by_points(
    history: History, open_as: Callable[..., Client]
) -> None:
    html = page(open_as, "/all-time/")
    # rank, team, seasons, games, wins, draws, losses, GF, GA, diff, points, titles
    assert table_rows(html) == [
        ("1", "aigles", "2", "6", "5", "1", "0", "13", "4", "+9", "11", "Elite ×2 KDH ×1"),
        ("2", "dauphins", "2", "6", "2", "3", "1", "10", "8", "+2", "8", "WG ×1"),
        ("3", "elans", "2", "6", "3", "1", "2", "10", "11", "-1", "7", "KDH ×1"),
        # Level on points and wins: the goal difference (the table's order, R9).
        ("4", "hiboux", "2", "6", "2", "2", "2", "10", "11", "-1", "6", "WG ×1"),
        ("5", "castors", "2", "6", "2", "2", "2", "8", "11", "-3", "6", "—"),
        ("6", "boucs", "2", "6", "2", "0", "4", "15", "10", "+5", "5", "—"),
        ("7", "grizzlis", "2", "6", "1", "3", "2", "8", "10", "-2", "5", "—"),
        ("8", "faucons", "2", "6", "0", "2", "4", "4", "13", "-9", "2", "—"),
    ]
    assert "through Season 2" in html or "through season 2" in html.lower()
    assert 'href="/teams/aigles/"' in html


def test_the_elite_s_table_counts_only_the_elite_s_seasons(
    history: History, open_as: Callable[..., Client]
) -> None:
    rows = table_rows(page(open_as, "/all-time/?scope=elite"))
    assert [(row[1], row[2], row[10]) for row in rows] == [
        ("aigles", "2", "11"),
        ("dauphins", "2", "8"),
        ("boucs", "2", "5"),
        # One point each: the Castors' goal difference (-7) beats the Hiboux's (-9).
        ("castors", "1", "1"),
        ("hiboux", "1", "1"),
    ]
    assert table_rows(page(open_as, "/all-time/?scope=d3")) == []


def test_the_name_order_is_alphabetical_accents_aside(
    history: History, open_as: Callable[..., Client]
) -> None:
    d2 = table_rows(page(open_as, "/all-time/?scope=d2&order=name"))
    assert [row[1] for row in d2] == ["castors", "elans", "faucons", "grizzlis", "hiboux"]


@pytest.mark.parametrize("order", list(ALL_TIME_ORDERS))
def test_each_column_sorts_the_table_and_says_so(
    history: History, open_as: Callable[..., Client], order: str
) -> None:
    html = page(open_as, f"/all-time/?scope=all&order={order}")
    current = re.search(
        r'<th[^>]*aria-sort="(\w+)"[^>]*>\s*<a class="sort" href="([^"]+)" data-order="(\w+)"', html
    )
    assert current is not None
    assert current.group(3) == order
    assert current.group(1) == ("ascending" if order in ("goals_against", "name") else "descending")
    assert len(table_rows(html)) == 8


def test_the_goals_against_order_puts_the_fewest_first(
    history: History, open_as: Callable[..., Client]
) -> None:
    rows = table_rows(page(open_as, "/all-time/?order=goals_against"))
    assert [row[1] for row in rows[:2]] == ["aigles", "dauphins"]
    wins = table_rows(page(open_as, "/all-time/?order=wins"))
    assert [row[1] for row in wins[:2]] == ["aigles", "elans"]


@pytest.mark.parametrize(
    "query",
    [
        "?scope=d4",
        "?order=drop",
        "?scope=elite&order=%00",
        "?order=points&order=<script>",
        "?scope=",
    ],
)
def test_a_bad_scope_or_order_is_a_400_page_that_says_what_the_table_takes(
    history: History, open_as: Callable[..., Client], query: str
) -> None:
    response = open_as(None).get("/all-time/" + query)
    if query == "?scope=":
        assert response.status_code == 200  # left empty: the default table
        return
    assert response.status_code == 400
    html = response.content.decode()
    assert "<script>" not in html.split("<main", 1)[1]
    if "%00" not in query:  # a NUL byte is refused before any view (matrixhockey.middleware)
        assert "elite, d2 or d3" in html or "goal_difference" in html


def test_the_all_time_page_reads_in_french(
    history: History, open_as: Callable[..., Client]
) -> None:
    html = page(open_as, "/all-time/?scope=d2", "fr")
    assert "Classements de tous les temps" in html
    assert "Division 2" in html


def test_the_team_page_shows_every_closed_season_and_the_elevator_chart(
    history: History, open_as: Callable[..., Client]
) -> None:
    html = page(open_as, "/teams/castors/")
    seasons = re.findall(r'<tr data-season="(\d+)">(.*?)</tr>', html, re.S)
    assert [number for number, _ in seasons] == ["2", "1"]  # newest first
    newest, oldest = (
        dict(re.findall(r"data-(place|division|points|coach|kdh|wg)>(.*?)</td>", body, re.S))
        for _, body in seasons
    )
    assert newest["place"].startswith("1")
    assert "D2" in newest["division"]
    assert newest["points"] == "5"
    assert oldest["place"].startswith("4")
    assert "relegated" in oldest["division"]
    assert "finalist" in newest["kdh"]  # season 2: the KDH's final lost to the Aigles
    assert "fourth" in newest["wg"]  # season 2: the WG's third-place game lost
    # The coach at each close, linked to their page.
    assert '<a href="/coaches/dominique/">dominique</a>' in newest["coach"]
    chart = re.search(r'<figure class="chart" data-chart="elevator">.*?</figure>', html, re.S)
    assert chart is not None
    # Season 1: the Elite's 4th (level 4); season 2: D2A's first (level 13, under the Elite's 12).
    assert re.findall(r'<desc class="value">([^<]+)</desc>', chart.group(0)) == [
        "Elite, place 4",
        "D2A, place 1",
    ]
    assert "<script" not in chart.group(0) and "style=" not in chart.group(0)


def test_season_n_shows_the_history_up_to_that_season(
    history: History, open_as: Callable[..., Client]
) -> None:
    html = page(open_as, "/teams/castors/?season=1")
    assert re.findall(r'<tr data-season="(\d+)">', html) == ["1"]
    # Season 1 as it was: no next closed season counted from there.
    assert "relegated" not in re.search(r'<tr data-season="1">.*?</tr>', html, re.S).group(0)
    assert open_as(None).get("/teams/castors/?season=9").status_code == 404


def test_the_team_page_s_history_reads_in_french(
    history: History, open_as: Callable[..., Client]
) -> None:
    html = page(open_as, "/teams/aigles/", "fr")
    assert "Division et place saison par saison" in html
    assert "vainqueur" in html


def test_the_seasons_page_links_the_all_time_tables(
    history: History, open_as: Callable[..., Client]
) -> None:
    assert 'href="/all-time/"' in page(open_as, "/seasons/")


def season_line(number: int, tier: int, division: str, rank: int | None) -> TeamSeason:
    return TeamSeason(
        season_number=number, season_name=f"Season {number}", division_slug=division.lower(),
        division_name=division, tier=tier, rank=rank, table_points=None, games=0, wins=0,
        draws=0, losses=0, goals_for=0, goals_against=0, points=0, coach_name="",
        replaced=rank is None, replacement=False, withdrawn=False, onr_count=0,
        elite_champion=False, kdh_stage="", kdh_place=None, wg_group="", wg_group_rank=None,
        wg_stage="", wg_place=None, moved=None,
    )  # fmt: skip


def test_the_elevator_chart_climbs_from_d3_and_leaves_a_gap_where_the_team_was_replaced() -> None:
    chart = elevator_chart(
        history=[
            season_line(1, 3, "D3B", 2),
            season_line(2, 2, "D2A", None),
            season_line(3, 1, "Elite", 12),
        ],
        team="Ibis",
    )
    assert chart is not None
    # Three tiers on the axis, the Elite's first place on top; two points, season 2 a gap.
    assert re.findall(r'<desc class="value">([^<]+)</desc>', chart.svg) == [
        "D3B, place 2",
        "Elite, place 12",
    ]
    labels = re.findall(r"<text[^>]*>(Elite|D2|D3)</text>", chart.svg)
    assert sorted(set(labels)) == ["D2", "D3", "Elite"]
    assert chart.rows == (
        ("Season 1", ("D3B", "2")),
        ("Season 2", ("D2A", "—")),
        ("Season 3", ("Elite", "12")),
    )
    assert elevator_chart(history=[], team="Ibis") is None


def test_a_running_season_s_rounds_arbitrated_or_published_change_nothing_on_these_pages(
    history: History, open_as: Callable[..., Client]
) -> None:
    """The pages read closed seasons only: season 3's round, arbitrated (and a record-breaking
    12–0 with it), then published, moves no figure until season 3 is closed."""
    before = {
        path: page(open_as, path)
        for path in ("/all-time/", "/all-time/?scope=elite", "/coaches/camille/")
    }
    api_before = open_as(None).get("/api/all-time/").json()
    history.season_open(3, {"elite": ("aigles", "boucs", "castors", "dauphins")})
    pool_round = history.schedule(3, "elite", 1, [("castors", "aigles"), ("boucs", "dauphins")])
    games = [("castors", "aigles", 12, 0, "regulation", "castors")]
    games.append(("boucs", "dauphins", 1, 0, "regulation", "boucs"))
    history.arbitrate(pool_round, games)
    for path, html in before.items():
        assert table_rows(page(open_as, path)) == table_rows(html), path
    assert "12" not in page(open_as, "/teams/castors/").split('id="history-title"')[1]
    history.publish(pool_round)
    assert table_rows(page(open_as, "/all-time/")) == table_rows(before["/all-time/"])
    assert open_as(None).get("/api/all-time/").json() == api_before
    castors = page(open_as, "/teams/castors/")
    assert re.findall(r'<tr data-season="(\d+)">', castors) == ["2", "1"]
