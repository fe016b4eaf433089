"""Starting a season: its preparation piece by piece (the season desk's buttons, each draw shown
before it is committed) and the start itself, in one transaction.

A season in preparation (the imported first season, or one created from a plan,
:func:`season_create_from_plan`) gets:

* its matrices, a die per cell (R19), editable until the start (:func:`season_prepare_matrices`);
* its calendar (R20): every round's week and deadline (R13) from its first Monday, the skipped
  weeks (e.g. Christmas) moving the later rounds one week each (:func:`season_prepare_calendar`);
* its pools and their referees, last season's by default (:func:`season_prepare_pools`);
* the KDH's first round drawn (R17, :func:`season_prepare_kdh`) and the WG's groups (R18, the
  first season's twelve picked by an admin, :func:`season_prepare_wg`).

The season's own draws (matrices, the cups' opening draws) come from its secret seed
(``Season.seed``), each through a seed derived from it (:func:`season_draw_seed`), so a
preview (``season_*_preview``) shows exactly what the commit will store, and publishing one
draw's seed (R23) reveals nothing of the others.

:func:`season_start` starts a season: from a plan (``shared/SEASON.md``: season N+1 created,
entered and prepared with everything above at once) or the season in preparation (what was not
prepared yet gets its default). Every championship round's pool round is created with its seed
committed (R23), and the season becomes the current one, ``running``; the coaches are told
(``competitions.signals.season_started``). One transaction: refused, nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions.models import CUPS, Competition, Matrix, Pool, PoolRound, Round
from competitions.services.season_entries import season_create_from_plan_checked
from competitions.services.setup import (
    KdhOpening,
    WgOpening,
    championship_schedule_create,
    kdh_opening_draw,
    kdh_start,
    matrix_create,
    pool_create,
    season_rounds_create,
    wg_group_draw,
    wg_start,
)
from competitions.services.start_plan import TIERS, SeasonStartRefused, start_plan_read
from competitions.signals import season_started
from engine import commitment, kdh
from engine.calendar import SEASON_WEEKS, SeasonCompetition, rounds_in_week, week_of
from engine.dice import Dice
from engine.matrices import Matrix as EngineMatrix
from engine.matrices import draw_matrix
from league.models import RULES_VERSION, Division, Entry, Season
from league.public_cache import public_version_bump
from league.services.audit import audit_record, changes, snapshot
from league.services.seasons import STANDARD_DIVISIONS, season_make_current
from matrixhockey.db import save_valid

Progress = Callable[[int, int, str], None]
"""``progress(done, total, message)``: how far a start is (the desk's bar, the command's lines)."""


def season_draw_seed(*, number: int, seed: str, what: str) -> str:
    """The seed of one of a season's own draws (R23): readable where it belongs, derived from
    the season's secret ``seed`` so that publishing it reveals neither the seed nor the others."""
    return f"{number}/{what}/{commitment(f'{seed}/{what}')[:32]}"


def _preparing(season: Season) -> Season:
    """``season``, locked, refused unless it is in preparation."""
    locked = Season.objects.select_for_update().get(pk=season.pk)
    if locked.status != Season.Status.PREPARING:
        raise SeasonStartRefused(
            "not_preparing",
            [
                _("%(season)s is %(status)s, not in preparation.")
                % {"season": locked, "status": locked.get_status_display()}
            ],
        )
    # Every step that writes a season in preparation passes here, and each changes what the
    # public reads of it show (/api/seasons/N/: its calendar; its pools and cup draws).
    public_version_bump()
    return locked


# --- Matrices (R19) ----------------------------------------------------------------------------


def season_matrices_preview(*, season: Season) -> dict[str, EngineMatrix]:
    """The three matrices the season's dice draw (R19), by competition; nothing stored."""
    return {
        competition.value: draw_matrix(
            competition,
            Dice(
                season_draw_seed(
                    number=season.number, seed=season.seed, what=f"matrix/{competition.value}"
                )
            ),
        )
        for competition in SeasonCompetition
    }


