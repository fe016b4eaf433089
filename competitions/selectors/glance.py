"""The week at a glance, on the home page: where the current season's week stands for everyone —
the next deadline (R13), each pool's public status in the week being played, the latest
published results — and a coach's (or deputy's, R12) games of the coming week with their
opponent and whether a pick is in.

Nothing here reads a result: a pool round's status is the public one
(:func:`~competitions.selectors.results.pool_round_public_status`: « picks open », « to be
played », « played, being checked », « published »), so an arbitrated round shows no score and
no played pick before its publication (R23); a cup opponent shows only once its draw is public
(:func:`~competitions.selectors.picks.entry_opponents`, :func:`entry_plays_rounds`). A constant
number of queries whatever the week: two for everyone's part, eight at most for a coach's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from competitions.models import Competition, Pick, Pool, PoolRound, Round
from competitions.selectors.picks import (
    entry_opponents,
    entry_plays_rounds,
    entry_pools,
    picks_received,
)
from competitions.selectors.results import pool_round_public_status
from league.models import Entry, Season, Team


@dataclass(frozen=True)
class GlancePool:
    """One pool's round of a week, with its public status (the calendar's words)."""

    pool_round: PoolRound
    status: str
    """``open``, ``closed``, ``arbitrated`` or ``published``."""

    @property
    def published(self) -> bool:
        return self.status == PoolRound.Status.PUBLISHED


@dataclass(frozen=True)
class WeekGlance:
    """The season's week as everyone may see it at ``now``."""

    season: Season
    now: datetime
    next_week: int | None
    """The week of the next deadline ahead (``None``: no deadline ahead this season)."""
    next_deadline: datetime | None
    next_rounds: tuple[Round, ...]
    """The rounds closing at that deadline (a week's rounds share it, R13, R20)."""
    played_week: int | None
    """The week whose deadline passed last, while one of its pools is still unpublished."""
    played: tuple[GlancePool, ...]
    """That week's pools, each with its public status."""
    results_week: int | None
    """The latest week with a published pool round (``None``: nothing published yet)."""
    results: tuple[PoolRound, ...]
    """That week's published pool rounds."""
    deadline_moves: tuple[Round, ...] = ()
    """The rounds whose deadline moved while the season ran, in the last
    :data:`DEADLINE_MOVE_SHOWN`, the latest move first. Public: a deadline is."""


def _order(pool_round: PoolRound) -> tuple[int, int, int, str]:
    """Championship (Elite first) then KDH then WG, as a week's results are shown."""
    division = pool_round.pool.division
    return (
        Competition.values.index(pool_round.pool.competition),
        pool_round.round.number,
        division.tier if division else 0,
        division.group if division else "",
    )


def week_glance(*, season: Season, now: datetime | None = None) -> WeekGlance:
    """``season``'s week at ``now`` (default: now), from two queries (the season's rounds, and
    its pool rounds with their round and division): the next deadline and its rounds, the pools
    of the week whose deadline passed last with their public statuses (while one of them is not
    published), the latest week's published pool rounds and the deadlines moved lately."""
    now = now or timezone.now()
    pool_rounds = sorted(
        PoolRound.objects.filter(pool__season=season).select_related("round", "pool__division"),
        key=_order,
    )
    # A cup's later rounds have no pool round before their draw: the rounds are read apart.
    rounds = list(Round.objects.filter(season=season).order_by("deadline"))
    ahead = [round for round in rounds if round.deadline > now]
    next_deadline = min((round.deadline for round in ahead), default=None)
    next_rounds = sorted(
        (round for round in ahead if round.deadline == next_deadline),
        key=lambda round: (Competition.values.index(round.competition), round.number),
    )
    passed = [round for round in rounds if round.deadline <= now]
    played_week = max((round.week for round in passed), default=None)
    played = tuple(
        GlancePool(
            pool_round=pool_round, status=pool_round_public_status(pool_round=pool_round, now=now)
        )
        for pool_round in pool_rounds
        if pool_round.round.week == played_week and pool_round.round.deadline <= now
    )
    if all(pool.published for pool in played):
        played_week, played = None, ()
    published = [pool_round for pool_round in pool_rounds if pool_round.is_published]
    results_week = max((pool_round.round.week for pool_round in published), default=None)
    return WeekGlance(
        season=season,
        now=now,
        next_week=next_rounds[0].week if next_rounds else None,
        next_deadline=next_deadline,
        next_rounds=tuple(next_rounds),
        played_week=played_week,
        played=played,
        results_week=results_week,
        results=tuple(
            pool_round for pool_round in published if pool_round.round.week == results_week
        ),
        deadline_moves=_deadline_moves(rounds, now),
    )


