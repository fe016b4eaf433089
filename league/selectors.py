"""Reads of the league, named ``<thing>_<action>`` with keyword-only arguments."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet, Sum
from django.utils import timezone

from competitions import selectors as competition_selectors
from competitions.models import Competition, Fixture, Pool, PoolRound, Round
from engine import StandingRow
from league.models import Division, Entry, Pick, Season, StockKind, StockMovement, Team


@dataclass(frozen=True)
class DivisionTable:
    """A division of a season with its playing teams, by code."""

    division: Division
    entries: list[Entry]


def season_current() -> Season | None:
    """The league's current season, if one is set."""
    return Season.objects.filter(is_current=True).first()


def season_divisions(*, season: Season) -> list[DivisionTable]:
    """The divisions that have teams in ``season``, Elite first, each with its teams by code."""
    playing = (
        Entry.objects.filter(season=season, replaced_at__isnull=True)
        .select_related("team")
        .order_by("code")
    )
    divisions = (
        Division.objects.filter(entries__season=season)
        .distinct()
        .prefetch_related(Prefetch("entries", queryset=playing, to_attr="playing"))
    )
    return [DivisionTable(division=d, entries=d.playing) for d in divisions]


def pick_history(*, entry: Entry, round: Round) -> QuerySet[Pick]:
    """Every pick received for ``entry`` and ``round``, latest first (R12)."""
    return Pick.objects.filter(entry=entry, round=round).order_by("-received_at", "-id")


def pick_current(*, entry: Entry, round: Round) -> Pick | None:
    """R12: the pick that counts, the last received (ties on time go to the later stored)."""
    return pick_history(entry=entry, round=round).first()


# --- Picks: what a team may still play, which rounds it may still send picks for (issue 4) -----


@dataclass(frozen=True)
class EntryChoices:
    """What a team has left in one competition: « infos équipes », and the pick form's choices.

    ``extra_time`` and ``shootout`` map each value still playable to the uses left, in the
    order 0, 1, 2, 3, X; the quotas are the engine's (R7), the columns its matrix's (R19).
    """

    competition: str
    columns: tuple[str, ...]
    extra_time: dict[str, int]
    shootout: dict[str, int]
    extra_goals: int
    great_saves: int

    @staticmethod
    def spread(counts: dict[str, int]) -> list[str]:
        """``{"0": 2, "X": 1}`` → ``["0", "0", "X"]``: one item per use left."""
        return [value for value, left in counts.items() for _ in range(left)]


def _value_order(value: str) -> tuple[bool, str]:
    return (value == "X", value)


def _left(quota: Mapping[str, int], used: Iterable[str]) -> dict[str, int]:
    spent = Counter(used)
    return {
        value: quota[value] - spent[value]
        for value in sorted(quota, key=_value_order)
        if quota[value] > spent[value]
    }


def entry_stocks(*, entry: Entry, published_only: bool) -> tuple[int, int]:
    """``entry``'s extra goals and great saves (R6): now, or as the published rounds left them.

    Published only, the movements tied to a round whose pool round (the entry's pool in that
    round's competition) is not published are taken back out: an arbitrated but unpublished
    round must not show what the team spent in it.
    """
    if not published_only:
        return entry.extra_goals, entry.great_saves
    published = PoolRound.objects.filter(
        round_id=OuterRef("round_id"), status=PoolRound.Status.PUBLISHED
    ).filter(
        Q(pool__competition=Competition.CHAMPIONSHIP, pool__division_id=entry.division_id)
        | Q(pool__members__entry_id=entry.pk)
    )
    hidden = dict(
        StockMovement.objects.filter(entry=entry, round__isnull=False)
        .exclude(Exists(published))
        .values_list("kind")
        .annotate(total=Sum("delta"))
        .values_list("kind", "total")
    )
    return (
        entry.extra_goals - hidden.get(StockKind.EXTRA_GOALS, 0),
        entry.great_saves - hidden.get(StockKind.GREAT_SAVES, 0),
    )


def entry_choices(
    *, entry: Entry, competition: Competition | str, published_only: bool
) -> EntryChoices:
    """What ``entry`` may still play in ``competition``: columns, extra-time values with the uses
    left, shootout values (KDH), extra-goal and great-save stocks.

    ``published_only``: after the published rounds, what anyone may see (« infos équipes »);
    otherwise after every arbitrated round too, the team's own pick form (its own record).
    """
    competition = Competition(competition)
    rules = competition.rules
    used = competition_selectors.entry_used(
        entry=entry, competition=competition, published_only=published_only
    )
    extra_goals, great_saves = entry_stocks(entry=entry, published_only=published_only)
    return EntryChoices(
        competition=competition.value,
        columns=tuple(c for c in rules.columns if c not in set(used.columns)),
        extra_time=_left(rules.extra_time_quota, used.extra_time),
        shootout=_left(rules.shootout_quota or {}, used.shootout),
        extra_goals=extra_goals,
        great_saves=great_saves,
    )


