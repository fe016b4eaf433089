"""Standings from stored results (R9), published rounds only unless asked, with R22's zones."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from competitions.models import (
    FixtureResult,
    OnrSanction,
    Pool,
    PoolMember,
    PoolRound,
    Stage,
    TeamResult,
)
from competitions.selectors.entries import (
    entries_holders,
    entries_lineages,
    entry_lineage,
    entry_statuses,
)
from engine import Decided, Dice, MatchResult, StandingRow, standings
from engine.promotion import division_zones
from league.models import Entry


def team_owners(*, entries: Iterable[Entry]) -> dict[int, str]:
    """Each entry id of ``entries``' lineages (R14: a replacement keeps the replaced team's
    record) with the slug of the team whose row counts it."""
    return {
        ancestor.pk: entry.team.slug for entry in entries for ancestor in entry_lineage(entry=entry)
    }


def pool_matches(
    *, pool: Pool, owner: dict[int, str], published_only: bool, stages: tuple[str, ...]
) -> list[tuple[int, MatchResult]]:
    """``pool``'s stored results between the entries of ``owner`` (one query), each with its
    round's number, in round order; teams named by ``owner``."""
    results = (
        FixtureResult.objects.filter(
            fixture__pool_round__pool=pool,
            fixture__pool_round__status__in=entry_statuses(published_only),
            fixture__home_id__in=owner,
            fixture__away_id__in=owner,
            fixture__pool_round__round__stage__in=stages,
        )
        .select_related("fixture__pool_round__round")
        .order_by("fixture__pool_round__round__number", "fixture_id")
    )
    return [
        (
            result.fixture.pool_round.round.number,
            MatchResult(
                owner[result.fixture.home_id],
                owner[result.fixture.away_id],
                result.home_goals,
                result.away_goals,
                Decided(result.decided),
                None if result.winner_id is None else owner[result.winner_id],
            ),
        )
        for result in results
    ]


def standings_dice(*, seed: str | None, pool: Pool, what: str) -> Dice:
    """R9, R23: a tie no criterion breaks goes to a die seeded by the last round counted."""
    return Dice(f"{seed or pool.slug}/standings/{what}")


def pool_entries_current(*, pool: Pool) -> list[Entry]:
    """A championship pool's entries in play (a replaced one gives way to its replacement)."""
    assert pool.division_id is not None  # a championship pool's (pool_division_fits_competition)
    return list(
        Entry.objects.current(season=pool.season_id)
        .filter(division_id=pool.division_id)
        .select_related("team")
    )


@dataclass(frozen=True)
class TableDie:
    """Teams of a table level on every R9 criterion, ordered by one die (R9), published with
    its seed (R23): ``Dice(seed)``'s draw ``what`` over ``options`` gave ``order``. The seed
    is the last counted round's own (published, its SHA-256 before) with the table's name."""

    seed: str
    what: str
    options: tuple[str, ...]
    """The tied teams' slugs, in the order the die was offered them."""
    order: tuple[str, ...]
    """Their slugs in the die's order: the table's."""
    names: tuple[str, ...]
    """Their names in the die's order."""


@dataclass(frozen=True)
class Standings:
    """A table (R9) and the dice that ordered teams no criterion separates."""

    rows: list[StandingRow]
    dies: tuple[TableDie, ...] = ()
    """Empty before a round is counted: a table of nothing played shows no die."""


@dataclass(frozen=True)
class _TableAsked:
    """One table to work out: ``entries`` over ``pool``'s results of ``stages`` between them."""

    pool: Pool
    entries: list[Entry]
    what: str
    stages: tuple[str, ...]


