"""Issue 10 end to end: a league's year on PostgreSQL with a real Celery worker over Redis.

Season 1 is the demo played to its end (``demo_load(week=11)``: every round published, still
running, four teams on the waiting list). It is closed, one D3 team withdraws (R24: the demo has
no dummy team), the next season's plan is computed, and season 2 is started by
``season_start_request`` on a REAL worker whose progress is followed to ``done``. Then season
2's first week is played: every coach sends a pick through the pick service, the deadline
passes, the referee arbitrates and publishes.

The demo's pool rounds have fresh secret seeds (R23): season 1's tables differ from run to run.
So every expectation below is worked out by hand, by the rules, from season 1's stored record
(its final tables, its results, its honours) — never from the plan's code.

Time is the league's clock (``django.utils.timezone.now``), frozen for the whole module: season 1
ends on Friday 20 November 2026 (week 10's deadline), season 2 starts on Monday 23 November, its
week 1 deadline is Friday 27 November 17:00 Paris (R13), and the referee works on Saturday 28th.
The run is built once for the module and committed (the worker reads it from its own
connection); the tests only read it, and the database is emptied afterwards.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django.utils import timezone, translation
from django.utils.html import escape
from pytest_django import DjangoDbBlocker

from competitions.demo import DemoLeague, demo_load
from competitions.models import (
    Competition,
    CupHonour,
    FinalRow,
    Fixture,
    FixtureResult,
    Pick,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    SeasonArchive,
    SeasonStartJob,
    Stage,
    StockKind,
    StockMovement,
    StockReason,
)
from competitions.selectors.standings import pool_standings
from competitions.services.arbitration import (
    pool_round_arbitrate,
    pool_round_publish,
    rounds_close_due,
)
from competitions.services.picks import pick_send
from competitions.services.season_close import season_close
from competitions.services.season_jobs import season_start_request
from competitions.services.season_plan import season_plan_document
from competitions.services.season_start import season_start
from competitions.services.start_plan import SeasonStartRefused
from competitions.services.withdrawal import entry_withdraw
from league.models import Entry, Profile, Season, WaitingListEntry
from mail.models import OutboundEmail
from matrixhockey.celery import app
from tests.competitions.desk_league import running_worker

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db]

PARIS = ZoneInfo("Europe/Paris")
SEASON_ONE_OVER = datetime(2026, 11, 21, 12, 0, tzinfo=PARIS)
"""The Saturday after season 1's last deadline (week 10: Friday 20 November 2026, 17:00)."""
SEASON_TWO_STARTS = date(2026, 11, 23)
"""The Monday after: season 2's week 1."""
PICKS_SENT = datetime(2026, 11, 25, 20, 0, tzinfo=PARIS)
"""Wednesday evening of season 2's week 1, when the coaches send their picks."""
REFEREES_WEEKEND = datetime(2026, 11, 28, 10, 0, tzinfo=PARIS)
"""Saturday morning, after week 1's deadline (R13: Friday 27 November 2026, 17:00 Paris)."""
WORKER_TIMEOUT = 120

DIVISIONS = ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")
TIER = {"elite": 1, "d2a": 2, "d2b": 2, "d3a": 3, "d3b": 3, "d3c": 3, "d3d": 3}
D2 = ("d2a", "d2b")
D3 = ("d3a", "d3b", "d3c", "d3d")
BARRED_PLACES = {("d2b", 9), ("d3d", 5), ("elite", 12)}
"""The demo's teams ONR twice (D2B 09 in weeks 3 and 6, D3D 05 in weeks 2 and 9, the Elite's
12 in both of week 10's championship rounds, R20): R14 bars them from promotion."""
PLACE_POINTS = {1: 4, 2: 3, 3: 2, 4: 1}
"""R21: 4, 3, 2, 1 points for a division's first four, and for the WG's first four alike."""
FIRST_WAITING = "les-patinoires-perdues"
"""The demo's first team on the waiting list (signed up in week 5)."""
START_STEPS = 21
"""A start from a plan, counted by hand: the plan checked, 7 divisions entered, matrices,
calendar, pools, 7 schedules, the KDH's draw, the WG's draw, made current."""


class Clock:
    """The league's clock, frozen where the test puts it."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at.astimezone(UTC)


@dataclass
class TwoSeasons:
    demo: DemoLeague
    one: Season
    two: Season
    archive: SeasonArchive
    withdrawn: Entry
    """Season 1's D3D team that withdrew after the close (R24)."""
    plan: dict[str, Any]
    """``season_plan_document``'s plan, as the start was asked to run it."""
    job: SeasonStartJob
    outcome: dict[str, Any]
    """What the worker's task returned."""
    progress: list[tuple[str, int, int]] = field(default_factory=list)
    """The job's (status, done, total) each time it changed, as the desk would have seen it."""
    english: set[str] = field(default_factory=set)
    """The coaches (usernames) who chose English in « My account » before the start."""
    played_extra_goal: set[str] = field(default_factory=set)
    """The season 2 teams whose week 1 pick played an extra goal."""