@transaction.atomic
def season_prepare_matrices(
    *, season: Season, values: Mapping[str, Mapping[int, Mapping[str, int]]] | None = None
) -> list[Matrix]:
    """The season's three matrices: ``values[competition][round][column]`` where given (an
    admin's edit, replacing the stored matrix), else the stored one, else the season's dice's
    (:func:`season_matrices_preview`). Refused once the season has started (R19)."""
    season = _preparing(season)
    values = values or {}
    drawn = season_matrices_preview(season=season)
    matrices = []
    for competition in SeasonCompetition:
        stored = Matrix.objects.filter(season=season, competition=competition.value).first()
        given = values.get(competition.value)
        if stored is not None and given is None:
            matrices.append(stored)
            continue
        if stored is not None:
            stored.delete()
        rows = given or {
            number: row for number, row in enumerate(drawn[competition.value].as_rows(), start=1)
        }
        matrices.append(matrix_create(season=season, competition=competition.value, values=rows))
    return matrices


# --- The calendar (R20, R13) -------------------------------------------------------------------


@dataclass(frozen=True)
class CalendarWeek:
    """A calendar week of a season: its Monday and deadline (R13), and the rounds it holds by
    competition (none in a skipped week)."""

    week: int
    monday: date
    deadline: datetime
    skipped: bool
    rounds: dict[str, tuple[int, ...]]


def season_calendar_preview(
    *, season: Season, starts_on: date | None = None, skipped_weeks: Sequence[int] | None = None
) -> list[CalendarWeek]:
    """The season's weeks with ``starts_on`` and ``skipped_weeks`` (default: the season's), from
    its first to its last round; nothing stored. Raises ``ValidationError`` for a start that is
    not a Monday or weeks that cannot be skipped (the engine's check)."""
    draft = Season(
        number=season.number,
        starts_on=starts_on or season.starts_on,
        time_zone=season.time_zone,
        deadline_weekday=season.deadline_weekday,
        deadline_time=season.deadline_time,
        skipped_weeks=list(season.skipped_weeks if skipped_weeks is None else skipped_weeks),
    )
    draft.clean()
    played = {draft.calendar_week(week): week for week in range(1, SEASON_WEEKS + 1)}
    return [
        CalendarWeek(
            week=week,
            monday=draft.week_monday(week),
            deadline=draft.deadline_for_week(week),
            skipped=week not in played,
            rounds=rounds_in_week(played[week]) if week in played else {},
        )
        for week in range(1, max(played) + 1)
    ]


CALENDAR_FIELDS = ("starts_on", "skipped_weeks")
"""The season's settings its calendar is drawn from, recorded before and after a change."""


@transaction.atomic
def season_prepare_calendar(
    *,
    season: Season,
    starts_on: date | None = None,
    skipped_weeks: Sequence[int] | None = None,
    by: User | None = None,
) -> list[Round]:
    """Every round of the season with its week and deadline (R20, R13), from ``starts_on`` (a
    Monday) and with ``skipped_weeks`` (calendar weeks without rounds; each moves the later
    rounds a week on). Given again, the rounds move. Raises ``ValidationError`` for a start that
    is not a Monday or weeks that cannot be skipped."""
    season = _preparing(season)
    before = snapshot(season, CALENDAR_FIELDS)
    if starts_on is not None:
        season.starts_on = starts_on
    if skipped_weeks is not None:
        season.skipped_weeks = sorted(skipped_weeks)
    save_valid(season)
    rounds = list(Round.objects.filter(season=season).order_by("competition", "number"))
    if not rounds:
        rounds = season_rounds_create(season=season)
    now = timezone.now()
    for round in rounds:
        week = season.calendar_week(_season_week(round))
        deadline = season.deadline_for_week(week)
        if deadline != round.deadline:
            # The calendar feeds' SEQUENCE and LAST-MODIFIED: subscribers update the event.
            round.calendar_sequence += 1
            round.calendar_changed_at = now
        round.week, round.deadline = week, deadline
    Round.objects.bulk_update(
        rounds, ["week", "deadline", "calendar_sequence", "calendar_changed_at"]
    )
    audit_record(
        actor=by,
        action="season_calendar",
        obj=season,
        payload={
            "starts_on": season.starts_on,
            "skipped_weeks": season.skipped_weeks,
            "changes": changes(before, snapshot(season, CALENDAR_FIELDS)),
        },
    )
    return rounds


def _season_week(round: Round) -> int:
    """The season's week (1–10) of ``round`` as the engine's calendar places it (R20)."""
    return week_of(round.competition, round.number)


# --- Pools and referees ------------------------------------------------------------------------