def _tables(asked: list[_TableAsked], published_only: bool) -> list[Standings]:
    """Every table of ``asked`` (teams named by slug), from two queries whatever their number:
    the results of their pools, and the seeds of their pools' rounds."""
    if not asked:
        return []
    lineages = entries_lineages(entries=[entry for table in asked for entry in table.entries])
    pools = {table.pool.pk for table in asked}
    stages = {stage for table in asked for stage in table.stages}
    stored = (
        FixtureResult.objects.filter(
            fixture__pool_round__pool_id__in=pools,
            fixture__pool_round__status__in=entry_statuses(published_only),
            fixture__pool_round__round__stage__in=stages,
        )
        .order_by("fixture__pool_round__round__number", "fixture_id")
        .values_list(
            "fixture__pool_round__pool_id",
            "fixture__pool_round__round__stage",
            "fixture__home_id",
            "fixture__away_id",
            "home_goals",
            "away_goals",
            "decided",
            "winner_id",
        )
    )
    results = list(stored)
    seeds = list(
        PoolRound.objects.filter(
            pool_id__in=pools, status__in=entry_statuses(published_only), round__stage__in=stages
        )
        .order_by("-round__number")
        .values_list("pool_id", "round__stage", "seed")
    )
    tables = []
    for table in asked:
        owner = {
            ancestor.pk: entry.team.slug
            for entry in table.entries
            for ancestor in lineages[entry.pk]
        }
        matches = [
            MatchResult(
                owner[home],
                owner[away],
                home_goals,
                away_goals,
                Decided(decided),
                None if winner is None else owner[winner],
            )
            for pool, stage, home, away, home_goals, away_goals, decided, winner in results
            if pool == table.pool.pk and stage in table.stages and home in owner and away in owner
        ]
        last = next(
            (
                seed
                for pool, stage, seed in seeds
                if pool == table.pool.pk and stage in table.stages
            ),
            None,
        )
        dice = standings_dice(seed=last, pool=table.pool, what=table.what)
        rows = standings(sorted(owner[entry.pk] for entry in table.entries), matches, dice)
        names = {entry.team.slug: entry.team.name for entry in table.entries}
        dies = tuple(
            TableDie(
                seed=dice.seed,
                what=draw.what,
                options=draw.options,
                order=tuple(draw.result.split(" ")),
                names=tuple(names[team] for team in draw.result.split(" ")),
            )
            for draw in dice.draws
            if last is not None
        )
        tables.append(Standings(rows, dies))
    return tables


def pools_standings(
    *, pools: Iterable[Pool], published_only: bool = True
) -> dict[int, list[StandingRow]]:
    """Championship pools' tables (R9) by pool id, in rank order, from a constant number of
    queries (see :func:`pool_standings`)."""
    tables = pools_standings_tables(pools=pools, published_only=published_only)
    return {pk: table.rows for pk, table in tables.items()}


def pools_standings_tables(
    *, pools: Iterable[Pool], published_only: bool = True
) -> dict[int, Standings]:
    """:func:`pools_standings` with the dice that ordered full ties (R9, R23)."""
    pools = list(pools)
    if any(not pool.kind.divisional for pool in pools):
        raise ValueError("a cup has no division table: use wg_group_standings for the WG's groups")
    entries: dict[tuple[int, int | None], list[Entry]] = {}
    if pools:
        for entry in (
            Entry.objects.playing()
            .filter(
                season_id__in={pool.season_id for pool in pools},
                division_id__in={pool.division_id for pool in pools},
            )
            .select_related("team")
        ):
            entries.setdefault((entry.season_id, entry.division_id), []).append(entry)
    asked = [
        _TableAsked(
            pool, entries.get((pool.season_id, pool.division_id), []), pool.slug, (Stage.REGULAR,)
        )
        for pool in pools
    ]
    return {pool.pk: rows for pool, rows in zip(pools, _tables(asked, published_only), strict=True)}


def pool_standings(*, pool: Pool, published_only: bool = True) -> list[StandingRow]:
    """A championship pool's table (R9) over its stored results, in rank order.

    Rows name teams by their slug; a replacement's row carries the record of the team it
    replaced (R14). ``published_only`` (the default): what the public sees.
    """
    return pool_standings_table(pool=pool, published_only=published_only).rows


def pool_standings_table(*, pool: Pool, published_only: bool = True) -> Standings:
    """:func:`pool_standings` with the dice that ordered full ties (R9, R23)."""
    if not pool.kind.divisional:
        raise ValueError(f"{pool.slug} is a cup: use wg_group_standings for the WG's groups")
    return pools_standings_tables(pools=[pool], published_only=published_only)[pool.pk]


def wg_group_standings(*, pool: Pool, published_only: bool = True) -> dict[str, list[StandingRow]]:
    """The WG's group tables (R9, R18), by group name, over the stored group-stage results."""
    tables = wg_group_standings_tables(pool=pool, published_only=published_only)
    return {name: table.rows for name, table in tables.items()}


def wg_group_standings_tables(*, pool: Pool, published_only: bool = True) -> dict[str, Standings]:
    """:func:`wg_group_standings` with the dice that ordered full ties (R9, R23)."""
    if not pool.kind.groups:
        raise ValueError(f"{pool.slug} is not the WG")
    members = list(
        PoolMember.objects.filter(pool=pool)
        .exclude(group="")
        .select_related("entry__team")
        .order_by("group", "entry_id")
    )
    holders = entries_holders(entries=[member.entry for member in members])
    groups: dict[str, list[Entry]] = {}
    for member in members:
        groups.setdefault(member.group, []).append(holders[member.entry_id])
    names = sorted(groups)
    asked = [_TableAsked(pool, groups[name], f"group-{name}", (Stage.GROUP,)) for name in names]
    return dict(zip(names, _tables(asked, published_only), strict=True))


