"""What a team has used and holds in a competition: its lineage across R14 replacements, the
columns and values it used (R19, R7), the entry holding a replaced team's place.
"""

from __future__ import annotations

from collections.abc import Iterable

from competitions.models import Competition, Matrix, MatrixCell, PoolRound, TeamResult
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


def entry_holder(*, entry: Entry) -> Entry:
    """The entry now holding ``entry``'s place (R14: a replacement takes over its record)."""
    while entry.replaced_at is not None:
        entry = Entry.objects.select_related("team").get(replaces_id=entry.pk)
    return entry
