"""The next season's plan (``shared/SEASON.md``): the closed season's archive turned into the
engine's :class:`~engine.season_plan.SeasonEnd`, and the engine's plan returned. Nothing of it
is a season's data until the start; the admins' draft (:class:`SeasonPlanDraft`: their group
swaps, R22) keeps the plan as computed beside them. It is computed and stored by the services
that change what it comes from (:func:`season_plan_store`: the close, a withdrawal, the
registry's waiting list and teams through ``league.signals.plan_inputs_changed``), so that the
pages between two seasons only read it back (:func:`season_plan_document`): a GET never writes.

The adapter's decisions:

* the plan is the engine's from what ``season_close`` recorded (final tables, KDH wins,
  shutouts, R14 bars, cups' honours) and from what may change after the close: withdrawals
  (R24) and the waiting list; the same data gives the same plan, as every draw is seeded by
  the archive's ``plan_seed`` (R23);
* a dummy team of the final tables leaves (R24), and so does a withdrawn team;
* a waiting-list team plays under the slug of the name it registered (``name (2)`` … when a
  team already has it, as R14's replacements do), and is a veteran (R21) when it registered
  before the season's end (the deadline of its last round);
* new dummy teams are named like R14's (``Équipe fantôme N``, the next free numbers).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from competitions.models import Competition, SeasonArchive, SeasonPlanDraft, Withdrawal
from competitions.selectors.archive import (
    championship_final_rows,
    cup_honours,
    season_archive,
    season_last_finished,
)
from competitions.services.replacement import DUMMY_TEAM_NAME
from competitions.services.start_plan import TIERS, plan_problems_worded
from competitions.services.verify import season_plan_seed_verify
from engine.season_plan import (
    FinalTable,
    LeaveReason,
    Newcomer,
    PlanError,
    SeasonEnd,
    SeasonPlan,
    WaitingTeam,
)
from engine.season_plan import season_plan as engine_season_plan
from engine.standings import StandingRow
from league.models import Season, Team, WaitingListEntry
from league.services.audit import audit_change, snapshot

DUMMY_NAMES = 84
"""How many new dummy names the plan is offered: enough for every place of a league."""


class SeasonPlanRefused(Exception):
    """No plan for this season: ``code`` ``not_finished`` (not closed yet), ``not_closed``
    (finished without ``season_close``'s archive) or ``plan_invalid`` (the stored plan is not
    a plan of the league)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class PlannedWaitingTeam:
    """A waiting-list entry as the plan sees it: the slug it would play under, and whether it
    registered before the season's end (R21's veteran points)."""

    entry: WaitingListEntry
    team: str
    veteran: bool


def _free_slug(name: str, taken: set[str]) -> str:
    candidate, number = name, 1
    while slugify(candidate) in taken:
        number += 1
        candidate = f"{name} ({number})"
    return slugify(candidate)


def season_plan_waiting_list(*, archive: SeasonArchive) -> list[PlannedWaitingTeam]:
    """The waiting list in its order (R24), each with its planned slug and veteran flag."""
    taken = set(Team.objects.values_list("slug", flat=True))
    planned = []
    waiting = WaitingListEntry.objects.filter(status=WaitingListEntry.Status.WAITING)
    for entry in waiting.order_by("registered_at", "id"):
        slug = _free_slug(entry.name, taken)
        taken.add(slug)
        planned.append(
            PlannedWaitingTeam(
                entry=entry, team=slug, veteran=entry.registered_at < archive.ended_at
            )
        )
    return planned


def season_plan_dummy_names(*, taken: set[str], count: int = DUMMY_NAMES) -> list[str]:
    """Slugs for new dummy teams: ``DUMMY_TEAM_NAME``'s next free numbers (R14, R24)."""
    number = Team.objects.filter(is_dummy=True).count()
    names: list[str] = []
    while len(names) < count:
        number += 1
        slug = slugify(DUMMY_TEAM_NAME.format(number=number))
        if slug not in taken:
            names.append(slug)
    return names


