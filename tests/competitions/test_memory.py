"""The league's memory read back (issue 25): the all-time tables, a team's history, a
head-to-head, the records and a coach's career, from three seasons written by hand
(``tests/competitions/memory_league.py``), every figure worked out by hand here.

Own games (R9 points: win 2, draw 1, extra-time loss 1), after season 3:

========  ======  =====  ====  =====  =====  ======  ==  ==  ======
team      seasons games  wins  draws  losses (ET)    GF  GA  points
========  ======  =====  ====  =====  =====  ======  ==  ==  ======
Aigles    3       9      8     1      0      0       18  5   17
Castors   3       9      4     3      2      0       13  13  11
Élans     3       9      4     2      3      0       14  16  10
Boucs     3       9      3     1      5      1       21  16  8
Dauphins  3       9      2     3      4      1       11  12  8
Grizzlis  3       7      2     3      2      0       10  10  7
Hiboux    2       6      2     2      2      0       10  11  6
Ibis      1       3      2     0      1      0       8   4   4
Faucons   3       9      0     3      6      0       7   22  3
========  ======  =====  ====  =====  =====  ======  ==  ==  ======
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from pytest_django import DjangoDbBlocker

from competitions.models import MemoryScope, SeasonLine
from competitions.selectors.memory import (
    all_time_table,
    coach_career,
    head_to_head,
    records,
    team_history,
)
from tests.competitions.memory_league import (
    History,
    history_two,
    season_three_finish,
    season_three_open,
    season_three_play,
)
from tests.demo_worlds import content_types_reread

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def history(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[History]:
    """The three seasons, built once for the module's tests (which only read them) and rolled
    back after them. Camille coaches the Élans in seasons 1 and 2 and the Faucons in season 3;
    Dominique the Élans in season 3."""
    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as monkeypatch:
        with transaction.atomic():
            camille = User.objects.create_user("camille", first_name="Camille", last_name="Martin")
            made = history_two(monkeypatch, {"elans": camille})
            season_three_open(made, new_coach=User.objects.create_user("dominique"))
            season_three_play(made)
            season_three_finish(made)
            yield made
            transaction.set_rollback(True)
        content_types_reread()


@pytest.fixture
def camille(history: History) -> User:
    return User.objects.get(username="camille")


@pytest.fixture
def dominique(history: History) -> User:
    return User.objects.get(username="dominique")


FIGURES = "seasons games wins draws losses extra_time_losses goals_for goals_against points"


def _figures(row: object) -> tuple[object, ...]:
    return tuple(getattr(row, name) for name in FIGURES.split())


def test_the_all_time_table_adds_up_every_team_s_own_championship_games(history: History) -> None:
    table = all_time_table()
    assert [(row.position, row.team.slug, _figures(row)) for row in table] == [
        (1, "aigles", (3, 9, 8, 1, 0, 0, 18, 5, 17)),
        (2, "castors", (3, 9, 4, 3, 2, 0, 13, 13, 11)),
        (3, "elans", (3, 9, 4, 2, 3, 0, 14, 16, 10)),
        # Level on points: the Boucs have more wins (R9's first criterion, the table's order).
        (4, "boucs", (3, 9, 3, 1, 5, 1, 21, 16, 8)),
        (5, "dauphins", (3, 9, 2, 3, 4, 1, 11, 12, 8)),
        (6, "grizzlis", (3, 7, 2, 3, 2, 0, 10, 10, 7)),
        (7, "hiboux", (2, 6, 2, 2, 2, 0, 10, 11, 6)),
        (8, "ibis", (1, 3, 2, 0, 1, 0, 8, 4, 4)),
        (9, "faucons", (3, 9, 0, 3, 6, 0, 7, 22, 3)),
    ]
    aigles = table[0]
    assert (aigles.regulation_wins, aigles.goal_difference) == (7, 13)
    assert (aigles.elite_titles, aigles.kdh_titles, aigles.wg_titles) == (3, 1, 1)
    titles = {row.team.slug: (row.elite_titles, row.kdh_titles, row.wg_titles) for row in table}
    assert titles["elans"] == (0, 1, 0)
    assert titles["ibis"] == (0, 1, 0)
    assert titles["hiboux"] == (0, 0, 1)
    assert titles["dauphins"] == (0, 0, 1)
    onr_free = {row.team.slug: row.seasons_without_onr for row in table}
    assert onr_free == {
        "aigles": 3, "boucs": 3, "elans": 3, "castors": 2, "dauphins": 2, "faucons": 2,
        "grizzlis": 2, "hiboux": 2, "ibis": 1,
    }  # fmt: skip


def test_the_dummy_team_is_not_a_team_of_the_all_time_tables(history: History) -> None:
    for scope in MemoryScope:
        assert "fantome" not in {row.team.slug for row in all_time_table(scope=scope)}


def test_each_tier_s_table_counts_the_seasons_played_in_it(history: History) -> None:
    elite = {row.team.slug: _figures(row) for row in all_time_table(scope=MemoryScope.ELITE)}
    d2 = {row.team.slug: _figures(row) for row in all_time_table(scope="d2")}
    assert elite["castors"] == (1, 3, 0, 1, 2, 0, 2, 9, 1)
    assert d2["castors"] == (2, 6, 4, 2, 0, 0, 11, 4, 10)
    assert elite["hiboux"] == (1, 3, 0, 1, 2, 0, 1, 10, 1)
    assert d2["hiboux"] == (1, 3, 2, 1, 0, 0, 9, 1, 5)
    assert set(elite) == {"aigles", "boucs", "castors", "dauphins", "elans", "hiboux"}
    assert all_time_table(scope=MemoryScope.D3) == []
    # The Elite titles count where they were won; the Élans' KDH title was won in D2.
    assert all_time_table(scope="elite")[0].elite_titles == 3
    assert {row.team.slug: row.kdh_titles for row in all_time_table(scope="d2")}["elans"] == 1


def test_the_all_time_table_sorts_by_any_column_and_refuses_an_unknown_one(
    history: History,
) -> None:
    assert [row.team.slug for row in all_time_table(order="goals_for")][:2] == ["boucs", "aigles"]
    assert all_time_table(order="goals_against")[0].team.slug == "ibis"
    assert all_time_table(order="name")[0].team.slug == "aigles"
    with pytest.raises(ValueError):
        all_time_table(order="password")
    with pytest.raises(ValueError):
        all_time_table(scope="d4")


def test_a_team_replaced_under_r14_keeps_the_games_it_played(history: History) -> None:
    line = SeasonLine.objects.get(season=history.seasons[3], team__slug="grizzlis")
    assert (line.rank, line.replaced, line.games, line.wins, line.points) == (None, True, 1, 1, 2)
    dummy = SeasonLine.objects.get(season=history.seasons[3], team__slug="fantome")
    # R14: the dummy's place in the table keeps the Grizzlis' record (their win, 2 points).
    assert (dummy.rank, dummy.replacement, dummy.games, dummy.points) == (3, True, 2, 0)
    assert dummy.final_row is not None and dummy.final_row.points == 2
    [season_three] = [
        s for s in team_history(team=history.teams["grizzlis"]) if s.season_number == 3
    ]
    assert (season_three.rank, season_three.replaced, season_three.onr_count) == (None, True, 3)


def test_a_team_s_history_lists_every_season_s_division_place_and_cup_runs(
    history: History,
) -> None:
    seasons = team_history(team=history.teams["elans"])
    assert [
        (s.season_number, s.division_slug, s.rank, s.points, s.moved, s.coach_name) for s in seasons
    ] == [
        (1, "d2a", 2, 4, "stayed", "Camille Martin"),
        (2, "d2a", 3, 3, "up", "Camille Martin"),
        (3, "elite", 3, 3, None, "dominique"),
    ]
    first = seasons[0]
    assert (first.kdh_stage, first.kdh_place) == ("final", 1)
    assert (first.wg_stage, first.wg_place) == ("final", 4)
    assert [s.season_number for s in team_history(team=history.teams["elans"], until=2)] == [1, 2]


def test_a_withdrawn_team_keeps_its_seasons(history: History) -> None:
    seasons = team_history(team=history.teams["hiboux"])
    assert [(s.season_number, s.rank, s.withdrawn, s.moved) for s in seasons] == [
        (1, 1, False, "up"),
        (2, 4, True, None),
    ]
    assert seasons[0].wg_place == 1
    assert "hiboux" in {row.team.slug for row in all_time_table()}


def test_a_head_to_head_counts_every_meeting_in_every_competition(history: History) -> None:
    rivalry = head_to_head(team_a=history.teams["aigles"], team_b=history.teams["castors"])
    assert [
        (m.season_number, m.competition, m.home.slug, m.home_goals, m.away_goals, m.decided)
        for m in rivalry.meetings
    ] == [
        (3, "wg", "aigles", 5, 0, "regulation"),
        (2, "wg", "aigles", 1, 1, "group_goals"),
        (2, "kdh", "aigles", 3, 1, "regulation"),
        (1, "championship", "aigles", 2, 0, "regulation"),
    ]
    assert (rivalry.a_wins, rivalry.b_wins, rivalry.draws) == (4, 0, 0)
    assert (rivalry.a_goals, rivalry.b_goals) == (11, 2)
    assert rivalry.meetings[0].fixture_id and rivalry.meetings[0].pool_slug == "wg"


def test_a_head_to_head_reads_the_same_from_either_side_with_draws_and_shootouts(
    history: History,
) -> None:
    rivalry = head_to_head(team_a=history.teams["elans"], team_b=history.teams["boucs"])
    assert [(m.season_number, m.decided, m.winner and m.winner.slug) for m in rivalry.meetings] == [
        (3, "draw", None),
        (1, "shootout", "elans"),
    ]
    assert (rivalry.a_wins, rivalry.b_wins, rivalry.draws, rivalry.a_goals, rivalry.b_goals) == (
        1, 0, 1, 5, 5,
    )  # fmt: skip
    other_way = head_to_head(team_a=history.teams["boucs"], team_b=history.teams["elans"])
    assert (other_way.a_wins, other_way.b_wins, other_way.draws) == (0, 1, 1)


def _holders(kind: str) -> tuple[int | None, list[tuple[str, int]]]:
    [line] = [line for line in records() if line.kind == kind]
    return line.value, [(holder.team.slug, holder.season_number) for holder in line.holders]


def test_every_record_and_who_holds_it_over_the_closed_seasons(history: History) -> None:
    # Ties share a record, the first to reach it first.
    assert _holders("game_goals") == (7, [("boucs", 2), ("ibis", 3)])
    assert _holders("biggest_win") == (6, [("hiboux", 1), ("boucs", 2)])
    # The Aigles' runs go across seasons: won 3 in season 1 and their first of season 2; 9
    # unbeaten from season 1's first game to season 3's last.
    assert _holders("win_run") == (4, [("aigles", 2)])
    assert _holders("unbeaten_run") == (9, [("aigles", 3)])
    assert _holders("season_goals") == (9, [("hiboux", 1)])
    assert _holders("season_points") == (6, [("aigles", 1), ("aigles", 3)])
    # The Grizzlis' one game in season 3 (no goal against) is not a season.
    assert _holders("fewest_against") == (1, [("hiboux", 1), ("aigles", 3)])
    assert _holders("seasons_without_onr") == (3, [("aigles", 3), ("boucs", 3), ("elans", 3)])
    assert _holders("elite_titles") == (3, [("aigles", 3)])
    assert _holders("kdh_titles") == (1, [("elans", 1), ("aigles", 2), ("ibis", 3)])
    assert _holders("wg_titles") == (1, [("hiboux", 1), ("dauphins", 2), ("aigles", 3)])
    # No explanation in this history: nobody turned an extra goal into a goal.
    assert _holders("extra_goals") == (None, [])


def test_a_record_links_to_its_game_and_tells_the_score(history: History) -> None:
    [line] = [line for line in records() if line.kind == "game_goals"]
    boucs = line.holders[0]
    assert (boucs.opponent and boucs.opponent.slug, boucs.goals_for, boucs.goals_against) == (
        "hiboux", 7, 1,
    )  # fmt: skip
    assert boucs.fixture_id is not None
    [run] = [line for line in records() if line.kind == "unbeaten_run"]
    assert (run.holders[0].since_season_number, run.holders[0].season_number) == (1, 3)


def test_a_coach_s_career_follows_them_from_team_to_team(
    history: History, camille: User, dominique: User
) -> None:
    career = coach_career(user=camille)
    assert [(s.season_number, s.team.slug, s.rank, s.moved) for s in career.seasons] == [
        (1, "elans", 2, "stayed"),
        (2, "elans", 3, "up"),
        (3, "faucons", 4, None),
    ]
    assert [team.slug for team in career.teams] == ["elans", "faucons"]
    assert (career.promotions, career.elite_titles, career.kdh_titles, career.wg_titles) == (
        1, 0, 1, 0,
    )  # fmt: skip
    # The Élans' KDH title of season 1 was won under Camille; their third season without an
    # ONR, under Dominique, is Dominique's.
    assert [line.kind for line in career.records] == ["kdh_titles"]
    assert [line.kind for line in coach_career(user=dominique).records] == ["seasons_without_onr"]
