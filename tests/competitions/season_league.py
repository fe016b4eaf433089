"""A whole season played to its last round through the real services, for the season's end.

84 teams in the seven divisions, the three matrices, the calendar (R20), the KDH's field (R17)
and a first-season WG of twelve (R18); every week the coaches' random legal picks (the engine's
:func:`~engine.season.random_picks`) stored as received on the web, then every pool round
arbitrated and published by the referee (:func:`competitions.services.pool_round_arbitrate`,
:func:`~competitions.services.pool_round_publish`). On the way, what R14 makes of ONR teams:

* D2A's 03 sends no picks in weeks 1 and 2: its second ONR bars it from promotion;
* D3C's 07 sends none in weeks 1–3: its third ONR is confirmed by an admin and the waiting list's
  first team takes its place and record (it stays in the league, R24 does not touch it);
* D3B's leader after week 9 sends none in week 10: its two championship rounds (R20) are two
  ONRs, so it is barred from promotion too (:attr:`PlayedSeason.last_week_onr`).

Not closed: tests close it (each in its own transaction). The season lies in the past, so every
deadline has passed (R13). Pool-round seeds are fresh secrets, as in the real league (R23): the
tables differ from one run to the next, and the tests work their expectations out from them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.apps import apps
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils.text import slugify

from competitions import selectors
from competitions import services as competitions
from competitions.models import (
    Competition,
    Fixture,
    OnrSanction,
    Pool,
    PoolRound,
    Round,
    StockKind,
    StockMovement,
    StockReason,
    TeamResult,
)
from competitions.models import Pick as PickRow
from engine.calendar import SEASON_WEEKS
from engine.season import PickRequest, random_picks
from league import services as league
from league.models import Entry, Season, Team, WaitingListEntry
from tests.demo_worlds import content_types_reread

STARTS_ON = date(2025, 9, 1)
"""A Monday long past: every deadline of the season is behind us."""

EXTRA_GOALS = 4
GREAT_SAVES = 3
"""Every team's stocks at the start (as if R21 had given them)."""

BARRED = ("d2a", 3)
"""(division, code) of the team ONR twice: barred from promotion (R14)."""
REPLACED = ("d3c", 7)
"""(division, code) of the team ONR three times: replaced from the waiting list (R14)."""
LAST_WEEK_LEADER = "d3b"
"""The division whose leader after week 9 sends no picks in week 10 (R14, R20)."""
ONR_WEEKS = {1: (BARRED, REPLACED), 2: (BARRED, REPLACED), 3: (REPLACED,)}

WAITING = (
    ("Les Yétis", datetime(2025, 8, 1, tzinfo=UTC)),
    ("Les Morses", datetime(2025, 10, 1, tzinfo=UTC)),
    ("Les Narvals", datetime(2026, 6, 1, tzinfo=UTC)),
)
"""The waiting list, in its order: the first replaces D3C's 07 during the season (R14); the
second registered during the season, the third long after its end (R21's veteran points)."""


@dataclass
class PlayedSeason:
    season: Season
    admin: User
    referee: User
    entries: dict[str, Entry]
    """The first entries, by team slug (``d2a-team-03`` is D2A's 03)."""

    def entry(self, division: str, code: int) -> Entry:
        return self.entries[f"{division}-team-{code:02d}"]

    @property
    def last_week_onr(self) -> str:
        """The slug of :data:`LAST_WEEK_LEADER`'s leader after week 9, ONR in week 10."""
        return (
            TeamResult.objects.filter(
                pool_round__round__season=self.season,
                pool_round__round__week=SEASON_WEEKS,
                pool_round__pool__slug=LAST_WEEK_LEADER,
                onr=True,
            )
            .values_list("entry__team__slug", flat=True)
            .distinct()
            .get()
        )


def _slugs(entries: dict[str, Entry], places: tuple[tuple[str, int], ...]) -> set[str]:
    return {slug for slug, e in entries.items() if (e.division.slug, e.code) in set(places)}