def season_end(*, season: Season) -> SeasonEnd:
    """The engine's view of ``season``'s end, from its archive and the data since."""
    archive = _closed(season)
    rows = championship_final_rows(archive=archive)
    tables: dict[str, list[StandingRow]] = {}
    tiers: dict[str, int] = {}
    for row in rows:
        division = row.pool.division
        assert division is not None  # a championship pool's (pool_division_fits_competition)
        tiers[division.slug] = division.tier
        tables.setdefault(division.slug, []).append(
            StandingRow(
                row.entry.team.slug,
                row.rank,
                row.points,
                row.played,
                row.wins,
                row.regulation_wins,
                row.draws,
                row.extra_time_losses,
                row.losses,
                row.goals_for,
                row.goals_against,
            )
        )
    leaving: dict[str, LeaveReason] = {}
    for row in rows:
        if row.entry.team.is_dummy:
            leaving[row.entry.team.slug] = LeaveReason.DUMMY
        elif hasattr(row.entry, "withdrawal"):
            leaving[row.entry.team.slug] = LeaveReason.WITHDRAWN
    honours = cup_honours(archive=archive)
    kdh = [h for h in honours if h.competition == Competition.KDH]
    waiting = season_plan_waiting_list(archive=archive)
    taken = set(Team.objects.values_list("slug", flat=True)) | {w.team for w in waiting}
    return SeasonEnd(
        season=season.number,
        seed=archive.plan_seed,
        tables=tuple(FinalTable(slug, tiers[slug], tuple(table)) for slug, table in tables.items()),
        kdh_wins={row.entry.team.slug: row.kdh_wins for row in rows if row.kdh_wins},
        shutouts={row.entry.team.slug: row.shutouts for row in rows if row.shutouts},
        kdh_finalists=tuple(h.entry.team.slug for h in kdh),
        kdh_winner=next((h.entry.team.slug for h in kdh if h.place == 1), None),
        wg_places={h.entry.team.slug: h.place for h in honours if h.competition == Competition.WG},
        barred=frozenset(row.entry.team.slug for row in rows if row.promotion_barred),
        leaving=leaving,
        waiting_list=tuple(WaitingTeam(w.team, w.veteran) for w in waiting),
        dummy_names=tuple(season_plan_dummy_names(taken=taken)),
    )


@dataclass(frozen=True)
class PlanDraw:
    """A draw of the next season's plan (R23): ``Dice(seed)``'s draw ``what`` over
    ``options`` gave ``result``; team slugs, with their names for the pages."""

    seed: str
    what: str
    options: tuple[str, ...]
    result: str
    names: dict[str, str]

    @property
    def berth(self) -> str:
        """The R18 berth the draw settled: ``most_goals``, ``fewest_goals_against`` or
        ``freed_place``."""
        return self.what.split(".")[1]

    @property
    def number(self) -> int | None:
        """A freed place's number (1, 2…), else ``None``."""
        parts = self.what.split(".")
        return int(parts[2]) if len(parts) > 2 else None

    @property
    def option_names(self) -> list[str]:
        return [self.names.get(team, team) for team in self.options]

    @property
    def result_name(self) -> str:
        return self.names.get(self.result, self.result)


@dataclass(frozen=True)
class PlanWgDraws:
    """The plan's WG draws (R18) and the seed they come from (R23)."""

    plan_seed: str
    """The archive's seed; each draw's dice is seeded ``<plan_seed>/wg``."""
    verified: bool
    """The seed is the one the season's published round seeds give
    (:func:`~competitions.services.verify.season_plan_seed_verify`)."""
    draws: list[PlanDraw]
    """Empty when R18 met no tie."""


def season_plan_wg_draws(*, season: Season) -> PlanWgDraws | None:
    """R18, R23: the dice the next season's plan threw for the WG's ties (most goals, fewest
    against, a freed place), each with its seed (the archive's ``plan_seed``, public with the
    close, :func:`~competitions.services.season_close.season_plan_seed`), in the plan's order.
    ``None`` while there is no plan: before ``season_close``, which needs every round
    published, nothing of it exists."""
    try:
        plan = season_plan(season=season)
    except SeasonPlanRefused:
        return None
    draws = [
        (seed, draw)
        for seed, made in plan.draws.items()
        for draw in made
        if draw.what.startswith("wg.")
    ]
    slugs = {team for _, draw in draws for team in draw.options}
    names = dict(Team.objects.filter(slug__in=slugs).values_list("slug", "name"))
    archive = season_archive(season=season)
    if archive is None:  # season_plan refuses a season without its archive: never here
        return None
    return PlanWgDraws(
        plan_seed=archive.plan_seed,
        verified=season_plan_seed_verify(archive=archive),
        draws=[
            PlanDraw(
                seed=seed, what=draw.what, options=draw.options, result=draw.result, names=names
            )
            for seed, draw in draws
        ],
    )


def season_plan(*, season: Season) -> SeasonPlan:
    """The plan for the season after ``season`` (R16–R18, R21, R22, R24), computed by the engine
    from ``season``'s archive; never stored. Refused (:class:`SeasonPlanRefused`) for a season
    that is not finished, or that finished without being closed by ``season_close``."""
    return engine_season_plan(season_end(season=season))


