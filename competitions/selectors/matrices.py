"""The matrices as the public sees them (R19, R25): a competition's rows, each round's row, and
how many teams of a round's crowding pool (R2) still have each column.

R25: a season's matrices are secret while it is prepared (admins only: the desk, the admin) and
public from its start, for the whole season and its archive. Every read here answers nothing
for a preparing season. Crowding (R1) stays unknown until publication: the teams' columns left
come from *published* rounds only, never from picks or unpublished arbitrations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Subquery
from django.utils import timezone

from competitions.models import (
    Competition,
    Fixture,
    MatrixCell,
    Pool,
    PoolMember,
    Round,
)
from competitions.selectors.entries import Sight, entries_holders, entries_used_everywhere
from competitions.selectors.picks import PublicDraws, cup_eliminated, public_draws
from engine.quotas import columns_left
from league.models import Entry, Season


def matrices_public(*, season: Season | None) -> bool:
    """R25: whether ``season``'s matrices are public (from its start on, archive included)."""
    return season is not None and season.status != Season.Status.PREPARING


@dataclass(frozen=True)
class MatrixRow:
    """One round of a competition's matrix: the round (number, week, deadline) and its values
    by column, in column order (R19)."""

    round: Round
    values: tuple[tuple[str, int], ...]
    is_current: bool = False
    """The round picks are open for now (the first open one of the competition)."""

    def value(self, column: str) -> int | None:
        return dict(self.values).get(column)


@dataclass(frozen=True)
class SeasonMatrix:
    """A competition's matrix in a season, row by row (R19), with its rounds' calendar (R20)."""

    season: Season
    competition: str
    columns: tuple[str, ...]
    rows: tuple[MatrixRow, ...]

    @property
    def current(self) -> MatrixRow | None:
        return next((row for row in self.rows if row.is_current), None)


def _current_round(rounds: Iterable[Round], now: datetime) -> Round | None:
    """The round picks are open for now (R13): the first still open whose deadline is ahead."""
    return next(
        (r for r in rounds if r.status == Round.Status.OPEN and r.deadline > now),
        None,
    )


def season_matrices(*, season: Season, now: datetime | None = None) -> dict[str, SeasonMatrix]:
    """Every competition's matrix in ``season`` that has one, by competition (championship, KDH,
    WG), in two queries (the rounds, the cells); empty while the season is prepared (R25)."""
    if not matrices_public(season=season):
        return {}
    now = now or timezone.now()
    rounds: dict[str, list[Round]] = {}
    for round in Round.objects.filter(season=season).order_by("number"):
        round.season = season
        rounds.setdefault(round.competition, []).append(round)
    cells: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for competition, number, column, value in (
        MatrixCell.objects.filter(matrix__season=season)
        .order_by("round_number", "column")
        .values_list("matrix__competition", "round_number", "column", "value")
    ):
        cells.setdefault((competition, number), []).append((column, value))
    matrices = {}
    for competition in Competition:
        if not any(key[0] == competition for key in cells):
            continue
        its_rounds = rounds.get(competition, [])
        current = _current_round(its_rounds, now)
        matrices[competition.value] = SeasonMatrix(
            season=season,
            competition=competition.value,
            columns=tuple(competition.rules.columns),
            rows=tuple(
                MatrixRow(
                    round=round,
                    values=tuple(cells.get((competition, round.number), ())),
                    is_current=round is current,
                )
                for round in its_rounds
            ),
        )
    return matrices


def season_matrix(*, season: Season, competition: str) -> SeasonMatrix | None:
    """``competition``'s matrix in ``season`` (:func:`season_matrices`); ``None`` when there is
    no such competition, it has no matrix, or the season is prepared (R25)."""
    return season_matrices(season=season).get(competition)


def coming_row(
    *, season: Season, competition: str, now: datetime | None = None
) -> tuple[int, dict[str, int]] | None:
    """The coming round of ``competition`` in ``season`` (the first still open whose deadline
    is ahead, R13) and its row of the matrix, ``{column: value}``, in one query; ``None`` when
    no round is coming or the season is prepared (R25)."""
    if not matrices_public(season=season):
        return None
    coming = (
        Round.objects.filter(
            season=season,
            competition=competition,
            status=Round.Status.OPEN,
            deadline__gt=now or timezone.now(),
        )
        .order_by("number")
        .values("number")[:1]
    )
    cells = list(
        MatrixCell.objects.filter(
            matrix__season=season,
            matrix__competition=competition,
            round_number=Subquery(coming),
        )
        .order_by("column")
        .values_list("round_number", "column", "value")
    )
    if not cells:
        return None
    return cells[0][0], {column: value for _, column, value in cells}