def _previous(season: Season) -> Season | None:
    return Season.objects.filter(number__lt=season.number).order_by("-number").first()


def season_pool_slugs() -> list[str]:
    """The slugs of a season's nine pools, made or to make: the divisions', then the cups'."""
    divisions = Division.objects.order_by("tier", "group").values_list("slug", flat=True)
    return [*divisions, *(cup.value for cup in CUPS)]


@transaction.atomic
def season_prepare_pools(
    *,
    season: Season,
    referees: Mapping[str, Iterable[User]] | None = None,
) -> list[Pool]:
    """The season's nine pools (the seven divisions, the KDH, the WG), created where missing,
    with their referees: ``referees[slug]`` where given, else — for a new pool — the referees
    of the same pool last season (none the first season)."""
    season = _preparing(season)
    referees = referees or {}
    previous = _previous(season)
    pools = []
    divisions: list[Division | None] = list(Division.objects.order_by("tier", "group"))
    wanted = [
        (competition, division)
        for competition in Competition
        for division in (divisions if competition.kind.divisional else [None])
    ]
    for competition, division in wanted:
        slug = division.slug if division else competition.value
        pool = Pool.objects.filter(season=season, competition=competition, slug=slug).first()
        if pool is None:
            before = Pool.objects.filter(season=previous, competition=competition, slug=slug)
            pool = pool_create(
                season=season,
                competition=competition,
                division=division,
                referees=get_user_model().objects.filter(refereed_pools__in=before).distinct(),
            )
        if slug in referees:
            pool.referees.set(referees[slug])
        pools.append(pool)
    return pools


# --- The cups' opening draws (R17, R18) --------------------------------------------------------


def _playing(season: Season) -> list[Entry]:
    return list(Entry.objects.current(season=season).select_related("team", "division"))


def _kdh_seed(season: Season) -> str:
    return season_draw_seed(number=season.number, seed=season.seed, what="kdh/opening-draw")


def _wg_seed(season: Season) -> str:
    return season_draw_seed(number=season.number, seed=season.seed, what="wg/opening-draw")


def season_kdh_preview(*, season: Season) -> KdhOpening:
    """The KDH's first round as the season's dice draw it (R17); nothing stored."""
    field = [kdh.Entrant(e.team.slug, e.division.tier, e.code) for e in _playing(season)]
    return kdh_opening_draw(field=field, seed=_kdh_seed(season))


def season_wg_preview(*, season: Season, entries: Sequence[Entry]) -> WgOpening:
    """The WG's groups as the season's dice draw them for these twelve (R18); nothing stored.
    Raises ``InputError`` unless they are twelve different teams."""
    return wg_group_draw(teams=[e.team.slug for e in entries], seed=_wg_seed(season))


def _cup_pool(season: Season, competition: Competition) -> Pool:
    pool = Pool.objects.filter(season=season, competition=competition).first()
    if pool is None:
        raise SeasonStartRefused("not_ready", [_("Create the season's pools first.")])
    if not Round.objects.filter(season=season, competition=competition).exists():
        raise SeasonStartRefused("not_ready", [_("Make the season's calendar first.")])
    if PoolRound.objects.filter(pool=pool).exists():
        raise SeasonStartRefused(
            "already_drawn",
            [_("The %(cup)s is already drawn.") % {"cup": competition.label}],
        )
    return pool


@transaction.atomic
def season_prepare_kdh(*, season: Season) -> PoolRound:
    """Commit the KDH's first round (R17), exactly :func:`season_kdh_preview`'s draw. Needs the
    calendar and the pools; refused once drawn."""
    season = _preparing(season)
    return kdh_start(pool=_cup_pool(season, Competition.KDH), seed=_kdh_seed(season))


@transaction.atomic
def season_prepare_wg(*, season: Season, entries: Sequence[Entry]) -> list[PoolRound]:
    """Commit the WG's groups for these twelve (R18: the first season, an admin's pick), exactly
    :func:`season_wg_preview`'s draw. Needs the calendar and the pools; refused once drawn, or
    unless ``entries`` are twelve different teams playing the season."""
    season = _preparing(season)
    pool = _cup_pool(season, Competition.WG)
    if len({e.pk for e in entries}) != 12 or any(
        e.season_id != season.pk or e.replaced_at is not None for e in entries
    ):
        raise SeasonStartRefused(
            "not_ready", [_("The WG needs twelve different teams of the season (R18).")]
        )
    return wg_start(pool=pool, entries=entries, seed=_wg_seed(season))


