"""Past seasons everywhere (``shared/SEASON.md``, "Past seasons"): every public page and API read
with ``?season=N``, the seasons' API, the season pages and a team's honours — from a small league
of two seasons whose results are stored by hand, as an arbitration would store them, so that
every expected table and winner below is worked out by hand from the rules.

Season 1 (finished): Elite — Aigles, Boucs, Castors, Dauphins; D2A — Élans, Faucons, Grizzlis,
Hiboux. Championship rounds 1–2 published; D2A's round 3 arbitrated but *not published*; the
KDH final and the WG's final week published. Season 2 (current, running): the Élans up in the
Elite, the Dauphins down in D2A; round 1 published in the Elite, arbitrated but not published in
D2A.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import (
    Competition,
    FixtureResult,
    Pool,
    PoolRound,
    Round,
    Stage,
    TeamResult,
)
from competitions.selectors.seasons import season_record, team_honours
from league import services as league
from league.models import Entry, Season, Team
from tests.competitions.results_league import bracket_columns, bracket_slots, game_lines
from tests.competitions.test_wg_cup import slots as wg_slots

pytestmark = pytest.mark.django_db

NAMES = {
    "aigles": "Aigles",
    "boucs": "Boucs",
    "castors": "Castors",
    "dauphins": "Dauphins",
    "elans": "Élans",
    "faucons": "Faucons",
    "grizzlis": "Grizzlis",
    "hiboux": "Hiboux",
}
DIVISIONS = {
    1: {"elite": ("aigles", "boucs", "castors", "dauphins"),
        "d2a": ("elans", "faucons", "grizzlis", "hiboux")},
    2: {"elite": ("aigles", "boucs", "castors", "elans"),
        "d2a": ("dauphins", "faucons", "grizzlis", "hiboux")},
}  # fmt: skip
COLUMNS = "ABCDEFGHIJK"

# A game: home, away, home goals, away goals, how it was decided, the winner (None: a draw).
Game = tuple[str, str, int, int, str, str | None]


@dataclass
class Archive:
    seasons: dict[int, Season]
    entries: dict[tuple[int, str], Entry]
    people: dict[str, User]

    def team(self, slug: str) -> Team:
        return Team.objects.get(slug=slug)


def _play(
    archive: Archive,
    pool: Pool,
    round: Round,
    games: list[Game],
    *,
    published: bool,
    labels: tuple[str, ...] = (),
) -> PoolRound:
    """``games`` stored as ``pool``'s part of ``round``: fixtures, results and each team's played
    pick (championship: home plays column 2n−1 of round n, away 2n; a cup's k-th game: columns
    2k−1 and 2k; extra time 1; KDH shootout 2)."""
    pool_round = competitions.pool_round_create(pool=pool, round=round)
    number = round.season.number
    for index, (home, away, home_goals, away_goals, decided, winner) in enumerate(games):
        fixture = competitions.fixture_create(
            pool_round=pool_round,
            home=archive.entries[number, home],
            away=archive.entries[number, away],
            label=labels[index] if labels else "",
        )
        FixtureResult.objects.create(
            fixture=fixture,
            home_goals=home_goals,
            away_goals=away_goals,
            decided=decided,
            winner=None if winner is None else archive.entries[number, winner],
        )
        for side, (slug, goals) in enumerate(((home, home_goals), (away, away_goals))):
            cup = round.competition != Competition.CHAMPIONSHIP
            column = COLUMNS[2 * index + side if cup else 2 * (round.number - 1) + side]
            shootout = "2" if round.competition == Competition.KDH else ""
            TeamResult.objects.create(
                pool_round=pool_round,
                entry=archive.entries[number, slug],
                column=column,
                extra_time="1",
                shootout=shootout,
                goals=goals,
                display=f"{column}(1)" + (f"({shootout})" if shootout else ""),
            )
    now = timezone.now()
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.PUBLISHED if published else PoolRound.Status.ARBITRATED,
        arbitrated_at=now,
        published_at=now if published else None,
    )
    return pool_round


def _flush() -> None:
    """Empty every table (TRUNCATE … CASCADE; the append-only triggers refuse only DELETE)."""
    call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(scope="module")
def archive(django_db_setup: None, django_db_blocker: Any) -> Iterator[Archive]:
    """The two seasons, built once for the module and committed (every test only reads them),
    the database emptied again after the module's last test."""
    with django_db_blocker.unblock():
        yield _archive_build()
        _flush()