class _Coaches:
    def __init__(self) -> None:
        self.choose = random_picks("season-end-tests/picks")

    def send(self, round: Round, skip: set[str], ahead: dict[tuple[int, str], list]) -> None:
        """Picks for ``round`` from every team of its games, but ``skip``'s and dummies'."""
        competition = Competition(round.competition)
        rules = competition.rules
        matrix = round.season.matrices.get(competition=competition)
        row = selectors.matrix_row(matrix=matrix, round_number=round.number)
        fixtures = Fixture.objects.filter(pool_round__round=round).select_related(
            "home__team", "away__team"
        )
        playing = [(f.home, f.away) for f in fixtures] + [(f.away, f.home) for f in fixtures]
        used = selectors.entries_used(
            entries=[entry for entry, _ in playing],
            competition=competition,
            sight=selectors.Sight.REFEREE,
        )
        rows = []
        for entry, opponent in sorted(playing, key=lambda pair: pair[0].team.slug):
            if entry.team.slug in skip or entry.team.is_dummy:
                continue
            # The week's earlier round of the same competition (week 10: rounds 10 and 11).
            before = ahead.setdefault((entry.pk, competition.value), [])
            columns = [*used[entry.pk].columns, *(p.column for p in before)]
            extra_time = [*used[entry.pk].extra_time, *(p.extra_time for p in before)]
            shootout = [*used[entry.pk].shootout, *(p.shootout for p in before if p.shootout)]
            pick = self.choose(
                PickRequest(
                    team=entry.team.slug,
                    competition=round.engine_competition,
                    round_number=round.number,
                    week=round.week,
                    opponent=opponent.team.slug,
                    matrix_row=row,
                    columns_left=tuple(c for c in rules.columns if c not in columns),
                    extra_time_left=_left(dict(rules.extra_time_quota), extra_time),
                    shootout_left=_left(dict(rules.shootout_quota or {}), shootout),
                    extra_goals=entry.extra_goals,
                    great_saves=entry.great_saves,
                )
            )
            before.append(pick)
            record = PickRow(
                entry=entry,
                round=round,
                notation=pick.notation(),
                normalized=pick.notation(),
                channel=PickRow.Channel.WEB,
                received_at=round.deadline - timedelta(hours=1),
            )
            record.receipt = record.compute_receipt()
            rows.append(record)
        PickRow.objects.bulk_create(rows)


def _left(quota: dict[str, int], used: list[str]) -> tuple[str, ...]:
    return tuple(value for value, count in quota.items() if used.count(value) < count)


