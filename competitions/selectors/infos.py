"""« Infos équipes » as a grid: for every team of a pool, each column (R19) and each extra-time
and shootout value (R7) it can still play, and its stocks (R6), after the *published* rounds
only — with, for a signed-in coach, the teams their own team meets in the rounds still open
first.

Nothing here reads an unpublished round: what a team used comes from published pool rounds
(:func:`entries_choices` in the public's :class:`Sight`), the cup's teams put out from its published
games (:func:`cup_eliminated`), the opponents from public draws (:func:`entry_opponents`).
A constant number of queries whatever the pool's size or the week.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone
from django.utils.translation import gettext

from competitions.models import Competition, Pool, Round
from competitions.selectors.entries import Sight, entries_holders
from competitions.selectors.matrices import coming_row
from competitions.selectors.picks import (
    EntryChoices,
    cup_eliminated,
    entries_choices,
    entry_opponents,
)
from competitions.selectors.rounds import pool_entries
from engine.quotas import notation_order
from league.models import Entry, Season


@dataclass(frozen=True)
class InfosCell:
    """One cell of the grid: a column or an extra-time or shootout value, the uses the team has
    left of it and the season's quota (a column: once, R19; a value: R7's quota)."""

    value: str
    left: int
    quota: int
    worth: int | None = None
    """A column's value in the coming round's row of the matrix (R19, R25), when known."""

    @property
    def playable(self) -> bool:
        """Whether the team can still play it."""
        return self.left > 0


@dataclass(frozen=True)
class InfosLine:
    """One team's row: what it has left, whether it is the viewer's own team, and the numbers
    of the open rounds in which the viewer's team meets it (its opponent, as drawn and public).
    """

    entry: Entry
    choices: EntryChoices
    columns: tuple[InfosCell, ...]
    extra_time: tuple[InfosCell, ...]
    shootout: tuple[InfosCell, ...]
    is_mine: bool = False
    meets: tuple[int, ...] = ()
    meets_label: str = ""
    """The rounds of :attr:`meets`, in words (« R4, R9 »)."""


@dataclass(frozen=True)
class InfosGrid:
    """A pool's « infos équipes »: its teams × the competition's columns, extra-time (and
    shootout) values and stocks.

    ``opponents``: the viewer's team's opponents in the open rounds, the soonest met first;
    ``others``: every other team still in, by division and code (the viewer's own marked);
    ``out``: the KDH's teams its published games put out (R15, R17), folded on the page.
    """

    pool: Pool
    pools: list[Pool]
    """Every pool of the season, for the links between them."""
    columns: tuple[str, ...]
    extra_time: tuple[InfosCell, ...]
    """The competition's extra-time values with their quotas (``left`` is the quota)."""
    shootout: tuple[InfosCell, ...]
    great_saves: bool
    opponents: list[InfosLine]
    others: list[InfosLine]
    out: list[InfosLine]
    coming_round: int | None = None
    """R25: the coming round of the competition, whose row of the matrix :attr:`row` is."""
    row: dict[str, int] = field(default_factory=dict)
    """Each column's value in :attr:`coming_round`'s row (empty while the season is prepared
    or no round is coming)."""

    @property
    def column_heads(self) -> list[tuple[str, int | None]]:
        """Each column with its value in the coming round's row."""
        return [(column, self.row.get(column)) for column in self.columns]

    @property
    def name(self) -> str:
        """The pool, in words: its division's name, or the cup's."""
        return (
            self.pool.division.name
            if self.pool.division
            else str(self.pool.get_competition_display())
        )

    @property
    def sections(self) -> list[tuple[str, list[InfosLine]]]:
        """The grid's row groups in order: ``opponents`` then ``others`` when the viewer has
        opponents here, else ``all`` (the teams still in)."""
        if self.opponents:
            return [("opponents", self.opponents), ("others", self.others)]
        return [("all", self.others)]

    @property
    def out_sections(self) -> list[tuple[str, list[InfosLine]]]:
        """The folded grid of the KDH's teams put out."""
        return [("out", self.out)]

    @property
    def width(self) -> int:
        """The grid's columns after the team's: columns, values and stocks (+, and # where
        great saves are played)."""
        return (
            len(self.columns)
            + len(self.extra_time)
            + len(self.shootout)
            + (2 if self.great_saves else 1)
        )


def _cells(quota: Mapping[str, int], left: Mapping[str, int]) -> tuple[InfosCell, ...]:
    return tuple(
        InfosCell(value=value, left=left.get(value, 0), quota=count)
        for value, count in notation_order(quota).items()
    )


def _line(
    entry: Entry,
    choices: EntryChoices,
    competition: Competition,
    *,
    is_mine: bool,
    row: Mapping[str, int],
) -> InfosLine:
    rules = competition.rules
    left = set(choices.columns)
    return InfosLine(
        entry=entry,
        choices=choices,
        # R19: a team plays each column once per competition and season.
        columns=tuple(
            InfosCell(value=column, left=int(column in left), quota=1, worth=row.get(column))
            for column in rules.columns
        ),
        # R7: each extra-time (and, in the KDH, shootout) value has its season's quota.
        extra_time=_cells(rules.extra_time_quota, choices.extra_time),
        shootout=_cells(rules.shootout_quota or {}, choices.shootout),
        is_mine=is_mine,
    )


def _is_viewer(entry: Entry, user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return user.pk in (entry.team.coach_id, entry.team.deputy_id)


def _meetings(*, entry: Entry, pool: Pool, season: Season, now: datetime) -> dict[int, list[int]]:
    """The entries (by id, as they hold their place now, R14) ``entry`` meets in ``pool``'s
    rounds still open (deadline ahead, R13), with those rounds' numbers in order. Three queries
    (four when an opponent was replaced)."""
    rounds = list(
        Round.objects.filter(
            season=season,
            competition=pool.competition,
            status=Round.Status.OPEN,
            deadline__gt=now,
        ).order_by("number")
    )
    if not rounds:
        return {}
    opponents = entry_opponents(entry=entry, rounds=rounds, pools={pool.competition: pool})
    holders = entries_holders(entries=opponents.values())
    meetings: dict[int, list[int]] = {}
    for round in rounds:
        opponent = opponents.get(round.pk)
        if opponent is not None:
            meetings.setdefault(holders[opponent.pk].pk, []).append(round.number)
    return meetings


def pool_infos_grid(
    *,
    season: Season,
    competition: Competition | str,
    pool_slug: str,
    user: User | AnonymousUser | None = None,
    now: datetime | None = None,
) -> InfosGrid | None:
    """``season``'s pool ``pool_slug`` of ``competition`` as a grid (``None``: no such pool),
    from published rounds only, whoever asks.

    For ``user`` coaching (or deputising for) a team of the pool, that team's row is marked and
    the teams it meets in the pool's open rounds come first, in the order it meets them: the
    drawn games only, and of a cup only those drawn from published rounds
    (:func:`entry_opponents`). Four queries for a division (the season's pools, the teams, what
    they used, their stocks' movements), a cup's members besides, two more for the KDH's teams
    put out, three more for a coach of the pool.
    """
    try:
        competition = Competition(competition)
    except ValueError:
        return None
    pools = list(
        Pool.objects.filter(season=season)
        .select_related("division")
        .order_by("competition", "division__tier", "division__group")
    )
    pool = next((p for p in pools if p.competition == competition and p.slug == pool_slug), None)
    if pool is None:
        return None
    entries = pool_entries(pool=pool)
    choices = entries_choices(entries=entries, competition=competition, sight=Sight.PUBLIC)
    mine = next((entry for entry in entries if _is_viewer(entry, user)), None)
    meetings = (
        _meetings(entry=mine, pool=pool, season=season, now=now or timezone.now())
        if mine is not None
        else {}
    )
    # A cup that puts out from its first round on (the KDH): its teams out (R15, R17), from its
    # published games only.
    out = cup_eliminated(pool=pool) if competition.kind.knockout_only else set()
    # R25: what each column is worth in the competition's coming round.
    coming = coming_row(season=season, competition=competition, now=now)
    coming_round, row = coming if coming is not None else (None, {})
    round_label = gettext("R%(round)d")
    opponents: list[InfosLine] = []
    others: list[InfosLine] = []
    folded: list[InfosLine] = []
    for entry in entries:
        line = _line(entry, choices[entry.pk], competition, is_mine=entry is mine, row=row)
        if entry.pk in out:
            folded.append(line)
        elif entry.pk in meetings:
            rounds = tuple(meetings[entry.pk])
            label = ", ".join(round_label % {"round": number} for number in rounds)
            opponents.append(replace(line, meets=rounds, meets_label=label))
        else:
            others.append(line)
    opponents.sort(key=lambda line: line.meets)
    rules = competition.rules
    return InfosGrid(
        pool=pool,
        pools=pools,
        columns=tuple(rules.columns),
        extra_time=_cells(rules.extra_time_quota, rules.extra_time_quota),
        shootout=_cells(rules.shootout_quota or {}, rules.shootout_quota or {}),
        great_saves=rules.great_saves,
        opponents=opponents,
        others=others,
        out=folded,
        coming_round=coming_round,
        row=row,
    )