@dataclass(frozen=True)
class TableLine:
    """A row of a public table (R9) with its team's entry and, in a division, its zone (R22)."""

    row: StandingRow
    entry: Entry
    zone: str = ""
    """``up`` (promotion place), ``down`` (relegation place) or empty, if the season ended now."""
    barred: bool = False
    """R14: a second ONR bars promotion (R22 skips the team), as published
    (:func:`entries_barred_published`)."""
    by_die: bool = False
    """R9: level with a neighbour on every criterion, its place given by a die."""
    unranked: bool = False
    """No game of the table is published yet: the teams show in code order, with no place
    and no zone (a table of nothing played ranks nobody)."""


def entries_barred_published(*, entries: Iterable[Entry]) -> set[int]:
    """The ids of ``entries`` that the public knows barred from promotion (R14).

    The arbitration bars a team at its second ONR, before anyone may know of that ONR: a bar
    that ONR sanctions explain shows once one of their rounds is published (the team's result
    in it); a bar no sanction explains (an admin's) shows as it is.
    """
    barred = {entry.pk for entry in entries if entry.promotion_barred}
    if not barred:
        return set()
    published_result = TeamResult.objects.filter(
        entry_id=OuterRef("entry_id"),
        pool_round__round_id=OuterRef("round_id"),
        pool_round__status=PoolRound.Status.PUBLISHED,
    )
    shown: dict[int, bool] = {}
    for entry_id, published in (
        OnrSanction.objects.filter(entry_id__in=barred, barred_from_promotion=True)
        .annotate(published=Exists(published_result))
        .values_list("entry_id", "published")
    ):
        shown[entry_id] = shown.get(entry_id, False) or published
    return {pk for pk in barred if shown.get(pk, True)}


def tables_lines(
    *, tables: Iterable[tuple[Pool, Iterable[StandingRow]]], dies: Iterable[TableDie] = ()
) -> list[list[TableLine]]:
    """Each ``(pool, rows)`` table as :func:`table_lines` gives it, from two queries whatever
    their number; the teams of ``dies`` marked as placed by a die (R9)."""
    tables = [(pool, list(rows)) for pool, rows in tables]
    by_die = {team for die in dies for team in die.order}
    slugs = {row.team for _, rows in tables for row in rows}
    entries: dict[tuple[int, str], Entry] = {}
    if slugs:
        entries = {
            (entry.season_id, entry.team.slug): entry
            for entry in Entry.objects.filter(
                season_id__in={pool.season_id for pool, _ in tables}, team__slug__in=slugs
            ).select_related("team", "division")
        }
    published_bars = entries_barred_published(entries=entries.values())
    shown = []
    for pool, rows in tables:
        mine = {row.team: entries[(pool.season_id, row.team)] for row in rows}
        barred = {team for team, entry in mine.items() if entry.pk in published_bars}
        zones: dict[str, str] = {}
        if not any(row.played for row in rows):
            shown.append(
                [
                    TableLine(
                        row=row, entry=mine[row.team], barred=row.team in barred, unranked=True
                    )
                    for row in sorted(rows, key=lambda row: (mine[row.team].code, row.team))
                ]
            )
            continue
        if pool.division is not None:
            up, down = division_zones(pool.division.tier, [row.team for row in rows], barred)
            zones = {team: "down" for _, team in down} | {team: "up" for _, team in up}
        shown.append(
            [
                TableLine(
                    row=row,
                    entry=mine[row.team],
                    zone=zones.get(row.team, ""),
                    barred=row.team in barred,
                    by_die=row.team in by_die,
                )
                for row in rows
            ]
        )
    return shown


def table_lines(
    *, pool: Pool, rows: Iterable[StandingRow], dies: Iterable[TableDie] = ()
) -> list[TableLine]:
    """``rows`` (a division's or a WG group's table) with their entries; in a division, the
    promotion and relegation places as they stand (R22: the tier's places, the engine's
    :data:`~engine.promotion.PLACES`; a team barred from promotion, as published, is skipped
    for the next eligible one, never one from the drop zone)."""
    return tables_lines(tables=[(pool, rows)], dies=dies)[0]