# --- The run ------------------------------------------------------------------------------------


def _close_and_withdraw(demo: DemoLeague) -> tuple[SeasonArchive, Entry]:
    archive = season_close(season=demo.season, by=demo.admin)
    assert archive is not None
    # R24: D3D's best team that R14 does not bar and that won nothing in the cups quits at the
    # season's end. It would have gone up (the next eligible team goes instead), most often as
    # the division's winner (the WG place it frees goes by R18's alternation), and its place in
    # D3 goes to the waiting list.
    row = (
        FinalRow.objects.filter(archive=archive, pool__slug="d3d", promotion_barred=False)
        .exclude(entry__honours__isnull=False)
        .select_related("entry")
        .order_by("rank")
        .first()
    )
    assert row is not None
    entry_withdraw(entry=row.entry, by=demo.admin)
    return archive, row.entry


def _english_coaches(season: Season) -> set[str]:
    """The coaches of season 1's even codes chose English (the others keep French, the league's
    own language)."""
    coaches = [
        entry.team.coach
        for entry in Entry.objects.filter(season=season).select_related("team__coach")
        if entry.code % 2 == 0 and entry.team.coach is not None
    ]
    Profile.objects.bulk_create([Profile(user=coach, language="en") for coach in coaches])
    return {coach.username for coach in coaches}


def _follow(job: SeasonStartJob) -> list[tuple[str, int, int]]:
    """The job's state each time it changes, until it ends, as the desk polls it."""
    seen: list[tuple[str, int, int]] = []
    ends = time.monotonic() + WORKER_TIMEOUT
    while time.monotonic() < ends:
        job.refresh_from_db()
        state = (job.status, job.done, job.total)
        if not seen or seen[-1] != state:
            seen.append(state)
        if job.status not in (SeasonStartJob.Status.QUEUED, SeasonStartJob.Status.RUNNING):
            break
        time.sleep(0.02)
    return seen


def _pick(entry: Entry) -> str:
    """A legal week 1 pick (R10): a column by code, extra-time value 1, one extra goal (R6) when
    the team has any."""
    columns = Competition.CHAMPIONSHIP.rules.columns
    extra = "+" if entry.extra_goals > 0 else ""
    return f"{columns[(entry.code - 1) % len(columns)]}{extra}(1)"


def _play_week_one(two: Season, referee: User, clock: Clock) -> set[str]:
    """Every coach sends a pick on Wednesday; on Saturday the referee arbitrates and publishes
    every pool of week 1. Returns the teams that played an extra goal."""
    clock.at = PICKS_SENT
    (round,) = Round.objects.filter(season=two, week=1)
    extra: set[str] = set()
    entries = Entry.objects.filter(season=two).select_related("team__coach")
    for entry in entries.order_by("division__tier", "division__group", "code"):
        assert entry.team.coach is not None, entry.team
        notation = _pick(entry)
        pick_send(team=entry.team, round=round, notation=notation, entered_by=entry.team.coach)
        if "+" in notation:
            extra.add(entry.team.slug)
    clock.at = REFEREES_WEEKEND
    assert rounds_close_due() >= 1
    for pool_round in PoolRound.objects.filter(round=round).order_by("pool__slug"):
        pool_round_arbitrate(pool_round=pool_round, by=referee)
        pool_round_publish(pool_round=pool_round, by=referee)
    return extra


def _wait_for_the_outbox() -> None:
    """Until the worker has delivered every email queued (the announcements, the receipts, the
    results), so none is cut off when it stops."""
    ends = time.monotonic() + WORKER_TIMEOUT
    while OutboundEmail.objects.filter(status=OutboundEmail.Status.QUEUED).exists():
        assert time.monotonic() < ends, "the worker did not deliver the outbox"
        time.sleep(0.05)


