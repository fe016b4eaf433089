"""What a team may still pick (R6, R7, R19), its current pick (R12) and whether it plays a
round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet, Sum

from competitions.models import (
    Competition,
    Fixture,
    Pick,
    Pool,
    PoolRound,
    Round,
    StockKind,
    StockMovement,
)
from competitions.selectors.entries import PLAYED, entries_used, entry_lineage
from league.models import Entry


def pick_history(*, entry: Entry, round: Round) -> QuerySet[Pick]:
    """Every pick received for ``entry`` and ``round``, latest first (R12)."""
    return Pick.objects.filter(entry=entry, round=round).order_by("-received_at", "-id")


def pick_current(*, entry: Entry, round: Round) -> Pick | None:
    """R12: the pick that counts, the last received (ties on time go to the later stored)."""
    return pick_history(entry=entry, round=round).first()


@dataclass(frozen=True)
class EntryChoices:
    """What a team has left in one competition: « infos équipes », and the pick form's choices.

    ``extra_time`` and ``shootout`` map each value still playable to the uses left, in the
    order 0, 1, 2, 3, X; the quotas are the engine's (R7), the columns its matrix's (R19).
    """

    competition: str
    columns: tuple[str, ...]
    extra_time: dict[str, int]
    shootout: dict[str, int]
    extra_goals: int
    great_saves: int

    @staticmethod
    def spread(counts: dict[str, int]) -> list[str]:
        """``{"0": 2, "X": 1}`` → ``["0", "0", "X"]``: one item per use left."""
        return [value for value, left in counts.items() for _ in range(left)]


def _value_order(value: str) -> tuple[bool, str]:
    return (value == "X", value)


def _left(quota: Mapping[str, int], used: Iterable[str]) -> dict[str, int]:
    spent = Counter(used)
    return {
        value: quota[value] - spent[value]
        for value in sorted(quota, key=_value_order)
        if quota[value] > spent[value]
    }


def entry_stocks(*, entry: Entry, published_only: bool) -> tuple[int, int]:
    """``entry``'s extra goals and great saves (R6): now, or as the published rounds left them.

    Published only, the movements tied to a round whose pool round (the entry's pool in that
    round's competition) is not published are taken back out: an arbitrated but unpublished
    round must not show what the team spent in it.
    """
    return entries_stocks(entries=[entry], published_only=published_only)[entry.pk]


def entries_stocks(*, entries: Iterable[Entry], published_only: bool) -> dict[int, tuple[int, int]]:
    """:func:`entry_stocks` of each of ``entries`` (by id), in one query at most."""
    entries = list(entries)
    if not published_only or not entries:
        return {entry.pk: (entry.extra_goals, entry.great_saves) for entry in entries}
    published = PoolRound.objects.filter(
        round_id=OuterRef("round_id"), status=PoolRound.Status.PUBLISHED
    ).filter(
        Q(
            pool__competition=Competition.CHAMPIONSHIP,
            pool__division_id=OuterRef("entry__division_id"),
        )
        | Q(pool__members__entry_id=OuterRef("entry_id"))
    )
    hidden: dict[tuple[int, str], int] = {
        (entry_id, kind): total
        for entry_id, kind, total in StockMovement.objects.filter(
            entry_id__in=[entry.pk for entry in entries], round__isnull=False
        )
        .exclude(Exists(published))
        .values_list("entry_id", "kind")
        .annotate(total=Sum("delta"))
        .values_list("entry_id", "kind", "total")
    }
    return {
        entry.pk: (
            entry.extra_goals - hidden.get((entry.pk, StockKind.EXTRA_GOALS), 0),
            entry.great_saves - hidden.get((entry.pk, StockKind.GREAT_SAVES), 0),
        )
        for entry in entries
    }


def entry_choices(
    *, entry: Entry, competition: Competition | str, published_only: bool
) -> EntryChoices:
    """What ``entry`` may still play in ``competition``: columns, extra-time values with the uses
    left, shootout values (KDH), extra-goal and great-save stocks.

    ``published_only``: after the published rounds, what anyone may see (« infos équipes »);
    otherwise after every arbitrated round too, the team's own pick form (its own record).
    """
    return entries_choices(entries=[entry], competition=competition, published_only=published_only)[
        entry.pk
    ]


def entries_choices(
    *, entries: Iterable[Entry], competition: Competition | str, published_only: bool
) -> dict[int, EntryChoices]:
    """:func:`entry_choices` of each of ``entries`` (by id), from two queries whatever their
    number (what they used, their stocks' movements)."""
    entries = list(entries)
    competition = Competition(competition)
    rules = competition.rules
    used = entries_used(entries=entries, competition=competition, published_only=published_only)
    stocks = entries_stocks(entries=entries, published_only=published_only)
    return {
        entry.pk: EntryChoices(
            competition=competition.value,
            columns=tuple(c for c in rules.columns if c not in set(used[entry.pk].columns)),
            extra_time=_left(rules.extra_time_quota, used[entry.pk].extra_time),
            shootout=_left(rules.shootout_quota or {}, used[entry.pk].shootout),
            extra_goals=stocks[entry.pk][0],
            great_saves=stocks[entry.pk][1],
        )
        for entry in entries
    }


def entry_pool(*, entry: Entry, competition: Competition | str) -> Pool | None:
    """The pool ``entry`` plays ``competition`` in: its division's, or the cup's when it is in."""
    competition = Competition(competition)
    pools = Pool.objects.filter(season_id=entry.season_id, competition=competition)
    if competition == Competition.CHAMPIONSHIP:
        return pools.filter(division_id=entry.division_id).first()
    return pools.filter(members__entry_id__in=_lineage_ids(entry)).first()


def _lineage_ids(entry: Entry) -> list[int]:
    # R14: a replacement plays where the team it replaced was.
    return [e.pk for e in entry_lineage(entry=entry)]


def entry_plays_round(*, entry: Entry, round: Round) -> bool:
    """Whether ``entry`` plays ``round``: every playing team plays the championship; a cup's
    round, when its team is in the cup (a member of its pool) and still in it.

    Once the round's games are drawn, only their teams play it. Before that, the cup's latest
    drawn round decides: once played, the teams it sent on (``PoolRound.qualified``: winners,
    lucky losers and byes, R15, R17, R18) are still in; while it is still to play, its teams
    are (a team exempt from the KDH's qualifying round, drawn in the round of 64, may send its
    picks for the round after in advance, R12); a played round that sends nobody on (a WG group
    round) keeps its teams in. With no round drawn yet, every member of the cup's pool is in.
    """
    if entry.season_id != round.season_id or not entry.is_playing:
        return False
    if round.competition == Competition.CHAMPIONSHIP:
        return True
    pool = entry_pool(entry=entry, competition=round.competition)
    if pool is None:
        return False
    mine = _lineage_ids(entry)
    plays = Q(home_id__in=mine) | Q(away_id__in=mine)
    drawn = Fixture.objects.filter(pool_round__pool=pool, pool_round__round=round)
    if drawn.exists():
        return drawn.filter(plays).exists()
    latest = (
        PoolRound.objects.filter(pool=pool, round__number__lt=round.number)
        .filter(Q(fixtures__isnull=False) | Q(status__in=PLAYED))
        .distinct()
        .order_by("-round__number")
        .first()
    )
    if latest is None:
        return True
    if latest.status not in PLAYED:
        return latest.fixtures.filter(plays).exists()
    if latest.qualified.exists():
        return latest.qualified.filter(pk__in=mine).exists()
    return latest.team_results.filter(entry_id__in=mine).exists()
