"""Setting up what the engine plays: matrices (R19), rounds (R13), pools, seeds (R23), fixtures."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from django.core.exceptions import ValidationError

from competitions.models import Competition, Fixture, Matrix, Pool, PoolRound, Round, Stage
from competitions.selectors import matrix_row
from competitions.services import (
    fixture_create,
    matrix_create,
    pool_create,
    pool_round_create,
    round_create,
)
from engine import wg
from league.models import Division, Entry, Season

pytestmark = pytest.mark.django_db

ROW_1 = {"A": 3, "B": 3, "C": 1, "D": 4, "E": 3, "F": 5, "G": 1, "H": 1, "I": 4, "J": 3, "K": 2}


@pytest.mark.parametrize(
    ("competition", "rounds", "columns"),
    [("championship", 11, "ABCDEFGHIJK"), ("kdh", 7, "ABCDEFG"), ("wg", 8, "ABCDEFGH")],
)
def test_a_new_matrix_is_filled_by_a_die(
    season: Season, competition: str, rounds: int, columns: str
) -> None:
    matrix = matrix_create(season=season, competition=competition)
    cells = list(matrix.cells.all())
    assert {(c.round_number, c.column) for c in cells} == {
        (r, c) for r in range(1, rounds + 1) for c in columns
    }
    assert {c.value for c in cells} <= set(range(1, 7))


def test_a_matrix_may_be_given_and_its_rows_read_back(season: Season) -> None:
    values = {row: dict(ROW_1) for row in range(1, 12)}
    values[2] = {**ROW_1, "K": 6}
    matrix = matrix_create(season=season, competition="championship", values=values)
    assert matrix_row(matrix=matrix, round_number=1) == ROW_1
    assert matrix_row(matrix=matrix, round_number=2)["K"] == 6


def test_an_incomplete_or_wrong_matrix_is_refused_whole(season: Season) -> None:
    short = {row: dict(ROW_1) for row in range(1, 11)}
    with pytest.raises(ValidationError, match="rounds 1–11"):
        matrix_create(season=season, competition="championship", values=short)
    seven = {row: {**ROW_1, "A": 7} for row in range(1, 12)}
    with pytest.raises(ValidationError):
        matrix_create(season=season, competition="championship", values=seven)
    assert not Matrix.objects.exists()


def test_a_round_deadline_defaults_to_its_weeks(season: Season) -> None:
    round = round_create(season=season, competition="championship", number=11, week=10)
    assert round.deadline == season.deadline_for_week(10)
    assert round.status == Round.Status.OPEN


def test_a_round_beyond_the_matrix_is_refused(season: Season) -> None:
    with pytest.raises(ValidationError, match="7 rounds"):
        round_create(season=season, competition="kdh", number=8, week=8, stage=Stage.FINAL)


@pytest.mark.parametrize(
    ("competition", "number", "stage", "engine"),
    [
        ("championship", 1, "regular", "championship"),
        ("kdh", 1, "qualifying", "kdh"),
        ("wg", wg.GROUP_ROUNDS, "group", "wg-group"),
        ("wg", wg.SEMI_FINAL_ROUND, "semi_final", "wg-knockout"),
        ("wg", wg.FINAL_ROUND, "final", "wg-knockout"),
    ],
)
def test_a_round_knows_how_the_engine_plays_it(
    season: Season, competition: str, number: int, stage: str, engine: str
) -> None:
    """R18: the WG's round number says whether the engine plays it as a group or a knockout
    round (:func:`engine.wg.round_kind`)."""
    round = round_create(season=season, competition=competition, number=number, week=1, stage=stage)
    assert round.engine_competition == engine


def test_pools_are_named_after_their_division_or_cup(
    season: Season, divisions: dict[str, Division], referee: object
) -> None:
    d3b = pool_create(season=season, competition="championship", division=divisions["d3b"])
    kdh = pool_create(season=season, competition=Competition.KDH, referees=[referee])
    assert (d3b.slug, kdh.slug) == ("d3b", "kdh")
    assert list(kdh.referees.all()) == [referee]


def test_a_championship_pool_needs_its_division(season: Season) -> None:
    with pytest.raises(ValidationError):
        pool_create(season=season, competition="championship")
    assert not Pool.objects.exists()


def test_a_pool_round_commits_to_a_secret_seed(elite_pool: Pool, championship_round: Round) -> None:
    pool_round = pool_round_create(pool=elite_pool, round=championship_round)
    assert pool_round.seed.startswith("1/elite/championship-1/")
    assert pool_round.seed_hash == hashlib.sha256(pool_round.seed.encode()).hexdigest()
    assert pool_round.public_seed is None
    other = pool_round_create(
        pool=elite_pool,
        round=round_create(season=elite_pool.season, competition="championship", number=2, week=2),
    )
    assert other.seed != pool_round.seed


def test_the_seed_is_public_once_published(elite_pool: Pool, championship_round: Round) -> None:
    pool_round = pool_round_create(pool=elite_pool, round=championship_round)
    pool_round.status = PoolRound.Status.PUBLISHED
    assert pool_round.public_seed == pool_round.seed


def test_a_pool_round_is_in_its_pools_competition(season: Season, elite_pool: Pool) -> None:
    kdh_round = round_create(season=season, competition="kdh", number=1, week=1, stage="qualifying")
    with pytest.raises(ValidationError):
        pool_round_create(pool=elite_pool, round=kdh_round)


def test_a_team_plays_once_per_pool_round_home_or_away(
    elite_pool: Pool, championship_round: Round, enter_team: Callable[..., Entry]
) -> None:
    pool_round = pool_round_create(pool=elite_pool, round=championship_round)
    a, b, c = (enter_team(name, code=i) for i, name in enumerate(["A", "B", "C"], start=1))
    fixture_create(pool_round=pool_round, home=a, away=b)
    with pytest.raises(ValidationError, match="already plays"):
        fixture_create(pool_round=pool_round, home=c, away=a)
    assert Fixture.objects.count() == 1
