"""Voiding a round to arbitrate it again: the old result goes to the audit log, the stocks it
spent are given back, and the round is ready to be played again with the same seed.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions.models import (
    Fixture,
    FixtureResult,
    OnrSanction,
    PoolRound,
    StockMovement,
    StockReason,
    TeamResult,
)
from competitions.selectors.entries import PLAYED
from competitions.selectors.results import next_round_draw_seed
from competitions.services.arbitration import round_status_refresh
from competitions.services.entries import stock_move
from competitions.services.errors import NotArbitrated, VoidAfterReplacement, VoidRefused
from competitions.services.memory_games import meetings_forget
from competitions.signals import pool_round_voided
from league.models import Entry
from league.public_cache import public_version_bump
from league.services import audit_record
from matrixhockey.db import published_results_final, published_results_void


def _next_pool_round_made_by(pool_round: PoolRound) -> PoolRound | None:
    """The cup's next pool round that ``pool_round``'s arbitration drew (R15, R17, R18): every
    KDH round's, the WG's last group round's and semi-finals'. The championship's calendar and
    the WG's group rounds exist from the start."""
    round = pool_round.round
    if round.kind.draws_after(round.number) is None:
        return None
    return (
        PoolRound.objects.filter(pool_id=pool_round.pool_id, round__number=round.number + 1)
        .select_related("round")
        .first()
    )


def _slug(entry: Entry | None) -> str | None:
    return entry.team.slug if entry is not None else None


