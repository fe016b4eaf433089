"""Writes to the competitions: one ``transaction.atomic`` per business action.

Scoring is the engine's (``engine/``); these functions only set up what it plays and store what
it returns.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Mapping
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from competitions.models import (
    Competition,
    Fixture,
    Matrix,
    MatrixCell,
    Pool,
    PoolRound,
    Round,
    Stage,
)
from engine.dice import commitment
from league.models import Division, Entry, Season
from matrixhockey.db import save_valid

_die = random.SystemRandom()


@transaction.atomic
def matrix_create(
    *,
    season: Season,
    competition: Competition | str,
    values: Mapping[int, Mapping[str, int]] | None = None,
) -> Matrix:
    """``competition``'s matrix for ``season``: ``values[round][column]``, or a die per cell.

    R19: a row per round and a column per game of the competition, values 1–6. Given values
    must fill the whole matrix.
    """
    competition = Competition(competition)
    rules = competition.rules
    matrix = save_valid(Matrix(season=season, competition=competition))
    rows = range(1, rules.rounds + 1)
    if values is None:
        values = {row: {col: _die.randint(1, 6) for col in rules.columns} for row in rows}
    if set(values) != set(rows) or any(set(values[row]) != set(rules.columns) for row in rows):
        raise ValidationError(
            _("A %(competition)s matrix has rounds 1–%(rounds)d and columns %(first)s–%(last)s.")
            % {
                "competition": competition.label,
                "rounds": rules.rounds,
                "first": rules.columns[0],
                "last": rules.columns[-1],
            }
        )
    cells = [
        MatrixCell(matrix=matrix, round_number=row, column=col, value=values[row][col])
        for row in rows
        for col in rules.columns
    ]
    for cell in cells:
        cell.full_clean(exclude=["matrix"], validate_unique=False, validate_constraints=False)
    MatrixCell.objects.bulk_create(cells)
    return matrix


@transaction.atomic
def round_create(
    *,
    season: Season,
    competition: Competition | str,
    number: int,
    week: int,
    stage: Stage | str = Stage.REGULAR,
    deadline: datetime | None = None,
) -> Round:
    """A round of ``competition``; its deadline defaults to the season's for ``week`` (R13)."""
    return save_valid(
        Round(
            season=season,
            competition=Competition(competition),
            number=number,
            week=week,
            stage=Stage(stage),
            deadline=deadline or season.deadline_for_week(week),
        )
    )


@transaction.atomic
def pool_create(
    *,
    season: Season,
    competition: Competition | str,
    division: Division | None = None,
    referees: Iterable[AbstractBaseUser] = (),
) -> Pool:
    """A championship division's pool (give ``division``) or a cup's pool (named after it)."""
    competition = Competition(competition)
    pool = save_valid(
        Pool(
            season=season,
            competition=competition,
            division=division,
            slug=division.slug if division is not None else competition.value,
        )
    )
    pool.referees.set(referees)
    return pool


@transaction.atomic
def pool_round_create(*, pool: Pool, round: Round) -> PoolRound:
    """``pool``'s part of ``round``, with a fresh secret seed and its public SHA-256 (R23)."""
    where = f"{round.season.number}/{pool.slug}/{round.competition}-{round.number}"
    seed = f"{where}/{secrets.token_hex(16)}"
    return save_valid(PoolRound(pool=pool, round=round, seed=seed, seed_hash=commitment(seed)))


@transaction.atomic
def fixture_create(
    *, pool_round: PoolRound, home: Entry, away: Entry, label: Fixture.Label | str = ""
) -> Fixture:
    """A game of ``pool_round``; a team plays at most once per pool round."""
    return save_valid(
        Fixture(pool_round=pool_round, home=home, away=away, label=Fixture.Label(label))
    )
