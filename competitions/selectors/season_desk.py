"""The season desk's reads: where the league stands in its year and what the next step is.

Stages, in the league's order: ``empty`` (no season yet: import one), ``preparing`` (teams are
in; matrices, calendar, referees and the cups' opening draws to do, then start), ``running``
(rounds still to publish), ``complete`` (every round of every competition published: close it),
``finished`` (closed: the next season's plan, then start it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy

from competitions.models import (
    Competition,
    Matrix,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    SeasonStartJob,
    VerificationFailure,
)
from competitions.selectors.archive import season_in_preparation, season_last_finished
from competitions.services.season_close import RoundLeft, season_rounds_left
from competitions.services.season_plan import POINT_LABELS
from league.models import Division, Entry, Season, Team
from league.selectors import season_current
from matrixhockey.db import work_lock_held, work_locks_tell

EMPTY = "empty"
PREPARING = "preparing"
RUNNING = "running"
COMPLETE = "complete"
FINISHED = "finished"


@dataclass(frozen=True)
class DivisionTeams:
    division: Division
    entries: list[Entry]


@dataclass(frozen=True)
class Preparation:
    """What a preparing season has and lacks before it can start (R16, R17, R18, R19, R20)."""

    divisions: list[DivisionTeams]
    matrices: int
    rounds: int
    pools: list[Pool]
    kdh_drawn: bool
    wg_drawn: bool

    @property
    def teams(self) -> int:
        return sum(len(division.entries) for division in self.divisions)

    @property
    def matrices_done(self) -> bool:
        return self.matrices == len(Competition)

    @property
    def calendar_done(self) -> bool:
        return self.rounds > 0

    @property
    def pools_done(self) -> bool:
        return bool(self.pools)


@dataclass(frozen=True)
class RoundState:
    """One round of the running season's current week, pool by pool."""

    round: Round
    pool_rounds: list[PoolRound]


@dataclass(frozen=True)
class SeasonDesk:
    stage: str
    season: Season | None
    preparation: Preparation | None = None
    week: int | None = None
    """While running: the week of the earliest round not yet published."""
    rounds: list[RoundState] = field(default_factory=list)
    left: tuple[RoundLeft, ...] = ()
    job: SeasonStartJob | None = None
    job_lost: bool = False
    """The start is ``running`` but its worker is gone (its work lock released with its session):
    nothing of it was stored, it can be started again."""
    job_waiting: bool = False
    """The start has been ``queued`` for a while and no worker has taken it."""


def _preparation(season: Season) -> Preparation:
    entries = (
        Entry.objects.current(season=season)
        .select_related("team", "division")
        .order_by("division__tier", "division__group", "code")
    )
    by_division: dict[int, DivisionTeams] = {}
    for division in Division.objects.order_by("tier", "group"):
        by_division[division.pk] = DivisionTeams(division=division, entries=[])
    for entry in entries:
        by_division[entry.division_id].entries.append(entry)
    pools = list(
        Pool.objects.filter(season=season)
        .prefetch_related("referees")
        .select_related("division")
        .order_by("competition", "division__tier", "division__group")
    )
    cup_rounds = PoolRound.objects.filter(pool__season=season)
    return Preparation(
        divisions=list(by_division.values()),
        matrices=Matrix.objects.filter(season=season).count(),
        rounds=Round.objects.filter(season=season).count(),
        pools=pools,
        kdh_drawn=cup_rounds.filter(pool__competition=Competition.KDH).exists(),
        wg_drawn=PoolMember.objects.filter(
            pool__season=season, pool__competition=Competition.WG
        ).exists(),
    )


def _week_rounds(season: Season, week: int) -> list[RoundState]:
    rounds = Round.objects.filter(season=season, week=week).order_by("competition", "number")
    pool_rounds = (
        PoolRound.objects.filter(round__in=rounds)
        .select_related("pool__division", "round")
        .order_by("pool__division__tier", "pool__division__group", "pool__slug")
    )
    by_round: dict[int, list[PoolRound]] = {}
    for pool_round in pool_rounds:
        by_round.setdefault(pool_round.round_id, []).append(pool_round)
    return [RoundState(round=round, pool_rounds=by_round.get(round.pk, [])) for round in rounds]


SEASON_START_WORK = 7302
"""The namespace of the advisory lock (``matrixhockey.db.work_lock``) a worker holds on a season
start job while it runs it."""
SEASON_START_QUEUE_PATIENCE = timedelta(minutes=2)
"""A start queued this long with no worker taking it: the desk says so and offers to ask again."""


