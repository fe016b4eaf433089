"""Reads of the competitions, named ``<thing>_<action>`` with keyword-only arguments.

Selectors stay thin: they turn stored rows into the engine's values and let the engine compute
(standings, R9). What a team has *used* is read from the :class:`TeamResult` rows the
arbitration stored, so it is exactly what the engine played (R11 redraws and ONR draws included).
"""

from __future__ import annotations

from collections.abc import Iterable

from competitions.models import (
    Competition,
    FixtureResult,
    Matrix,
    Pool,
    PoolMember,
    PoolRound,
    Stage,
    TeamResult,
)
from engine import Decided, Dice, MatchResult, StandingRow, standings
from engine.season import Used
from league.models import Entry

PLAYED = (PoolRound.Status.ARBITRATED, PoolRound.Status.PUBLISHED)
"""Pool-round statuses whose results count (arbitrated: referees and the arbitration; published:
everyone)."""


def matrix_row(*, matrix: Matrix, round_number: int) -> dict[str, int]:
    """Round ``round_number``'s row of ``matrix``: ``{column: value}`` (the engine's
    ``matrix_row``)."""
    cells = matrix.cells.filter(round_number=round_number).order_by("column")
    return {cell.column: cell.value for cell in cells}


def _statuses(published_only: bool) -> tuple[str, ...]:
    return (PoolRound.Status.PUBLISHED,) if published_only else PLAYED


def entry_lineage(*, entry: Entry) -> list[Entry]:
    """``entry`` and the entries it replaced, newest first (R14: the replacement keeps their
    record)."""
    lineage = [entry]
    while lineage[-1].replaces_id is not None:
        lineage.append(Entry.objects.get(pk=lineage[-1].replaces_id))
    return lineage


def entries_used(
    *,
    entries: Iterable[Entry],
    competition: Competition | str,
    published_only: bool,
    before_round: int | None = None,
) -> dict[int, Used]:
    """For each entry (by id), what its place already played this season in ``competition``.

    ``competition`` is ``championship``, ``kdh`` or ``wg`` (the WG's group and knockout rounds
    share one set, R19). Only pool rounds that are arbitrated or published count, or only the
    published ones when ``published_only`` (what the public sees, « infos équipes »). A team
    that replaced another (R14) inherits the replaced entry's record. Values are in play order;
    a cup forfeit (R15) used nothing. ``before_round``: only the rounds numbered below it (what
    a team had used when that round was played).
    """
    entries = list(entries)
    owner: dict[int, int] = {}
    for entry in entries:
        for ancestor in entry_lineage(entry=entry):
            owner[ancestor.pk] = entry.pk
    rows = TeamResult.objects.filter(
        entry_id__in=owner,
        pool_round__round__competition=Competition(competition),
        pool_round__status__in=_statuses(published_only),
    )
    if before_round is not None:
        rows = rows.filter(pool_round__round__number__lt=before_round)
    rows = rows.order_by("pool_round__round__number", "id").values_list(
        "entry_id", "column", "extra_time", "shootout"
    )
    played: dict[int, tuple[list[str], list[str], list[str]]] = {
        entry.pk: ([], [], []) for entry in entries
    }
    for entry_id, column, extra_time, shootout in rows:
        columns, extra_times, shootouts = played[owner[entry_id]]
        if column:
            columns.append(column)
        if extra_time:
            extra_times.append(extra_time)
        if shootout:
            shootouts.append(shootout)
    return {
        pk: Used(tuple(columns), tuple(extra_times), tuple(shootouts))
        for pk, (columns, extra_times, shootouts) in played.items()
    }


def entry_used(*, entry: Entry, competition: Competition | str, published_only: bool) -> Used:
    """What ``entry``'s place already played this season in ``competition`` (see
    :func:`entries_used`): columns, extra-time and shootout values, as tuples in play order."""
    return entries_used(entries=[entry], competition=competition, published_only=published_only)[
        entry.pk
    ]


def _holder(entry: Entry) -> Entry:
    """The entry now holding ``entry``'s place (R14: a replacement takes over its record)."""
    while entry.replaced_at is not None:
        entry = Entry.objects.select_related("team").get(replaces_id=entry.pk)
    return entry


def _table(
    pool: Pool, entries: list[Entry], published_only: bool, what: str, stages: tuple[str, ...]
) -> list[StandingRow]:
    """``entries``' table over ``pool``'s stored results between them, teams named by slug."""
    owner = {
        ancestor.pk: entry.team.slug for entry in entries for ancestor in entry_lineage(entry=entry)
    }
    results = (
        FixtureResult.objects.filter(
            fixture__pool_round__pool=pool,
            fixture__pool_round__status__in=_statuses(published_only),
            fixture__home_id__in=owner,
            fixture__away_id__in=owner,
            fixture__pool_round__round__stage__in=stages,
        )
        .select_related("fixture")
        .order_by("fixture__pool_round__round__number", "fixture_id")
    )
    matches = [
        MatchResult(
            owner[result.fixture.home_id],
            owner[result.fixture.away_id],
            result.home_goals,
            result.away_goals,
            Decided(result.decided),
            None if result.winner_id is None else owner[result.winner_id],
        )
        for result in results
    ]
    last = (
        PoolRound.objects.filter(
            pool=pool, status__in=_statuses(published_only), round__stage__in=stages
        )
        .order_by("-round__number")
        .values_list("seed", flat=True)
        .first()
    )
    # R9, R23: a tie no criterion breaks goes to a die seeded by the last round counted.
    dice = Dice(f"{last or pool.slug}/standings/{what}")
    return standings(sorted(owner[entry.pk] for entry in entries), matches, dice)


def pool_standings(*, pool: Pool, published_only: bool = True) -> list[StandingRow]:
    """A championship pool's table (R9) over its stored results, in rank order.

    Rows name teams by their slug; a replacement's row carries the record of the team it
    replaced (R14). ``published_only`` (the default): what the public sees.
    """
    if pool.competition != Competition.CHAMPIONSHIP:
        raise ValueError(f"{pool.slug} is a cup: use wg_group_standings for the WG's groups")
    entries = Entry.objects.filter(
        season_id=pool.season_id, division_id=pool.division_id, replaced_at__isnull=True
    ).select_related("team")
    return _table(pool, list(entries), published_only, pool.slug, (Stage.REGULAR,))


def wg_group_standings(*, pool: Pool, published_only: bool = True) -> dict[str, list[StandingRow]]:
    """The WG's group tables (R9, R18), by group name, over the stored group-stage results."""
    if pool.competition != Competition.WG:
        raise ValueError(f"{pool.slug} is not the WG")
    members = PoolMember.objects.filter(pool=pool).exclude(group="").select_related("entry__team")
    groups: dict[str, list[Entry]] = {}
    for member in members.order_by("group", "entry_id"):
        groups.setdefault(member.group, []).append(_holder(member.entry))
    return {
        name: _table(pool, entries, published_only, f"group-{name}", (Stage.GROUP,))
        for name, entries in sorted(groups.items())
    }