POINT_LABELS = {
    "championship_wins": gettext_lazy("championship wins"),
    "kdh_wins": gettext_lazy("KDH wins"),
    "kdh_winner": gettext_lazy("KDH winner"),
    "division_place": gettext_lazy("place in the division"),
    "relegated": gettext_lazy("relegated"),
    "promoted": gettext_lazy("promoted"),
    "veteran": gettext_lazy("played the season"),
    "wg_place": gettext_lazy("WG place"),
}
"""R21's lines of a team's extra-goal points, as the plan names them (``shared/SEASON.md``)."""


def season_plan_team(*, season: Season, team_slug: str) -> dict[str, object] | None:
    """R21, R22: where a team goes after the finished ``season`` and with what stocks, its
    points line by line (``points``: label and value) — the plan as computed, before any swap;
    ``None`` when the team is not in it or there is no plan."""
    try:
        document = season_plan_document(season=season)
    except SeasonPlanRefused:
        return None
    planned = next((item for item in document["teams"] if item["team"] == team_slug), None)
    if planned is not None:
        planned["points"] = [
            (POINT_LABELS.get(name, name), value)
            for name, value in planned["extra_goal_points"].items()
        ]
        planned["season"] = document["season"]
    return planned


def _closed(season: Season) -> SeasonArchive:
    """``season``'s archive; refused (:class:`SeasonPlanRefused`) when it has no plan."""
    # Its status as stored: a caller's copy read before ``season_close`` still says running.
    season = Season.objects.get(pk=season.pk)
    archive = season_archive(season=season)
    if season.status != Season.Status.FINISHED:
        raise SeasonPlanRefused(
            _("%(season)s is not finished: close it first.") % {"season": season},
            code="not_finished",
        )
    if archive is None:
        raise SeasonPlanRefused(
            _("%(season)s finished without being closed here: there is no record to plan from.")
            % {"season": season},
            code="not_closed",
        )
    return archive


def season_plan_state(*, archive: SeasonArchive) -> str:
    """A digest of everything the plan of the season after ``archive``'s is computed from and
    that may change once it is closed: the withdrawals (R24), the waiting list and the teams
    (their slugs, which the plan names and newcomers avoid, and the dummies). Same digest, same
    plan (every draw is seeded, R23)."""
    withdrawn = sorted(
        Withdrawal.objects.filter(entry__season_id=archive.season_id).values_list(
            "entry_id", flat=True
        )
    )
    waiting = [
        [pk, name, registered_at.isoformat()]
        for pk, name, registered_at in WaitingListEntry.objects.filter(
            status=WaitingListEntry.Status.WAITING
        )
        .order_by("pk")
        .values_list("pk", "name", "registered_at")
    ]
    # The teams' slugs: the plan names every team by its slug, and a newcomer takes the first
    # free one; dummies, for the next free dummy names.
    teams = list(Team.objects.order_by("pk").values_list("pk", "slug", "is_dummy"))
    state = [archive.pk, archive.plan_seed, withdrawn, waiting, teams]
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def season_plan_draft(*, season: Season) -> SeasonPlanDraft:
    """The admins' draft of the plan after ``season`` (one row per finished season), made when
    missing: for the services that write it."""
    draft, _created = SeasonPlanDraft.objects.get_or_create(season=season)
    return draft


def season_plan_swaps(*, season: Season) -> list[list[str]]:
    """The admins' group swaps in the draft of the plan after ``season`` (none yet: ``[]``);
    reads only."""
    swaps = SeasonPlanDraft.objects.filter(season=season).values_list("swaps", flat=True).first()
    return list(swaps or [])


def season_plan_document(*, season: Season) -> dict[str, Any]:
    """The plan as ``season_plan --json`` prints it and ``season_start`` reads it: the fields of
    ``shared/SEASON.md``, and for each team that joins what the start needs to create it — its
    ``waiting_list_entry`` (an id) or ``"dummy": true`` (R24). Same refusals as
    :func:`season_plan`.

    A read, which never writes: the draft's row keeps the plan with the digest of what it came
    from (:func:`season_plan_state`), stored by the services that change it
    (:func:`season_plan_store`); the stored plan is read back while its digest is the current
    one. Missing or stale (a change made outside the services, the admin's shell say), it is
    computed here and not stored, so that the page shows the plan the rules give now and a GET
    writes nothing; the next change through a service stores it again. A fresh copy each call:
    the caller may change it."""
    archive = _closed(season)
    stored = SeasonPlanDraft.objects.filter(season=season).values_list("plan", "plan_state").first()
    if stored is not None and stored[0] and stored[1] == season_plan_state(archive=archive):
        return json.loads(stored[0])
    return _document(season=season)