def rounds_rows(*, season: Season, rounds: Iterable[Round]) -> dict[int, dict[str, int]]:
    """Each of ``rounds``' row of its competition's matrix in ``season`` (by round id):
    ``{column: value}``, in one query; empty while the season is prepared (R25)."""
    rounds = [round for round in rounds if round.season_id == season.pk]
    if not rounds or not matrices_public(season=season):
        return {}
    wanted = {(round.competition, round.number): round.pk for round in rounds}
    rows: dict[int, dict[str, int]] = {round.pk: {} for round in rounds}
    for competition, number, column, value in (
        MatrixCell.objects.filter(
            matrix__season=season,
            matrix__competition__in={round.competition for round in rounds},
            round_number__in={round.number for round in rounds},
        )
        .order_by("column")
        .values_list("matrix__competition", "round_number", "column", "value")
    ):
        round_id = wanted.get((competition, number))
        if round_id is not None:
            rows[round_id][column] = value
    return rows


@dataclass(frozen=True)
class ColumnsHeld:
    """A round's crowding pool (R2) seen by one of its teams: how many other teams it has, and
    how many of them still have each column after the published rounds (R25)."""

    teams: int
    columns: dict[str, int]


def rounds_columns_held(
    *,
    entry: Entry,
    rounds: Iterable[Round],
    pools: dict[str, Pool],
    draws: PublicDraws | None = None,
) -> dict[int, ColumnsHeld]:
    """For each of ``rounds`` (by id) that ``entry`` plays in ``pools`` (its pools, by
    competition), how many *other* teams of the round's crowding pool still have each column,
    after the published rounds only (R1, R2, R25).

    R2's pools: the championship, the division's teams; the KDH, the teams playing the round;
    the WG's group stage, its twelve; its knockout, the teams playing that week. A cup round's
    teams are its games' once they are drawn and public (drawn by an arbitration, public once
    it is published, R23); before that, the cup's teams its published games have not put out.
    A constant number of queries whatever the number of rounds (none while the season is
    prepared, R25); one fewer given the cups' :func:`~competitions.selectors.picks.
    public_draws` (``draws``).
    """
    rounds = [round for round in rounds if round.competition in pools]
    if not rounds or not matrices_public(season=rounds[0].season):
        return {}
    pool_teams: dict[str, set[int]] = {}
    holder_of: dict[int, Entry] = {}
    playing = {round.competition for round in rounds}
    for competition, pool in pools.items():
        if pool.kind.divisional and competition in playing:
            assert pool.division_id is not None  # a championship pool's division
            division = list(
                Entry.objects.current(season=entry.season_id).filter(division_id=pool.division_id)
            )
            holder_of.update({e.pk: e for e in division})
            pool_teams[competition] = {e.pk for e in division}
    cups = {c: pool for c, pool in pools.items() if pool.kind.cup}
    cup_rounds = [round for round in rounds if round.competition in cups]
    drawn: dict[int, set[int]] = {}
    if cup_rounds:
        members = list(
            PoolMember.objects.filter(pool__in=cups.values()).select_related("entry", "pool")
        )
        holders = entries_holders(entries=[member.entry for member in members])
        for member in members:
            holder = holders[member.entry_id]
            holder_of[member.entry_id] = holder_of[holder.pk] = holder
            pool_teams.setdefault(member.pool.competition, set()).add(holder.pk)
        for competition, pool in cups.items():
            if pool.kind.knockout_only:
                out = cup_eliminated(pool=pool)
                pool_teams[competition] = {
                    pk for pk in pool_teams.get(competition, set()) if pk not in out
                }
        drawn = _cup_rounds_drawn(rounds=cup_rounds, pools=list(cups.values()), draws=draws)
    used = entries_used_everywhere(
        entries=list({e.pk: e for e in holder_of.values()}.values()),
        competitions={round.competition for round in rounds},
        sight=Sight.PUBLIC,
    )
    held: dict[int, ColumnsHeld] = {}
    for round in rounds:
        teams = drawn.get(round.pk) or pool_teams.get(round.competition, set())
        others = {holder_of[pk].pk for pk in teams if pk in holder_of} - {entry.pk}
        counts = dict.fromkeys(Competition(round.competition).rules.columns, 0)
        for pk in others:
            for column in columns_left(counts, used[pk][round.competition].columns):
                counts[column] += 1
        held[round.pk] = ColumnsHeld(teams=len(others), columns=counts)
    return held


def _cup_rounds_drawn(
    *, rounds: list[Round], pools: list[Pool], draws: PublicDraws | None
) -> dict[int, set[int]]:
    """The teams of each of the cups' ``rounds`` (by id) whose games are drawn and public
    (:class:`~competitions.selectors.picks.PublicDraws`, R23), in two queries (one given the
    pools' ``draws``)."""
    public = public_draws(pools=pools) if draws is None else draws
    teams: dict[int, set[int]] = {}
    for round_id, pool_id, competition, number, home, away in Fixture.objects.filter(
        pool_round__pool__in=pools, pool_round__round__in=rounds
    ).values_list(
        "pool_round__round_id",
        "pool_round__pool_id",
        "pool_round__round__competition",
        "pool_round__round__number",
        "home_id",
        "away_id",
    ):
        if public.shows(pool_id=pool_id, competition=competition, number=number):
            teams.setdefault(round_id, set()).update((home, away))
    return teams
