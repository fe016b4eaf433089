"""Arbitration and publication of a pool round: the engine plays it from stored data, the
result and the stock movements are stored in one transaction, ONR sanctions applied (R14), the
cups moved on, and publication reveals the seed (R23). Also closes rounds past their deadline.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Case, Exists, Func, OuterRef, Q, QuerySet, Subquery, Value, When
from django.utils import timezone

from competitions import tasks
from competitions.kinds import kind_of
from competitions.models import (
    Fixture,
    FixtureResult,
    OnrSanction,
    PoolRound,
    Round,
    StockKind,
    StockReason,
    TeamResult,
)
from competitions.selectors.entries import PLAYED, PlacedAt
from competitions.services.cups import cup_progress
from competitions.services.entries import StockLedgerBatch
from competitions.services.errors import (
    ArbitrationInProgress,
    ArbitrationOutOfOrder,
    ArbitrationTooEarly,
    NotArbitrated,
    SeedCommitmentBroken,
)
from competitions.services.memory_games import meetings_store
from competitions.services.memory_records import record_breaks_store
from competitions.services.round_input import pool_entries, pool_round_input, round_input_compute
from competitions.services.setup import draws_log
from competitions.signals import pool_round_published
from engine import Competition as EngineCompetition
from engine import (
    RoundResult,
    commitment,
    onr_sanction,
    play_round,
    rules_for,
)
from league.models import Entry, WaitingListEntry
from league.public_cache import public_statuses_bump, public_version_bump
from league.services import audit_record
from matrixhockey.db import update_returning
from matrixhockey.redis_breaker import TASK_NOT_QUEUED, task_publish

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

logger = logging.getLogger(__name__)


class EarlierUnplayed(TypedDict):
    """What :func:`pool_round_to_arbitrate` reads with a pool round."""

    earlier_unplayed: int | None


@dataclass(frozen=True)
class OnrWeek:
    """What R14 needs of the week of a team ONR in the round arbitrated
    (:func:`_onr_week_read`)."""

    onr_in: list[EngineCompetition]
    """The kinds of round of its ONRs in the week's rounds arbitrated already, once per round."""
    sanctioned: int
    """Its sanctions this week."""
    waiting_list: bool
    """Someone waits to join the league."""


if TYPE_CHECKING:
    ArbitrablePoolRound = WithAnnotations[PoolRound, EarlierUnplayed]
    LockedEntry = WithAnnotations[Entry, PlacedAt]


def rounds_close_due(*, now: datetime | None = None) -> int:
    """Close every open round whose deadline has passed (R13); how many were closed.

    Issue 5's beat task calls this; the web form already refuses late picks on its own.
    """
    now = now or timezone.now()
    closed = Round.objects.filter(status=Round.Status.OPEN, deadline__lte=now).update(
        status=Round.Status.CLOSED
    )
    if closed:
        public_statuses_bump()  # « picks open » becomes « to be played » on the public pages
    return closed


def round_status_refresh(round: Round, now: datetime) -> None:
    """A round is arbitrated when all its pool rounds are, published when all are published;
    otherwise closed once its deadline has passed, open before.

    One ``UPDATE … RETURNING`` (:func:`matrixhockey.db.update_returning`): the database works
    the status out from the pool rounds' statuses as this transaction sees them, and ``round``
    gets it back.
    """
    waiting = Round.Status.CLOSED if now >= round.deadline else Round.Status.OPEN
    pool_rounds = PoolRound.objects.filter(round_id=round.pk)
    status = Case(
        When(~Exists(pool_rounds), then=Value(waiting)),
        When(
            ~Exists(pool_rounds.exclude(status=PoolRound.Status.PUBLISHED)),
            then=Value(Round.Status.PUBLISHED),
        ),
        When(~Exists(pool_rounds.exclude(status__in=PLAYED)), then=Value(Round.Status.ARBITRATED)),
        default=Value(waiting),
    )
    found = update_returning(Round.objects.filter(pk=round.pk), "status", status)
    if found:
        round.status = found[0]


