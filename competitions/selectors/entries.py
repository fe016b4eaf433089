"""What a team has used and holds in a competition: its lineage across R14 replacements, the
columns and values it used (R19, R7), the entry holding a replaced team's place.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from competitions import hot_sql
from competitions.models import Competition, Matrix, MatrixCell, PoolRound, Round
from engine.season import Used
from league.models import Entry

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

PLAYED = (PoolRound.Status.ARBITRATED, PoolRound.Status.PUBLISHED)
"""Pool-round statuses whose results count (arbitrated: referees and the arbitration; published:
everyone)."""


class PlacedAt(TypedDict):
    """An entry's ``placed_at``: when the entry it replaces was replaced (R14), ``None`` for one
    that replaces none — ``.annotate(placed_at=F("replaces__replaced_at"))``."""

    placed_at: datetime | None


if TYPE_CHECKING:
    PlacedEntry = WithAnnotations[Entry, PlacedAt]
    """An entry read with :class:`PlacedAt`."""


def entry_placed_late(*, entry: PlacedEntry, round: Round) -> bool:
    """R14: ``entry`` took its place by a replacement after ``round``'s deadline, too late to
    send a pick for it (so it plays the replaced team's, or a dummy's, and is never ONR there).

    ``entry`` is read with ``placed_at``, when the entry it replaces was replaced (``None`` for
    one that replaces none): ``.annotate(placed_at=F("replaces__replaced_at"))``."""
    return entry.placed_at is not None and entry.placed_at > round.deadline


def matrix_row(*, matrix: Matrix, round_number: int) -> dict[str, int]:
    """Round ``round_number``'s row of ``matrix``: ``{column: value}`` (the engine's
    ``matrix_row``)."""
    cells = matrix.cells.filter(round_number=round_number).order_by("column")
    return {cell.column: cell.value for cell in cells}


def season_matrix_row(
    *, season_id: int, competition: Competition | str, round_number: int
) -> dict[str, int]:
    """:func:`matrix_row` of ``competition``'s matrix in the season, in one query."""
    cells = MatrixCell.objects.filter(
        matrix__season_id=season_id,
        matrix__competition=Competition(competition),
        round_number=round_number,
    ).order_by("column")
    return dict(cells.values_list("column", "value"))


def entry_statuses(published_only: bool) -> tuple[str, ...]:
    return (PoolRound.Status.PUBLISHED,) if published_only else PLAYED


def entries_lineages(*, entries: Iterable[Entry]) -> dict[int, list[Entry]]:
    """Each entry's lineage (by id): itself and the entries it replaced, newest first (R14: the
    replacement keeps their record). One query when one of them replaced a team, none otherwise.
    """
    entries = list(entries)
    replaced: dict[int, Entry] = {}
    if any(entry.replaces_id is not None for entry in entries):
        replaced = {
            entry.pk: entry
            for entry in Entry.objects.replaced()
            .filter(season_id__in={entry.season_id for entry in entries})
            .select_related("team")
        }
    lineages = {}
    for entry in entries:
        lineage = [entry]
        while (ancestor := lineage[-1].replaces_id) is not None:
            if ancestor not in replaced:  # R14 replaces within a season: never, but be sure.
                replaced[ancestor] = Entry.objects.select_related("team").get(pk=ancestor)
            lineage.append(replaced[ancestor])
        lineages[entry.pk] = lineage
    return lineages


def entry_lineage(*, entry: Entry) -> list[Entry]:
    """``entry`` and the entries it replaced, newest first (R14: the replacement keeps their
    record)."""
    return entries_lineages(entries=[entry])[entry.pk]


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
    competition = Competition(competition)
    used = _used(list(entries), (competition,), published_only, before_round)
    return {pk: by_competition[competition] for pk, by_competition in used.items()}


def entry_used_everywhere(
    *, entry: Entry, competitions: Iterable[Competition | str], published_only: bool
) -> dict[str, Used]:
    """What ``entry``'s place already played in each of ``competitions`` (see
    :func:`entries_used`), by competition, in one query."""
    chosen = tuple(Competition(competition) for competition in competitions)
    return dict(_used([entry], chosen, published_only, None)[entry.pk])


def entries_used_everywhere(
    *, entries: Iterable[Entry], competitions: Iterable[Competition | str], published_only: bool
) -> dict[int, dict[str, Used]]:
    """What each of ``entries``' places already played in each of ``competitions`` (see
    :func:`entries_used`), by entry id then competition, in one query (two when one of them
    replaced a team)."""
    chosen = tuple(Competition(competition) for competition in competitions)
    return _used(list(entries), chosen, published_only, None)


def _used(
    entries: list[Entry],
    competitions: tuple[Competition, ...],
    published_only: bool,
    before_round: int | None,
) -> dict[int, dict[str, Used]]:
    owner: dict[int, int] = {
        ancestor.pk: pk
        for pk, lineage in entries_lineages(entries=entries).items()
        for ancestor in lineage
    }
    played: dict[tuple[int, str], tuple[list[str], list[str], list[str]]] = {
        (entry.pk, competition): ([], [], []) for entry in entries for competition in competitions
    }
    if competitions and entries:
        for entry_id, competition, column, extra_time, shootout in _used_rows(
            list(owner), competitions, entry_statuses(published_only), before_round
        ):
            columns, extra_times, shootouts = played[(owner[entry_id], competition)]
            if column:
                columns.append(column)
            if extra_time:
                extra_times.append(extra_time)
            if shootout:
                shootouts.append(shootout)
    used: dict[int, dict[str, Used]] = {entry.pk: {} for entry in entries}
    for (pk, competition), (columns, extra_times, shootouts) in played.items():
        used[pk][competition] = Used(tuple(columns), tuple(extra_times), tuple(shootouts))
    return used


def _used_rows(
    entry_ids: list[int],
    competitions: tuple[Competition, ...],
    statuses: tuple[str, ...],
    before_round: int | None,
) -> list[tuple[int, str, str, str, str]]:
    """The team results of ``entry_ids`` in ``competitions``' pool rounds of ``statuses`` (below
    round ``before_round``), in play order: entry, competition, column, extra time, shootout.
    Written out (:func:`competitions.hot_sql.used_rows`): every pick and every arbitration
    reads it."""
    return hot_sql.used_rows(
        entry_ids=entry_ids,
        competitions=competitions,
        statuses=statuses,
        before_round=before_round,
    )


def entry_used(*, entry: Entry, competition: Competition | str, published_only: bool) -> Used:
    """What ``entry``'s place already played this season in ``competition`` (see
    :func:`entries_used`): columns, extra-time and shootout values, as tuples in play order."""
    return entries_used(entries=[entry], competition=competition, published_only=published_only)[
        entry.pk
    ]


def entries_holders(*, entries: Iterable[Entry]) -> dict[int, Entry]:
    """For each entry (by id), the entry now holding its place (R14,
    :meth:`league.querysets.EntryQuerySet.holders`)."""
    return Entry.objects.holders(entries)


def entry_holder(*, entry: Entry) -> Entry:
    """The entry now holding ``entry``'s place (R14: a replacement takes over its record)."""
    return entries_holders(entries=[entry])[entry.pk]
