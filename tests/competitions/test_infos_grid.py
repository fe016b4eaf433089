"""« Infos équipes » as a grid (``/infos/<competition>/<pool>/``, :func:`pool_infos_grid`): each
team × each column (R19) and extra-time or shootout value (R7), from published rounds only; a
signed-in coach's opponents in the open rounds first, their own row marked; the KDH's teams put
out by its published games folded away (R15, R17).

The league is the arbitration tests' (whole divisions of twelve, every round of the calendar):
the Elite's round 1 published, its round 2 arbitrated and not published, rounds 3 to 11 still
open.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from competitions import services as competitions
from competitions.models import Competition, Fixture, PoolRound, Round
from competitions.selectors import entry_opponents, pool_infos_grid
from league.models import Division, Entry, Season, Team
from tests.competitions.arbitration_league import League, add_kdh, build_league, plain_pick
from tests.competitions.infos_html import grid, grids

pytestmark = pytest.mark.django_db

ELITE = "/infos/championship/elite/"
KDH = "/infos/kdh/kdh/"
CHAMPIONSHIP = Competition.CHAMPIONSHIP


def _user(username: str) -> User:
    return User.objects.create_user(username=username, email=f"{username}@example.org")


def _open_from(season: Season, competition: Competition, first: int) -> None:
    """Rounds ``first`` and after of ``competition`` still open: their deadlines a week apart
    from three days ahead (the calendar's own are long past)."""
    now = timezone.now()
    for round in Round.objects.filter(season=season, competition=competition, number__gte=first):
        Round.objects.filter(pk=round.pk).update(
            deadline=now + timedelta(days=3 + 7 * (round.number - first))
        )


@pytest.fixture
def made(season: Season, divisions: dict[str, Division]) -> League:
    """The Elite and D2A; the Elite's round 1 published, round 2 arbitrated only."""
    made = build_league(
        season=season,
        divisions=divisions,
        referee=_user("referee"),
        division_slugs=["elite", "d2a"],
    )
    competitions.pool_round_publish(pool_round=made.play("elite", 1), by=made.referee)
    made.play("elite", 2)
    _open_from(season, CHAMPIONSHIP, 3)
    return made


@pytest.fixture
def elite_coach(made: League) -> User:
    """The coach of elite-01."""
    user = _user("elite-coach")
    Team.objects.filter(slug="elite-01").update(coach=user)
    return user


@pytest.fixture
def elite_deputy(made: League) -> User:
    """The deputy of elite-01."""
    user = _user("elite-deputy")
    Team.objects.filter(slug="elite-01").update(deputy=user)
    return user


@pytest.fixture
def d2a_coach(made: League) -> User:
    """The coach of d2a-01, who plays nobody of the Elite."""
    user = _user("d2a-coach")
    Team.objects.filter(slug="d2a-01").update(coach=user)
    return user


def opponent(made: League, pool: str, number: int, team: str) -> str:
    """``team``'s opponent in ``pool``'s round ``number``."""
    (game,) = [game for game in made.games(pool, number) if team in game]
    return game[1] if game[0] == team else game[0]


def column_of(competition: Competition, number: int, team: Entry) -> tuple[str, str]:
    """The column and extra-time value ``team`` played in round ``number`` (a plain pick)."""
    notation = plain_pick(competition, number, team.code)
    return notation[0], notation[2]


# --- The cells, from published rounds only -------------------------------------------------------


def test_a_column_used_in_a_published_round_shows_used_one_used_in_an_unpublished_one_left(
    client: Client, made: League
) -> None:
    team = made.entry("elite-01")
    published, published_extra_time = column_of(CHAMPIONSHIP, 1, team)
    unpublished, unpublished_extra_time = column_of(CHAMPIONSHIP, 2, team)
    assert (published, published_extra_time, unpublished, unpublished_extra_time) == (
        *("C", "1"),
        *("D", "2"),
    )
    found = grid(client.get(ELITE).content.decode())
    cells = dict(zip(found.headers, found.row("elite-01").cells, strict=True))
    assert (cells["C"].shown, cells["C"].hidden, cells["C"].playable) == ("✗", "used", False)
    # R25: a column still playable shows its value in the coming round's row: round 3, D is
    # (3 + 3) % 6 + 1 = 1.
    assert (cells["D"].shown, cells["D"].hidden, cells["D"].playable) == ("1", "playable", True)
    assert cells["D"].worth == found.worths["D"] == 1
    # R7: extra time 1 (quota 3) once used in the published round; 2 not yet.
    assert cells["1×3"].shown == "2"
    assert cells["2×3"].shown == "3"
    assert cells["1×3"].hidden.strip() == cells["2×3"].hidden.strip() == "uses left"
    assert sum(cell.playable for cell in list(cells.values())[:11]) == 10


def test_the_selector_s_cells_count_published_rounds_only(made: League) -> None:
    infos = pool_infos_grid(season=made.season, competition="championship", pool_slug="elite")
    assert infos is not None
    line = next(line for line in infos.others if line.entry.team.slug == "elite-01")
    left = {cell.value: cell.left for cell in line.columns}
    assert left["C"] == 0 and left["D"] == 1
    extra_time = {cell.value: (cell.left, cell.quota) for cell in line.extra_time}
    assert extra_time == {"0": (2, 2), "1": (2, 3), "2": (3, 3), "3": (2, 2), "X": (1, 1)}
    assert line.shootout == ()
    assert infos.width == 11 + 5 + 2


def test_an_arbitrated_unpublished_round_changes_nothing_until_published(
    client: Client, made: League, elite_coach: User
) -> None:
    # Round 3's deadline passes; the grids before it is played, for a visitor and the coach.
    Round.objects.filter(season=made.season, competition=CHAMPIONSHIP, number=3).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    coach = Client(headers={"accept-language": "en"})
    coach.force_login(elite_coach)
    before = grids(client.get(ELITE).content.decode())
    before_coach = grids(coach.get(ELITE).content.decode())
    made.play("elite", 3)  # arbitrated, not published
    assert made.pool_round("elite", 3).status == PoolRound.Status.ARBITRATED
    assert grids(client.get(ELITE).content.decode()) == before
    assert grids(coach.get(ELITE).content.decode()) == before_coach

    competitions.pool_round_publish(pool_round=made.pool_round("elite", 2), by=made.referee)
    after = grid(client.get(ELITE).content.decode())
    cells = dict(zip(after.headers, after.row("elite-01").cells, strict=True))
    assert not cells["D"].playable
    assert cells["2×3"].shown == "2"


# --- The order: a coach's opponents first ---------------------------------------------------------


@pytest.mark.parametrize("person", ["elite_coach", "elite_deputy"])
def test_the_coach_s_opponents_in_the_open_rounds_come_first_and_their_own_row_is_marked(
    client: Client, made: League, person: str, request: pytest.FixtureRequest
) -> None:
    client.force_login(request.getfixturevalue(person))
    found = grid(client.get(ELITE).content.decode())
    met = [opponent(made, "elite", number, "elite-01") for number in range(3, 12)]
    played = {opponent(made, "elite", number, "elite-01") for number in (1, 2)}
    assert found.group_headers == ["Your next opponents", "Other teams"]
    assert [row.section for row in found.rows] == ["opponents"] * 9 + ["others"] * 3
    # In the order they are met (round 3 first), then the others by code, the coach's own too.
    # Round 2 is arbitrated and not published: the championship's calendar is public from the
    # start all the same (R20), so round 3's opponent shows.
    assert found.slugs[:9] == met
    assert found.slugs[9:] == sorted(played | {"elite-01"})
    assert found.row(met[0]).badges == ["R3"]
    assert "your opponent:" in found.row(met[0]).header
    assert "opponent" in found.row(met[-1]).classes
    mine = found.row("elite-01")
    assert mine.classes == {"mine"} and mine.badges == ["you"]
    assert [row.id for row in found.rows if "mine" in row.classes] == ["team-elite-01"]


def test_the_championship_s_calendar_stays_public_while_a_round_awaits_publication(
    made: League,
) -> None:
    # R20: the championship's games are known from the start; only a cup's later rounds are
    # drawn by an arbitration (and wait for its publication, R23).
    assert made.pool_round("elite", 2).status == PoolRound.Status.ARBITRATED
    rounds = list(Round.objects.filter(season=made.season, competition=CHAMPIONSHIP))
    opponents = entry_opponents(entry=made.entry("elite-01"), rounds=rounds)
    assert {
        round.number: opponents[round.pk].team.slug for round in rounds if round.pk in opponents
    } == {number: opponent(made, "elite", number, "elite-01") for number in range(1, 12)}


def test_a_round_whose_deadline_passed_no_longer_puts_its_opponent_first(
    client: Client, made: League, elite_coach: User
) -> None:
    Round.objects.filter(season=made.season, competition=CHAMPIONSHIP, number=3).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    client.force_login(elite_coach)
    found = grid(client.get(ELITE).content.decode())
    assert found.slugs[0] == opponent(made, "elite", 4, "elite-01")
    assert opponent(made, "elite", 3, "elite-01") in found.slugs[8:]


@pytest.mark.parametrize("person", [None, "d2a_coach", "referee"])
def test_a_visitor_or_a_coach_of_another_pool_sees_the_teams_by_code_and_no_row_marked(
    client: Client, made: League, person: str | None, request: pytest.FixtureRequest
) -> None:
    if person == "referee":
        client.force_login(made.referee)
    elif person:
        client.force_login(request.getfixturevalue(person))
    found = grid(client.get(ELITE).content.decode())
    assert found.slugs == [f"elite-{code:02d}" for code in range(1, 13)]
    assert found.group_headers == []
    assert {row.section for row in found.rows} == {"all"}
    assert not [row for row in found.rows if row.classes]


def test_the_coach_s_next_opponents_show_their_columns_worth_in_the_coming_round(
    client: Client, made: League, elite_coach: User
) -> None:
    """R25: each opponent's remaining columns with their value in round 3's row (the coming
    round), (3 + c) % 6 + 1 from A: A4 B5 C6 D1 E2 F3 G4 H5 I6 J1 K2."""
    client.force_login(elite_coach)
    found = grid(client.get(ELITE).content.decode())
    row_3 = dict(zip("ABCDEFGHIJK", [4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2], strict=True))
    assert found.worths == row_3
    first = found.rows[0]
    assert first.section == "opponents"
    for column, cell in zip("ABCDEFGHIJK", first.cells[:11], strict=True):
        if cell.playable:
            assert (cell.shown, cell.worth) == (str(row_3[column]), row_3[column])
        else:
            assert (cell.shown, cell.worth) == ("✗", None)
    # It played two columns in the published round 1 and the arbitrated round 2: only round 1's
    # is gone (published rounds only).
    assert sum(cell.playable for cell in first.cells[:11]) == 10


def test_the_grid_speaks_french(made: League, elite_coach: User) -> None:
    french = Client(headers={"accept-language": "fr"})
    french.force_login(elite_coach)
    html = french.get(ELITE).content.decode()
    assert 'lang="fr"' in html
    assert "Prolongation" in html  # the extra-time group, from the catalogue
    assert grid(html).row("elite-01").badges == ["vous"]


# --- The KDH: the teams out folded, opponents from published draws only -------------------------


@pytest.fixture
def kdh(made: League) -> League:
    """The KDH drawn, its round 1 arbitrated (round 2 drawn from it, not published), round 2
    open."""
    add_kdh(made)
    made.play("kdh", 1)
    _open_from(made.season, Competition.KDH, 2)
    return made


def kdh_games(made: League, number: int) -> list[Fixture]:
    return list(
        Fixture.objects.filter(pool_round=made.pool_round("kdh", number)).select_related(
            "result", "home__team", "away__team"
        )
    )


def test_the_kdh_folds_the_teams_its_published_games_put_out_and_only_those(
    client: Client, kdh: League
) -> None:
    losers = {
        (game.away if game.result.winner_id == game.home_id else game.home).team.slug
        for game in kdh_games(kdh, 1)
    }
    assert losers
    html = client.get(KDH).content.decode()
    assert "infos-out" not in grids(html) and "data-eliminated" not in html
    assert losers <= set(grid(html).slugs)

    competitions.pool_round_publish(pool_round=kdh.pool_round("kdh", 1), by=kdh.referee)
    html = client.get(KDH).content.decode()
    assert '<details class="infos-out" data-eliminated>' in html
    assert set(grid(html, "infos-out").slugs) == losers
    assert not losers & set(grid(html).slugs)
    assert len(grid(html).slugs) == 24 - len(losers)
    assert f"{len(losers)} teams out of the cup" in html


def test_a_kdh_opponent_comes_first_once_the_round_it_was_drawn_from_is_published(
    client: Client, kdh: League
) -> None:
    game = kdh_games(kdh, 2)[0]
    coach = _user("kdh-coach")
    Team.objects.filter(pk=game.home.team_id).update(coach=coach)
    client.force_login(coach)
    found = grid(client.get(KDH).content.decode())
    assert found.group_headers == []  # the draw comes from an unpublished round: not public
    assert "mine" in found.row(game.home.team.slug).classes

    competitions.pool_round_publish(pool_round=kdh.pool_round("kdh", 1), by=kdh.referee)
    found = grid(client.get(KDH).content.decode())
    assert found.group_headers == ["Your next opponents", "Other teams"]
    assert found.slugs[0] == game.away.team.slug
    assert found.row(game.away.team.slug).badges == ["R2"]
    assert PoolRound.objects.get(pk=kdh.pool_round("kdh", 1).pk).status == "published"