@transaction.atomic
def pool_round_void(*, pool_round: PoolRound, by: User | None, reason: str) -> PoolRound:
    """Take an arbitrated or published pool round's result back out, so that it is arbitrated
    again (same seed, R23: the same result unless its picks changed, e.g. a late pick accepted
    since, R13).

    The whole old result goes into the audit log first (team and game results, draws, stock
    movements, ONR sanctions, qualified teams, the next round's games it drew). Then: the stocks
    it spent or took (R6, R14) are given back by compensating ``void`` movements (the ledger is
    append-only), the ONR count and promotion bar of its sanctions are taken back, its results,
    sanctions and qualified teams and the next round's games it drew are removed (that next pool
    round stays, with its seed and public SHA-256), and the status becomes ``void``, which
    :func:`pool_round_arbitrate` plays again.

    Refused (:class:`VoidRefused`) when a later round of the pool is already arbitrated (what a
    team used and had left there comes from this round: void that one first) or when one of its
    teams has been replaced since (R14: the replacement holds its record now); and
    (:class:`NotArbitrated`) when there is nothing to void.
    """
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say why this round is voided: the audit log keeps the reason."))
    now = timezone.now()
    pool_round = (
        PoolRound.objects.select_for_update(of=("self",))
        .select_related("round__season", "pool")
        .get(pk=pool_round.pk)
    )
    if pool_round.status not in PLAYED:
        raise NotArbitrated()
    round = pool_round.round
    later = (
        PoolRound.objects.filter(
            pool_id=pool_round.pool_id, round__number__gt=round.number, status__in=PLAYED
        )
        .select_related("round")
        .order_by("-round__number")
        .first()
    )
    if later is not None:
        raise VoidRefused(number=later.round.number)
    team_results = list(
        TeamResult.objects.filter(pool_round=pool_round)
        .select_related("entry__team")
        .order_by("entry_id")
    )
    entries = {result.entry_id: result.entry for result in team_results}
    replaced = sorted(str(e.team) for e in entries.values() if e.replaced_at is not None)
    if replaced:
        raise VoidAfterReplacement(teams=", ".join(replaced))
    fixture_results = list(
        FixtureResult.objects.filter(fixture__pool_round=pool_round)
        .select_related("fixture__home__team", "fixture__away__team", "winner__team")
        .order_by("fixture_id")
    )
    sanctions = list(
        OnrSanction.objects.filter(round=round, entry_id__in=entries).order_by("entry_id")
    )
    # What this result took from the ledger: its played and sanction movements, less what an
    # earlier void of this round gave back (each void brings the round's net back to 0).
    movements = list(
        StockMovement.objects.filter(
            round=round,
            entry_id__in=entries,
            reason__in=[StockReason.PLAYED, StockReason.ONR_SANCTION, StockReason.VOID],
        ).order_by("created_at", "id")
    )
    net: dict[tuple[int, str], int] = {}
    for movement in movements:
        key = (movement.entry_id, movement.kind)
        net[key] = net.get(key, 0) + movement.delta
    next_pool_round = _next_pool_round_made_by(pool_round)
    next_fixtures = (
        list(next_pool_round.fixtures.select_related("home__team", "away__team").order_by("id"))
        if next_pool_round is not None
        else []
    )
    own_seeds = {pool_round.seed, next_round_draw_seed(pool_round.seed)}
    kept_draws = [d for d in pool_round.draw_log if d.get("seed") not in own_seeds]

    audit_record(
        actor=by,
        action="pool_round_void",
        obj=pool_round,
        payload={
            "reason": reason,
            "status": pool_round.status,
            "seed_hash": pool_round.seed_hash,
            "arbitrated_at": pool_round.arbitrated_at,
            "arbitrated_by": pool_round.arbitrated_by_id,
            "published_at": pool_round.published_at,
            "published_by": pool_round.published_by_id,
            "team_results": [
                {
                    "entry": r.entry_id,
                    "team": r.entry.team.slug,
                    "column": r.column,
                    "extra_time": r.extra_time,
                    "shootout": r.shootout,
                    "extra_goals_used": r.extra_goals_used,
                    "great_saves_used": r.great_saves_used,
                    "onr": r.onr,
                    "redrawn": r.redrawn,
                    "bonus_goal": r.bonus_goal,
                    "goals": r.goals,
                    "display": r.display,
                    "pick": r.pick_id,
                }
                for r in team_results
            ],
            "fixture_results": [
                {
                    "fixture": r.fixture_id,
                    "home": r.fixture.home.team.slug,
                    "away": r.fixture.away.team.slug,
                    "home_goals": r.home_goals,
                    "away_goals": r.away_goals,
                    "decided": r.decided,
                    "winner": _slug(r.winner),
                    "created_at": r.created_at,
                }
                for r in fixture_results
            ],
            "draws": [d for d in pool_round.draw_log if d.get("seed") in own_seeds],
            "stock_movements": [
                {
                    "id": m.pk,
                    "entry": m.entry_id,
                    "kind": m.kind,
                    "delta": m.delta,
                    "reason": m.reason,
                    "at": m.created_at,
                }
                for m in movements
            ],
            "onr_sanctions": [
                {
                    "id": s.pk,
                    "entry": s.entry_id,
                    "team": entries[s.entry_id].team.slug,
                    "week": s.week,
                    "onr_count": s.onr_count,
                    "extra_goals_removed": s.extra_goals_removed,
                    "great_saves_removed": s.great_saves_removed,
                    "barred_from_promotion": s.barred_from_promotion,
                    "replacement": s.replacement,
                }
                for s in sanctions
            ],
            "qualified": sorted(e.team.slug for e in pool_round.qualified.select_related("team")),
            "next_round": None
            if next_pool_round is None
            else {
                "pool_round": next_pool_round.pk,
                "round": next_pool_round.round.number,
                "fixtures": [[f.home.team.slug, f.away.team.slug, f.label] for f in next_fixtures],
                "qualified": sorted(
                    e.team.slug for e in next_pool_round.qualified.select_related("team")
                ),
            },
        },
    )

    # The one path allowed to take a played round's record back (the database refuses anyone
    # else: migration competitions/0012_published_results_final), until the round is void.
    published_results_void()
    for (entry_id, kind), taken in sorted(net.items()):
        if taken:
            stock_move(
                entry=entries[entry_id],
                kind=kind,
                delta=-taken,
                reason=StockReason.VOID,
                round=round,
                note=_("Round voided: %(reason)s") % {"reason": reason},
                by=by,
            )
    for sanction in sanctions:
        entry = entries[sanction.entry_id]
        still_barred = (
            OnrSanction.objects.filter(entry=entry, barred_from_promotion=True)
            .exclude(pk=sanction.pk)
            .exists()
        )
        Entry.objects.filter(pk=entry.pk).update(
            onr_count=sanction.onr_count - 1,
            promotion_barred=F("promotion_barred")
            if not sanction.barred_from_promotion
            else still_barred,
        )
    meetings_forget(pool_round=pool_round)  # its games and records broken were public (issue 25)
    OnrSanction.objects.filter(pk__in=[s.pk for s in sanctions]).delete()
    FixtureResult.objects.filter(pk__in=[r.pk for r in fixture_results]).delete()
    TeamResult.objects.filter(pool_round=pool_round).delete()
    pool_round.qualified.clear()
    if next_pool_round is not None:
        Fixture.objects.filter(pool_round=next_pool_round).delete()
        next_pool_round.qualified.clear()
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.VOID,
        arbitrated_at=None,
        arbitrated_by=None,
        published_at=None,
        published_by=None,
        draw_log=kept_draws,
        voided_at=now,
        void_reason=reason,
    )
    published_results_final()
    round_status_refresh(round, now)
    public_version_bump()  # a published result taken back is no longer public
    pool_round.refresh_from_db()
    # The pool's coaches and deputies are told (mail.receivers): voided, to be replayed, why.
    pool_round_voided.send(sender=PoolRound, pool_round=pool_round, entries=list(entries), by=by)
    return pool_round