def pool_round_to_arbitrate(pk: int, *, locked: bool = False) -> ArbitrablePoolRound:
    """The pool round with its round, season and pool, and the number of its pool's earliest
    round not yet arbitrated before it (``earlier_unplayed``, ``None`` when there is none), in
    one query: what :func:`arbitration_ready_check` needs. ``locked``: read ``FOR UPDATE``
    (PostgreSQL), the claim of :func:`pool_round_arbitrate`; the request for an arbitration reads
    it without waiting for one under way."""
    earlier_unplayed = (
        PoolRound.objects.filter(
            pool_id=OuterRef("pool_id"), round__number__lt=OuterRef("round__number")
        )
        .exclude(status__in=PLAYED)
        .order_by("round__number")
        .values("round__number")[:1]
    )
    pool_rounds = PoolRound.objects.select_related("round__season", "pool").annotate(
        earlier_unplayed=Subquery(earlier_unplayed)
    )
    if locked:
        pool_rounds = pool_rounds.select_for_update(of=("self",))
    return pool_rounds.get(pk=pk)


def arbitration_ready_check(pool_round: ArbitrablePoolRound, now: datetime) -> None:
    """Refuse an arbitration before the deadline (R13) or before the pool's earlier rounds
    (``pool_round`` as :func:`pool_round_to_arbitrate` reads it)."""
    round = pool_round.round
    if now < round.deadline:
        raise ArbitrationTooEarly(number=round.number)
    if pool_round.earlier_unplayed is not None:
        raise ArbitrationOutOfOrder(number=pool_round.earlier_unplayed)


def pool_round_arbitrate(*, pool_round: PoolRound, by: User | None) -> PoolRound:
    """Play ``pool_round`` through the engine and store everything it produced, once.

    Refused before the round's deadline (:class:`ArbitrationTooEarly`, R13) and while an earlier
    round of the pool is not arbitrated (:class:`ArbitrationOutOfOrder`). Idempotent: a pool
    round already arbitrated or published is returned as stored, never played again.

    The work is claimed by locking the pool round's row (``SELECT … FOR UPDATE``, the read
    that finds it), in the same transaction as the work: a second caller waits for the first to
    commit, then reads the stored status and gets the stored result; a crash rolls everything
    back, so a pool round is never left half done or stuck. Only a ``pending`` or ``void`` pool
    round is played; one marked ``arbitrating`` raises :class:`ArbitrationInProgress`. A
    ``void`` pool round is played again once the void action (issue 5) has taken its results,
    stock movements and sanctions back out.

    Stored in that one transaction: the team results and game results exactly as the engine
    returned them, the stocks played (``played`` movements), the draw log with the generator
    behind each draw (R23, after checking the seed against its published SHA-256), the ONR
    sanctions (R14, each championship round on its own, merged with a WG group-stage ONR of
    the same week), the cups' qualified teams and next round (R15, R17, R18), and
    the statuses.
    """
    now = timezone.now()
    with transaction.atomic():
        pool_round = pool_round_to_arbitrate(pool_round.pk, locked=True)
        if pool_round.status in PLAYED:
            return pool_round
        arbitration_ready_check(pool_round, now)
        if pool_round.status not in (PoolRound.Status.PENDING, PoolRound.Status.VOID):
            raise ArbitrationInProgress()
        return _arbitrate(pool_round, by, now)


