"""A season's competitions set up: matrices (R19), rounds and the calendar (R20), pools,
pool rounds with their committed seeds (R23), the championship schedule and the cups' openings
(R17, R18).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from competitions.models import (
    Competition,
    Fixture,
    Matrix,
    MatrixCell,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    Stage,
)
from engine import (
    Dice,
    Draw,
    commitment,
    kdh,
    wg,
)
from engine.calendar import round_robin, week_of
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
    referees: Iterable[User] = (),
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
    seed = _seed(pool, round)
    return save_valid(PoolRound(pool=pool, round=round, seed=seed, seed_hash=commitment(seed)))


@transaction.atomic
def fixture_create(
    *, pool_round: PoolRound, home: Entry, away: Entry, label: Fixture.Label | str = ""
) -> Fixture:
    """A game of ``pool_round``; a team plays at most once per pool round."""
    return save_valid(
        Fixture(pool_round=pool_round, home=home, away=away, label=Fixture.Label(label))
    )


def _seed(pool: Pool, round: Round) -> str:
    """A fresh secret seed for ``pool``'s part of ``round`` (R23), readable where it belongs."""
    where = f"{round.season.number}/{pool.slug}/{round.competition}-{round.number}"
    return f"{where}/{secrets.token_hex(16)}"


def pool_rounds_bulk_create(pool: Pool, rounds: Sequence[Round]) -> list[PoolRound]:
    """``pool``'s part of each of ``rounds`` in one insert, each with its seed commitment."""
    pool_rounds = []
    for round in rounds:
        seed = _seed(pool, round)
        pool_rounds.append(PoolRound(pool=pool, round=round, seed=seed, seed_hash=commitment(seed)))
    return PoolRound.objects.bulk_create(pool_rounds)


def fixtures_bulk_create(
    pool_round: PoolRound,
    games: Iterable[tuple[str, str]],
    entries: Mapping[str, Entry],
    labels: Sequence[str] = (),
) -> list[Fixture]:
    """The drawn or scheduled games (team ids → entries) of ``pool_round``, in order."""
    fixtures = [
        Fixture(
            pool_round=pool_round,
            home=entries[home],
            away=entries[away],
            label=labels[index] if labels else Fixture.Label.NONE,
        )
        for index, (home, away) in enumerate(games)
    ]
    return Fixture.objects.bulk_create(fixtures)


def draws_log(seed: str, draws: Iterable[Draw]) -> list[dict[str, object]]:
    """Draws for a draw log: each names the seed of the generator that made it, so anyone can
    re-run it once the seed is public (R23)."""
    return [{"seed": seed, **draw.as_dict()} for draw in draws]


@transaction.atomic
def season_rounds_create(*, season: Season) -> list[Round]:
    """Every round of ``season``'s three competitions, with its week (R20, the engine's calendar,
    later for the rounds after a skipped week) and its deadline (R13): championship 1–11, KDH 1–7
    (the qualifying round first, R17), WG 1–8 (six group rounds, the semi-finals, the final week,
    R18)."""
    rounds = []
    for competition in Competition:
        for number, stage in enumerate(competition.kind.calendar_stages, start=1):
            week = season.calendar_week(week_of(competition.value, number))
            rounds.append(
                Round(
                    season=season,
                    competition=competition,
                    number=number,
                    week=week,
                    stage=stage,
                    deadline=season.deadline_for_week(week),
                )
            )
    return Round.objects.bulk_create(rounds)


@transaction.atomic
def championship_schedule_create(*, pool: Pool) -> list[PoolRound]:
    """The division's whole championship (R20): a round robin of its teams by code, every round's
    pool round (with its seed commitment, R23) and games. The rounds must exist."""
    assert pool.division_id is not None  # a championship pool's (pool_division_fits_competition)
    entries = list(
        Entry.objects.current(season=pool.season_id)
        .filter(division_id=pool.division_id)
        .select_related("team")
        .order_by("code")
    )
    by_id = {entry.team.slug: entry for entry in entries}
    schedule = round_robin([entry.team.slug for entry in entries])
    rounds = list(
        Round.objects.filter(season_id=pool.season_id, competition=pool.competition)
        .select_related("season")
        .order_by("number")
    )
    pool_rounds = pool_rounds_bulk_create(pool, rounds[: len(schedule)])
    for pool_round, games in zip(pool_rounds, schedule, strict=True):
        fixtures_bulk_create(pool_round, [(g.home, g.away) for g in games], by_id)
    return pool_rounds


