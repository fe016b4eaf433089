"""Rounds and pools as the pick pages and the API find them: their public status, the
rounds open for a team, a pool's entries and infos équipes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.utils import timezone

from competitions.models import Competition, Pick, Pool, Round
from competitions.selectors.entries import Sight, entries_holders
from competitions.selectors.picks import (
    EntryChoices,
    entries_choices,
    entry_plays_rounds,
    picks_received,
)
from competitions.selectors.standings import pool_standings, wg_group_standings
from engine import StandingRow
from league.models import Entry, Season, Team
from league.selectors import season_current, user_team


def round_status(*, round: Round, now: datetime | None = None) -> str:
    """``round``'s status as the API shows it: an open round whose deadline passed is closed."""
    now = now or timezone.now()
    if round.status == Round.Status.OPEN and now >= round.deadline:
        return Round.Status.CLOSED
    return round.status


@dataclass(frozen=True)
class OpenRound:
    """A round a team may still send a pick for, with its pick that counts so far (R12)."""

    round: Round
    competition: str
    entry: Entry
    current: Pick | None
    history: tuple[Pick, ...] = ()
    """Every pick received for the round, latest first (R12): :attr:`current` first."""


@dataclass(frozen=True)
class OpenWeek:
    """One week of open rounds: the championship's, and the cups' the team plays that week."""

    week: int
    deadline: datetime
    rounds: list[OpenRound]


def team_rounds_open(*, team: Team, now: datetime | None = None) -> list[OpenWeek]:
    """The rounds of the current season ``team`` may still send picks for, by week (R12, R13),
    each with the picks received for it — from a constant number of queries whatever the
    number of rounds (:func:`entry_rounds_open` of the team's current entry)."""
    season = season_current()
    if season is None:
        return []
    entry = Entry.objects.current_of(team, season=season).first()
    if entry is None:
        return []
    return entry_rounds_open(entry=entry, now=now)


def entry_rounds_open(
    *, entry: Entry, now: datetime | None = None, pools: dict[str, Pool] | None = None
) -> list[OpenWeek]:
    """The rounds of ``entry``'s season it may still send picks for, by week (R12, R13), each
    with the picks received for it: four queries whatever the number of rounds, three given the
    entry's pools (:func:`~competitions.selectors.picks.entry_pools`, ``pools``).

    Every round whose deadline is still ahead counts, however far (picks in advance); a cup's
    only while the team plays it (:func:`entry_plays_round`).
    """
    now = now or timezone.now()
    rounds = list(
        Round.objects.filter(season_id=entry.season_id, deadline__gt=now, status=Round.Status.OPEN)
        .select_related("season")
        .order_by("week", "deadline", "competition", "number")
    )
    playing = entry_plays_rounds(entry=entry, rounds=rounds, pools=pools)
    rounds = [round for round in rounds if round.pk in playing]
    histories: dict[int, list[Pick]] = {round.pk: [] for round in rounds}
    for pick in picks_received(entry=entry, rounds=rounds):
        histories[pick.round_id].append(pick)
    weeks: dict[int, OpenWeek] = {}
    for round in rounds:
        week = weeks.setdefault(
            round.week, OpenWeek(week=round.week, deadline=round.deadline, rounds=[])
        )
        history = tuple(histories[round.pk])
        week.rounds.append(
            OpenRound(
                round=round,
                competition=round.competition,
                entry=entry,
                current=history[0] if history else None,
                history=history,
            )
        )
    return list(weeks.values())


def pool_find(*, season: Season, competition: Competition | str, pool_slug: str) -> Pool | None:
    """``season``'s pool ``pool_slug`` of ``competition`` (a division slug, or kdh / wg)."""
    try:
        competition = Competition(competition)
    except ValueError:
        return None
    return (
        Pool.objects.filter(season=season, competition=competition, slug=pool_slug)
        .select_related("division")
        .first()
    )


def pool_entries(*, pool: Pool) -> list[Entry]:
    """The teams of ``pool`` now playing: its division's, or the cup's members (by code within
    their division), a replaced team's place held by its replacement (R14)."""
    if pool.kind.divisional:
        assert pool.division_id is not None  # a championship pool's division
        entries = Entry.objects.current(season=pool.season_id).filter(division_id=pool.division_id)
    else:
        members = [member.entry for member in pool.members.select_related("entry")]
        holders = {holder.pk for holder in entries_holders(entries=members).values()}
        entries = Entry.objects.filter(pk__in=holders)
    return list(entries.select_related("team", "division").order_by("division", "code"))


def pool_infos(
    *, season: Season, competition: Competition | str, pool_slug: str
) -> dict[str, EntryChoices] | None:
    """« Infos équipes »: for every team of the pool (by slug), what it has left after the
    *published* rounds only; ``None`` when there is no such pool."""
    pool = pool_find(season=season, competition=competition, pool_slug=pool_slug)
    if pool is None:
        return None
    entries = pool_entries(pool=pool)
    choices = entries_choices(entries=entries, competition=pool.competition, sight=Sight.PUBLIC)
    return {entry.team.slug: choices[entry.pk] for entry in entries}


def user_roles(*, user: User) -> list[str]:
    """What ``user`` is in the league: ``coach`` (of a team), ``referee`` (of a pool of the
    current season, or of any season when none is current), ``admin`` (staff)."""
    roles = []
    if user_team(user=user) is not None:
        roles.append("coach")
    pools = Pool.objects.filter(referees=user)
    season = season_current()
    if season is not None:
        pools = pools.filter(season=season)
    if pools.exists():
        roles.append("referee")
    if user.is_staff:
        roles.append("admin")
    return roles


def season_rounds(*, season: Season) -> dict[str, list[Round]]:
    """``season``'s rounds by competition (championship, kdh, wg), each in number order."""
    rounds: dict[str, list[Round]] = {c.value: [] for c in Competition}
    for round in Round.objects.filter(season=season).select_related("season").order_by("number"):
        rounds[round.competition].append(round)
    return rounds


def round_find(*, season: Season, competition: str, number: int) -> Round | None:
    """Round ``number`` of ``competition`` in ``season``, if it exists."""
    if competition not in Competition.values:
        return None
    return (
        Round.objects.filter(season=season, competition=competition, number=number)
        .select_related("season")
        .first()
    )


def pool_table(*, season: Season, pool_slug: str) -> list[tuple[str, StandingRow]] | None:
    """The public table (published rounds only, R9) of ``season``'s pool ``pool_slug``: a
    division's, or the WG's groups one after the other, as ``(group, row)`` pairs (``""`` for a
    division). ``None`` when there is no such pool or it has no table (the KDH, a knockout cup).
    """
    pool = Pool.objects.filter(season=season, slug=pool_slug).first()
    if pool is None or not pool.kind.has_table:
        return None
    if pool.kind.divisional:
        return [("", row) for row in pool_standings(pool=pool)]
    groups = wg_group_standings(pool=pool)
    return [(group, row) for group, rows in groups.items() for row in rows]
