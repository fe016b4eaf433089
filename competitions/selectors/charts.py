"""The numbers behind the season's charts, from published rounds only (R23: nothing about a round
is public before a referee publishes it): a division's places round by round, a team's goals for
and against per round, and the stocks a team had left after each published round.

Each function returns plain values; :mod:`competitions.charts` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

from competitions.models import (
    Pool,
    PoolRound,
    Round,
    Stage,
    StockKind,
    StockMovement,
)
from competitions.selectors.standings import (
    pool_entries_current,
    pool_matches,
    standings_dice,
    team_owners,
)
from competitions.selectors.teams import TeamGame
from engine import standings


@dataclass(frozen=True)
class PlacesSeries:
    """One team's places, round after round (1 is first)."""

    team: str
    """The team's slug."""
    name: str
    places: tuple[int, ...]


@dataclass(frozen=True)
class PoolPlaces:
    """A division's table after each published round (R9), one series per team."""

    rounds: tuple[int, ...]
    series: tuple[PlacesSeries, ...]
    """In the order of the latest table."""


def pool_places(*, pool: Pool) -> PoolPlaces:
    """``pool``'s places after each of its published regular rounds, in four queries whatever
    the number of rounds: the entries, the published results, the published rounds' seeds (and
    a replaced entry's lineage, R14). Each round's table is the engine's (R9), over the results
    up to that round, its last die seeded by that round (R23) as the table showed it then."""
    if not pool.kind.divisional:
        raise ValueError(f"{pool.slug} is a cup: its places are not a division's table")
    entries = pool_entries_current(pool=pool)
    owner = team_owners(entries=entries)
    names = {entry.team.slug: entry.team.name for entry in entries}
    matches = pool_matches(pool=pool, owner=owner, published_only=True, stages=(Stage.REGULAR,))
    seeds = dict(
        PoolRound.objects.filter(
            pool=pool, status=PoolRound.Status.PUBLISHED, round__stage=Stage.REGULAR
        )
        .order_by("round__number")
        .values_list("round__number", "seed")
    )
    teams = sorted(names)
    places: dict[str, list[int]] = {team: [] for team in teams}
    for number, seed in seeds.items():
        counted = [match for played, match in matches if played <= number]
        dice = standings_dice(seed=seed, pool=pool, what=pool.slug)
        for row in standings(teams, counted, dice):
            places[row.team].append(row.rank)
    order = sorted(teams, key=lambda team: (places[team][-1] if places[team] else 0, team))
    return PoolPlaces(
        rounds=tuple(seeds),
        series=tuple(
            PlacesSeries(team=team, name=names[team], places=tuple(places[team])) for team in order
        ),
    )


@dataclass(frozen=True)
class RoundGoals:
    """A team's goals for and against in one published championship round."""

    round: int
    goals_for: int
    goals_against: int


def team_goals(*, games: list[TeamGame]) -> tuple[RoundGoals, ...]:
    """Goals for and against per round of ``games`` (a :class:`~competitions.selectors.teams.
    TeamSeason`'s published championship games): no query."""
    return tuple(
        RoundGoals(
            round=game.pool_round.round.number,
            goals_for=game.goals_for,
            goals_against=game.goals_against,
        )
        for game in sorted(games, key=lambda game: game.pool_round.round.number)
    )


@dataclass(frozen=True)
class StocksPoint:
    """What the team had left after a published round (or at the season's start)."""

    competition: str
    """The round's competition, empty for the season's start."""
    round: int | None
    extra_goals: int
    great_saves: int


def stocks_over_season(
    *, movements: list[StockMovement], rounds: list[Round]
) -> tuple[StocksPoint, ...]:
    """The balances at the season's start and after each of ``rounds`` (the published rounds
    the team played, in play order: its :class:`~competitions.selectors.teams.TeamSeason`'s
    games), from ``movements`` (a :class:`~competitions.selectors.teams.CoachLedger`'s: the
    published rounds' and those of no round, R6, R14, R21, in the order they were made).

    The balances add up the movements given rather than read ``balance_after``: a movement's
    stored balance may count a round arbitrated before it but not yet published. A movement of
    no round (the season's start, an admin's correction) counts from the point it follows; a
    round where nothing moved keeps the balances before it; a movement of a round not among
    ``rounds`` adds that round at the end.
    """
    order: list[Round | None] = [None]
    where: dict[int, int] = {}
    for round in rounds:
        if round.pk not in where:
            where[round.pk] = len(order)
            order.append(round)
    balance = {StockKind.EXTRA_GOALS: 0, StockKind.GREAT_SAVES: 0}
    after: dict[int, tuple[int, int]] = {}
    current = 0
    for movement in movements:
        if movement.round is not None:
            if movement.round.pk not in where:
                where[movement.round.pk] = len(order)
                order.append(movement.round)
            current = max(current, where[movement.round.pk])
        balance[StockKind(movement.kind)] += movement.delta
        after[current] = (balance[StockKind.EXTRA_GOALS], balance[StockKind.GREAT_SAVES])
    points = []
    last = (0, 0)
    for index, step in enumerate(order):
        last = after.get(index, last)
        points.append(
            StocksPoint(
                competition=step.competition if step else "",
                round=step.number if step else None,
                extra_goals=last[0],
                great_saves=last[1],
            )
        )
    return tuple(points)
