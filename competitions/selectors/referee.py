"""The referee's desk: which pools a referee holds, each round's state and who sent picks
(never what), late picks, and the arbitration requests' fate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import F, Max
from django.utils import timezone

from competitions.models import (
    ArbitrationRequest,
    Fixture,
    FixtureResult,
    LatePick,
    Pick,
    Pool,
    PoolRound,
)
from competitions.selectors.entries import PLAYED, entry_placed_late
from competitions.selectors.results import pool_round_results
from competitions.services.errors import ArbitrationRefused, arbitration_refusal_of
from league.models import Entry
from matrixhockey.db import work_lock_held, work_locks_held

ARBITRATION_REQUESTED = "pool_round_arbitration_request"
ARBITRATION_REFUSED = "pool_round_arbitration_refused"
ARBITRATION_STARTED = "pool_round_arbitration_started"
"""The audit-log actions of a request to arbitrate, a worker taking it and a worker's refusal,
each with the request's id and task id: history only — the state is the
:class:`~competitions.models.ArbitrationRequest` row."""

ARBITRATION_WORK = 7301
"""The namespace of the advisory lock (``matrixhockey.db.work_lock``) a worker holds on a pool
round while it arbitrates it: held, the arbitration is running; released without a result, its
worker stopped."""

ARBITRATION_REQUEST_STALE = timedelta(minutes=2)
"""A request no worker has taken after this long: the desk says so and offers to ask again."""


def user_referees_pool(*, user: User, pool: Pool) -> bool:
    """Whether ``user`` may arbitrate ``pool``: one of its referees, or staff."""
    return user.is_authenticated and (user.is_staff or pool.referees.filter(pk=user.pk).exists())


def arbitration_request_last(*, pool_round: PoolRound) -> ArbitrationRequest | None:
    """The last request to arbitrate ``pool_round``, or ``None``."""
    return ArbitrationRequest.objects.filter(pool_round=pool_round).order_by("-pk").first()


def arbitration_request_running(*, request: ArbitrationRequest) -> bool:
    """Whether a live worker runs ``request`` (it holds the pool round's work lock)."""
    return request.status == ArbitrationRequest.Status.STARTED and work_lock_held(
        ARBITRATION_WORK, request.pool_round_id
    )


def arbitration_request_stuck(*, request: ArbitrationRequest, now: datetime) -> bool:
    """Whether pending ``request`` went nowhere: queued longer than
    :data:`ARBITRATION_REQUEST_STALE` with no worker taking it, or taken by a worker that
    stopped (its work lock gone with its database session) — asking again is then allowed."""
    if request.status == ArbitrationRequest.Status.REQUESTED:
        return now - request.requested_at >= ARBITRATION_REQUEST_STALE
    return request.status == ArbitrationRequest.Status.STARTED and not (
        arbitration_request_running(request=request)
    )


@dataclass(frozen=True)
class ArbitrationState:
    """Where the last request to arbitrate a pool round stands, from its
    :class:`~competitions.models.ArbitrationRequest` row and the worker's lock — said as it is:
    queued and not taken, running, lost with its worker, or refused (with why). All empty: no
    request is outstanding."""

    requested_at: datetime | None = None
    """When the request was queued, while no worker has taken it yet."""
    refusal: ArbitrationRefused | None = None
    """Why the last request was refused, when it was: its code and facts, worded when shown
    (``str()``), in the reader's language."""
    started_at: datetime | None = None
    """When a worker took the request, while no result came of it."""
    running: bool = False
    """A worker is arbitrating right now (it holds the pool round's work lock)."""
    ask_again: bool = False
    """The request went nowhere (queued too long, or its worker stopped): the desk offers to
    ask again; asking again is safe, the request is claimed by one worker only."""
    attempts: int = 0
    """How many times a worker took the request (2 and more: handed out again or retried)."""
    request: ArbitrationRequest | None = None
    """The request row itself, while it is outstanding or refused."""

    @property
    def lost(self) -> bool:
        """A worker took the request and stopped before storing a result."""
        return self.started_at is not None and not self.running

    @property
    def status(self) -> str | None:
        """The request's status (``requested``, ``started``, ``refused``), ``None`` when none
        is outstanding."""
        return self.request.status if self.request is not None else None


def pool_round_arbitration_state(
    *, pool_round: PoolRound, now: datetime | None = None
) -> ArbitrationState:
    """Where the last request to arbitrate ``pool_round`` stands: its request row (one query),
    and while a worker has it, the worker's advisory lock (:data:`ARBITRATION_WORK`, released by
    PostgreSQL when a worker's session ends, however it died). Nothing here reads the audit log,
    which only keeps the history."""
    return pool_rounds_arbitration_states(pool_rounds=[pool_round], now=now)[pool_round.pk]


def pool_rounds_arbitration_states(
    *, pool_rounds: Sequence[PoolRound], now: datetime | None = None
) -> dict[int, ArbitrationState]:
    """:func:`pool_round_arbitration_state` of each of ``pool_rounds`` (by id), in two queries
    whatever their number: the last request of each, and the work locks of those a worker
    took."""
    now = now or timezone.now()
    states = {pool_round.pk: ArbitrationState() for pool_round in pool_rounds}
    unplayed = [pool_round.pk for pool_round in pool_rounds if pool_round.status not in PLAYED]
    if not unplayed:
        return states
    last_ids = (
        ArbitrationRequest.objects.filter(pool_round_id__in=unplayed)
        .values("pool_round_id")
        .annotate(last=Max("pk"))
        .values("last")
    )
    lasts = list(ArbitrationRequest.objects.filter(pk__in=last_ids))
    started = [
        last.pool_round_id for last in lasts if last.status == ArbitrationRequest.Status.STARTED
    ]
    running = work_locks_held(ARBITRATION_WORK, started) if started else set()
    for last in lasts:
        states[last.pool_round_id] = _arbitration_state(
            last, running=last.pool_round_id in running, now=now
        )
    return states


def _arbitration_state(
    last: ArbitrationRequest, *, running: bool, now: datetime
) -> ArbitrationState:
    """The state a pool round's last request ``last`` says, its worker ``running`` or not."""
    if last.status == ArbitrationRequest.Status.DONE:
        return ArbitrationState()
    if last.status == ArbitrationRequest.Status.REFUSED:
        refusal = arbitration_refusal_of({"code": last.refusal_code, "facts": last.refusal_facts})
        return ArbitrationState(
            refusal=refusal,
            ask_again=True,
            attempts=last.attempts,
            request=last,
        )
    if last.status == ArbitrationRequest.Status.REQUESTED:
        stale = now - last.requested_at >= ARBITRATION_REQUEST_STALE
        return ArbitrationState(
            requested_at=last.requested_at, ask_again=stale, attempts=last.attempts, request=last
        )
    return ArbitrationState(
        started_at=last.started_at,
        running=running,
        ask_again=not running,
        attempts=last.attempts,
        request=last,
    )


@dataclass(frozen=True)
class DeskTeam:
    """A team of a pool round on the referee's desk: whether its pick came in, when and how —
    never what (R12: secret until the round is published)."""

    entry: Entry
    received_at: datetime | None
    """When the pick that counts so far was received (R12, R13), ``None`` when none did."""
    channel: str
    """How it came: ``web``, ``email`` or ``referee`` (empty when none did)."""
    picks_received: int
    """How many picks the team sent for this round (the last one counts, R12)."""
    placed_late: bool = False
    """R14: placed by a replacement after the deadline, it plays the pick the team it replaces
    had sent (``received_at`` and ``channel`` are that pick's), or else a random legal one."""

    @property
    def dummy(self) -> bool:
        """R14: a dummy team plays random legal picks, it is never ONR."""
        return self.entry.team.is_dummy

    @property
    def onr(self) -> bool:
        """No pick received so far (R4, R14, R15); never a dummy, nor a team placed after the
        deadline (R14)."""
        return self.received_at is None and not self.dummy and not self.placed_late

    def get_channel_display(self) -> str:
        return str(Pick.Channel(self.channel).label) if self.channel else ""


@dataclass(frozen=True)
class DeskLatePick:
    """R13: a pick emailed after the deadline, waiting for the referee — which team and when, not
    the pick (secret until published)."""

    pk: int
    entry: Entry
    received_at: datetime


@dataclass(frozen=True)
class DeskScore:
    """A game's score as the referee checks it; the played picks only once published (R12)."""

    home: Entry
    away: Entry
    home_goals: int
    away_goals: int
    decided: str
    winner: Entry | None
    home_display: str
    """The played pick in result notation (R10) once published, empty before."""
    away_display: str

    def get_decided_display(self) -> str:
        return str(FixtureResult.Decided(self.decided).label)


@dataclass(frozen=True)
class RefereeDesk:
    """One pool round as its referee works on it (``/referee/…``)."""

    pool_round: PoolRound
    status: str
    """``pending``, ``arbitrating`` (a request is running), ``arbitrated``, ``published`` or
    ``void``."""
    deadline_passed: bool
    teams: list[DeskTeam]
    late_picks: list[DeskLatePick]
    scores: list[DeskScore]
    refusal: ArbitrationRefused | None
    """Why the last request to arbitrate was refused, when it was (worded by ``str()``)."""
    arbitration: ArbitrationState = ArbitrationState()
    """Where the last request to arbitrate stands (queued, running, lost, refused)."""

    @property
    def is_open(self) -> bool:
        """Whether picks are still open (before the deadline)."""
        return not self.deadline_passed

    @property
    def onr(self) -> list[DeskTeam]:
        return [team for team in self.teams if team.onr]

    @property
    def received(self) -> int:
        return sum(1 for team in self.teams if not team.onr)


def referee_desk(*, pool_round: PoolRound, now: datetime | None = None) -> RefereeDesk:
    """What the referee of ``pool_round`` sees: each team with whether its pick came in (when and
    how, never what), who is ONR so far, the late picks waiting for a decision (R13), the state
    of the arbitration and, once arbitrated, the scores to check with each team's played pick
    in the rules' display (R10): only the pool's referees and staff open this desk, and the rest
    of the league sees those picks once the round is published.

    The pick that counts is the arbitration's (R12, R13): the last received by the deadline, or
    entered by a referee after it.
    """
    pool_round = PoolRound.objects.select_related(
        "pool__division", "round__season", "arbitrated_by"
    ).get(pk=pool_round.pk)
    desk = referee_desks(pool_rounds=[pool_round], now=now)[pool_round.pk]
    if pool_round.status not in PLAYED:
        return desk
    results = pool_round_results(pool_round=pool_round, reveal=True)
    scores = [
        DeskScore(
            home=game.home,
            away=game.away,
            home_goals=game.home_goals,
            away_goals=game.away_goals,
            decided=game.decided,
            winner=game.winner,
            home_display=game.home_pick.display if game.home_pick else "",
            away_display=game.away_pick.display if game.away_pick else "",
        )
        for game in results.games
    ]
    return replace(desk, scores=scores)


def referee_desks(
    *, pool_rounds: Sequence[PoolRound], now: datetime | None = None
) -> dict[int, RefereeDesk]:
    """:func:`referee_desk` of each of ``pool_rounds`` (read with their pool and round), by id,
    without the scores: a constant number of queries whatever the number of pool rounds and
    teams — one for each kind of row (games, the divisions' entries, entries, picks, late picks,
    requests, work locks), the desks built here."""
    now = now or timezone.now()
    teams_of = _desk_entry_ids(pool_rounds)
    wanted = set().union(*teams_of.values()) if teams_of else set()
    entries = {
        entry.pk: entry
        for entry in Entry.objects.filter(pk__in=wanted)
        .select_related("team", "division")
        .annotate(placed_at=F("replaces__replaced_at"))
        .order_by("division__tier", "division__slug", "code", "team__name")
    }
    # R14: a team placed after the deadline plays the pick the team it replaces had sent.
    heirs_of = {
        pool_round.pk: {
            entries[pk].replaces_id: pk
            for pk in teams_of[pool_round.pk]
            if entry_placed_late(entry=entries[pk], round=pool_round.round)
        }
        for pool_round in pool_rounds
    }
    picks = _desk_picks(
        pool_rounds, {*wanted, *(r for h in heirs_of.values() for r in h if r is not None)}
    )
    late = _desk_late_picks(pool_rounds, wanted)
    states = pool_rounds_arbitration_states(pool_rounds=pool_rounds, now=now)
    desks = {}
    for pool_round in pool_rounds:
        round = pool_round.round
        ids = teams_of[pool_round.pk]
        counting = {
            entry_id: found
            for (round_id, entry_id), (found, _sent) in picks.items()
            if round_id == round.pk and found is not None
        }
        heirs = heirs_of[pool_round.pk]
        placed_late = {heir for heir in heirs.values() if heir not in counting}  # none of its own
        for replaced, heir in heirs.items():
            if heir in placed_late and replaced in counting:
                counting[heir] = counting[replaced]
        teams = [
            DeskTeam(
                entry=entry,
                received_at=counting[entry.pk][0] if entry.pk in counting else None,
                channel=counting[entry.pk][1] if entry.pk in counting else "",
                picks_received=picks.get((round.pk, entry.pk), (None, 0))[1],
                placed_late=entry.pk in placed_late,
            )
            for entry in entries.values()  # in the desk's order
            if entry.pk in ids
        ]
        state = states[pool_round.pk]
        under_way = state.requested_at is not None or state.running
        desks[pool_round.pk] = RefereeDesk(
            pool_round=pool_round,
            status=PoolRound.Status.ARBITRATING if under_way else pool_round.status,
            deadline_passed=now >= round.deadline,
            teams=teams,
            late_picks=[pick for pick in late.get(round.pk, []) if pick.entry.pk in ids],
            scores=[],
            refusal=state.refusal,
            arbitration=state,
        )
    return desks


def _desk_entry_ids(pool_rounds: Sequence[PoolRound]) -> dict[int, set[int]]:
    """Each pool round's teams: its games', and in the championship the division's playing ones
    (R2) until the round is played."""
    teams_of: dict[int, set[int]] = {pool_round.pk: set() for pool_round in pool_rounds}
    for pool_round_id, home_id, away_id in Fixture.objects.filter(
        pool_round_id__in=teams_of
    ).values_list("pool_round_id", "home_id", "away_id"):
        teams_of[pool_round_id] |= {home_id, away_id}
    playing = {
        pool_round.pk: (pool_round.pool.season_id, pool_round.pool.division_id)
        for pool_round in pool_rounds
        if pool_round.pool.kind.divisional and pool_round.status not in PLAYED
    }
    if playing:
        divisions: dict[tuple[int, int | None], set[int]] = {}
        for pk, season_id, division_id in (
            Entry.objects.playing()
            .filter(
                season_id__in={season for season, _division in playing.values()},
                division_id__in={division for _season, division in playing.values()},
            )
            .values_list("pk", "season_id", "division_id")
        ):
            divisions.setdefault((season_id, division_id), set()).add(pk)
        for pk, division in playing.items():
            teams_of[pk] |= divisions.get(division, set())
    return teams_of


def _desk_picks(
    pool_rounds: Sequence[PoolRound], entry_ids: set[int]
) -> dict[tuple[int, int], tuple[tuple[datetime, str] | None, int]]:
    """By round and entry: the pick that counts so far (when and how: the last received by the
    deadline, or entered by a referee, R12, R13) and how many were sent — one query."""
    deadlines = {pool_round.round_id: pool_round.round.deadline for pool_round in pool_rounds}
    found: dict[tuple[int, int], tuple[tuple[datetime, str] | None, int]] = {}
    for round_id, entry_id, received_at, channel in (
        Pick.objects.filter(round_id__in=deadlines, entry_id__in=entry_ids)
        .order_by("received_at", "id")
        .values_list("round_id", "entry_id", "received_at", "channel")
    ):
        counting, sent = found.get((round_id, entry_id), (None, 0))
        if received_at <= deadlines[round_id] or channel == Pick.Channel.REFEREE:
            counting = (received_at, channel)
        found[round_id, entry_id] = (counting, sent + 1)
    return found


def _desk_late_picks(
    pool_rounds: Sequence[PoolRound], entry_ids: set[int]
) -> dict[int, list[DeskLatePick]]:
    """By round: the late picks waiting for the referee (R13), oldest first — one query."""
    late: dict[int, list[DeskLatePick]] = {}
    for pick in (
        LatePick.objects.filter(
            round_id__in={pool_round.round_id for pool_round in pool_rounds},
            entry_id__in=entry_ids,
            status=LatePick.Status.PENDING,
        )
        .select_related("entry__team")
        .only("pk", "round_id", "received_at", "entry")
        .order_by("received_at", "id")
    ):
        late.setdefault(pick.round_id, []).append(
            DeskLatePick(pk=pick.pk, entry=pick.entry, received_at=pick.received_at)
        )
    return late


@dataclass(frozen=True)
class DeskRow:
    """A pool round in the referee's list: its state, and for the current week the counts."""

    pool_round: PoolRound
    status: str
    teams: int | None
    received: int | None
    late_picks: int | None
    is_open: bool = False
    """Whether picks are still open (before the round's deadline)."""


@dataclass(frozen=True)
class DeskWeek:
    """One week of a referee's pool rounds."""

    week: int
    current: bool
    rows: list[DeskRow]


def referee_pools(*, user: User) -> list[Pool]:
    """The current season's pools ``user`` referees (staff: every pool)."""
    pools = Pool.objects.filter(season__is_current=True).select_related("division", "season")
    if not user.is_staff:
        pools = pools.filter(referees=user)
    return list(pools.order_by("competition", "division__tier", "slug"))


def referee_weeks(*, pools: Sequence[Pool], now: datetime | None = None) -> list[DeskWeek]:
    """The pool rounds of ``pools`` (a referee's, :func:`referee_pools`) by week: the current
    week first — the earliest with a pool round past its deadline and not yet published, else
    the next deadline's — then the weeks ahead, then the past ones, latest first. The current
    week's rows carry their counts of picks received and late picks waiting, from
    :func:`referee_desks`: the same queries for one pool round or all of a week's."""
    now = now or timezone.now()
    pool_rounds = list(
        PoolRound.objects.filter(pool__in=[pool.pk for pool in pools])
        .select_related("pool__division", "round")
        .order_by(
            "round__week",
            "round__deadline",
            "pool__competition",
            "pool__division__tier",
            "pool__slug",
        )
    )
    if not pool_rounds:
        return []
    waiting = [
        pr.round.week
        for pr in pool_rounds
        if pr.round.deadline <= now and pr.status != PoolRound.Status.PUBLISHED
    ]
    ahead = [pr.round.week for pr in pool_rounds if pr.round.deadline > now]
    current = min(waiting or ahead or [pool_rounds[-1].round.week])
    by_week: dict[int, list[PoolRound]] = {}
    for pool_round in pool_rounds:
        by_week.setdefault(pool_round.round.week, []).append(pool_round)
    order = [
        current,
        *sorted(w for w in by_week if w > current),
        *sorted((w for w in by_week if w < current), reverse=True),
    ]
    desks = referee_desks(pool_rounds=by_week[current], now=now)
    weeks = []
    for week in order:
        rows = []
        for pool_round in by_week[week]:
            if week == current:
                desk = desks[pool_round.pk]
                rows.append(
                    DeskRow(
                        pool_round=pool_round,
                        status=desk.status,
                        teams=len(desk.teams),
                        received=desk.received,
                        late_picks=len(desk.late_picks),
                        is_open=desk.is_open,
                    )
                )
            else:
                rows.append(
                    DeskRow(
                        pool_round=pool_round,
                        status=pool_round.status,
                        teams=None,
                        received=None,
                        late_picks=None,
                        is_open=pool_round.round.deadline > now,
                    )
                )
        weeks.append(DeskWeek(week=week, current=week == current, rows=rows))
    return weeks