def _arbitrate(pool_round: PoolRound, by: User | None, now: datetime) -> PoolRound:
    """The claimed work of :func:`pool_round_arbitrate`, inside its transaction: a constant
    number of queries whatever the pool's size or the week (one per kind of row written)."""
    if commitment(pool_round.seed) != pool_round.seed_hash:
        raise SeedCommitmentBroken()
    round = pool_round.round
    # Lock the teams' entries in one order, so that pools of one week arbitrated at once (a
    # team plays several) wait for each other instead of deadlocking; the rows read under the
    # lock carry the current stocks the ledger moves below.
    fixtures = list(Fixture.objects.filter(pool_round_id=pool_round.pk).order_by("id"))
    locked = _entries_locked(pool_round, fixtures, now)
    given = round_input_compute(pool_round, now, fixtures, locked)
    result = play_round(given.round)
    entries = given.entries
    teams = sorted(result.teams, key=lambda t: entries[t].pk)
    onr = [entries[team] for team in teams if result.teams[team].onr]
    week = _onr_week_read(onr, round)

    TeamResult.objects.bulk_create(
        [
            TeamResult(
                pool_round=pool_round,
                entry=entries[team],
                column=played.column or "",
                extra_time=played.extra_time or "",
                shootout=played.shootout or "",
                extra_goals_used=played.extra_goals_used,
                great_saves_used=played.great_saves_used,
                onr=played.onr,
                redrawn=played.redrawn,
                bonus_goal=played.bonus_goal,
                goals=played.goals,
                display=played.display,
                pick=given.picks[team],
            )
            for team, played in result.teams.items()
        ]
    )
    FixtureResult.objects.bulk_create(
        [
            FixtureResult(
                fixture=fixture,
                home_goals=match.home_goals,
                away_goals=match.away_goals,
                decided=match.decided.value,
                winner=None if match.winner is None else entries[match.winner],
                created_at=now,
            )
            for fixture, match in zip(given.fixtures, result.matches, strict=True)
        ]
    )
    ledger = StockLedgerBatch(round=round, by=by)
    for team in teams:
        played = result.teams[team]
        for kind, used in (
            (StockKind.EXTRA_GOALS, played.extra_goals_used),
            (StockKind.GREAT_SAVES, played.great_saves_used),
        ):
            if used:
                ledger.move(entry=entries[team], kind=kind, delta=-used, reason=StockReason.PLAYED)
    sanctioned = _onr_sanctions(onr, week, round, given.stocks_left, ledger, by)
    ledger.write(changed=sanctioned, fields=["onr_count", "promotion_barred"])

    pool_round.status = PoolRound.Status.ARBITRATED
    pool_round.arbitrated_at = now
    pool_round.arbitrated_by = by
    pool_round.draw_log = [*pool_round.draw_log, *draws_log(pool_round.seed, result.draws)]
    pool_round.save(update_fields=["status", "arbitrated_at", "arbitrated_by", "draw_log"])
    cup_progress(pool_round, result, entries)
    round_status_refresh(round, now)
    audit_record(
        actor=by,
        action="pool_round_arbitrate",
        obj=pool_round,
        payload={"seed_hash": pool_round.seed_hash, "games": len(result.matches)},
    )
    # Nothing of the result is public (R23), but its status is: « played, being checked ».
    public_statuses_bump()
    return pool_round


ONR_SANCTIONED = tuple(kind for kind in EngineCompetition if rules_for(kind).onr_sanctioned)
"""The kinds of round whose ONRs the engine counts towards R14 (a cup forfeit never, R15)."""


def _onr_field(round_kind: EngineCompetition) -> str:
    return f"onr_{round_kind.name.lower()}"


def _played_as(round_kind: EngineCompetition) -> Q:
    """The team results of the rounds the engine plays as ``round_kind``."""
    kind = kind_of(round_kind)
    return Q(
        pool_round__round__competition=kind.value,
        pool_round__round__number__in=kind.rounds_played_as(round_kind),
    )


def _entries_locked(
    pool_round: PoolRound, fixtures: list[Fixture], now: datetime
) -> list[LockedEntry]:
    """The pool's entries (:func:`competitions.services.round_input.pool_entries`, R2, R14),
    locked in id order with their team and division and ``placed_at`` (when the entry it
    replaces was replaced, ``None`` for an entry that replaces none): a plain locked read, what
    R14 needs of the week is read for the ONR teams only (:func:`_onr_week_read`)."""
    return list(pool_entries(pool_round, fixtures, now).select_for_update(of=("self",)))