def season_plan_store(*, season: Season) -> SeasonPlanDraft | None:
    """Compute the plan after ``season`` and keep it in the draft's row with the digest of what
    it came from (:func:`season_plan_state`); ``None`` when ``season`` has no plan (not closed).
    Called by every service that changes what the plan comes from, in its transaction: the
    close (:func:`~competitions.services.season_close.season_close`), a withdrawal
    (:func:`~competitions.services.withdrawal.entry_withdraw`), the registry's waiting list and
    teams (:func:`season_plan_refresh`, on ``league.signals.plan_inputs_changed``)."""
    try:
        archive = _closed(season)
    except SeasonPlanRefused:
        return None
    document = json.dumps(_document(season=season), ensure_ascii=False)
    state = season_plan_state(archive=archive)
    draft = season_plan_draft(season=season)
    SeasonPlanDraft.objects.filter(pk=draft.pk).update(plan=document, plan_state=state)
    draft.plan, draft.plan_state = document, state
    return draft


def season_plan_refresh() -> SeasonPlanDraft | None:
    """Store the plan again (:func:`season_plan_store`) for the season it is pending for: the
    last finished season, while no later season has started. ``None`` when there is none."""
    finished = season_last_finished()
    if finished is None:
        return None
    later = Season.objects.filter(number__gt=finished.number).exclude(
        status=Season.Status.PREPARING
    )
    if later.exists():
        return None
    return season_plan_store(season=finished)


def _document(*, season: Season) -> dict[str, Any]:
    """The plan computed by the engine, each waiting-list team with its entry's id."""
    plan = season_plan(season=season)
    archive = season_archive(season=season)
    assert archive is not None  # season_plan() refuses a season not closed
    waiting = {
        planned.team: planned.entry.pk for planned in season_plan_waiting_list(archive=archive)
    }
    return replace(
        plan,
        teams=tuple(
            replace(planned, waiting_list_entry=waiting[planned.team])
            if planned.newcomer is Newcomer.WAITING_LIST and planned.team in waiting
            else planned
            for planned in plan.teams
        ),
    ).as_dict()


def season_plan_drafted(*, season: Season) -> SeasonPlan:
    """The plan after ``season`` as the admins left it: computed from the rules
    (:func:`season_plan_document`), read back through :meth:`SeasonPlan.from_dict`, with the
    draft's group swaps applied (R22). Same refusals as :func:`season_plan`, and
    ``plan_invalid`` (its problems worded) when the stored plan is not a plan of the league."""
    document = season_plan_document(season=season)
    swaps = season_plan_swaps(season=season)
    try:
        plan = SeasonPlan.from_dict(document, divisions=tuple(TIERS.items()))
    except PlanError as error:  # a stored plan edited by hand, say: said, never a crash
        raise SeasonPlanRefused(
            " · ".join(plan_problems_worded(error)), code="plan_invalid"
        ) from error
    return plan.swapped((first, second) for first, second in swaps)


def season_plan_swap(
    *, season: Season, first: str, second: str, by: User | None = None
) -> SeasonPlanDraft:
    """R22: teams ``first`` and ``second`` exchange their group and code in the draft (two
    teams of one tier that move the same way; any other pair changes nothing when applied)."""
    with transaction.atomic():
        draft = SeasonPlanDraft.objects.select_for_update().get(
            pk=season_plan_draft(season=season).pk
        )
        before = snapshot(draft, ["swaps"])
        draft.swaps = [*draft.swaps, [first, second]]
        draft.updated_by = by
        draft.save(update_fields=["swaps", "updated_by", "updated_at"])
        audit_change(
            actor=by, obj=draft, before=before, after=snapshot(draft, ["swaps"]), kind="season"
        )
    return draft


def season_plan_swaps_reset(*, season: Season, by: User | None = None) -> None:
    """The draft back to the plan's default groups (R22's serpentine)."""
    draft = season_plan_draft(season=season)
    before = snapshot(draft, ["swaps"])
    SeasonPlanDraft.objects.filter(pk=draft.pk).update(
        swaps=[], updated_by=by, updated_at=timezone.now()
    )
    draft.refresh_from_db(fields=["swaps"])
    audit_change(
        actor=by, obj=draft, before=before, after=snapshot(draft, ["swaps"]), kind="season"
    )


__all__ = [
    "DUMMY_NAMES",
    "POINT_LABELS",
    "PlanDraw",
    "PlanWgDraws",
    "PlannedWaitingTeam",
    "SeasonPlanRefused",
    "season_end",
    "season_plan",
    "season_plan_document",
    "season_plan_draft",
    "season_plan_drafted",
    "season_plan_dummy_names",
    "season_plan_refresh",
    "season_plan_state",
    "season_plan_store",
    "season_plan_swap",
    "season_plan_swaps",
    "season_plan_swaps_reset",
    "season_plan_team",
    "season_plan_waiting_list",
    "season_plan_wg_draws",
]