def season_play(*, number: int = 1) -> PlayedSeason:
    """Season ``number`` played to its end (not closed), current and running."""
    divisions = league.divisions_create_standard()
    admin = User.objects.create_superuser("season-admin", "season-admin@example.org", "x")
    referee = User.objects.create_user("season-referee", "season-referee@example.org", "x")
    season = league.season_create(number=number, name="Saison passée", starts_on=STARTS_ON)
    teams = Team.objects.bulk_create(
        [
            Team(name=f"{d.name} Team {code:02d}", slug=slugify(f"{d.slug} team {code:02d}"))
            for d in divisions
            for code in range(1, 13)
        ]
    )
    # As competitions.entry_create enters them, in two inserts: the entries with their starting
    # stocks (R21) and the ledger's season_start lines.
    made = Entry.objects.bulk_create(
        Entry(
            season=season,
            team=team,
            division=divisions[index // 12],
            code=index % 12 + 1,
            extra_goals=EXTRA_GOALS,
            great_saves=GREAT_SAVES,
        )
        for index, team in enumerate(teams)
    )
    StockMovement.objects.bulk_create(
        StockMovement(
            entry=entry,
            kind=kind,
            delta=amount,
            balance_after=amount,
            reason=StockReason.SEASON_START,
        )
        for entry in made
        for kind, amount in (
            (StockKind.EXTRA_GOALS, EXTRA_GOALS),
            (StockKind.GREAT_SAVES, GREAT_SAVES),
        )
    )
    entries = {
        entry.team.slug: entry
        for entry in Entry.objects.filter(season=season).select_related("team", "division")
    }
    for competition in Competition:
        competitions.matrix_create(season=season, competition=competition)
    competitions.season_rounds_create(season=season)
    for division in divisions:
        pool = competitions.pool_create(
            season=season,
            competition=Competition.CHAMPIONSHIP,
            division=division,
            referees=[referee],
        )
        competitions.championship_schedule_create(pool=pool)
    kdh = competitions.pool_create(season=season, competition=Competition.KDH, referees=[referee])
    competitions.kdh_start(pool=kdh)
    wg = competitions.pool_create(season=season, competition=Competition.WG, referees=[referee])
    first_twelve = {(d.slug, 1) for d in divisions} | {
        ("elite", 2), ("elite", 3), ("d2a", 2), ("d2b", 2), ("d3a", 2)
    }  # fmt: skip
    competitions.wg_start(
        pool=wg, entries=[e for e in entries.values() if (e.division.slug, e.code) in first_twelve]
    )
    season.status = Season.Status.RUNNING
    season.save(update_fields=["status"])
    league.season_make_current(season=season)
    for name, registered_at in WAITING:
        WaitingListEntry.objects.create(
            name=name, email=f"{slugify(name)}@example.org", registered_at=registered_at
        )
    coaches = _Coaches()
    for week in range(1, SEASON_WEEKS + 1):
        rounds = list(
            Round.objects.filter(season=season, week=week)
            .select_related("season")
            .order_by("competition", "number")
        )
        skip = _slugs(entries, ONR_WEEKS.get(week, ()))
        if week == SEASON_WEEKS:
            pool = Pool.objects.get(season=season, slug=LAST_WEEK_LEADER)
            skip.add(selectors.pool_standings(pool=pool)[0].team)
        ahead: dict[tuple[int, str], list] = {}
        for round in rounds:
            coaches.send(round, skip, ahead)
        for round in rounds:
            for pool_round in PoolRound.objects.filter(round=round).order_by("pool__slug"):
                competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
                competitions.pool_round_publish(pool_round=pool_round, by=referee)
        for sanction in OnrSanction.objects.filter(week=week).exclude(replacement=""):
            competitions.onr_replacement_confirm(sanction=sanction, by=admin)
    return PlayedSeason(season=season, admin=admin, referee=referee, entries=entries)


SNAPSHOT_SCHEMA = "season_end_snapshot"
"""Where the first module to play the season keeps a copy of every table, so the next module
of the run restores it in a moment instead of playing the season again."""
_snapshot: dict[str, int] = {}


def _tables() -> list[str]:
    return sorted(connection.introspection.django_table_names(only_existing=True))


def _snapshot_take(made: PlayedSeason) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {SNAPSHOT_SCHEMA} CASCADE")
        cursor.execute(f"CREATE SCHEMA {SNAPSHOT_SCHEMA}")
        for table in _tables():
            cursor.execute(f'CREATE TABLE {SNAPSHOT_SCHEMA}."{table}" AS TABLE "{table}"')
    _snapshot["season"] = made.season.number


@transaction.atomic
def _snapshot_restore() -> PlayedSeason:
    tables = _tables()
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(f'{chr(34)}{t}{chr(34)}' for t in tables)} CASCADE")
        for table in tables:
            cursor.execute(f'INSERT INTO "{table}" SELECT * FROM {SNAPSHOT_SCHEMA}."{table}"')
        for sql in connection.ops.sequence_reset_sql(
            no_style(), apps.get_models(include_auto_created=True)
        ):
            cursor.execute(sql)
    # The content types came back under the snapshot's ids, which Django's cache may not hold.
    content_types_reread()
    season = Season.objects.get(number=_snapshot["season"])
    return PlayedSeason(
        season=season,
        admin=User.objects.get(username="season-admin"),
        referee=User.objects.get(username="season-referee"),
        entries={
            e.team.slug: e
            for e in Entry.objects.filter(season=season, replaces__isnull=True).select_related(
                "team", "division"
            )
        },
    )


@contextmanager
def season_played_for_module(django_db_blocker: Any) -> Iterator[PlayedSeason]:
    """A played season in the test database for a whole module (each test runs in its own
    transaction, rolled back), the database emptied afterwards. Played once per run: the next
    module restores the first one's copy."""
    with django_db_blocker.unblock():
        if _snapshot:
            made = _snapshot_restore()
        else:
            made = season_play()
            _snapshot_take(made)
    try:
        yield made
    finally:
        with django_db_blocker.unblock():
            call_command("flush", interactive=False, verbosity=0)
            cache.clear()