def _onr_week_read(onr: list[LockedEntry], round: Round) -> dict[int, OnrWeek]:
    """R14 for the teams ONR in ``round`` (locked entries), by entry id, read before the
    round's results are stored, in one query whatever their number: the kinds of round of
    their ONRs in the week's rounds arbitrated already (only those the engine sanctions,
    ``ONR_SANCTIONED``), their sanctions this week and whether someone waits."""
    if not onr:
        return {}
    onr_this_week = TeamResult.objects.filter(
        entry_id=OuterRef("pk"),
        onr=True,
        pool_round__round__season_id=round.season_id,
        pool_round__round__week=round.week,
    )
    rows = (
        Entry.objects.filter(pk__in=[entry.pk for entry in onr])
        .annotate(
            week_sanctioned=_count(
                OnrSanction.objects.filter(entry_id=OuterRef("pk"), week=round.week)
            ),
            **{
                _onr_field(round_kind): _count(onr_this_week.filter(_played_as(round_kind)))
                for round_kind in ONR_SANCTIONED
            },
            waiting_list=Exists(
                WaitingListEntry.objects.filter(status=WaitingListEntry.Status.WAITING)
            ),
        )
        .values("pk", "week_sanctioned", "waiting_list", *map(_onr_field, ONR_SANCTIONED))
    )
    return {
        row["pk"]: OnrWeek(
            onr_in=[
                round_kind
                for round_kind in ONR_SANCTIONED
                for _ in range(row[_onr_field(round_kind)])
            ],
            sanctioned=row["week_sanctioned"],
            waiting_list=row["waiting_list"],
        )
        for row in rows
    }


def _count(rows: QuerySet) -> Subquery:
    """How many of ``rows`` there are (filtered on the outer entry): one ``COUNT`` over them, no
    grouping, so 0 for none."""
    return Subquery(rows.order_by().values(n=Func("pk", function="COUNT")))


def _onr_sanctions(
    onr: list[LockedEntry],
    week: dict[int, OnrWeek],
    round: Round,
    stocks_left: Mapping[str, tuple[int, int]],
    ledger: StockLedgerBatch,
    by: User | None,
) -> list[Entry]:
    """R14 for the teams ONR in ``round`` (locked entries, in id order, with their ``week`` as
    :func:`_onr_week_read` reads it): the engine's sanction for this round's ONR added
    to the week's others — every championship round on its own (R20: the last week's two are
    two ONRs), a championship and a WG group-stage ONR of one week merged, a cup forfeit never
    (R15). The sanctions are written in one query, the stocks removed go into ``ledger``, and
    the entries whose ONR count and promotion bar changed are returned for the ledger to write
    with their balances.

    The stocks a sanction takes are those the team's week leaves (``stocks_left``), so the
    picks of the week's other rounds keep what R6 granted them whichever pool is arbitrated
    first. At the third ONR the replacement is only proposed: an admin confirms it (issue 5).
    """
    rows: list[OnrSanction] = []
    changed: list[Entry] = []
    for entry in onr:
        extra_goals, great_saves = stocks_left.get(entry.team.slug, (0, 0))
        its_week = week[entry.pk]
        sanction = onr_sanction(
            onr_before=entry.onr_count,
            onr_in=[*its_week.onr_in, round.engine_competition],
            sanctioned=its_week.sanctioned,
            tier=entry.division.tier,
            extra_goals=min(extra_goals, entry.extra_goals),
            great_saves=min(great_saves, entry.great_saves),
            waiting_list=its_week.waiting_list,
        )
        if sanction.onr_count == entry.onr_count:
            continue  # R14: merged with a sanctioned ONR of the week, or a cup forfeit (R15).
        rows.append(
            OnrSanction(
                entry=entry,
                week=round.week,
                round=round,
                onr_count=sanction.onr_count,
                week_onr=its_week.sanctioned + 1,
                extra_goals_removed=sanction.extra_goals_removed,
                great_saves_removed=sanction.great_saves_removed,
                barred_from_promotion=sanction.barred_from_promotion,
                replacement=sanction.replacement.value if sanction.replacement else "",
            )
        )
        for kind, removed in (
            (StockKind.EXTRA_GOALS, sanction.extra_goals_removed),
            (StockKind.GREAT_SAVES, sanction.great_saves_removed),
        ):
            if removed:
                ledger.move(
                    entry=entry,
                    kind=kind,
                    delta=-removed,
                    reason=StockReason.ONR_SANCTION,
                    note=f"ONR {sanction.onr_count}",
                )
        entry.onr_count = sanction.onr_count
        entry.promotion_barred = entry.promotion_barred or sanction.barred_from_promotion
        changed.append(entry)
    if rows:
        OnrSanction.objects.bulk_create(rows)
    for row in rows:
        if row.replacement:
            audit_record(
                actor=by,
                action="onr_replacement_proposed",
                obj=row.entry,
                payload={"replacement": row.replacement, "onr_sanction": row.pk},
            )
    return changed