def season_start_job_lost(*, job: SeasonStartJob) -> bool:
    """Whether ``job`` is ``running`` with no live worker: its worker's database session, and the
    work lock with it, is gone (only PostgreSQL can tell; elsewhere never)."""
    return (
        job.status == SeasonStartJob.Status.RUNNING
        and work_locks_tell()
        and not work_lock_held(SEASON_START_WORK, job.pk)
    )


def season_start_job_waiting(*, job: SeasonStartJob, now: datetime | None = None) -> bool:
    """Whether ``job`` has been queued longer than :data:`SEASON_START_QUEUE_PATIENCE`."""
    now = now or timezone.now()
    return (
        job.status == SeasonStartJob.Status.QUEUED
        and now - job.requested_at >= SEASON_START_QUEUE_PATIENCE
    )


def season_desk() -> SeasonDesk:
    """Where the league stands: the season the admin works on, its stage and its details, and
    the last season start's job (lost with its worker, or waiting for one)."""
    desk = _season_desk()
    if desk.job is None:
        return desk
    return replace(
        desk,
        job_lost=season_start_job_lost(job=desk.job),
        job_waiting=season_start_job_waiting(job=desk.job),
    )


def _season_desk() -> SeasonDesk:
    job = SeasonStartJob.objects.select_related("season").order_by("-pk").first()
    preparing = season_in_preparation()
    if preparing is not None:
        return SeasonDesk(
            stage=PREPARING, season=preparing, preparation=_preparation(preparing), job=job
        )
    current = season_current()
    if current is not None and current.status == Season.Status.RUNNING:
        left = season_rounds_left(season=current)
        if not left:
            return SeasonDesk(stage=COMPLETE, season=current, job=job)
        # The week of the earliest round not yet published: what the referees work on.
        week = min(item.week for item in left)
        return SeasonDesk(
            stage=RUNNING,
            season=current,
            week=week,
            rounds=_week_rounds(current, week),
            left=left,
            job=job,
        )
    finished = season_last_finished()
    if finished is not None:
        return SeasonDesk(stage=FINISHED, season=finished, job=job)
    return SeasonDesk(stage=EMPTY, season=None, job=job)


def verification_failures_open() -> list[VerificationFailure]:
    """R23: the published pool rounds that did not verify and have not verified since, each
    with its latest night's record (what differed), newest first — for the season desk."""
    failures = (
        VerificationFailure.objects.filter(resolved_at=None)
        .select_related("pool_round__pool__division", "pool_round__round__season")
        .order_by("pool_round_id", "-night")
        .distinct("pool_round_id")
    )
    return sorted(failures, key=lambda failure: failure.found_at, reverse=True)


# --- The next season's plan, as the desk shows it ------------------------------------------

PLAN_MOVES = {
    "promoted": gettext_lazy("promoted"),
    "relegated": gettext_lazy("relegated"),
    "stays": gettext_lazy("stays"),
    "barred": gettext_lazy("stays, promotion barred (R14)"),
    "joined": gettext_lazy("joins the league"),
}
"""R22, R24: each ``move`` of ``season_plan --json`` in words (``shared/SEASON.md``)."""

PLAN_LEAVING = {
    "dummy": gettext_lazy("dummy team (R14)"),
    "withdrawn": gettext_lazy("withdrawn (R24)"),
}
"""R24: each ``why`` of the plan's ``leaving`` in words."""

PLAN_WG_REASONS = {
    "division_winner": gettext_lazy("division winner"),
    "kdh_winner": gettext_lazy("KDH winner"),
    "kdh_finalist": gettext_lazy("KDH finalist"),
    "holder": gettext_lazy("WG holder"),
    "most_goals": gettext_lazy("most goals scored"),
    "fewest_against": gettext_lazy("fewest goals conceded"),
    "next_most_goals": gettext_lazy("freed place: next by most goals"),
    "next_fewest_against": gettext_lazy("freed place: next by fewest against"),
}
"""R18: each ``why`` of the plan's ``wg`` in words."""


@dataclass(frozen=True)
class PlanTeam:
    """One team of the next season's plan, named as people name it."""

    slug: str
    name: str
    code: int
    move: str
    move_label: str
    vacancy: bool
    origin: str
    """Its division this season and its place there (« Elite, 9th »), empty when it joins."""
    rank: int | None
    extra_goals: int
    extra_goal_points: list[tuple[str, int]]
    great_saves: int


