"""Selectors: what a team already played (R7, R19, R14's replacement), and the tables (R9)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from competitions import selectors
from competitions import services as competitions
from competitions.models import Competition, Fixture, FixtureResult, PoolRound, TeamResult
from league import services as league
from league.models import Division, Season
from tests.competitions.arbitration_league import League, add_wg, build_league


@pytest.fixture
def referee_user(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee_user: User) -> League:
    return build_league(season=season, divisions=divisions, referee=referee_user)


def played(pool_round: PoolRound, team: str) -> tuple[str, str]:
    result = TeamResult.objects.get(pool_round=pool_round, entry__team__slug=team)
    return result.column, result.extra_time


def test_entry_used_lists_what_was_played_in_play_order(elite: League) -> None:
    first = elite.play("elite", 1, picks={"elite-01": "K(X)"})
    competitions.pool_round_publish(pool_round=first, by=elite.referee)
    second = elite.play("elite", 2, picks={"elite-01": "C(0)"})
    entry = elite.entries["elite-01"]

    seen = selectors.entry_used(
        entry=entry, competition="championship", sight=selectors.Sight.PUBLIC
    )
    assert (seen.columns, seen.extra_time, seen.shootout) == (("K",), ("X",), ())
    own = selectors.entry_used(
        entry=entry, competition="championship", sight=selectors.Sight.REFEREE
    )
    assert (
        own.columns == ("K", "C") == (played(first, "elite-01")[0], played(second, "elite-01")[0])
    )
    assert own.extra_time == ("X", "0")
    assert (
        selectors.entry_used(entry=entry, competition="kdh", sight=selectors.Sight.REFEREE).columns
        == ()
    )


def test_an_onr_teams_random_pick_is_used_too(elite: League) -> None:
    """R4: the referee's draw for an ONR team uses up its column and value."""
    first = elite.play("elite", 1, skip=["elite-02"])
    used = selectors.entry_used(
        entry=elite.entries["elite-02"], competition="championship", sight=selectors.Sight.REFEREE
    )
    assert used.columns == (played(first, "elite-02")[0],)


def test_a_replacement_inherits_the_record_of_the_team_it_replaces(elite: League) -> None:
    """R14: used values and the table's record go over to the replacement."""
    first = elite.play("elite", 1)
    competitions.pool_round_publish(pool_round=first, by=elite.referee)
    newcomer = competitions.entry_replace(
        entry=elite.entries["elite-05"], team=league.team_create(name="Les Remplaçants")
    )
    used = selectors.entry_used(
        entry=newcomer, competition="championship", sight=selectors.Sight.PUBLIC
    )
    assert used.columns == (played(first, "elite-05")[0],)

    table = {row.team: row for row in selectors.pool_standings(pool=elite.pools["elite"])}
    assert "elite-05" not in table and table["les-remplacants"].played == 1


def publish_with_results(made: League, number: int, scores: list[tuple[int, int, str]]) -> None:
    """Store hand-made results for the pool round's games (home goals, away goals, decided)."""
    pool_round = made.pool_round("elite", number)
    fixtures = list(Fixture.objects.filter(pool_round=pool_round).order_by("id"))
    for fixture, (home, away, decided) in zip(fixtures, scores, strict=False):
        winner = None if decided == "draw" else fixture.home if home > away else fixture.away
        FixtureResult.objects.create(
            fixture=fixture, home_goals=home, away_goals=away, decided=decided, winner=winner
        )
    now = timezone.now()
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.PUBLISHED, arbitrated_at=now, published_at=now
    )


def test_the_table_follows_r9(elite: League) -> None:
    """Win 2, draw 1, extra-time loss 1; equal points go to the regulation win (R9)."""
    games = elite.games("elite", 1)
    publish_with_results(
        elite,
        1,
        [(3, 2, "regulation"), (2, 2, "draw"), (3, 4, "extra_time"), (0, 5, "regulation")],
    )
    table = {row.team: row for row in selectors.pool_standings(pool=elite.pools["elite"])}
    (w1, l1), (d1, d2), (l3, w3), (l4, w4) = games[:4]
    assert [table[t].points for t in (w1, l1, d1, d2, l3, w3, l4, w4)] == [2, 0, 1, 1, 1, 2, 0, 2]
    assert table[l3].extra_time_losses == 1 and table[w3].regulation_wins == 0
    # Three teams on 2 points: both regulation winners before the extra-time winner, the one
    # with more goals (5) first.
    assert [table[t].rank for t in (w4, w1, w3)] == [1, 2, 3]
    assert {table[t].played for t in elite.entries} == {0, 1}


def test_the_public_table_counts_only_published_rounds(elite: League) -> None:
    elite.play("elite", 1)
    public = selectors.pool_standings(pool=elite.pools["elite"])
    referees = selectors.pool_standings(pool=elite.pools["elite"], published_only=False)
    assert {row.played for row in public} == {0}
    assert {row.played for row in referees} == {1}
    assert sum(row.points for row in referees) in range(12, 19)  # 6 games: 2 or 3 points each


def test_wg_group_tables_have_their_four_teams_and_group_games_only(
    season: Season, divisions: dict[str, Division], referee_user: User
) -> None:
    made = build_league(season=season, divisions=divisions, referee=referee_user)
    add_wg(made, list(made.entries))
    for number in (1, 2):
        competitions.pool_round_publish(pool_round=made.play("wg", number), by=made.referee)
    tables = selectors.wg_group_standings(pool=made.pools["wg"])
    assert sorted(tables) == ["A", "B", "C"]
    teams = [row.team for rows in tables.values() for row in rows]
    assert sorted(teams) == sorted(made.entries)
    assert all(row.played == 2 for rows in tables.values() for row in rows)
    with pytest.raises(ValueError):
        selectors.pool_standings(pool=made.pools["wg"])
    with pytest.raises(ValueError):
        selectors.wg_group_standings(pool=made.pools["elite"])


def test_matrix_row_reads_one_round(elite: League) -> None:
    matrix = elite.season.matrices.get(competition=Competition.KDH)
    row = selectors.matrix_row(matrix=matrix, round_number=2)
    assert list(row) == list("ABCDEFG") and set(row.values()) <= set(range(1, 7))