def pool_round_replay(*, pool_round: PoolRound) -> RoundResult:
    """Play ``pool_round`` again from stored data, as it stood when it was arbitrated — the same
    input builder as :func:`pool_round_arbitrate` — and return the engine's result without
    storing anything. Issue 5's ``verify_round`` compares it with what is stored (R23)."""
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if pool_round.status not in PLAYED or pool_round.arbitrated_at is None:
        raise NotArbitrated()
    return play_round(pool_round_input(pool_round=pool_round, as_of=pool_round.arbitrated_at).round)


@transaction.atomic
def pool_round_publish(
    *, pool_round: PoolRound, by: User | None, announce: bool = True
) -> PoolRound:
    """Make an arbitrated pool round public (results, seed and draws, R23), once.

    A conditional update (``arbitrated`` → ``published``) that must touch exactly one row:
    publishing twice returns the published round; publishing before arbitration raises
    :class:`NotArbitrated`. The round is published when all its pool rounds are. In the same
    transaction, its games go into the league's memory with the records they break (issue 25:
    never before publication), then :data:`pool_round_published` is sent (the results emails'
    hook: their outbox rows are committed with the publication or not at all) — unless
    ``announce`` is false: a history built after the fact (the demo's past weeks) tells nobody.
    """
    now = timezone.now()
    published = PoolRound.objects.filter(
        pk=pool_round.pk, status=PoolRound.Status.ARBITRATED
    ).update(status=PoolRound.Status.PUBLISHED, published_at=now, published_by=by)
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if published != 1:
        if pool_round.status == PoolRound.Status.PUBLISHED:
            return pool_round
        raise NotArbitrated()
    round_status_refresh(pool_round.round, now)
    # The memory's games and the records they break: at publication only, never before.
    meetings_store(pool_rounds=[pool_round])
    record_breaks_store(pool_round=pool_round)
    audit_record(actor=by, action="pool_round_publish", obj=pool_round, payload={})
    public_version_bump()
    if announce:
        pool_round_published.send(sender=PoolRound, pool_round=pool_round, by=by)
    pool_round_id = pool_round.pk
    transaction.on_commit(lambda: _verification_queue(pool_round_id))
    return pool_round


def _verification_queue(pool_round_id: int) -> None:
    """R23: verify the pool round just published, by a worker. Redis down loses only this
    early check: the nightly verification of the season (beat) covers the round too."""
    try:
        task_publish(tasks.pool_round_verify, args=(pool_round_id,))
    except TASK_NOT_QUEUED:
        logger.exception("Could not queue the verification of pool round %s", pool_round_id)