@dataclass(frozen=True)
class PlanDivision:
    slug: str
    name: str
    teams: list[PlanTeam]


@dataclass(frozen=True)
class PlanNamed:
    slug: str
    name: str
    why: str


@dataclass(frozen=True)
class PlanView:
    """The plan document (``season_plan --json``) in words: a card a division, names not slugs."""

    divisions: list[PlanDivision]
    leaving: list[PlanNamed]
    wg: list[PlanNamed]
    kdh_qualifying: list[str]
    kdh_later: list[str]


def plan_view(document: dict[str, Any]) -> PlanView:
    """``document`` (the next season's plan) named for the season desk: team names from the
    league's teams (a newcomer without one yet keeps its slug), divisions in the league's order
    and by name, moves and reasons in the reader's language."""
    slugs = {item["team"] for item in document["teams"]}
    slugs |= {item["team"] for item in document.get("leaving", [])}
    names = dict(Team.objects.filter(slug__in=slugs).values_list("slug", "name"))
    divisions = {division.slug: division for division in Division.objects.order_by("tier", "group")}

    def name(slug: str) -> str:
        return names.get(slug, slug)

    by_division: dict[str, list[PlanTeam]] = {}
    for item in document["teams"]:
        origin = ""
        if item.get("from"):
            came = divisions.get(item["from"])
            origin = came.name if came is not None else str(item["from"]).upper()
        by_division.setdefault(item["to"], []).append(
            PlanTeam(
                slug=item["team"],
                name=name(item["team"]),
                code=item["code"],
                move=item["move"],
                move_label=str(PLAN_MOVES.get(item["move"], item["move"])),
                vacancy=bool(item.get("vacancy")),
                origin=origin,
                rank=item.get("rank"),
                extra_goals=item["extra_goals"],
                extra_goal_points=[
                    (str(POINT_LABELS.get(key, key)), value)
                    for key, value in item.get("extra_goal_points", {}).items()
                ],
                great_saves=item["great_saves"],
            )
        )
    order = list(divisions)
    cards = [
        PlanDivision(
            slug=slug,
            name=divisions[slug].name if slug in divisions else slug.upper(),
            teams=sorted(teams, key=lambda team: team.code),
        )
        for slug, teams in sorted(
            by_division.items(),
            key=lambda pair: order.index(pair[0]) if pair[0] in order else len(order),
        )
    ]
    kdh = document.get("kdh", {})
    return PlanView(
        divisions=cards,
        leaving=[
            PlanNamed(
                slug=item["team"],
                name=name(item["team"]),
                why=str(PLAN_LEAVING.get(item["why"], item["why"])),
            )
            for item in document.get("leaving", [])
        ],
        wg=[
            PlanNamed(
                slug=item["team"],
                name=name(item["team"]),
                why=str(PLAN_WG_REASONS.get(item["why"], item["why"])),
            )
            for item in document.get("wg", [])
        ],
        kdh_qualifying=[name(slug) for slug in kdh.get("qualifying_round", [])],
        kdh_later=[name(slug) for slug in kdh.get("enter_later", [])],
    )


@dataclass(frozen=True)
class LeftWorded:
    """A round still to publish, in words: its competition, number and week, and the pools
    (by name) whose part of it is not published — none when it is not drawn yet."""

    competition: str
    number: int
    week: int
    pools: list[str]


def rounds_left_worded(*, season: Season, left: tuple[RoundLeft, ...]) -> list[LeftWorded]:
    """``left`` (:func:`season_rounds_left`) named as the pages name them: « Championship »,
    « D2 B », « KDH », never the codes."""
    pools = Pool.objects.filter(season=season).select_related("division")
    # The league's order: the Elite, then D2 A–B, then D3 A–D.
    ordered = sorted(
        pools,
        key=lambda pool: (pool.division.tier, pool.division.group) if pool.division else (9, ""),
    )
    names = {pool.slug: pool.display_name for pool in ordered}
    order = {slug: index for index, slug in enumerate(names)}
    return [
        LeftWorded(
            competition=str(Competition(item.competition).label),
            number=item.number,
            week=item.week,
            pools=[
                names.get(slug, slug)
                for slug in sorted(item.pools, key=lambda slug: order.get(slug, len(order)))
            ],
        )
        for item in left
    ]