def _archive_build() -> Archive:
    divisions = {d.slug: d for d in league.divisions_create_standard()}
    # No passwords: the tests sign people in with force_login (and hashing one is slow).
    people = {
        "coach": User.objects.create_user("elans-coach", "elans@example.org"),
        "referee": User.objects.create_user("referee", "referee@example.org"),
        "admin": User.objects.create_superuser("admin", "admin@example.org", None),
        "visitor": User.objects.create_user("visitor", "visitor@example.org"),
    }
    teams = {
        slug: league.team_create(
            name=name, slug=slug, coach=people["coach"] if slug == "elans" else None
        )
        for slug, name in NAMES.items()
    }
    archive = Archive(seasons={}, entries={}, people=people)
    pools: dict[tuple[int, str], Pool] = {}
    for number, starts_on in ((1, date(2025, 3, 3)), (2, date(2026, 3, 2))):
        season = league.season_create(number=number, name=f"Saison {number}", starts_on=starts_on)
        archive.seasons[number] = season
        for slug, members in DIVISIONS[number].items():
            for code, team in enumerate(members, start=1):
                archive.entries[number, team] = competitions.entry_create(
                    season=season, team=teams[team], division=divisions[slug], code=code
                )
            pools[number, slug] = competitions.pool_create(
                season=season,
                competition=Competition.CHAMPIONSHIP,
                division=divisions[slug],
                referees=[people["referee"]],
            )
    one, two = archive.seasons[1], archive.seasons[2]
    rounds = {
        n: competitions.round_create(season=one, competition="championship", number=n, week=n)
        for n in (1, 2, 3)
    }
    _play(archive, pools[1, "elite"], rounds[1], [
        ("aigles", "boucs", 3, 1, "regulation", "aigles"),
        ("castors", "dauphins", 2, 2, "draw", None),
    ], published=True)  # fmt: skip
    _play(archive, pools[1, "elite"], rounds[2], [
        ("aigles", "castors", 2, 0, "regulation", "aigles"),
        ("boucs", "dauphins", 1, 3, "regulation", "dauphins"),
    ], published=True)  # fmt: skip
    _play(archive, pools[1, "d2a"], rounds[1], [
        ("elans", "faucons", 1, 0, "regulation", "elans"),
        ("grizzlis", "hiboux", 0, 2, "regulation", "hiboux"),
    ], published=True)  # fmt: skip
    _play(archive, pools[1, "d2a"], rounds[2], [
        ("elans", "grizzlis", 2, 1, "regulation", "elans"),
        ("faucons", "hiboux", 1, 1, "draw", None),
    ], published=True)  # fmt: skip
    # Arbitrated, never published: it must not show anywhere (it would put the Hiboux first).
    _play(archive, pools[1, "d2a"], rounds[3], [
        ("elans", "hiboux", 0, 5, "regulation", "hiboux"),
        ("faucons", "grizzlis", 1, 0, "regulation", "faucons"),
    ], published=False)  # fmt: skip
    kdh = competitions.pool_create(season=one, competition=Competition.KDH)
    kdh_final = competitions.round_create(
        season=one, competition="kdh", number=7, week=4, stage=Stage.FINAL
    )
    _play(archive, kdh, kdh_final, [("boucs", "elans", 2, 2, "shootout", "elans")], published=True)
    wg = competitions.pool_create(season=one, competition=Competition.WG)
    wg_final = competitions.round_create(
        season=one, competition="wg", number=8, week=4, stage=Stage.FINAL
    )
    _play(archive, wg, wg_final, [
        ("aigles", "hiboux", 1, 2, "extra_time", "hiboux"),
        ("dauphins", "elans", 3, 0, "regulation", "dauphins"),
    ], published=True, labels=("final", "third_place"))  # fmt: skip
    Season.objects.filter(pk=one.pk).update(status=Season.Status.FINISHED)

    first, second = (
        competitions.round_create(season=two, competition="championship", number=n, week=n)
        for n in (1, 2)
    )
    # Round 2 is on the calendar (R20), not played yet: the Elite's table is not final.
    for slug, (home, away) in (("elite", ("aigles", "castors")), ("d2a", ("dauphins", "grizzlis"))):
        pending = competitions.pool_round_create(pool=pools[2, slug], round=second)
        competitions.fixture_create(
            pool_round=pending, home=archive.entries[2, home], away=archive.entries[2, away]
        )
    _play(archive, pools[2, "elite"], first, [
        ("aigles", "boucs", 0, 1, "regulation", "boucs"),
        ("castors", "elans", 2, 1, "regulation", "castors"),
    ], published=True)  # fmt: skip
    _play(archive, pools[2, "d2a"], first, [
        ("dauphins", "faucons", 4, 1, "regulation", "dauphins"),
        ("grizzlis", "hiboux", 2, 3, "regulation", "hiboux"),
    ], published=False)  # fmt: skip
    Season.objects.filter(pk=two.pk).update(status=Season.Status.RUNNING)
    league.season_make_current(season=two)
    archive.seasons = {n: Season.objects.get(number=n) for n in (1, 2)}
    return archive