def _run(clock: Clock) -> TwoSeasons:
    demo = demo_load(week=11, now=clock.now())
    english = _english_coaches(demo.season)
    archive, withdrawn = _close_and_withdraw(demo)
    plan = season_plan_document(season=demo.season)
    with running_worker():
        job = season_start_request(by=demo.admin, plan=plan, starts_on=SEASON_TWO_STARTS)
        progress = _follow(job)
        outcome = app.AsyncResult(job.task_id).get(timeout=WORKER_TIMEOUT)
        job.refresh_from_db()
        assert job.status == SeasonStartJob.Status.DONE, job.message
        assert job.season is not None
        extra = _play_week_one(job.season, demo.referee, clock)
        _wait_for_the_outbox()
    demo.season.refresh_from_db()
    return TwoSeasons(
        demo=demo,
        one=demo.season,
        two=job.season,
        archive=archive,
        withdrawn=withdrawn,
        plan=plan,
        job=job,
        outcome=outcome,
        progress=progress,
        english=english,
        played_extra_goal=extra,
    )


@pytest.fixture(scope="module")
def run(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[TwoSeasons]:
    with (
        django_db_blocker.unblock(),
        pytest.MonkeyPatch.context() as patch,
        translation.override("en"),
    ):
        clock = Clock(SEASON_ONE_OVER)
        patch.setattr(timezone, "now", clock.now)
        try:
            yield _run(clock)
        finally:
            call_command("flush", interactive=False, verbosity=0)
            cache.clear()


# --- Season 1's record, read by hand ------------------------------------------------------------


def slug(row: FinalRow | Entry) -> str:
    entry = row.entry if isinstance(row, FinalRow) else row
    return entry.team.slug


def final_tables(run: TwoSeasons) -> dict[str, list[FinalRow]]:
    """Season 1's championship final tables as the close stored them, by division and rank."""
    tables: dict[str, list[FinalRow]] = {division: [] for division in DIVISIONS}
    rows = FinalRow.objects.filter(archive=run.archive, pool__competition=Competition.CHAMPIONSHIP)
    for row in rows.select_related("entry__team", "pool").order_by("rank"):
        tables[row.pool.slug].append(row)
    return tables


def all_rows(run: TwoSeasons) -> list[FinalRow]:
    return [row for rows in final_tables(run).values() for row in rows]


def results(season: Season, competition: Competition) -> list[FixtureResult]:
    return list(
        FixtureResult.objects.filter(
            fixture__pool_round__pool__season=season,
            fixture__pool_round__pool__competition=competition,
        ).select_related(
            "fixture__pool_round__round",
            "fixture__home__team",
            "fixture__away__team",
            "winner__team",
        )
    )


def loser(result: FixtureResult) -> str:
    fixture = result.fixture
    assert result.winner is not None
    return slug(fixture.away if result.winner_id == fixture.home_id else fixture.home)


def cup_places(run: TwoSeasons) -> dict[tuple[str, int], str]:
    """The cups' places from their last games (R15, R18): the KDH final's winner 1 and loser 2;
    the WG final's winner 1 and loser 2, the third-place game's winner 3 and loser 4."""
    places: dict[tuple[str, int], str] = {}
    for competition in (Competition.KDH, Competition.WG):
        for result in results(run.one, competition):
            fixture = result.fixture
            if fixture.pool_round.round.stage != Stage.FINAL:
                continue
            assert result.winner is not None, fixture
            first = 3 if fixture.label == Fixture.Label.THIRD_PLACE else 1
            places[(competition.value, first)] = slug(result.winner)
            places[(competition.value, first + 1)] = loser(result)
    return places


def skipped_for_promotion(run: TwoSeasons) -> set[str]:
    """R14's barred teams and R24's leaving one."""
    barred = {slug(row) for row in all_rows(run) if row.promotion_barred}
    return barred | {slug(run.withdrawn)}


def promoted_from(rows: list[FinalRow], skipped: set[str]) -> list[FinalRow]:
    """R22: a D2 group's or a D3 group's first two teams, the skipped ones passed over (never
    a team of D2's drop zone, 9th–12th)."""
    tier = TIER[rows[0].pool.slug]
    if tier == 1:
        return []
    above_drop_zone = [row for row in rows if tier == 3 or row.rank <= 8]
    return [row for row in above_drop_zone if slug(row) not in skipped][:2]


def relegated_from(rows: list[FinalRow]) -> list[FinalRow]:
    """R22: the Elite's and each D2 group's 9th–12th."""
    return [row for row in rows if TIER[rows[0].pool.slug] < 3 and row.rank >= 9]


def moves_by_hand(run: TwoSeasons) -> dict[str, str]:
    """Every team of season 1 that changes tier: ``promoted`` or ``relegated`` (R22)."""
    skipped = skipped_for_promotion(run)
    moves: dict[str, str] = {}
    for rows in final_tables(run).values():
        moves |= {slug(row): "relegated" for row in relegated_from(rows)}
        moves |= {slug(row): "promoted" for row in promoted_from(rows, skipped)}
    return moves


def plan_teams(run: TwoSeasons) -> dict[str, dict[str, Any]]:
    return {item["team"]: item for item in run.plan["teams"]}


def season_two(run: TwoSeasons) -> dict[str, Entry]:
    entries = Entry.objects.filter(season=run.two).select_related("team__coach", "division")
    return {slug(entry): entry for entry in entries}


# --- Season 1 closed ----------------------------------------------------------------------------


def test_season_one_closed_with_its_tables_honours_and_the_demos_r14_bars(
    run: TwoSeasons,
) -> None:
    tables = final_tables(run)
    assert {division: [row.rank for row in rows] for division, rows in tables.items()} == {
        division: list(range(1, 13)) for division in DIVISIONS
    }
    barred = {(row.pool.slug, row.entry.code) for row in all_rows(run) if row.promotion_barred}
    assert barred == BARRED_PLACES
    honours = {
        (h.competition, h.place): slug(h.entry)
        for h in CupHonour.objects.filter(archive=run.archive).select_related("entry__team")
    }
    assert honours == cup_places(run)
    assert len(honours) == 6


# --- The start, on the worker -------------------------------------------------------------------


def test_the_worker_started_season_two_and_its_progress_went_to_done(run: TwoSeasons) -> None:
    assert run.outcome == {"status": "done", "job": run.job.pk, "season": 2, "code": ""}
    assert (run.job.status, run.job.done, run.job.total) == ("done", START_STEPS, START_STEPS)
    assert run.job.percent == 100
    assert run.job.requested_by == run.demo.admin
    # What the desk saw: queued, then running, then done — never backwards.
    statuses = [status for status, _, _ in run.progress]
    changes = [s for n, s in enumerate(statuses) if n == 0 or statuses[n - 1] != s]
    assert changes in (["queued", "running", "done"], ["running", "done"], ["done"])
    done = [steps for _, steps, _ in run.progress]
    assert done == sorted(done)
    assert run.progress[-1] == ("done", START_STEPS, START_STEPS)


def test_season_two_is_current_and_running_and_season_one_finished(run: TwoSeasons) -> None:
    assert list(
        Season.objects.order_by("number").values_list("number", "status", "is_current")
    ) == [
        (1, "finished", False),
        (2, "running", True),
    ]
    assert run.two.starts_on == SEASON_TWO_STARTS
    # R13: week 1's deadline, Friday 17:00 Paris of the start's week.
    (week_one,) = Round.objects.filter(season=run.two, week=1)
    assert week_one.deadline == datetime(2026, 11, 27, 17, 0, tzinfo=PARIS)
    # Every pool kept last season's referee.
    pools = Pool.objects.filter(season=run.two).prefetch_related("referees")
    assert len(pools) == 9
    assert all(list(pool.referees.all()) == [run.demo.referee] for pool in pools)
    # R14 counts per season: season 1's ONRs and bars stay behind.
    entries = Entry.objects.filter(season=run.two)
    assert entries.count() == 84
    assert not entries.filter(onr_count__gt=0).exists()
    assert not entries.filter(promotion_barred=True).exists()


def test_starting_again_is_refused_while_season_two_runs(run: TwoSeasons) -> None:
    with pytest.raises(SeasonStartRefused) as request:
        season_start_request(by=run.demo.admin, plan=run.plan)
    assert request.value.code == "season_running"
    with pytest.raises(SeasonStartRefused) as start:
        season_start(plan=run.plan, by=run.demo.admin)
    assert start.value.code == "season_running"
    assert SeasonStartJob.objects.count() == 1
    assert Season.objects.count() == 2


# --- R22: promotion and relegation --------------------------------------------------------------


def test_r22_every_team_moves_by_its_final_rank_barred_and_leaving_teams_skipped(
    run: TwoSeasons,
) -> None:
    moves = moves_by_hand(run)
    skipped = skipped_for_promotion(run)
    planned = plan_teams(run)
    entries = season_two(run)
    tables = final_tables(run)
    for division, rows in tables.items():
        for row in rows:
            team = slug(row)
            if team == slug(run.withdrawn):
                assert team not in planned and team not in entries
                continue
            move = moves.get(team, "stays")
            if move == "stays" and row.promotion_barred:
                # R14, R22: "barred" when it would have gone up but for its own bar.
                others = skipped - {team}
                if row in promoted_from(rows, others):
                    move = "barred"
            tier = TIER[division] + {"promoted": -1, "relegated": 1}.get(move, 0)
            line = planned[team]
            assert (line["move"], line["from"], line["rank"]) == (move, division, row.rank)
            assert TIER[line["to"]] == tier, team
            assert entries[team].division.slug == line["to"], team
    # Elite 4 down; D2 2 + 2 up and 4 + 4 down; D3 2 up per group.
    assert Counter(moves.values()) == {"promoted": 12, "relegated": 12}


def test_r22_the_barred_teams_are_passed_over_for_the_next_eligible_ones(run: TwoSeasons) -> None:
    """Whoever replaces D2B 09 and D3D 05 (ONR twice) and the withdrawn D3D winner."""
    tables = final_tables(run)
    planned = plan_teams(run)
    for division, code in BARRED_PLACES:
        if TIER[division] == 1:
            continue  # R22: nobody goes up from the Elite
        rows = tables[division]
        (barred,) = [row for row in rows if row.entry.code == code]
        assert planned[slug(barred)]["move"] != "promoted"
        # The two that go up: the best-ranked above the drop zone that are neither barred nor
        # leaving — every team ranked above them is one of those.
        up = [slug(row) for row in rows if planned.get(slug(row), {}).get("move") == "promoted"]
        assert len(up) == 2
        last_up = max(row.rank for row in rows if slug(row) in up)
        passed_over = {slug(row) for row in rows if row.rank < last_up} - set(up)
        assert passed_over <= skipped_for_promotion(run)
    # The withdrawn team was D3D's best unbarred team without a cup honour: it does not go up,
    # and D3D's two promoted teams are the two best-ranked that neither R14 bars nor leave (a
    # team with a cup honour may rank above the withdrawn one and go up too).
    d3d_up = {
        slug(row) for row in tables["d3d"] if planned.get(slug(row), {}).get("move") == "promoted"
    }
    eligible = [row for row in tables["d3d"] if slug(row) not in skipped_for_promotion(run)]
    assert slug(run.withdrawn) not in d3d_up
    assert d3d_up == {slug(row) for row in sorted(eligible, key=lambda row: row.rank)[:2]}


def serpentine(arrivals: list[str], groups: tuple[str, ...]) -> dict[str, str]:
    """R22's default: the arrivals dealt to the groups A, B, …, B, A, A, B, …"""
    snake = [*groups, *reversed(groups)]
    return {team: snake[index % len(snake)] for index, team in enumerate(arrivals)}


def test_r22_moving_teams_are_spread_over_the_groups_in_a_serpentine_by_rank(
    run: TwoSeasons,
) -> None:
    tables = final_tables(run)
    skipped = skipped_for_promotion(run)
    order = {division: index for index, division in enumerate(DIVISIONS)}

    def by_rank(rows: list[FinalRow]) -> list[str]:
        return [slug(r) for r in sorted(rows, key=lambda r: (r.rank, order[r.pool.slug]))]

    down_to_d2 = by_rank(relegated_from(tables["elite"]))
    up_to_d2 = by_rank([row for d in D3 for row in promoted_from(tables[d], skipped)])
    down_to_d3 = by_rank([row for d in D2 for row in relegated_from(tables[d])])
    expected = serpentine(down_to_d2 + up_to_d2, D2) | serpentine(down_to_d3, D3)
    expected |= {slug(row): "elite" for d in D2 for row in promoted_from(tables[d], skipped)}
    entries = season_two(run)
    assert {team: entries[team].division.slug for team in expected} == expected


# --- R16: codes ---------------------------------------------------------------------------------


def test_r16_each_d3_groups_codes_01_and_02_are_its_two_teams_from_d2(run: TwoSeasons) -> None:
    tables = final_tables(run)
    from_d2 = {slug(row) for d in D2 for row in relegated_from(tables[d])}
    entries = season_two(run)
    for group in D3:
        first_two = {team for team, e in entries.items() if e.division.slug == group and e.code < 3}
        assert first_two == {t for t in from_d2 if entries[t].division.slug == group}, group
        assert len(first_two) == 2
    for division in DIVISIONS:
        codes = sorted(e.code for e in entries.values() if e.division.slug == division)
        assert codes == list(range(1, 13)), division
    assert {team: (e.division.slug, e.code) for team, e in entries.items()} == {
        team: (line["to"], line["code"]) for team, line in plan_teams(run).items()
    }


# --- R17: the KDH's field -----------------------------------------------------------------------


def test_r17_the_kdh_qualifying_round_is_season_twos_d3_codes_03_to_12(run: TwoSeasons) -> None:
    entries = season_two(run)
    qualifying = {t for t, e in entries.items() if e.division.slug in D3 and e.code >= 3}
    assert len(qualifying) == 40
    assert set(run.plan["kdh"]["qualifying_round"]) == qualifying
    assert set(run.plan["kdh"]["enter_later"]) == set(entries) - qualifying
    # The started KDH: its first round is the qualifying round, 20 games between those 40.
    fixtures = Fixture.objects.filter(
        pool_round__pool__season=run.two,
        pool_round__pool__competition=Competition.KDH,
        pool_round__round__number=1,
    ).select_related("home__team", "away__team")
    assert len(fixtures) == 20
    assert {slug(e) for f in fixtures for e in (f.home, f.away)} == qualifying
    assert (
        PoolMember.objects.filter(pool__season=run.two, pool__competition=Competition.KDH).count()
        == 84
    )


# --- R18: the WG's twelve -----------------------------------------------------------------------


def best(rows: list[FinalRow], value: str, most: bool) -> int:
    numbers = [getattr(row, value) for row in rows]
    return max(numbers) if most else min(numbers)


def test_r18_the_wg_twelve_from_season_ones_tables_and_honours(run: TwoSeasons) -> None:
    leaving = slug(run.withdrawn)
    rows = [row for row in all_rows(run) if slug(row) != leaving]
    record = {slug(row): row for row in rows}
    places = cup_places(run)
    # The named berths, each team once at its first: the division winners, the KDH's winner and
    # finalist, the holder (the WG's winner). A leaving team takes none (R24; its place is freed).
    berths = [(slug(rows[0]), "division_winner") for rows in final_tables(run).values()]
    berths += [(places[("kdh", 1)], "kdh_winner"), (places[("kdh", 2)], "kdh_finalist")]
    berths += [(places[("wg", 1)], "holder")]
    named: dict[str, str] = {}
    for team, why in berths:
        if team != leaving and team not in named:
            named[team] = why
    wg = [(item["team"], item["why"]) for item in run.plan["wg"]]
    assert len({team for team, _ in wg}) == 12
    assert {team: why for team, why in wg if team in named} == named
    assert leaving not in {team for team, _ in wg}
    rest = [(team, why) for team, why in wg if team not in named]
    # Most goals and fewest against, all divisions together, when not in already.
    for team, why in rest:
        if why == "most_goals":
            assert record[team].goals_for == best(rows, "goals_for", most=True)
        if why == "fewest_against":
            assert record[team].goals_against == best(rows, "goals_against", most=False)
    for why, value, most in (
        ("most_goals", "goals_for", True),
        ("fewest_against", "goals_against", False),
    ):
        if why not in {w for _, w in rest}:  # its place was freed: a team in already has it
            top = best(rows, value, most)
            assert any(getattr(record[t], value) == top for t, w in wg if w != why)
    # Every place freed goes to the next by most goals, then by fewest against, alternating.
    taken = set(named) | {team for team, why in rest if not why.startswith("next_")}
    freed = [(team, why) for team, why in rest if why.startswith("next_")]
    assert len(named) + len(rest) == 12
    if final_tables(run)["d3d"][0].entry == run.withdrawn:
        assert freed  # at least the place of D3D's winner, who leaves (R24)
    for number, (team, why) in enumerate(freed):
        assert why == ("next_most_goals", "next_fewest_against")[number % 2]
        left = [row for row in rows if slug(row) not in taken]
        if why == "next_most_goals":
            assert record[team].goals_for == best(left, "goals_for", most=True), team
        else:
            assert record[team].goals_against == best(left, "goals_against", most=False), team
        taken.add(team)
    # The started WG: those twelve, in three groups of four (R18).
    members = PoolMember.objects.filter(pool__season=run.two, pool__competition=Competition.WG)
    assert {slug(m.entry) for m in members.select_related("entry__team")} == {t for t, _ in wg}
    assert Counter(members.values_list("group", flat=True)) == {"A": 4, "B": 4, "C": 4}


# --- R21: next season's stocks ------------------------------------------------------------------


def team_by_role(run: TwoSeasons, role: str) -> str:
    tables = final_tables(run)
    places = cup_places(run)
    if role == "wg_holder":
        return places[("wg", 1)]
    if role == "kdh_winner":
        return places[("kdh", 1)]
    if role == "elite_last":
        return slug(tables["elite"][-1])
    assert role == "d2a_first_promoted"
    return slug(promoted_from(tables["d2a"], skipped_for_promotion(run))[0])


def points_by_hand(run: TwoSeasons, team: str) -> tuple[dict[str, int], int]:
    """R21 from the team's season 1 record: its points by kind, and its shutouts."""
    entry = Entry.objects.get(season=run.one, team__slug=team)
    (row,) = [row for row in all_rows(run) if slug(row) == team]
    mine = [r for r in results(run.one, Competition.CHAMPIONSHIP) if entry.pk in _sides(r)]
    wins = sum(1 for r in mine if r.winner_id == entry.pk)
    shutouts = sum(1 for r in mine if _opponent_goals(r, entry) == 0)
    kdh_wins = sum(1 for r in results(run.one, Competition.KDH) if r.winner_id == entry.pk)
    places = cup_places(run)
    wg_place = next((p for (cup, p), t in places.items() if cup == "wg" and t == team), None)
    move = moves_by_hand(run).get(team)
    points = {
        "championship_wins": wins,
        "kdh_wins": kdh_wins,
        "kdh_winner": 1 if places[("kdh", 1)] == team else 0,
        "division_place": PLACE_POINTS.get(row.rank, 0),
        "relegated": 6 if move == "relegated" else 0,
        "promoted": -6 if move == "promoted" else 0,
        "veteran": 3,
        "wg_place": PLACE_POINTS[wg_place] if wg_place else 0,
    }
    return points, shutouts


def _sides(result: FixtureResult) -> tuple[int, int]:
    return (result.fixture.home_id, result.fixture.away_id)


def _opponent_goals(result: FixtureResult, entry: Entry) -> int:
    return result.away_goals if result.fixture.home_id == entry.pk else result.home_goals


def started_with(run: TwoSeasons, team: str) -> dict[str, int]:
    """The team's season 2 stocks as the start wrote them in its ledger (R21)."""
    lines = StockMovement.objects.filter(
        entry__season=run.two, entry__team__slug=team, reason=StockReason.SEASON_START
    )
    return {line.kind: line.delta for line in lines}


@pytest.mark.parametrize("role", ["wg_holder", "kdh_winner", "elite_last", "d2a_first_promoted"])
def test_r21_stocks_worked_out_from_the_teams_season_one_record(run: TwoSeasons, role: str) -> None:
    team = team_by_role(run, role)
    points, shutouts = points_by_hand(run, team)
    extra_goals = max(0, sum(points.values()) // 3)
    great_saves = 2 + shutouts
    line = plan_teams(run)[team]
    assert line["extra_goal_points"] == points
    assert (line["extra_goals"], line["great_saves"]) == (extra_goals, great_saves)
    assert started_with(run, team) == {
        StockKind.EXTRA_GOALS: extra_goals,
        StockKind.GREAT_SAVES: great_saves,
    }


# --- R24: a withdrawn team's place to the waiting list -------------------------------------------


def test_r24_the_withdrawn_team_leaves_and_the_first_waiting_list_team_takes_its_place(
    run: TwoSeasons,
) -> None:
    gone = slug(run.withdrawn)
    assert run.withdrawn.division.slug == "d3d"
    assert run.plan["leaving"] == [{"team": gone, "why": "withdrawn"}]
    waiting = WaitingListEntry.objects.order_by("registered_at", "id")
    assert [w.name for w in waiting] == [w.name for w in run.demo.waiting_list]
    first = waiting[0]
    line = plan_teams(run)[FIRST_WAITING]
    assert (line["move"], line["from"], line["rank"], line["to"]) == ("joined", None, None, "d3d")
    assert line["waiting_list_entry"] == first.pk
    # R21: on the list before the season's end, a veteran: 3 points → 1 extra goal; 2 saves.
    assert (line["extra_goals"], line["great_saves"]) == (1, 2)
    assert line["code"] >= 3  # R16: 01 and 02 are the two teams down from D2
    assert [item["team"] for item in run.plan["teams"] if item["move"] == "joined"] == [
        FIRST_WAITING
    ]
    # Started: its team, coach and entry created; the rest of the list still waits.
    assert first.status == WaitingListEntry.Status.PLACED and first.team is not None
    entry = season_two(run)[FIRST_WAITING]
    assert (entry.team, entry.division.slug, entry.code) == (first.team, "d3d", line["code"])
    assert entry.team.coach is not None and entry.team.coach.email == first.email
    assert OutboundEmail.objects.filter(template="invitation", to=[first.email]).count() == 1
    assert [w.status for w in waiting[1:]] == [WaitingListEntry.Status.WAITING] * 3
    assert not Entry.objects.filter(season=run.two, team__slug=gone).exists()


# --- The announcement -----------------------------------------------------------------------------


def test_every_coach_of_season_two_got_the_announcement_in_their_language(
    run: TwoSeasons,
) -> None:
    emails = {
        email.to[0]: email for email in OutboundEmail.objects.filter(template="season-started")
    }
    entries = season_two(run)
    assert len(emails) == 84
    assert set(emails) == {e.team.coach.email for e in entries.values() if e.team.coach}
    for entry in entries.values():
        coach = entry.team.coach
        assert coach is not None
        email = emails[coach.email]
        language = "en" if coach.username in run.english else "fr"
        assert email.language == language, coach
        assert f'lang="{language}"' in email.body_html
        assert f"code {entry.code:02d}" in email.body_text
        stocks = started_with(run, slug(entry))
        # French puts a space before the colon.
        assert re.search(rf"\(\+\) ?: {stocks[StockKind.EXTRA_GOALS]}\b", email.body_text)
        assert re.search(rf"\(#\) ?: {stocks[StockKind.GREAT_SAVES]}\b", email.body_text)
        assert entry.division.name in email.body_text
        if language == "fr":
            assert "vendredi" in email.body_text and "27 novembre 2026" in email.body_text
        else:
            assert (
                "Friday" in email.body_text and "Friday 27 November 2026, 17:00" in email.body_text
            )
    assert len(run.english) > 30  # both languages are really there
    # Delivered by the worker, as every email is.
    assert {email.status for email in emails.values()} == {OutboundEmail.Status.SENT}


# --- Season 2's first week ------------------------------------------------------------------------


def points_of(result: FixtureResult, entry: Entry) -> int:
    """R9: a win 2 (in regulation or extra time), a draw or an extra-time loss 1, else 0."""
    if result.decided == FixtureResult.Decided.DRAW:
        return 1
    if result.winner_id == entry.pk:
        return 2
    return 1 if result.decided == FixtureResult.Decided.EXTRA_TIME else 0


def test_week_one_was_picked_arbitrated_and_published_into_season_twos_standings(
    run: TwoSeasons,
) -> None:
    (round,) = Round.objects.filter(season=run.two, week=1)
    assert round.status == Round.Status.PUBLISHED
    assert Pick.objects.filter(round=round, channel=Pick.Channel.WEB).count() == 84
    assert all(pick.received_at < round.deadline for pick in Pick.objects.filter(round=round))
    games = {
        entry_id: result
        for result in results(run.two, Competition.CHAMPIONSHIP)
        for entry_id in _sides(result)
    }
    assert len(games) == 84
    entries = season_two(run)
    for division in DIVISIONS:
        pool = Pool.objects.get(season=run.two, slug=division)
        table = pool_standings(pool=pool)
        assert {row.team for row in table} == {
            t for t, e in entries.items() if e.division.slug == division
        }
        for row in table:
            entry = entries[row.team]
            result = games[entry.pk]
            assert row.played == 1
            assert row.points == points_of(result, entry), row
            mine = result.home_goals if result.fixture.home_id == entry.pk else result.away_goals
            assert (row.goals_for, row.goals_against) == (mine, _opponent_goals(result, entry))
    # R6: an extra goal played leaves the stock one lower than the start gave.
    for team, entry in entries.items():
        start = started_with(run, team)[StockKind.EXTRA_GOALS]
        assert entry.extra_goals == start - (1 if team in run.played_extra_goal else 0), team
    assert run.played_extra_goal


# --- The archives: season 1 still reads -----------------------------------------------------------


def test_season_one_still_reads_with_season_1_and_the_default_is_season_two(
    run: TwoSeasons, client: Client
) -> None:
    elite_one = [row.entry.team.name for row in final_tables(run)["elite"]]
    page = client.get("/standings/elite/?season=1")
    assert page.status_code == 200
    html = page.content.decode()
    positions = [html.index(escape(name)) for name in elite_one]
    assert positions == sorted(positions)
    api = client.get("/api/standings/elite/?season=1").json()
    assert [(r["team"], r["points"]) for r in api["table"]] == [
        (slug(row), row.points) for row in final_tables(run)["elite"]
    ]
    current = client.get("/api/standings/elite/").json()
    assert {r["team"] for r in current["table"]} == {
        t for t, e in season_two(run).items() if e.division.slug == "elite"
    }
    assert all(r["played"] == 1 for r in current["table"])
    # Season 1's index: its champions and its cups' winners.
    index = client.get("/seasons/1/")
    assert index.status_code == 200
    places = cup_places(run)
    winners = [slug(rows[0]) for rows in final_tables(run).values()]
    winners += [places[("kdh", 1)], places[("wg", 1)]]
    names = dict(Entry.objects.filter(season=run.one).values_list("team__slug", "team__name"))
    assert all(escape(names[team]) in index.content.decode() for team in winners)
    assert client.get("/results/week/2/1/").status_code == 200
    assert client.get("/api/seasons/").json() == [
        {"number": 2, "status": "running", "current": True},
        {"number": 1, "status": "finished", "current": False},
    ]
