"""A season under way for the coaches' pages: played rounds behind, open rounds ahead.

Deadlines are set relative to now (the pages show rounds whose deadline is still ahead), on a
Friday-like 17:00 Europe/Paris so that pages show a recognisable time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from competitions import services as competitions
from competitions.models import Competition, Pick, Pool, PoolMember, Round, Stage
from league.models import Entry, Season
from tests.conftest import ResultRecorder

PARIS = ZoneInfo("Europe/Paris")


def picks_sent() -> QuerySet[Pick]:
    """The picks a test sent: every pick but those an arbitrated round played (the league's
    round 2, arbitrated and not published, was played with its teams' picks, which
    ``record_played`` stores as the arbitration found them)."""
    return Pick.objects.filter(team_results=None)


def paris_17h(days_ahead: int) -> datetime:
    """17:00 Paris time, ``days_ahead`` days from today."""
    day = timezone.localtime(timezone.now(), PARIS).date() + timedelta(days=days_ahead)
    return datetime.combine(day, time(17, 0), tzinfo=PARIS)


@dataclass
class OpenLeague:
    """Championship rounds 1–2 played (1 published, 2 arbitrated only), round 3 (this week,
    with KDH round 1) and round 4 (next week) open."""

    coach_entry: Entry
    other_entry: Entry
    elite: Pool
    kdh: Pool
    played_published: Round
    played_unpublished: Round
    this_week: Round
    kdh_this_week: Round
    next_week: Round


def open_league(
    *,
    season: Season,
    coach_entry: Entry,
    other_entry: Entry,
    elite: Pool,
    record_played: ResultRecorder,
) -> OpenLeague:
    championship = Competition.CHAMPIONSHIP
    played_published = competitions.round_create(
        season=season, competition=championship, number=1, week=1, deadline=paris_17h(-14)
    )
    played_unpublished = competitions.round_create(
        season=season, competition=championship, number=2, week=2, deadline=paris_17h(-7)
    )
    this_week = competitions.round_create(
        season=season, competition=championship, number=3, week=3, deadline=paris_17h(3)
    )
    next_week = competitions.round_create(
        season=season, competition=championship, number=4, week=4, deadline=paris_17h(10)
    )
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    for entry in (coach_entry, other_entry):
        PoolMember.objects.create(pool=kdh, entry=entry)
    kdh_this_week = competitions.round_create(
        season=season,
        competition=Competition.KDH,
        number=1,
        week=3,
        stage=Stage.ROUND_OF_64,
        deadline=paris_17h(3),
    )
    # Round 1 is published: its picks are public. Round 2 is arbitrated, not yet published.
    record_played(
        coach_entry, played_published, pool=elite, column="A", extra_time="X", status="published"
    )
    record_played(
        other_entry,
        played_published,
        pool=elite,
        column="B",
        extra_time="0",
        status="published",
    )
    record_played(
        coach_entry, played_unpublished, pool=elite, column="D", extra_time="3", extra_goals=1
    )
    record_played(
        other_entry,
        played_unpublished,
        pool=elite,
        column="K",
        extra_time="1",
        great_saves=1,
    )
    return OpenLeague(
        coach_entry=coach_entry,
        other_entry=other_entry,
        elite=elite,
        kdh=kdh,
        played_published=played_published,
        played_unpublished=played_unpublished,
        this_week=this_week,
        kdh_this_week=kdh_this_week,
        next_week=next_week,
    )


def coaches_open_league(
    *, coach: User, other_coach: User, elite: Pool, record_played: ResultRecorder
) -> OpenLeague:
    """:func:`open_league` on ``elite``'s season for the teams of ``coach`` and ``other_coach``
    (``tests/conftest.py``'s people): the ``league`` fixture of the competitions' tests and of
    the browser's pick page."""
    return open_league(
        season=elite.season,
        coach_entry=Entry.objects.get(team__coach=coach),
        other_entry=Entry.objects.get(team__coach=other_coach),
        elite=elite,
        record_played=record_played,
    )