def _client(user: User | None = None, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    if user is not None:
        client.force_login(user)
    return client


def _api(user: User | None = None) -> APIClient:
    client = APIClient(headers={"accept-language": "en"})
    if user is not None:
        client.force_authenticate(user)
    return client


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _table(html: str) -> list[str]:
    """The teams of a standings page's table, in rank order."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        unescape(name) for name in re.findall(r'class="team-name"[^>]*>(.*?)</(?:a|span)>', body)
    ]


# --- Standings -----------------------------------------------------------------------------------


def test_a_past_seasons_table_is_its_own_and_the_default_is_the_current(archive: Archive) -> None:
    client = _client()
    # Season 1, R9 by hand: Aigles 2 wins (4 pts); Dauphins a draw and a win (3); Castors a draw
    # and a loss (1); Boucs two losses (0).
    assert _table(client.get("/standings/elite/?season=1").content.decode()) == [
        "Aigles",
        "Dauphins",
        "Castors",
        "Boucs",
    ]
    # Season 2: Castors and Boucs one regulation win each, equal but for goals scored (2 to 1);
    # then Élans (0 pts, 1 goal) before Aigles (0 pts, 0 goals).
    current = ["Castors", "Boucs", "Élans", "Aigles"]
    assert _table(client.get("/standings/elite/").content.decode()) == current
    assert _table(client.get("/standings/elite/?season=2").content.decode()) == current
    assert _table(client.get("/standings/elite/?season=").content.decode()) == current


def test_the_standings_api_takes_the_season(archive: Archive) -> None:
    body = _api().get("/api/standings/elite/?season=1").json()
    assert [(row["team"], row["points"]) for row in body["table"]] == [
        ("aigles", 4),
        ("dauphins", 3),
        ("castors", 1),
        ("boucs", 0),
    ]
    current = _api().get("/api/standings/elite/").json()
    assert [row["team"] for row in current["table"]] == ["castors", "boucs", "elans", "aigles"]


def test_links_inside_a_past_seasons_pages_keep_the_season(archive: Archive) -> None:
    client = _client()
    html = client.get("/standings/elite/?season=1").content.decode()
    assert 'href="/standings/d2a/?season=1"' in html
    assert 'href="/seasons/1/"' in html  # the banner: not the current season
    week = client.get("/results/week/1/1/").content.decode()
    assert 'href="/results/championship/elite/1/?season=1"' in week
    assert 'href="/standings/elite/?season=1"' in week
    round_page = client.get("/results/championship/elite/1/?season=1").content.decode()
    assert 'href="/results/championship/elite/2/?season=1"' in round_page
    assert 'href="/results/championship/d2a/1/?season=1"' in round_page
    infos = client.get("/infos/championship/elite/?season=1").content.decode()
    assert 'href="/infos/championship/d2a/?season=1"' in infos
    # The current season's links stay short.
    current = client.get("/standings/elite/").content.decode()
    assert 'href="/standings/d2a/"' in current and "?season=" not in current


def test_the_divisions_page_takes_the_season(archive: Archive) -> None:
    client = _client()
    past = client.get("/?season=1").content.decode()
    elite = _text(past.split('id="division-elite"', 1)[1].split("</ol>", 1)[0])
    assert "Dauphins" in elite and "Élans" not in elite
    assert 'href="/standings/?season=1"' in past
    current = client.get("/").content.decode()
    assert "Élans" in _text(current.split('id="division-elite"', 1)[1].split("</ol>", 1)[0])
    assert client.get("/?season=9").status_code == 404


def test_the_index_pages_redirect_within_the_season(archive: Archive) -> None:
    client = _client()
    assert client.get("/standings/?season=1")["Location"] == "/standings/elite/?season=1"
    assert client.get("/infos/?season=1")["Location"] == "/infos/championship/elite/?season=1"
    # Season 1's published weeks: 1, 2 and 4 (the cups' finals); week 3 was never published.
    assert client.get("/results/?season=1")["Location"] == "/results/week/1/4/"
    assert client.get("/results/")["Location"] == "/results/week/2/1/"


# --- Results and cups ----------------------------------------------------------------------------


def test_a_past_seasons_round_shows_its_games(archive: Archive) -> None:
    client = _client()
    past = game_lines(client.get("/results/championship/elite/1/?season=1").content.decode())
    assert past == [
        "Aigles [A(1)] – Boucs [B(1)] : 3-1",
        "Castors [A(1)] – Dauphins [B(1)] : 2-2 AP",
    ]
    current = game_lines(client.get("/results/championship/elite/1/").content.decode())
    assert current == [
        "Aigles [A(1)] – Boucs [B(1)] : 0-1",
        "Castors [A(1)] – Élans [B(1)] : 2-1",
    ]


def test_the_results_api_takes_the_season(archive: Archive) -> None:
    body = _api().get("/api/results/championship/elite/2/?season=1").json()
    assert body["status"] == "published" and "seed" in body
    assert [(m["home"], m["away"], m["home_goals"], m["away_goals"]) for m in body["matches"]] == [
        ("aigles", "castors", 2, 0),
        ("boucs", "dauphins", 1, 3),
    ]
    # Season 2's round 2 is not played yet; it has no round 3, which season 1 has.
    current = _api().get("/api/results/championship/elite/2/").json()
    assert current["status"] != "published" and current["matches"] == []
    assert _api().get("/api/results/championship/d2a/3/?season=1").status_code == 200
    assert _api().get("/api/results/championship/d2a/3/").status_code == 404


def test_a_past_seasons_cups_show_their_finals(archive: Archive) -> None:
    client = _client()
    kdh = bracket_columns(client.get("/standings/kdh/?season=1").content.decode())
    # Only the final was played that season: the bracket is that one round.
    assert [bracket_slots(column) for column in kdh.values()] == [
        [("slot-game", "Boucs 2 Élans (goes on) 2 SO")]
    ]
    wg = wg_slots(client.get("/standings/wg/?season=1").content.decode())
    assert wg[2:] == [
        "Final round 8 · week 4 Aigles 1 Hiboux 2 AP · Winner: Hiboux, in extra time · "
        "the round's results · ⇄ head-to-head",
        "Third-place game round 8 · week 4 Dauphins 3 Élans 0 Winner: Dauphins, in regulation · "
        "the round's results · ⇄ head-to-head",
    ]
    # Season 2 has no cup.
    assert client.get("/standings/kdh/").status_code == 404


# --- Infos équipes -------------------------------------------------------------------------------


def test_infos_equipes_take_the_season(archive: Archive) -> None:
    season_1 = _api().get("/api/infos/championship/elite/?season=1").json()
    # Aigles played A (round 1, home) and C (round 2, home) in season 1; only A in season 2.
    assert season_1["teams"]["aigles"]["columns"] == list("BDEFGHIJK")
    current = _api().get("/api/infos/championship/elite/").json()
    assert current["teams"]["aigles"]["columns"] == list("BCDEFGHIJK")
    assert set(current["teams"]) == {"aigles", "boucs", "castors", "elans"}
    page = _client().get("/infos/championship/d2a/?season=1")
    assert page.status_code == 200 and "Faucons" in page.content.decode()


# --- Unknown seasons -----------------------------------------------------------------------------

PAGES = [
    "/standings/elite/",
    "/standings/",
    "/standings/kdh/",
    "/results/",
    "/results/championship/elite/1/",
    "/results/championship/elite/1/input.json",
    "/infos/",
    "/infos/championship/elite/",
]
APIS = [
    "/api/standings/elite/",
    "/api/results/championship/elite/1/",
    "/api/infos/championship/elite/",
]


@pytest.mark.parametrize("url", PAGES)
def test_an_unknown_season_is_a_page_404_that_says_so(archive: Archive, url: str) -> None:
    response = _client().get(f"{url}?season=9")
    assert response.status_code == 404
    assert "There is no season “9”" in _text(response.content.decode())


@pytest.mark.parametrize("season", ["abc", "-1", "1.5", "٣", "99999999999999999999"])
def test_a_season_that_is_not_a_number_is_a_page_404(archive: Archive, season: str) -> None:
    response = _client().get("/standings/elite/", {"season": season})
    assert response.status_code == 404
    assert "There is no season" in _text(response.content.decode())


@pytest.mark.parametrize("url", APIS)
@pytest.mark.parametrize("season", ["9", "abc"])
def test_an_unknown_season_is_an_api_404_with_a_detail(
    archive: Archive, url: str, season: str
) -> None:
    response = _api().get(f"{url}?season={season}")
    assert response.status_code == 404
    assert "There is no season" in response.json()["detail"]


def test_the_404_page_speaks_the_readers_language(archive: Archive) -> None:
    response = _client(language="fr").get("/standings/elite/?season=9")
    html = response.content.decode()
    assert response.status_code == 404 and '<html lang="fr">' in html
    assert "Aller au contenu" in html  # the French page around the message


def test_an_unknown_season_page_or_team_is_a_404(archive: Archive) -> None:
    client = _client()
    assert client.get("/seasons/9/").status_code == 404
    assert client.get("/seasons/99999999999/").status_code == 404
    assert client.get("/seasons/teams/nobody/").status_code == 404
    assert _api().get("/api/seasons/9/").json() == {"detail": "There is no season 9."}


# --- Secrecy: only published rounds, whatever the season -----------------------------------------


@pytest.mark.parametrize("who", [None, "visitor", "coach", "referee", "admin"])
def test_an_unpublished_round_shows_nothing_in_a_past_season(archive: Archive, who: str) -> None:
    user = None if who is None else archive.people[who]
    client, api = _client(user), _api(user)
    page = _text(client.get("/results/championship/d2a/3/?season=1").content.decode())
    assert "Not published yet" in page and "0 - 5" not in page and "[E(1)]" not in page
    body = api.get("/api/results/championship/d2a/3/?season=1").json()
    assert body["matches"] == [] and "seed" not in body and "teams" not in body
    # Counted, the Hiboux would lead with 5 points; published, the Élans do with 4.
    table = api.get("/api/standings/d2a/?season=1").json()["table"]
    assert [(row["team"], row["points"]) for row in table[:2]] == [("elans", 4), ("hiboux", 3)]
    infos = api.get("/api/infos/championship/d2a/?season=1").json()
    assert "E" in infos["teams"]["elans"]["columns"]
    assert client.get("/results/championship/d2a/3/input.json?season=1").status_code == 404


@pytest.mark.parametrize("who", [None, "coach", "referee", "admin"])
def test_an_unpublished_round_shows_nothing_in_the_current_season(
    archive: Archive, who: str
) -> None:
    user = None if who is None else archive.people[who]
    body = _api(user).get("/api/results/championship/d2a/1/").json()
    assert body["matches"] == [] and "seed" not in body
    table = _api(user).get("/api/standings/d2a/?season=2").json()["table"]
    assert all(row["played"] == 0 for row in table)
    page = _text(_client(user).get("/results/championship/d2a/1/").content.decode())
    assert "4 - 1" not in page and "[A(1)]" not in page


# --- The seasons' API ----------------------------------------------------------------------------


def test_every_season_newest_first(archive: Archive) -> None:
    assert _api().get("/api/seasons/").json() == [
        {"number": 2, "status": "running", "current": True},
        {"number": 1, "status": "finished", "current": False},
    ]


def test_a_season_has_the_shape_of_the_current_one(archive: Archive) -> None:
    current = _api().get("/api/seasons/current/").json()
    assert _api().get("/api/seasons/2/").json() == current
    past = _api().get("/api/seasons/1/").json()
    assert set(past) == set(current) == {"number", "name", "time_zone", "competitions"}
    assert (past["number"], past["name"]) == (1, "Saison 1")
    assert [r["number"] for r in past["competitions"]["championship"]] == [1, 2, 3]
    assert [(r["number"], r["stage"]) for r in past["competitions"]["kdh"]] == [(7, "final")]


@pytest.mark.parametrize("who", [None, "coach", "admin"])
def test_the_seasons_api_only_reads(archive: Archive, who: str) -> None:
    api = _api(None if who is None else archive.people[who])
    assert api.post("/api/seasons/", {}).status_code == 405
    assert api.delete("/api/seasons/1/").status_code == 405


# --- The season pages and the honours ------------------------------------------------------------


def test_a_seasons_record_names_its_champions_and_cup_winners(archive: Archive) -> None:
    record = season_record(season=archive.seasons[1])
    # The KDH final: 2-2, the Élans win the shootout (R8); the Boucs are the finalists.
    assert (record.kdh_winner.team.slug, record.kdh_finalist.team.slug) == ("elans", "boucs")  # type: ignore[union-attr]
    # The WG (R18): the Hiboux win the final, the Dauphins the third-place game.
    assert [(p.place, p.entry.team.slug) for p in record.wg] == [
        (1, "hiboux"),
        (2, "aigles"),
        (3, "dauphins"),
        (4, "elans"),
    ]
    elite, d2a = record.divisions
    assert (elite.complete, elite.first.team.slug) == (True, "aigles")  # type: ignore[union-attr]
    # D2A's round 3 is not published: its table is not final, the Élans only lead it.
    assert (d2a.complete, d2a.first.team.slug) == (False, "elans")  # type: ignore[union-attr]
    assert record.elite_champion.team.slug == "aigles"  # type: ignore[union-attr]
    current = season_record(season=archive.seasons[2])
    assert (current.kdh, current.wg, current.elite_champion) == ([], [], None)


def test_the_season_page_shows_tables_champions_and_winners(archive: Archive) -> None:
    html = _client().get("/seasons/1/").content.decode()
    kdh = _text(html.split('data-cup="kdh"', 1)[1].split("</ol>", 1)[0])
    assert kdh == "> winner Élans finalist Boucs"
    wg = _text(html.split('data-cup="wg"', 1)[1].split("</ol>", 1)[0])
    assert wg == "> 1. Hiboux 2. Aigles 3. Dauphins 4. Élans"
    elite = _text(html.split('data-division="elite"', 1)[1].split("</p>", 1)[0])
    assert elite == "> Champion: Aigles"
    d2a = _text(html.split('data-division="d2a"', 1)[1].split("</p>", 1)[0])
    assert d2a == "> Leader: Élans"
    assert 'href="/standings/elite/?season=1"' in html and 'href="/seasons/teams/elans/"' in html


def test_the_seasons_index_lists_every_season_and_who_won(archive: Archive) -> None:
    html = _client().get("/seasons/").content.decode()
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = [_text(row) for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.DOTALL)]
    assert rows == [
        "Saison 2 current running — — —",
        "Saison 1 finished Aigles Élans Hiboux",
    ]
    assert 'href="/seasons/teams/hiboux/"' in html


def test_the_navigation_links_the_seasons(archive: Archive) -> None:
    assert 'href="/seasons/"' in _client().get("/").content.decode()


def test_a_teams_honours_across_seasons(archive: Archive) -> None:
    elans = team_honours(team=archive.team("elans"))
    assert [(h.season.number, h.division.slug, h.place, h.final, h.move) for h in elans] == [
        (2, "elite", 3, False, ""),
        (1, "d2a", 1, False, "promoted"),
    ]
    assert (elans[1].kdh_place, elans[1].wg_place) == (1, 4)
    assert (elans[0].kdh_place, elans[0].kdh_stage, elans[0].wg_stage) == (None, None, None)
    [_, dauphins] = team_honours(team=archive.team("dauphins"))
    assert (dauphins.place, dauphins.final, dauphins.move) == (2, True, "relegated")
    assert (dauphins.wg_place, dauphins.kdh_place, dauphins.kdh_stage) == (3, None, None)
    [_, aigles] = team_honours(team=archive.team("aigles"))
    assert (aigles.champion, aigles.move, aigles.wg_place) == (True, "stayed", 2)
    [_, hiboux] = team_honours(team=archive.team("hiboux"))
    assert (hiboux.move, hiboux.wg_place) == ("stayed", 1)
    [_, boucs] = team_honours(team=archive.team("boucs"))
    assert (boucs.place, boucs.kdh_place) == (4, 2)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_honours_page_in_both_languages(archive: Archive, language: str) -> None:
    response = _client(language=language).get("/seasons/teams/elans/")
    html = response.content.decode()
    assert response.status_code == 200 and f'<html lang="{language}">' in html
    rows = re.findall(r'<tr data-season="(\d+)">(.*?)</tr>', html, flags=re.DOTALL)
    assert [number for number, _ in rows] == ["2", "1"]
    assert "D2A" in rows[1][1] and "▲" in rows[1][1]


@pytest.mark.parametrize(
    ("language", "second"),
    [("fr", "2e place"), ("en", "2nd place")],
)
def test_places_are_written_as_ordinals(archive: Archive, language: str, second: str) -> None:
    """« 2e place » in the WG column of the honours, never « place 2 »; the team page's history
    table gives the place as a number in its « Place » column."""
    honours = _client(language=language).get("/seasons/teams/aigles/").content.decode()
    [row] = re.findall(r'<tr data-season="1">(.*?)</tr>', honours, flags=re.DOTALL)
    assert second in row
    assert "place 2" not in row