# --- The start ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartPreview:
    """What a start from a plan will draw with ``seed`` (the KDH's first round, the WG's
    groups), for the desk to show before the start."""

    seed: str
    kdh: KdhOpening
    wg: WgOpening


def season_start_preview(*, plan: Mapping[str, object], seed: str) -> StartPreview:
    """The cups' opening draws a start from ``plan`` with ``seed`` will make (R17, R18); nothing
    stored. Raises :class:`SeasonStartRefused` (``plan_invalid``) for a bad plan."""
    checked = start_plan_read(plan)
    field = [kdh.Entrant(t.team, TIERS[t.to], t.code) for t in checked.teams]
    draft = Season(number=checked.season, seed=seed)
    return StartPreview(
        seed=seed,
        kdh=kdh_opening_draw(field=field, seed=_kdh_seed(draft)),
        wg=wg_group_draw(teams=[t.team for t in checked.wg], seed=_wg_seed(draft)),
    )


class _Steps:
    """Counts the start's steps for ``progress``."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, message: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, message)


START_STEPS = 7 + len(STANDARD_DIVISIONS)
"""Steps of a start from a preparing season: checked, matrices, calendar, pools, a schedule per
division, the KDH, the WG, made current; a start from a plan adds one per division (entries)."""


def season_start(
    *,
    plan: Mapping[str, object] | None = None,
    season: Season | None = None,
    by: User | None = None,
    progress: Progress | None = None,
    starts_on: date | None = None,
    skipped_weeks: Sequence[int] | None = None,
    seed: str | None = None,
    wg_teams: Sequence[str] | None = None,
    referees: Mapping[str, Iterable[User]] | None = None,
) -> Season:
    """Start a season, in one transaction; returns it, current and ``running``.

    With ``plan`` (``season_plan --json``'s document): season N+1 is created from it
    (:func:`~competitions.services.season_entries.season_create_from_plan`, with ``starts_on``,
    ``skipped_weeks`` and ``seed`` — the one a :func:`season_start_preview` showed), then
    prepared whole: matrices, calendar, pools with last season's referees (or ``referees``),
    the KDH's first round and the plan's WG groups drawn. Without a plan: ``season`` or else the
    season in preparation, whatever it still lacks prepared the same way (its WG needs its twelve
    drawn already or given as ``wg_teams``, team slugs; ``starts_on`` and ``skipped_weeks`` move
    its calendar). Then every championship round's pool round with its seed committed (R23), the
    season made current and ``running``, and ``season_started`` sent (the coaches' emails).

    ``progress(done, total, message)`` is called after each step. Raises
    :class:`SeasonStartRefused`: ``season_running`` (a season is running), ``plan_invalid`` (the
    plan is not 84 teams in 7 divisions of 12 with codes 01–12 once each, …, every problem
    listed), ``no_season``, ``season_exists``, ``not_preparing``, ``not_ready`` (no WG twelve),
    ``deadline_passed`` (the first round's deadline is past: move the start), ``invalid`` (a
    start that is not a Monday, weeks that cannot be skipped). Nothing is stored when it
    refuses.
    """
    steps = _Steps(progress, START_STEPS + (len(STANDARD_DIVISIONS) if plan is not None else 0))
    try:
        return _start(
            plan=plan,
            season=season,
            by=by,
            steps=steps,
            starts_on=starts_on,
            skipped_weeks=skipped_weeks,
            seed=seed,
            wg_teams=wg_teams,
            referees=referees,
        )
    except ValidationError as error:  # a start date that is not a Monday, a bad week to skip…
        raise SeasonStartRefused("invalid", error.messages) from error


def _start(
    *,
    plan: Mapping[str, object] | None,
    season: Season | None,
    by: User | None,
    steps: _Steps,
    starts_on: date | None,
    skipped_weeks: Sequence[int] | None,
    seed: str | None,
    wg_teams: Sequence[str] | None,
    referees: Mapping[str, Iterable[User]] | None,
) -> Season:
    with transaction.atomic():
        # Every season row locked: two starts at once run one after the other, and the second
        # finds the first's season running.
        seasons = list(Season.objects.select_for_update().order_by("number"))
        running = [s for s in seasons if s.status == Season.Status.RUNNING]
        if running:
            raise SeasonStartRefused(
                "season_running",
                [
                    _("%(season)s is running: close it before starting another.")
                    % {"season": running[0]}
                ],
            )
        if plan is not None:
            checked = start_plan_read(plan)
            steps(_("Plan checked"))
            season = season_create_from_plan_checked(
                plan=checked,
                by=by,
                starts_on=starts_on,
                skipped_weeks=skipped_weeks or (),
                seed=seed,
                step=steps,
            )
            wg_teams = [t.team for t in checked.wg]
        else:
            season = _season_to_start(season, seasons)
            steps(_("%(season)s checked") % {"season": season})
        season = _prepare_all(
            season,
            steps,
            starts_on=None if plan is not None else starts_on,
            skipped_weeks=None if plan is not None else skipped_weeks,
            wg_teams=wg_teams,
            referees=referees,
        )
        first = Round.objects.filter(season=season).order_by("deadline").first()
        if first is None or first.deadline <= timezone.now():
            raise SeasonStartRefused(
                "deadline_passed",
                [_("The first round's deadline has passed: move the season's start.")],
            )
        season.status = Season.Status.RUNNING
        # The rulebook in force when it starts stays the season's, for its archive.
        season.rules_version = RULES_VERSION
        season.save(update_fields=["status", "rules_version"])
        season_make_current(season=season, by=by)
        audit_record(
            actor=by,
            action="season_start",
            obj=season,
            payload={
                "plan": plan is not None,
                "changes": changes(
                    {"status": Season.Status.PREPARING}, {"status": Season.Status.RUNNING}
                ),
            },
        )
        season_started.send(sender=Season, season=season, by=by)
        steps(_("%(season)s started: current and running") % {"season": season})
    return season


def _season_to_start(season: Season | None, seasons: list[Season]) -> Season:
    preparing = [s for s in seasons if s.status == Season.Status.PREPARING]
    if season is None:
        if not preparing:
            raise SeasonStartRefused(
                "no_season",
                [_("No season is in preparation: start the next one from its plan.")],
            )
        return preparing[0]
    return _preparing(season)


def _prepare_all(
    season: Season,
    steps: Callable[[str], None],
    *,
    starts_on: date | None,
    skipped_weeks: Sequence[int] | None,
    wg_teams: Sequence[str] | None,
    referees: Mapping[str, Iterable[User]] | None,
) -> Season:
    """Whatever ``season`` still lacks, prepared with its defaults, then its championship
    schedules (each round's pool round and its seed commitment, R23)."""
    season_prepare_matrices(season=season)
    steps(_("Matrices ready (R19)"))
    has_rounds = Round.objects.filter(season=season).exists()
    if not has_rounds or starts_on is not None or skipped_weeks is not None:
        season_prepare_calendar(season=season, starts_on=starts_on, skipped_weeks=skipped_weeks)
    steps(_("Calendar ready (R20)"))
    pools = {p.slug: p for p in season_prepare_pools(season=season, referees=referees)}
    steps(_("Pools and referees ready"))
    for division in Division.objects.order_by("tier", "group"):
        pool = pools[division.slug]
        if not PoolRound.objects.filter(pool=pool).exists():
            championship_schedule_create(pool=pool)
        steps(
            _("%(division)s: schedule and seeds committed (R20, R23)") % {"division": division.name}
        )
    if not PoolRound.objects.filter(pool=pools[Competition.KDH.value]).exists():
        season_prepare_kdh(season=season)
    steps(_("KDH: first round drawn (R17)"))
    if not PoolRound.objects.filter(pool=pools[Competition.WG.value]).exists():
        if not wg_teams:
            raise SeasonStartRefused(
                "not_ready", [_("Pick the WG's twelve teams and draw its groups first (R18).")]
            )
        entries = {e.team.slug: e for e in _playing(season)}
        unknown = [slug for slug in wg_teams if slug not in entries]
        if unknown:
            raise SeasonStartRefused(
                "not_ready",
                [_("Not teams of the season: %(teams)s.") % {"teams": ", ".join(unknown)}],
            )
        season_prepare_wg(season=season, entries=[entries[slug] for slug in wg_teams])
    steps(_("WG: groups drawn (R18)"))
    return Season.objects.get(pk=season.pk)
