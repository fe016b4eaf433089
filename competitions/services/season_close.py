"""Closing a season (``shared/SEASON.md``): refused while anything is unpublished; otherwise its
final tables, cups' honours and R14 bars recorded once, and the season ``finished``.

Our decisions: the closed season stays the current one (``is_current`` unchanged) until the next
one starts, so the public pages keep showing its final tables; the season's end for R21 is the
deadline of its last round; the next season's plan is seeded from every pool round's seed (R23).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from competitions.models import (
    CUPS,
    Competition,
    CupHonour,
    FinalRow,
    FixtureResult,
    Pool,
    PoolRound,
    Round,
    SeasonArchive,
    Stage,
)
from competitions.selectors.standings import pool_standings, wg_group_standings
from competitions.services.memory import season_memory_store
from competitions.services.season_plan import season_plan_store
from competitions.services.verify import season_plan_seed
from engine import Decided, MatchResult, StandingRow
from league.models import Division, Entry, Season
from league.public_cache import public_version_bump
from league.services import audit_record
from league.services.audit import changes


@dataclass(frozen=True)
class RoundLeft:
    """A round of the season that is not published yet."""

    competition: str
    number: int
    week: int
    pools: tuple[str, ...]
    """The pools whose part of it is not published; empty when none has its part yet (a cup
    round not drawn yet)."""


class SeasonCloseRefused(Exception):
    """A close that cannot happen now; ``code`` says why (``not_started``, ``unpublished``) and
    ``left`` lists what is not published yet."""

    def __init__(self, message: str, *, code: str, left: tuple[RoundLeft, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.left = left


def season_rounds_left(*, season: Season) -> tuple[RoundLeft, ...]:
    """Every round of ``season`` not published yet, by week, with the pools it waits for."""
    waiting: dict[int, list[str]] = {}
    drawn: set[int] = set()
    for round_id, slug, status in PoolRound.objects.filter(round__season=season).values_list(
        "round_id", "pool__slug", "status"
    ):
        drawn.add(round_id)
        if status != PoolRound.Status.PUBLISHED:
            waiting.setdefault(round_id, []).append(slug)
    rounds = Round.objects.filter(season=season).order_by("week", "competition", "number")
    return tuple(
        RoundLeft(round.competition, round.number, round.week, tuple(sorted(waiting[round.pk])))
        if round.pk in waiting
        else RoundLeft(round.competition, round.number, round.week, ())
        for round in rounds
        if round.pk in waiting or round.pk not in drawn
    )


def _round_left_text(left: RoundLeft) -> str:
    where = {
        "competition": Competition(left.competition).label,
        "number": left.number,
        "week": left.week,
    }
    if not left.pools:
        return _("%(competition)s round %(number)d (week %(week)d): not drawn yet") % where
    # The pools as people name them: a division's name, or the cup's.
    divisions = dict(Division.objects.filter(slug__in=left.pools).values_list("slug", "name"))
    names = [
        divisions.get(slug) or (Competition(slug).label if slug in Competition.values else slug)
        for slug in left.pools
    ]
    return _("%(competition)s round %(number)d (week %(week)d): %(pools)s not published") % {
        **where,
        "pools": ", ".join(str(name) for name in names),
    }


def _holders(season: Season) -> dict[int, Entry]:
    """Every entry of ``season`` (by id) → the entry holding its place now (R14)."""
    return Entry.objects.holders(Entry.objects.filter(season=season).select_related("team"))


def _row(
    archive: SeasonArchive, pool: Pool, entry: Entry, row: StandingRow, **extra: object
) -> FinalRow:
    return FinalRow(
        archive=archive,
        pool=pool,
        entry=entry,
        rank=row.rank,
        points=row.points,
        played=row.played,
        wins=row.wins,
        regulation_wins=row.regulation_wins,
        draws=row.draws,
        extra_time_losses=row.extra_time_losses,
        losses=row.losses,
        goals_for=row.goals_for,
        goals_against=row.goals_against,
        **extra,
    )


def _results(season: Season, competition: Competition) -> list[FixtureResult]:
    return list(
        FixtureResult.objects.filter(
            fixture__pool_round__pool__season=season,
            fixture__pool_round__pool__competition=competition,
            fixture__pool_round__status=PoolRound.Status.PUBLISHED,
        ).select_related("fixture")
    )


def _championship_rows(archive: SeasonArchive, holders: dict[int, Entry]) -> list[FinalRow]:
    """Each division's final table (R9), with each team's KDH wins and shutouts (R21) and its
    R14 bar."""
    season = archive.season
    kdh_wins: Counter[int] = Counter(
        holders[result.winner_id].pk
        for result in _results(season, Competition.KDH)
        if result.winner_id is not None
    )
    shutouts: Counter[int] = Counter()
    for result in _results(season, Competition.CHAMPIONSHIP):
        if result.away_goals == 0:
            shutouts[holders[result.fixture.home_id].pk] += 1
        if result.home_goals == 0:
            shutouts[holders[result.fixture.away_id].pk] += 1
    playing = {holder.team.slug: holder for holder in holders.values()}
    rows = []
    pools = Pool.objects.filter(season=season, competition=Competition.CHAMPIONSHIP)
    for pool in pools.select_related("division", "season"):
        for row in pool_standings(pool=pool, published_only=True):
            entry = playing[row.team]
            rows.append(
                _row(
                    archive,
                    pool,
                    entry,
                    row,
                    kdh_wins=kdh_wins[entry.pk],
                    shutouts=shutouts[entry.pk],
                    promotion_barred=entry.promotion_barred,
                )
            )
    return rows


def _group_rows(archive: SeasonArchive, pool: Pool, holders: dict[int, Entry]) -> list[FinalRow]:
    """The cup's groups' final tables (the WG's, R9, R18)."""
    playing = {holder.team.slug: holder for holder in holders.values()}
    return [
        _row(archive, pool, playing[row.team], row, group=group)
        for group, rows in wg_group_standings(pool=pool, published_only=True).items()
        for row in rows
    ]


def _final(pool: Pool, holders: dict[int, Entry]) -> dict[str, MatchResult]:
    """The cup's last round's games by label (the KDH's final has none), as the engine's."""
    results = FixtureResult.objects.filter(
        fixture__pool_round__pool=pool, fixture__pool_round__round__stage=Stage.FINAL
    ).select_related("fixture")
    games = {}
    for result in results:
        fixture = result.fixture
        games[fixture.label] = MatchResult(
            holders[fixture.home_id].team.slug,
            holders[fixture.away_id].team.slug,
            result.home_goals,
            result.away_goals,
            Decided(result.decided),
            None if result.winner_id is None else holders[result.winner_id].team.slug,
        )
    return games


def _honours(
    archive: SeasonArchive, cups: list[Pool], holders: dict[int, Entry]
) -> list[CupHonour]:
    """The KDH's winner (1) and finalist (2) and the WG's first to fourth (R18, R21), as each
    cup's kind reads them from its final week."""
    by_slug = {holder.team.slug: holder for holder in holders.values()}
    honours = []
    for pool in cups:
        places = pool.kind.final_places(list(_final(pool, holders).items()))
        honours += [
            CupHonour(
                archive=archive, competition=pool.competition, place=place, entry=by_slug[team]
            )
            for team, place in places.items()
        ]
    return honours


@transaction.atomic
def season_close(*, season: Season, by: User | None) -> SeasonArchive | None:
    """Close ``season`` (``shared/SEASON.md``): its final tables (championship divisions and WG
    groups, R9), its cups' honours and R14 bars recorded, and its status ``finished``.

    Refused (:class:`SeasonCloseRefused`) while the season is in preparation (``not_started``)
    or any round of any competition is not published (``unpublished``, with the list). Closing
    a finished season again changes nothing and returns its archive (``None`` for a season
    that finished without being closed here).
    """
    season = Season.objects.select_for_update().get(pk=season.pk)
    if season.status == Season.Status.FINISHED:
        return SeasonArchive.objects.filter(season=season).first()
    ended_at = Round.objects.filter(season=season).aggregate(end=Max("deadline"))["end"]
    if season.status == Season.Status.PREPARING or ended_at is None:
        raise SeasonCloseRefused(
            _("%(season)s has not started: there is nothing to close.") % {"season": season},
            code="not_started",
        )
    left = season_rounds_left(season=season)
    if left:
        raise SeasonCloseRefused(
            _("%(season)s cannot be closed: publish every round first. Left: %(left)s.")
            % {"season": season, "left": "; ".join(_round_left_text(item) for item in left)},
            code="unpublished",
            left=left,
        )
    holders = _holders(season)
    archive = SeasonArchive.objects.create(
        season=season,
        closed_by=by,
        ended_at=ended_at,
        plan_seed=season_plan_seed(season=season),
    )
    rows = _championship_rows(archive, holders)
    cups = list(Pool.objects.filter(season=season, competition__in=CUPS))
    for pool in cups:
        if pool.kind.groups:
            rows += _group_rows(archive, pool, holders)
    FinalRow.objects.bulk_create(rows)
    CupHonour.objects.bulk_create(_honours(archive, cups, holders))
    season_memory_store(archive=archive)  # the memory pages' rows (issue 25)
    season.status = Season.Status.FINISHED
    season.save(update_fields=["status"])
    audit_record(
        actor=by,
        action="season_close",
        obj=season,
        payload={
            "rows": len(rows),
            "barred": sorted(row.entry.team.slug for row in rows if row.promotion_barred),
            "plan_seed": archive.plan_seed,
            "changes": changes(
                {"status": Season.Status.RUNNING}, {"status": Season.Status.FINISHED}
            ),
        },
    )
    # The next season's plan, computed once from the archive, read back by the pages and the
    # desk until something it comes from changes (season_plan_state).
    season_plan_store(season=season)
    public_version_bump()  # the archive and the finished season's pages
    return archive


__all__ = [
    "RoundLeft",
    "SeasonCloseRefused",
    "season_close",
    "season_plan_seed",
    "season_rounds_left",
]
