"""What a team has used and holds in a competition: its lineage across R14 replacements, the
columns and values it used (R19, R7), the entry holding a replaced team's place.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from competitions import hot_sql
from competitions.models import Competition, Matrix, MatrixCell, PoolRound, Round
from engine import NotationError
from engine import Pick as EnginePick
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


class Sight(enum.Enum):
    """Who looks at a team's record, and so what counts in what it has used and holds (R23:
    nothing of a round is public before its publication). The one place that says which rounds
    a reader sees: the columns and values used (:func:`entries_used`), the stocks
    (:func:`competitions.selectors.entries_stocks`) and what a team may still play
    (:func:`competitions.selectors.entries_choices`) all take one."""

    PUBLIC = "public"
    """The published rounds only: what anyone may know (« infos équipes », the matrices'
    crowding pools, a team's page)."""
    TEAM = "team"
    """What the team itself knows: the published rounds, and its own picks (R12: the one that
    counted) in the rounds arbitrated since. The referee's draws in those rounds — an ONR
    team's column and value (R4), a stale part redrawn (R11) — are not known before their
    publication, nor is a sanction (R14): the team's pick page, its picks' checks and
    refusals (web, API, email) read this. A later pick that repeats such a draw is stale and
    redrawn at its own round's arbitration (R11), which reads :attr:`REFEREE`."""
    REFEREE = "referee"
    """Every arbitrated round, published or not: what the arbitration plays with (R7, R19) and
    what the referees see."""


@dataclass(frozen=True)
class Record:
    """What one entry's place has played this season, as a :class:`Sight` sees it."""

    used: dict[str, Used]
    """By competition: the columns and values played, in play order."""
    asked: tuple[int, int] | None = None
    """In the team's sight only: the extra goals and great saves the entry's own picks asked in
    the rounds arbitrated but not published (R6), the stocks the team knows it spent there;
    ``None`` when it has no such round (its stocks are then the published ones)."""


def entries_used(
    *,
    entries: Iterable[Entry],
    competition: Competition | str,
    sight: Sight,
    before_round: int | None = None,
) -> dict[int, Used]:
    """For each entry (by id), what its place already played this season in ``competition``,
    as ``sight`` sees it.

    ``competition`` is ``championship``, ``kdh`` or ``wg`` (the WG's group and knockout rounds
    share one set, R19). A team that replaced another (R14) inherits the replaced entry's
    record. Values are in play order; a cup forfeit (R15) used nothing. ``before_round``: only
    the rounds numbered below it (what a team had used when that round was played).
    """
    competition = Competition(competition)
    records = entries_records(
        entries=entries, competitions=(competition,), sight=sight, before_round=before_round
    )
    return {pk: record.used[competition] for pk, record in records.items()}


def entry_used_everywhere(
    *, entry: Entry, competitions: Iterable[Competition | str], sight: Sight
) -> dict[str, Used]:
    """What ``entry``'s place already played in each of ``competitions`` (see
    :func:`entries_used`), by competition, in one query."""
    return entries_records(entries=[entry], competitions=competitions, sight=sight)[entry.pk].used


def entries_used_everywhere(
    *, entries: Iterable[Entry], competitions: Iterable[Competition | str], sight: Sight
) -> dict[int, dict[str, Used]]:
    """What each of ``entries``' places already played in each of ``competitions`` (see
    :func:`entries_used`), by entry id then competition, in one query (two when one of them
    replaced a team)."""
    records = entries_records(entries=entries, competitions=competitions, sight=sight)
    return {pk: record.used for pk, record in records.items()}


def entries_records(
    *,
    entries: Iterable[Entry],
    competitions: Iterable[Competition | str],
    sight: Sight,
    before_round: int | None = None,
) -> dict[int, Record]:
    """Each entry's :class:`Record` (by id) in ``competitions``, from one query (two when one of
    them replaced a team, R14). In the team's sight every competition's rounds are read, for
    :attr:`Record.asked`: a week's stocks are shared by its competitions (R6)."""
    entries = list(entries)
    chosen = tuple(Competition(competition) for competition in competitions)
    owner: dict[int, int] = {
        ancestor.pk: pk
        for pk, lineage in entries_lineages(entries=entries).items()
        for ancestor in lineage
    }
    played: dict[tuple[int, str], tuple[list[str], list[str], list[str]]] = {
        (entry.pk, competition): ([], [], []) for entry in entries for competition in chosen
    }
    asked: dict[int, tuple[int, int]] = {}
    read = tuple(Competition) if sight is Sight.TEAM else chosen
    if read and entries:
        statuses = (PoolRound.Status.PUBLISHED,) if sight is Sight.PUBLIC else PLAYED
        for entry_id, competition, column, extra_time, shootout, status, pick in _used_rows(
            list(owner), read, statuses, before_round
        ):
            if sight is Sight.TEAM and status != PoolRound.Status.PUBLISHED:
                # R23: of a round not published, the team knows its own pick only.
                own = _own_pick(pick)
                if entry_id == owner[entry_id]:
                    goals, saves = asked.get(entry_id, (0, 0))
                    asked[entry_id] = (
                        goals + (own.extra_goals if own else 0),
                        saves + (own.great_saves if own else 0),
                    )
                if own is None:
                    continue
                column, extra_time, shootout = own.column, own.extra_time, own.shootout or ""
            found = played.get((owner[entry_id], competition))
            if found is None:
                continue  # read for the stocks only
            columns, extra_times, shootouts = found
            if column:
                columns.append(column)
            if extra_time:
                extra_times.append(extra_time)
            if shootout:
                shootouts.append(shootout)
    records: dict[int, Record] = {
        entry.pk: Record(used={}, asked=asked.get(entry.pk)) for entry in entries
    }
    for (pk, competition), (columns, extra_times, shootouts) in played.items():
        records[pk].used[competition] = Used(tuple(columns), tuple(extra_times), tuple(shootouts))
    return records


def _own_pick(normalized: str | None) -> EnginePick | None:
    """The pick a team played, as it sent it (``None``: it sent none, R4)."""
    if normalized is None:
        return None
    try:
        return EnginePick.parse(normalized)
    except NotationError:
        return None  # stored picks were checked when sent


def _used_rows(
    entry_ids: list[int],
    competitions: tuple[Competition, ...],
    statuses: tuple[str, ...],
    before_round: int | None,
) -> list[tuple[int, str, str, str, str, str, str | None]]:
    """The team results of ``entry_ids`` in ``competitions``' pool rounds of ``statuses`` (below
    round ``before_round``), in play order: entry, competition, column, extra time, shootout,
    the pool round's status, the pick played. Written out
    (:func:`competitions.hot_sql.used_rows`): every pick and every arbitration reads it."""
    return hot_sql.used_rows(
        entry_ids=entry_ids,
        competitions=competitions,
        statuses=statuses,
        before_round=before_round,
    )


def entry_used(*, entry: Entry, competition: Competition | str, sight: Sight) -> Used:
    """What ``entry``'s place already played this season in ``competition`` (see
    :func:`entries_used`): columns, extra-time and shootout values, as tuples in play order."""
    return entries_used(entries=[entry], competition=competition, sight=sight)[entry.pk]


def entries_holders(*, entries: Iterable[Entry]) -> dict[int, Entry]:
    """For each entry (by id), the entry now holding its place (R14,
    :meth:`league.querysets.EntryQuerySet.holders`)."""
    return Entry.objects.holders(entries)


def entry_holder(*, entry: Entry) -> Entry:
    """The entry now holding ``entry``'s place (R14: a replacement takes over its record)."""
    return entries_holders(entries=[entry])[entry.pk]