@dataclass(frozen=True)
class KdhOpening:
    """The KDH's opening draw (R17): who plays the first round, its games (home, away team ids)
    and who waits for the qualifiers, with the seed that drew it and its draws (R23)."""

    qualifying: tuple[str, ...]
    exempt: tuple[str, ...]
    games: tuple[tuple[str, str], ...]
    seed: str
    draws: tuple[Draw, ...]


def kdh_opening_draw(*, field: Sequence[kdh.Entrant], seed: str) -> KdhOpening:
    """R17 from ``seed``: the field split (the highest D3 codes play the qualifying round) and
    the first round's pairings. Draws only, stores nothing: the same field and seed always give
    the same draw, so it can be shown before :func:`kdh_start` commits it."""
    dice = Dice(seed)
    split = kdh.split_field(field, dice)
    games = kdh.draw_pairings(split.qualifying or split.exempt, dice, what="kdh.pairings.1")
    return KdhOpening(
        qualifying=split.qualifying,
        exempt=split.exempt if split.qualifying else (),
        games=tuple((g.home, g.away) for g in games),
        seed=dice.seed,
        draws=tuple(dice.draws),
    )


@transaction.atomic
def kdh_start(*, pool: Pool, seed: str | None = None) -> PoolRound:
    """The KDH's field and first round (R17): every playing team enters (a member of the pool);
    the teams with the highest D3 codes play the qualifying round, drawn at random.

    The draws come from ``seed`` (the season's, when previewed before, :func:`kdh_opening_draw`)
    or else from the first pool round's seed (``<seed>/opening-draw``), and open its draw log,
    so they can be checked once it is published (R23).
    """
    entries = list(Entry.objects.current(season=pool.season_id).select_related("team", "division"))
    PoolMember.objects.bulk_create([PoolMember(pool=pool, entry=entry) for entry in entries])
    by_id = {entry.team.slug: entry for entry in entries}
    first = Round.objects.select_related("season").get(
        season_id=pool.season_id, competition=pool.competition, number=1
    )
    (pool_round,) = pool_rounds_bulk_create(pool, [first])
    field = [kdh.Entrant(e.team.slug, e.division.tier, e.code) for e in entries]
    opening = kdh_opening_draw(field=field, seed=seed or f"{pool_round.seed}/opening-draw")
    fixtures_bulk_create(pool_round, opening.games, by_id)
    pool_round.draw_log = draws_log(opening.seed, opening.draws)
    pool_round.save(update_fields=["draw_log"])
    return pool_round


@dataclass(frozen=True)
class WgOpening:
    """The WG's group draw (R18): three groups of four (team ids, A then B then C), with the
    seed that drew it and its draws (R23)."""

    groups: tuple[tuple[str, ...], ...]
    seed: str
    draws: tuple[Draw, ...]


def wg_group_draw(*, teams: Sequence[str], seed: str) -> WgOpening:
    """R18 from ``seed``: the twelve (checked: twelve distinct teams) drawn into three groups.
    Draws only, stores nothing, so it can be shown before :func:`wg_start` commits it."""
    dice = Dice(seed)
    groups = wg.draw_groups(wg.admin_qualifiers(teams), dice)
    return WgOpening(groups=groups, seed=dice.seed, draws=tuple(dice.draws))


@transaction.atomic
def wg_start(*, pool: Pool, entries: Sequence[Entry], seed: str | None = None) -> list[PoolRound]:
    """The WG's twelve (R18; the first season an admin's choice), its three groups drawn at random
    and the six group rounds' games (a double round robin per group).

    The draw comes from ``seed`` (the season's, when previewed before, :func:`wg_group_draw`) or
    else from the first pool round's seed (``<seed>/opening-draw``), and opens its draw log (R23).
    """
    by_id = {entry.team.slug: entry for entry in entries}
    teams = [entry.team.slug for entry in entries]
    rounds = list(
        Round.objects.filter(
            season_id=pool.season_id, competition=pool.competition, stage=Stage.GROUP
        )
        .select_related("season")
        .order_by("number")
    )
    pool_rounds = pool_rounds_bulk_create(pool, rounds)
    opening = wg_group_draw(teams=teams, seed=seed or f"{pool_rounds[0].seed}/opening-draw")
    PoolMember.objects.bulk_create(
        [
            PoolMember(pool=pool, entry=by_id[team], group=name)
            for name, group in zip(wg.GROUP_NAMES, opening.groups, strict=True)
            for team in group
        ]
    )
    for pool_round, games in zip(pool_rounds, wg.group_rounds(opening.groups), strict=True):
        fixtures_bulk_create(pool_round, [(g.home, g.away) for g in games], by_id)
    pool_rounds[0].draw_log = draws_log(opening.seed, opening.draws)
    pool_rounds[0].save(update_fields=["draw_log"])
    return pool_rounds
