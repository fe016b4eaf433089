"""R25: the matrices are public from the season's start — on the pick page (each column's value
in the round's row, and how many teams of the crowding pool, R2, still have it, from published
rounds only), on ``/matrices/`` and at ``/api/matrices/{competition}/`` — and secret while the
season is prepared: a 404 for everyone, never the values."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import Competition, PoolMember, Round, Stage
from league import services as league
from league.models import Season
from tests.competitions.infos_html import grid
from tests.competitions.matrix_values import card_tiles, matrices_create
from tests.competitions.open_rounds import OpenLeague
from tests.conftest import ResultRecorder, TeamMaker

pytestmark = pytest.mark.django_db

ROLES = ("nobody", "visitor", "coach", "other_coach", "referee", "admin_user")


@pytest.fixture
def matrices(league: OpenLeague) -> OpenLeague:
    matrices_create(season=league.elite.season)
    return league


def _person(request: pytest.FixtureRequest, role: str) -> User | None:
    return None if role == "nobody" else request.getfixturevalue(role)


def _prepare(season: Season) -> None:
    Season.objects.filter(pk=season.pk).update(status=Season.Status.PREPARING)


# --- The pick page --------------------------------------------------------------------------------


def test_each_column_tile_shows_its_value_in_the_rounds_row_and_who_still_has_it(
    matrices: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    html = open_as(coach).get("/picks/").content.decode()
    tiles = card_tiles(html, "championship-3")
    # Championship round 3's row, (3 + c) % 6 + 1 from A: A4 B5 C6 D1 E2 F3 G4 H5 I6 J1 K2.
    # The coach played A (published) and D (arbitrated): those tiles are gone.
    assert sorted(tiles) == ["B", "C", "E", "F", "G", "H", "I", "J", "K"]
    worth = {column: tile[0] for column, tile in tiles.items()}
    assert worth == {"B": 5, "C": 6, "E": 2, "F": 3, "G": 4, "H": 5, "I": 6, "J": 1, "K": 2}
    # The pool's one other team played B in the published round 1: B is held by nobody else.
    # Its K in round 2 is arbitrated, not published: unknown, so K still counts as held (R25).
    held = {column: tile[1:] for column, tile in tiles.items()}
    assert held["B"] == (0, 1)
    assert held["K"] == (1, 1)
    assert held["C"] == (1, 1)


def test_a_cup_tile_shows_the_cups_row_and_its_pool(
    matrices: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    tiles = card_tiles(open_as(coach).get("/picks/").content.decode(), "kdh-1")
    # KDH round 1: 6 − (1 + c) % 6 from A over A–G: 5 4 3 2 1 6 5; the other team, a member of
    # the cup that nothing put out, still has every column.
    assert {column: tile[0] for column, tile in tiles.items()} == {
        "A": 5,
        "B": 4,
        "C": 3,
        "D": 2,
        "E": 1,
        "F": 6,
        "G": 5,
    }
    assert {tile[1:] for tile in tiles.values()} == {(1, 1)}


def test_next_weeks_card_shows_its_own_row(
    matrices: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    tiles = card_tiles(open_as(coach).get("/picks/").content.decode(), "championship-4")
    # Round 4: (4 + c) % 6 + 1: B = 6, C = 1, K = 3.
    assert (tiles["B"][0], tiles["C"][0], tiles["K"][0]) == (6, 1, 3)


def test_the_french_page_says_the_same_values(
    matrices: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    html = open_as(coach, "fr").get("/picks/").content.decode()
    assert card_tiles(html, "championship-3")["C"] == (6, 1, 1)
    assert "vaut 6 buts" in html


def test_a_prepared_season_shows_no_value_on_the_pick_page(
    matrices: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    _prepare(matrices.elite.season)
    html = open_as(coach).get("/picks/").content.decode()
    tiles = card_tiles(html, "championship-3")
    assert tiles and all(tile == (None, None, None) for tile in tiles.values())
    assert "data-worth" not in html and "data-matrix-note" not in html


def test_without_a_matrix_the_tiles_are_bare_letters(
    league: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    tiles = card_tiles(open_as(coach).get("/picks/").content.decode(), "championship-3")
    assert tiles and all(tile == (None, None, None) for tile in tiles.values())


# --- /matrices/ -------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_everyone_reads_the_matrices_of_a_started_season(
    matrices: OpenLeague, role: str, request: pytest.FixtureRequest, open_as: Callable[..., Client]
) -> None:
    response = open_as(_person(request, role)).get("/matrices/")
    assert response.status_code == 200
    html = response.content.decode()
    # Championship round 3: A4 B5 C6 D1 E2 F3 G4 H5 I6 J1 K2, the round picks are open for.
    row = html[html.index('<tr data-round="3" class="current"') :]
    row = row[: row.index("</tr>")]
    assert [int(v) for v in __import__("re").findall(r'data-column="[A-K]">(\d)<', row)] == [
        4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2,
    ]  # fmt: skip
    assert html.count('class="current"') == 2  # the championship's round 3, the KDH's round 1
    assert "Europe/Paris" in html and "data-local-time" in html


def test_the_matrices_show_no_pick(matrices: OpenLeague, open_as: Callable[..., Client]) -> None:
    html = open_as(None).get("/matrices/").content.decode()
    assert "notation" not in html and "Sleigh Dogs" not in html


@pytest.mark.parametrize("role", ROLES)
def test_nobody_reads_the_matrices_of_a_prepared_season(
    matrices: OpenLeague, role: str, request: pytest.FixtureRequest, open_as: Callable[..., Client]
) -> None:
    _prepare(matrices.elite.season)
    response = open_as(_person(request, role)).get("/matrices/")
    assert response.status_code == 404
    assert 'data-column="A">' not in response.content.decode()


def test_an_unknown_season_is_a_404(matrices: OpenLeague, open_as: Callable[..., Client]) -> None:
    assert open_as(None).get("/matrices/?season=9").status_code == 404
    assert open_as(None).get("/matrices/?season=x").status_code == 404


# --- /api/matrices/{competition}/ ---------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_api_gives_every_row_to_everyone_once_started(
    matrices: OpenLeague,
    role: str,
    request: pytest.FixtureRequest,
    api_as: Callable[[User | None], APIClient],
) -> None:
    response = api_as(_person(request, role)).get("/api/matrices/kdh/")
    assert response.status_code == 200
    data = response.json()
    assert data["competition"] == "kdh" and data["season"] == 1
    assert data["columns"] == ["A", "B", "C", "D", "E", "F", "G"]
    first = data["rows"][0]
    assert first["round"] == 1 and first["week"] == 3 and first["current"] is True
    assert first["stage"] == "round_of_64"
    # KDH round 1: 6 − (1 + c) % 6.
    assert first["values"] == {"A": 5, "B": 4, "C": 3, "D": 2, "E": 1, "F": 6, "G": 5}
    assert first["deadline"].endswith(("+01:00", "+02:00"))


def test_the_api_reads_a_season_by_number(
    matrices: OpenLeague, api_as: Callable[[User | None], APIClient]
) -> None:
    rows = api_as(None).get("/api/matrices/championship/?season=1").json()["rows"]
    assert [row["round"] for row in rows] == [1, 2, 3, 4]
    assert rows[0]["values"]["A"] == 2  # (1 + 0) % 6 + 1
    assert [row["current"] for row in rows] == [False, False, True, False]


@pytest.mark.parametrize("role", ROLES)
def test_the_api_answers_404_for_a_prepared_season_to_everyone(
    matrices: OpenLeague,
    role: str,
    request: pytest.FixtureRequest,
    api_as: Callable[[User | None], APIClient],
) -> None:
    _prepare(matrices.elite.season)
    response = api_as(_person(request, role)).get("/api/matrices/championship/")
    assert response.status_code == 404
    assert "values" not in response.json()


@pytest.mark.parametrize(
    "path",
    [
        "/api/matrices/championship/?season=9",
        "/api/matrices/championship/?season=x",
        "/api/matrices/nhl/",
        "/api/matrices/wg/",  # no WG matrix in this season
    ],
)
def test_the_api_answers_404_for_what_is_not_there(
    matrices: OpenLeague, path: str, api_as: Callable[[User | None], APIClient]
) -> None:
    assert api_as(None).get(path).status_code == 404


# --- Infos équipes ------------------------------------------------------------------------------


def test_infos_equipes_shows_each_remaining_column_worth_in_the_coming_round(
    matrices: OpenLeague, open_as: Callable[..., Client]
) -> None:
    found = grid(open_as(None).get("/infos/championship/elite/").content.decode())
    # The coming round is round 3: A4 B5 C6 D1 E2 F3 G4 H5 I6 J1 K2.
    assert found.worths == dict(zip("ABCDEFGHIJK", [4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2], strict=True))
    sleigh = dict(zip(found.headers, found.row("sleigh-dogs").cells, strict=False))
    freezing = dict(zip(found.headers, found.row("freezing-ass").cells, strict=False))
    # Published round 1: the Sleigh Dogs played A, the Freezing Ass B. Round 2 (D, K) is not
    # published: those columns still show their worth.
    assert (sleigh["A"].shown, sleigh["D"].shown, sleigh["K"].shown) == ("✗", "1", "2")
    assert (freezing["B"].shown, freezing["K"].shown, freezing["C"].shown) == ("✗", "2", "6")


def test_infos_equipes_of_a_prepared_season_shows_no_value(
    matrices: OpenLeague, open_as: Callable[..., Client]
) -> None:
    _prepare(matrices.elite.season)
    html = open_as(None).get("/infos/championship/elite/").content.decode()
    assert "data-worth" not in html
    assert grid(html).row("sleigh-dogs").cells[2].shown == "✓"


def test_another_teams_pick_for_the_round_changes_no_count(
    matrices: OpenLeague, coach: User, other_coach: User, open_as: Callable[..., Client]
) -> None:
    """R25: crowding stays unknown until publication — a pick sent changes nothing."""
    competitions.pick_send(
        team=matrices.other_entry.team,
        round=matrices.this_week,
        notation="C(1)",
        entered_by=other_coach,
    )
    tiles = card_tiles(open_as(coach).get("/picks/").content.decode(), "championship-3")
    assert tiles["C"] == (6, 1, 1)


def test_a_cup_rounds_pool_is_its_drawn_games_teams(
    matrices: OpenLeague, coach: User, enter_team: TeamMaker, open_as: Callable[..., Client]
) -> None:
    """R2: the KDH's pool is the teams playing the round. Two more teams in the cup, the round
    drawn (public: the first round's draw is the season start's): the coach's game is against
    the Freezing Ass, the other game between the two newcomers — three other teams."""
    kdh = matrices.kdh
    third = enter_team("Third", code=3)
    fourth = enter_team("Fourth", code=4)
    for entry in (third, fourth):
        PoolMember.objects.create(pool=kdh, entry=entry)
    drawn = competitions.pool_round_create(pool=kdh, round=matrices.kdh_this_week)
    competitions.fixture_create(
        pool_round=drawn, home=matrices.coach_entry, away=matrices.other_entry
    )
    competitions.fixture_create(pool_round=drawn, home=third, away=fourth)
    tiles = card_tiles(open_as(coach).get("/picks/").content.decode(), "kdh-1")
    assert {tile[1:] for tile in tiles.values()} == {(3, 3)}


def test_a_cup_round_drawn_by_an_unpublished_arbitration_is_not_its_pool_yet(
    matrices: OpenLeague,
    coach: User,
    enter_team: TeamMaker,
    record_played: ResultRecorder,
    open_as: Callable[..., Client],
) -> None:
    """R23, R25: a KDH round 2 drawn by round 1's arbitration is secret until round 1 is
    published: its pool is still every team its published games have not put out."""
    kdh = matrices.kdh
    third = enter_team("Third", code=3)
    PoolMember.objects.create(pool=kdh, entry=third)
    round_2 = competitions.round_create(
        season=kdh.season,
        competition=Competition.KDH,
        number=2,
        week=4,
        stage=Stage.ROUND_OF_32,
        deadline=matrices.next_week.deadline,
    )
    record_played(
        matrices.coach_entry, matrices.kdh_this_week, pool=kdh, column="A", extra_time="0"
    )
    drawn = competitions.pool_round_create(pool=kdh, round=round_2)
    competitions.fixture_create(pool_round=drawn, home=matrices.coach_entry, away=third)
    Round.objects.filter(pk=matrices.kdh_this_week.pk).update(status=Round.Status.CLOSED)
    tiles = card_tiles(open_as(coach).get("/picks/").content.decode(), "kdh-2")
    # Not only the drawn opponent: both other members; A, played in the unpublished round 1 by
    # the coach, is the coach's own (gone from the tiles), not counted for the others.
    assert tiles and {tile[1:] for tile in tiles.values()} == {(2, 2)}


def test_while_the_next_season_is_prepared_its_matrices_are_secret_and_the_last_ones_public(
    matrices: OpenLeague,
    admin_user: User,
    open_as: Callable[..., Client],
    api_as: Callable[..., APIClient],
) -> None:
    """R25: the archive's matrices stay public; the next season's, prepared and current, are a
    404 on the page and the API, whoever asks — even with its matrix already drawn."""
    last = matrices.elite.season
    Season.objects.filter(pk=last.pk).update(status=Season.Status.FINISHED)
    following = league.season_create(number=2, starts_on=date(2027, 3, 1))
    league.season_make_current(season=following)
    matrices_create(season=following)
    for person in (None, admin_user):
        assert open_as(person).get("/matrices/").status_code == 404
        assert open_as(person).get("/matrices/?season=2").status_code == 404
        assert api_as(person).get("/api/matrices/championship/").status_code == 404
        archive = open_as(person).get("/matrices/?season=1")
        assert archive.status_code == 200
        assert "past-season" in archive.content.decode()  # the banner of a past season
        rows = api_as(person).get("/api/matrices/championship/?season=1").json()["rows"]
        assert rows[0]["values"]["A"] == 2  # (1 + 0) % 6 + 1
