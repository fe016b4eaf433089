"""The competitions' rules that the database itself enforces."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, transaction

from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    Matrix,
    MatrixCell,
    Pool,
    PoolRound,
    Round,
    TeamResult,
)
from competitions.services import fixture_create, matrix_create, pool_round_create
from league.models import Division, Entry, Season

pytestmark = pytest.mark.django_db

DEADLINE = datetime(2026, 3, 6, 16, 0, tzinfo=UTC)


def refused(write: Callable[[], object]) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


@pytest.fixture
def matrix(season: Season) -> Matrix:
    return matrix_create(season=season, competition=Competition.CHAMPIONSHIP)


@pytest.fixture
def pool_round(elite_pool: Pool, championship_round: Round) -> PoolRound:
    return pool_round_create(pool=elite_pool, round=championship_round)


@pytest.fixture
def game(pool_round: PoolRound, enter_team: Callable[..., Entry]) -> Fixture:
    return fixture_create(
        pool_round=pool_round,
        home=enter_team("Sleigh Dogs", code=1),
        away=enter_team("Ice Crocodiles", code=2),
    )


def test_a_competition_has_one_matrix_per_season(matrix: Matrix, season: Season) -> None:
    refused(lambda: Matrix.objects.create(season=season, competition="championship"))


@pytest.mark.parametrize("value", [0, 7, 12])
def test_a_matrix_value_is_1_to_6(matrix: Matrix, value: int) -> None:
    refused(lambda: MatrixCell.objects.filter(matrix=matrix).update(value=value))


def test_a_matrix_cell_exists_once(matrix: Matrix) -> None:
    refused(lambda: MatrixCell.objects.create(matrix=matrix, round_number=1, column="A", value=3))


def test_a_matrix_column_is_a_to_k(matrix: Matrix) -> None:
    refused(lambda: MatrixCell.objects.create(matrix=matrix, round_number=1, column="L", value=3))


def test_a_round_number_exists_once_per_competition(championship_round: Round) -> None:
    refused(
        lambda: Round.objects.create(
            season=championship_round.season,
            competition="championship",
            number=1,
            week=2,
            stage="regular",
            deadline=DEADLINE,
        )
    )


@pytest.mark.parametrize(
    ("competition", "stage"),
    [("championship", "final"), ("kdh", "group"), ("wg", "round_of_64"), ("wg", "regular")],
)
def test_a_round_stage_belongs_to_its_competition(
    season: Season, competition: str, stage: str
) -> None:
    refused(
        lambda: Round.objects.create(
            season=season,
            competition=competition,
            number=1,
            week=1,
            stage=stage,
            deadline=DEADLINE,
        )
    )


def test_a_pool_exists_once_per_season_and_competition(elite_pool: Pool) -> None:
    refused(
        lambda: Pool.objects.create(
            season=elite_pool.season,
            competition="championship",
            slug="elite",
            division=elite_pool.division,
        )
    )


def test_a_championship_pool_is_a_division(season: Season) -> None:
    refused(lambda: Pool.objects.create(season=season, competition="championship", slug="elite"))


def test_a_cup_pool_is_named_after_its_cup(season: Season, divisions: dict[str, Division]) -> None:
    refused(lambda: Pool.objects.create(season=season, competition="kdh", slug="wg"))
    refused(
        lambda: Pool.objects.create(
            season=season, competition="kdh", slug="kdh", division=divisions["elite"]
        )
    )
    assert Pool.objects.create(season=season, competition="kdh", slug="kdh").pk


def test_a_pool_plays_a_round_once(pool_round: PoolRound) -> None:
    refused(
        lambda: PoolRound.objects.create(
            pool=pool_round.pool, round=pool_round.round, seed="s", seed_hash="h"
        )
    )


def test_an_arbitrated_pool_round_says_when(pool_round: PoolRound) -> None:
    refused(lambda: PoolRound.objects.filter(pk=pool_round.pk).update(status="arbitrated"))
    refused(
        lambda: PoolRound.objects.filter(pk=pool_round.pk).update(
            status="published", arbitrated_at=DEADLINE
        )
    )


def test_a_team_does_not_play_itself(game: Fixture) -> None:
    refused(lambda: Fixture.objects.filter(pk=game.pk).update(away=game.home))


def test_a_team_plays_once_per_pool_round_on_each_side(
    game: Fixture, enter_team: Callable[..., Entry]
) -> None:
    other = enter_team("Groggs", code=3)
    refused(lambda: Fixture.objects.create(pool_round=game.pool_round, home=game.home, away=other))
    refused(lambda: Fixture.objects.create(pool_round=game.pool_round, home=other, away=game.away))


def test_a_fixture_has_one_result(game: Fixture) -> None:
    FixtureResult.objects.create(
        fixture=game, home_goals=3, away_goals=2, decided="regulation", winner=game.home
    )
    refused(
        lambda: FixtureResult.objects.create(
            fixture=game, home_goals=2, away_goals=2, decided="draw"
        )
    )


@pytest.mark.parametrize(
    ("home_goals", "away_goals", "decided", "has_winner"),
    [
        (2, 2, "draw", True),  # a draw has no winner
        (3, 2, "draw", False),  # a draw has equal scores
        (3, 2, "regulation", False),  # a decided game has a winner
        (4, 3, "extra_time", False),
        (-1, 0, "forfeit", False),  # goals are never negative
    ],
)
def test_a_result_is_consistent(
    game: Fixture, home_goals: int, away_goals: int, decided: str, has_winner: bool
) -> None:
    refused(
        lambda: FixtureResult.objects.create(
            fixture=game,
            home_goals=home_goals,
            away_goals=away_goals,
            decided=decided,
            winner=game.home if has_winner else None,
        )
    )


def test_a_double_forfeit_has_no_winner(game: Fixture) -> None:
    result = FixtureResult.objects.create(
        fixture=game, home_goals=0, away_goals=0, decided="forfeit"
    )
    assert result.winner is None


def _team_result(pool_round: PoolRound, entry: Entry, **fields: object) -> TeamResult:
    values = {"column": "F", "extra_time": "2", "goals": 3, "display": "F(2)", **fields}
    return TeamResult.objects.create(pool_round=pool_round, entry=entry, **values)


def test_a_team_has_one_result_per_pool_round(game: Fixture) -> None:
    _team_result(game.pool_round, game.home)
    refused(lambda: _team_result(game.pool_round, game.home))


@pytest.mark.parametrize(
    "fields",
    [
        {"column": "Z"},
        {"extra_time": "4"},
        {"shootout": "6"},
        {"onr": True, "extra_goals_used": 1},  # R4: an ONR team spends no stock
        {"onr": True, "great_saves_used": 1},
        {"onr": True, "bonus_goal": True},  # R5: the bonus goal is denied to an ONR team
    ],
)
def test_a_team_result_is_consistent(game: Fixture, fields: dict[str, object]) -> None:
    refused(lambda: _team_result(game.pool_round, game.home, **fields))
