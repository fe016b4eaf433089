"""``/standings/<pool>/``: a division's table over its published rounds, in the engine's order
(R9) with every column, and the promotion and relegation places (R22)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions.services import pool_round_publish
from league.models import Division, Entry, Season
from tests.competitions.arbitration_league import build_league
from tests.competitions.results_league import RulesWeek

pytestmark = pytest.mark.django_db


def rows(html: str) -> list[list[str]]:
    """The table's body rows as cell texts (the team cell: its name first)."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [" ".join(unescape(re.sub(r"<[^>]+>", " ", cell)).split()) for cell in cells]
        for cells in (
            re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.DOTALL)
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.DOTALL)
        )
    ]


def zones(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1]
    return re.findall(r'<tr class="(zone-\w+)?[^"]*">', body)


def test_the_table_follows_the_r9_tie_breakers_on_the_stored_results(
    client: Client, week: RulesWeek
) -> None:
    week.arbitrate()
    week.publish()
    html = client.get("/standings/elite/").content.decode()
    names = [row[1].split(" ▲")[0].split(" ▼")[0].split(" 🎲")[0] for row in rows(html)]
    placed_by_die = {name for row, name in zip(rows(html), names, strict=True) if "🎲" in row[1]}
    # Worked out by hand from section 3.1.4's week (R9): five teams have 2 points; the
    # Snowmen won in extra time (fewest regulation wins); the Freezing Ass scored most; the
    # Sleigh Dogs and the Puck Pukers are level on everything (3-2) and go to the die, ahead
    # of the Grizzlies (2 goals). Then the draws (Igloos, Icebergs: level, a die) before the
    # Teddy Bears' extra-time loss (one more loss); then the regulation losers by goals
    # scored: Groggs 3, Ice Crocodiles and Ice Breakers 2 (level, a die), Cybérians 1.
    assert names[0] == "Freezing Ass"
    assert set(names[1:3]) == {"Sleigh Dogs", "Puck Pukers"}
    assert names[3:5] == ["Grizzlies", "Snowmen"]
    assert set(names[5:7]) == {"Igloos", "Icebergs"}
    assert names[7:9] == ["Teddy Bears", "Groggs"]
    assert set(names[9:11]) == {"Ice Crocodiles", "Ice Breakers"}
    assert names[11] == "Cybérians"
    # The three full ties show the die that placed them (R9, R23).
    assert placed_by_die == {
        "Sleigh Dogs", "Puck Pukers", "Igloos", "Icebergs", "Ice Crocodiles", "Ice Breakers"
    }  # fmt: skip
    assert html.count('Level on every criterion (<a href="/rules/#r9">R9</a>)') == 3


def test_every_column_is_shown(client: Client, week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    html = client.get("/standings/elite/").content.decode()
    table = {row[1].split(" ")[0]: row for row in rows(html)}
    # rank, team, points, played, wins, regulation wins, draws, extra-time losses, losses,
    # goals for, goals against, difference
    assert table["Freezing"][0] == "1"
    assert table["Freezing"][2:] == ["2", "1", "1", "1", "0", "0", "0", "6", "3", "+3"]
    assert table["Snowmen"][2:] == ["2", "1", "1", "0", "0", "0", "0", "4", "3", "+1"]
    assert table["Teddy"][2:] == ["1", "1", "0", "0", "0", "1", "1", "3", "4", "-1"]
    assert table["Igloos"][2:] == ["1", "1", "0", "0", "1", "0", "0", "2", "2", "0"]
    for header in ("Pts", "ETL", "GF", "GA", "Diff"):
        assert f">{header}</abbr>" in html


def test_the_elites_last_four_are_in_the_relegation_places(client: Client, week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    html = client.get("/standings/elite/").content.decode()
    assert zones(html) == [""] * 8 + ["zone-down"] * 4
    assert "promotion place" not in html.split("<tbody>", 1)[1]


def test_unpublished_results_do_not_count(client: Client, week: RulesWeek) -> None:
    week.arbitrate()
    for row in rows(client.get("/standings/elite/").content.decode()):
        assert row[2:4] == ["0", "0"]  # no points, no game played


def test_in_d2_the_first_two_go_up_but_a_barred_team_leaves_its_place(
    client: Client, season: Season, divisions: dict[str, Division], referee: User
) -> None:
    made = build_league(season=season, divisions=divisions, referee=referee, division_slugs=["d2a"])
    made.play("d2a", 1)
    pool_round_publish(pool_round=made.pool_round("d2a", 1), by=referee)
    first = rows(client.get("/standings/d2a/").content.decode())[0][1].split(" ")
    barred = Entry.objects.get(season=season, team__name=" ".join(first[:2]))
    Entry.objects.filter(pk=barred.pk).update(promotion_barred=True)  # R14: a second ONR
    html = client.get("/standings/d2a/").content.decode()
    assert zones(html) == ["", "zone-up", "zone-up"] + [""] * 5 + ["zone-down"] * 4
    assert "no promotion" in rows(html)[0][1]


def test_the_standings_speak_french(client: Client, week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    html = client.get("/standings/elite/", headers={"accept-language": "fr"}).content.decode()
    assert '<html lang="fr">' in html
    assert "Classement" in html


def test_standings_without_a_pool_go_to_the_coachs_division(
    client: Client, week: RulesWeek, coach: User
) -> None:
    assert client.get("/standings/").url == "/standings/elite/"
    client.force_login(coach)
    assert client.get("/standings/").url == "/standings/elite/"
    assert client.get("/standings/d3z/").status_code == 404
