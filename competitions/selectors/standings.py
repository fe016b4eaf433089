"""Standings from stored results (R9), published rounds only unless asked, with R22's zones."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from competitions.models import (
    Competition,
    FixtureResult,
    OnrSanction,
    Pool,
    PoolMember,
    PoolRound,
    Stage,
    TeamResult,
)
from competitions.selectors.entries import _statuses, entry_holder, entry_lineage
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
            fixture__pool_round__status__in=_statuses(published_only),
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


def _table(
    pool: Pool, entries: list[Entry], published_only: bool, what: str, stages: tuple[str, ...]
) -> list[StandingRow]:
    """``entries``' table over ``pool``'s stored results between them, teams named by slug."""
    owner = team_owners(entries=entries)
    matches = [
        match
        for _, match in pool_matches(
            pool=pool, owner=owner, published_only=published_only, stages=stages
        )
    ]
    last = (
        PoolRound.objects.filter(
            pool=pool, status__in=_statuses(published_only), round__stage__in=stages
        )
        .order_by("-round__number")
        .values_list("seed", flat=True)
        .first()
    )
    dice = standings_dice(seed=last, pool=pool, what=what)
    return standings(sorted(owner[entry.pk] for entry in entries), matches, dice)


def pool_entries_current(*, pool: Pool) -> list[Entry]:
    """A championship pool's entries in play (a replaced one gives way to its replacement)."""
    return list(
        Entry.objects.filter(
            season_id=pool.season_id, division_id=pool.division_id, replaced_at__isnull=True
        ).select_related("team")
    )


def pool_standings(*, pool: Pool, published_only: bool = True) -> list[StandingRow]:
    """A championship pool's table (R9) over its stored results, in rank order.

    Rows name teams by their slug; a replacement's row carries the record of the team it
    replaced (R14). ``published_only`` (the default): what the public sees.
    """
    if pool.competition != Competition.CHAMPIONSHIP:
        raise ValueError(f"{pool.slug} is a cup: use wg_group_standings for the WG's groups")
    return _table(
        pool, pool_entries_current(pool=pool), published_only, pool.slug, (Stage.REGULAR,)
    )


def wg_group_standings(*, pool: Pool, published_only: bool = True) -> dict[str, list[StandingRow]]:
    """The WG's group tables (R9, R18), by group name, over the stored group-stage results."""
    if pool.competition != Competition.WG:
        raise ValueError(f"{pool.slug} is not the WG")
    members = PoolMember.objects.filter(pool=pool).exclude(group="").select_related("entry__team")
    groups: dict[str, list[Entry]] = {}
    for member in members.order_by("group", "entry_id"):
        groups.setdefault(member.group, []).append(entry_holder(entry=member.entry))
    return {
        name: _table(pool, entries, published_only, f"group-{name}", (Stage.GROUP,))
        for name, entries in sorted(groups.items())
    }


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


def table_lines(*, pool: Pool, rows: Iterable[StandingRow]) -> list[TableLine]:
    """``rows`` (a division's or a WG group's table) with their entries; in a division, the
    promotion and relegation places as they stand (R22: the tier's places, the engine's
    :data:`~engine.promotion.PLACES`; a team barred from promotion, as published, is skipped
    for the next eligible one, never one from the drop zone)."""
    rows = list(rows)
    entries = {
        entry.team.slug: entry
        for entry in Entry.objects.filter(
            season_id=pool.season_id, team__slug__in=[row.team for row in rows]
        ).select_related("team", "division")
    }
    published_bars = entries_barred_published(entries=entries.values())
    barred = {team for team, entry in entries.items() if entry.pk in published_bars}
    zones: dict[str, str] = {}
    if pool.division is not None:
        up, down = division_zones(pool.division.tier, [row.team for row in rows], barred)
        zones = {team: "down" for _, team in down} | {team: "up" for _, team in up}
    return [
        TableLine(
            row=row,
            entry=entries[row.team],
            zone=zones.get(row.team, ""),
            barred=row.team in barred,
        )
        for row in rows
    ]