@dataclass(frozen=True)
class CoachGame:
    """One of the team's games of the coming week, as its coach and deputy may see it."""

    round: Round
    opponent: Entry | None
    """Once the game is drawn and public (a cup's draw from a published round only)."""
    pick: Pick | None
    """The pick that counts so far (R12), ``None`` when none is in yet."""
    pool: Pool | None

    @property
    def anchor(self) -> str:
        """The round's place on the pick page (``/picks/#round-<anchor>``)."""
        return f"{self.round.competition}-{self.round.number}"


@dataclass(frozen=True)
class CoachWeek:
    """A team's games of the coming week: its coach's and deputy's part of the home page."""

    team: Team
    entry: Entry | None
    """The team's entry in the season (``None``: it does not play this season)."""
    games: tuple[CoachGame, ...]

    @property
    def missing(self) -> int:
        """How many of the week's games have no pick in yet."""
        return sum(1 for game in self.games if game.pick is None)


def coach_week(*, team: Team, season: Season, rounds: Sequence[Round]) -> CoachWeek:
    """``team``'s games among ``rounds`` (the coming week's, :attr:`WeekGlance.next_rounds`):
    the rounds it plays (a cup's while it is still in it as the published results say,
    :func:`entry_plays_rounds`), each with its public opponent and the pick that counts so far
    (R12) — from eight queries at most whatever the number of rounds."""
    entry = Entry.objects.current_of(team, season=season).select_related("team").first()
    if entry is None or not rounds:
        return CoachWeek(team=team, entry=entry, games=())
    pools = entry_pools(entry=entry)
    playing = entry_plays_rounds(entry=entry, rounds=rounds, pools=pools)
    rounds = [round for round in rounds if round.pk in playing]
    if not rounds:
        return CoachWeek(team=team, entry=entry, games=())
    opponents = entry_opponents(entry=entry, rounds=rounds, pools=pools)
    picks: dict[int, Pick] = {}
    for pick in picks_received(entry=entry, rounds=rounds):
        picks.setdefault(pick.round_id, pick)  # each round's latest first (R12)
    return CoachWeek(
        team=team,
        entry=entry,
        games=tuple(
            CoachGame(
                round=round,
                opponent=opponents.get(round.pk),
                pick=picks.get(round.pk),
                pool=pools.get(round.competition),
            )
            for round in rounds
        ),
    )


DEADLINE_MOVE_SHOWN = timedelta(days=7)
"""How long the home page says that a round's deadline moved (``round_deadline_move``)."""


def _deadline_moves(rounds: list[Round], now: datetime) -> tuple[Round, ...]:
    """Of ``rounds``, those whose deadline moved in the last :data:`DEADLINE_MOVE_SHOWN`, the
    latest move first."""
    since = now - DEADLINE_MOVE_SHOWN
    moved = [
        (round.deadline_moved_at, round)
        for round in rounds
        if round.deadline_moved_at is not None and round.deadline_moved_at >= since
    ]
    moved.sort(
        key=lambda pair: (
            -pair[0].timestamp(),
            Competition.values.index(pair[1].competition),
            pair[1].number,
        )
    )
    return tuple(round for _, round in moved)
