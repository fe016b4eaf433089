"""The numbers behind the season's charts, from published rounds only (R23: nothing about a round
is public before a referee publishes it): a division's places round by round, a team's goals for
and against per round, and the stocks a team had left after each published round.

Each function returns plain values; :mod:`competitions.charts` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass

from competitions.models import Competition, Pool, PoolRound, Stage, StockKind, StockMovement
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
    if pool.competition != Competition.CHAMPIONSHIP:
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


def stocks_over_season(*, movements: list[StockMovement]) -> tuple[StocksPoint, ...]:
    """The balances after each round of ``movements`` (a :class:`~competitions.selectors.teams.
    CoachLedger`'s: the published rounds' and those of no round, R6, R14, R21), in their order.

    The balances add up the movements given rather than read ``balance_after``: a movement's
    stored balance may count a round arbitrated before it but not yet published. A movement of
    no round (the season's start, an admin's correction) counts in the point it follows.
    """
    balance = {StockKind.EXTRA_GOALS: 0, StockKind.GREAT_SAVES: 0}
    points: list[tuple[str, int | None, int, int]] = []
    seen: set[int] = set()
    for movement in movements:
        balance[StockKind(movement.kind)] += movement.delta
        here = movement.round
        if here is not None and here.pk not in seen:
            seen.add(here.pk)
            points.append((here.competition, here.number, 0, 0))
        elif not points:
            points.append(("", None, 0, 0))
        competition, number, _, _ = points[-1]
        points[-1] = (
            competition,
            number,
            balance[StockKind.EXTRA_GOALS],
            balance[StockKind.GREAT_SAVES],
        )
    return tuple(StocksPoint(*point) for point in points)
