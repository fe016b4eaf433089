"""The WG cup's page (R18), from published results only: the three group tables with the group
winners and the best second marked, the three seconds compared by R9's criteria, and the
semi-finals, final and third-place game as four slots filled in order.

Who goes to the semi-finals is the engine's own :func:`engine.wg.semi_finalists` — the function
the arbitration uses to draw them (``services/cups.py``) — over the published group tables.
Once every group round is published that is the final word, with the arbitration's own dice
(a tie that R9's criteria leave goes to its die); before, it is « as it stands », and a tie
only a die would break marks nobody.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from django.db.models import OuterRef, Subquery

from competitions.models import Fixture, Pool, PoolRound, Round
from competitions.selectors.results import GameResult, next_round_draw_seed
from competitions.selectors.standings import (
    TableDie,
    TableLine,
    tables_lines,
    wg_group_standings_tables,
)
from engine import TIE_CRITERIA, Dice, StandingRow, deciding_criterion, tie_key, wg

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

NOT_STARTED = "not_started"
"""No group round is published yet: no marks."""
PROVISIONAL = "provisional"
"""Some group rounds are published: the marks are as the tables stand."""
COMPLETE = "complete"
"""Every group round is published: the semi-finalists are known."""

CRITERIA = TIE_CRITERIA
"""R9's criteria by name, in their order (the engine's), for :attr:`SecondLine.behind_on`."""

WINNER = "winner"
BEST_SECOND = "best_second"


@dataclass(frozen=True)
class GroupLine:
    """A row of a group table (R9) and whether it goes to the semi-finals (R18)."""

    line: TableLine
    qualified: str = ""
    """``winner`` (the group's first), ``best_second`` or empty."""

    @property
    def row(self) -> StandingRow:
        return self.line.row


@dataclass(frozen=True)
class WgGroup:
    name: str
    lines: list[GroupLine]
    dies: tuple[TableDie, ...] = ()
    """The dice that ordered teams level on every criterion (R9), with their seeds (R23)."""


@dataclass(frozen=True)
class SecondLine:
    """One group's second in the comparison of the three (R9, R18), best first."""

    group: str
    line: TableLine
    best: bool
    behind_on: str
    """For a second other than the best: the first of R9's criteria
    (:data:`engine.TIE_CRITERIA`) on which the best is ahead of it, ``die`` when they are level
    on every one. Empty for the best second."""

    @property
    def row(self) -> StandingRow:
        return self.line.row


@dataclass(frozen=True)
class Slot:
    """A knockout game (R18) as the public may know it: the slot alone (``fixture`` ``None``:
    to be drawn or decided), its pairing, then its published result (``game``)."""

    kind: str
    """``semi_final``, ``final`` or ``third_place``."""
    number: int
    """The semi-final's number (1 or 2, in the drawn order); 0 for the final week's games."""
    round_number: int
    week: int | None
    fixture: Fixture | None
    game: GameResult | None

    def involves(self, entry_id: int | None) -> bool:
        return self.fixture is not None and entry_id in (
            self.fixture.home_id,
            self.fixture.away_id,
        )


@dataclass(frozen=True)
class WgCup:
    state: str
    """:data:`NOT_STARTED`, :data:`PROVISIONAL` or :data:`COMPLETE` (the group stage)."""
    group_rounds: list[int]
    """The group rounds' numbers (each a link to its results)."""
    published_group_rounds: int
    groups: list[WgGroup]
    seconds: list[SecondLine]
    """Empty before a group round is published."""
    best_decided_on: str
    """The criterion on which the best second is ahead of the next one (``die`` for a die),
    empty when no best second is marked."""
    slots: list[Slot]
    best_second_die: TableDie | None = None
    """The die that chose the best second among seconds level on every criterion (R9, R18),
    with its seed (R23) — once the group stage is over and only then."""

    @property
    def best_second(self) -> SecondLine | None:
        return next((second for second in self.seconds if second.best), None)


class PoolPart(TypedDict):
    """A WG round's pool round in :func:`_rounds`: ``None`` before it is drawn."""

    pool_round_id: int | None
    pool_round_status: str | None
    pool_round_seed: str | None


if TYPE_CHECKING:
    WgRound = WithAnnotations[Round, PoolPart]


def _rounds(pool: Pool) -> list[WgRound]:
    """The WG's rounds with ``pool``'s part of each (id, status, seed; ``None`` before it is
    drawn), in one query."""
    mine = PoolRound.objects.filter(pool=pool, round=OuterRef("pk"))
    return list(
        Round.objects.filter(season_id=pool.season_id, competition=pool.competition)
        .annotate(
            pool_round_id=Subquery(mine.values("pk")[:1]),
            pool_round_status=Subquery(mine.values("status")[:1]),
            pool_round_seed=Subquery(mine.values("seed")[:1]),
        )
        .order_by("number")
    )


def _seconds(
    tables: dict[str, list[StandingRow]], lines: dict[str, TableLine], state: str, seed: str
) -> tuple[dict[str, str], list[SecondLine], str, TableDie | None]:
    """The semi-finalists' marks by team, the seconds compared best first, the criterion
    that made the best second (R9, R18) and the die that did, if one did."""
    if state == NOT_STARTED:
        return {}, [], "", None
    names = list(wg.GROUP_NAMES)
    # The arbitration draws the semi-finals with this die (services/cups.py); before the group
    # stage ends, no die is thrown: a tie it would break marks nobody.
    dice = Dice(next_round_draw_seed(seed))
    chosen = wg.semi_finalists([tables[name] for name in names], dice)
    group_of = {tables[name][1].team: name for name in names}
    ordered = sorted(group_of, key=lambda team: (tie_key(lines[team].row), group_of[team]))
    best = next(team for team in ordered if team in chosen)
    decided_on = deciding_criterion(lines[best].row, lines[ordered[1]].row) or "die"
    marked = state == COMPLETE or decided_on != "die"
    if marked:  # the die's pick first when it decided
        ordered.remove(best)
        ordered.insert(0, best)
    top = lines[ordered[0]].row
    marks = {tables[name][0].team: WINNER for name in names}
    if marked:
        marks[best] = BEST_SECOND
    seconds = [
        SecondLine(
            group=group_of[team],
            line=lines[team],
            best=marked and team == best,
            behind_on=""
            if index == 0 and marked
            else deciding_criterion(top, lines[team].row) or "die",
        )
        for index, team in enumerate(ordered)
    ]
    die = None
    if state == COMPLETE and decided_on == "die":
        tied = [second.line for second in seconds if second.best or second.behind_on == "die"]
        die = TableDie(
            seed=dice.seed,
            what="wg.best_second",
            options=tuple(sorted(line.row.team for line in tied)),
            order=tuple(line.row.team for line in tied),
            names=tuple(line.entry.team.name for line in tied),
        )
    return marks, seconds, decided_on if marked else "", die


def _slots(pool: Pool, rounds: list[WgRound]) -> list[Slot]:
    """The semi-finals and the final week's two games, each as far as the public knows it
    (one query): a result once its round is published; before, a pairing once the round whose
    arbitration drew it — the pool's previous one — is published (R23), as
    :func:`~competitions.selectors.results.pool_rounds_fixtures` tells it."""
    by_number = {round.number: round for round in rounds}
    drawn = [round for round in rounds if round.pool_round_id]
    published = {
        round.number for round in drawn if round.pool_round_status == PoolRound.Status.PUBLISHED
    }
    paired = {
        round.number
        for index, round in enumerate(drawn)
        if index == 0 or drawn[index - 1].number in published
    }
    fixtures = list(
        Fixture.objects.filter(
            pool_round__pool=pool, pool_round__round__number__gte=wg.SEMI_FINAL_ROUND
        )
        .select_related("pool_round__round", "home__team", "away__team", "result__winner__team")
        .order_by("id")
    )
    public = [fixture for fixture in fixtures if fixture.pool_round.round.number in paired]
    semis = [f for f in public if f.pool_round.round.number == wg.SEMI_FINAL_ROUND]
    final_week = {f.label: f for f in public if f.pool_round.round.number == wg.FINAL_ROUND}

    def slot(kind: str, number: int, round_number: int, fixture: Fixture | None) -> Slot:
        round = by_number.get(round_number)
        result = getattr(fixture, "result", None) if round_number in published else None
        game = (
            None
            if result is None or fixture is None
            else GameResult(
                fixture=fixture,
                home_goals=result.home_goals,
                away_goals=result.away_goals,
                decided=result.decided,
                winner=result.winner,
                home_pick=None,
                away_pick=None,
            )
        )
        return Slot(kind, number, round_number, round.week if round else None, fixture, game)

    return [
        *(
            slot(
                "semi_final",
                number,
                wg.SEMI_FINAL_ROUND,
                semis[number - 1] if len(semis) >= number else None,
            )
            for number in (1, 2)
        ),
        slot("final", 0, wg.FINAL_ROUND, final_week.get(Fixture.Label.FINAL)),
        slot("third_place", 0, wg.FINAL_ROUND, final_week.get(Fixture.Label.THIRD_PLACE)),
    ]


def wg_cup(*, pool: Pool) -> WgCup:
    """The WG's page as the public sees it (R9, R18, R23), from a constant number of queries."""
    if not pool.kind.groups:
        raise ValueError(f"{pool.slug} is not the WG")
    rounds = _rounds(pool)
    group_rounds = [round for round in rounds if round.number <= wg.GROUP_ROUNDS]
    played = [
        round for round in group_rounds if round.pool_round_status == PoolRound.Status.PUBLISHED
    ]
    found = wg_group_standings_tables(pool=pool)
    tables = {name: table.rows for name, table in found.items()}
    groups: list[WgGroup] = []
    seconds: list[SecondLine] = []
    decided_on = ""
    die: TableDie | None = None
    if tables:
        state = (
            NOT_STARTED
            if not played
            else COMPLETE
            if len(played) == wg.GROUP_ROUNDS
            else PROVISIONAL
        )
        shown = tables_lines(
            tables=[(pool, rows) for rows in tables.values()],
            dies=[thrown for table in found.values() for thrown in table.dies],
        )
        lines = {line.row.team: line for rows in shown for line in rows}
        seed = (played[-1].pool_round_seed or "") if played else ""
        marks, seconds, decided_on, die = _seconds(tables, lines, state, seed)
        groups = [
            WgGroup(
                name,
                [GroupLine(line, marks.get(line.row.team, "")) for line in rows],
                found[name].dies,
            )
            for name, rows in zip(tables, shown, strict=True)
        ]
    else:
        state = NOT_STARTED
    return WgCup(
        state=state,
        group_rounds=[round.number for round in group_rounds if round.pool_round_id],
        published_group_rounds=len(played),
        groups=groups,
        seconds=seconds,
        best_decided_on=decided_on,
        slots=_slots(pool, rounds),
        best_second_die=die,
    )