def entry_pool(*, entry: Entry, competition: Competition | str) -> Pool | None:
    """The pool ``entry`` plays ``competition`` in: its division's, or the cup's when it is in."""
    competition = Competition(competition)
    pools = Pool.objects.filter(season_id=entry.season_id, competition=competition)
    if competition == Competition.CHAMPIONSHIP:
        return pools.filter(division_id=entry.division_id).first()
    return pools.filter(members__entry_id__in=_lineage_ids(entry)).first()


def _lineage_ids(entry: Entry) -> list[int]:
    # R14: a replacement plays where the team it replaced was.
    return [e.pk for e in competition_selectors.entry_lineage(entry=entry)]


def entry_plays_round(*, entry: Entry, round: Round) -> bool:
    """Whether ``entry`` plays ``round``: every playing team plays the championship; a cup's
    round, when its team is in the cup (a member of its pool) and still in it.

    Once the round's games are drawn, only their teams play it. Before that, the cup's latest
    drawn round decides: once played, the teams it sent on (``PoolRound.qualified``: winners,
    lucky losers and byes, R15, R17, R18) are still in; while it is still to play, its teams
    are (a team exempt from the KDH's qualifying round, drawn in the round of 64, may send its
    picks for the round after in advance, R12); a played round that sends nobody on (a WG group
    round) keeps its teams in. With no round drawn yet, every member of the cup's pool is in.
    """
    if entry.season_id != round.season_id or not entry.is_playing:
        return False
    if round.competition == Competition.CHAMPIONSHIP:
        return True
    pool = entry_pool(entry=entry, competition=round.competition)
    if pool is None:
        return False
    mine = _lineage_ids(entry)
    plays = Q(home_id__in=mine) | Q(away_id__in=mine)
    drawn = Fixture.objects.filter(pool_round__pool=pool, pool_round__round=round)
    if drawn.exists():
        return drawn.filter(plays).exists()
    latest = (
        PoolRound.objects.filter(pool=pool, round__number__lt=round.number)
        .filter(Q(fixtures__isnull=False) | Q(status__in=competition_selectors.PLAYED))
        .distinct()
        .order_by("-round__number")
        .first()
    )
    if latest is None:
        return True
    if latest.status not in competition_selectors.PLAYED:
        return latest.fixtures.filter(plays).exists()
    if latest.qualified.exists():
        return latest.qualified.filter(pk__in=mine).exists()
    return latest.team_results.filter(entry_id__in=mine).exists()


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


@dataclass(frozen=True)
class OpenWeek:
    """One week of open rounds: the championship's, and the cups' the team plays that week."""

    week: int
    deadline: datetime
    rounds: list[OpenRound]


def team_rounds_open(*, team: Team, now: datetime | None = None) -> list[OpenWeek]:
    """The rounds of the current season ``team`` may still send picks for, by week (R12, R13).

    Every round whose deadline is still ahead counts, however far (picks in advance); a cup's
    only while the team plays it (:func:`entry_plays_round`).
    """
    now = now or timezone.now()
    season = season_current()
    if season is None:
        return []
    entry = Entry.objects.filter(season=season, team=team, replaced_at__isnull=True).first()
    if entry is None:
        return []
    rounds = Round.objects.filter(
        season=season, deadline__gt=now, status=Round.Status.OPEN
    ).order_by("week", "deadline", "competition", "number")
    weeks: dict[int, OpenWeek] = {}
    for round in rounds:
        if not entry_plays_round(entry=entry, round=round):
            continue
        week = weeks.setdefault(
            round.week, OpenWeek(week=round.week, deadline=round.deadline, rounds=[])
        )
        week.rounds.append(
            OpenRound(
                round=round,
                competition=round.competition,
                entry=entry,
                current=pick_current(entry=entry, round=round),
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
    if pool.competition == Competition.CHAMPIONSHIP:
        entries = Entry.objects.filter(
            season_id=pool.season_id, division_id=pool.division_id, replaced_at__isnull=True
        )
    else:
        members = [m.entry for m in pool.members.select_related("entry")]
        holders = {competition_selectors.entry_holder(entry=entry).pk for entry in members}
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
    return {
        entry.team.slug: entry_choices(
            entry=entry, competition=pool.competition, published_only=True
        )
        for entry in pool_entries(pool=pool)
    }


# --- The API's reads (issue 4) ------------------------------------------------------------------


def user_team(*, user: AbstractBaseUser) -> Team | None:
    """The team ``user`` coaches, if any (a user coaches one team at most)."""
    if not user.is_authenticated:
        return None
    return Team.objects.filter(coach_id=user.pk).first()


def user_roles(*, user: AbstractBaseUser) -> list[str]:
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
    pool = (
        Pool.objects.filter(season=season, slug=pool_slug)
        .exclude(competition=Competition.KDH)
        .first()
    )
    if pool is None:
        return None
    if pool.competition == Competition.CHAMPIONSHIP:
        return [("", row) for row in competition_selectors.pool_standings(pool=pool)]
    groups = competition_selectors.wg_group_standings(pool=pool)
    return [(group, row) for group, rows in groups.items() for row in rows]
