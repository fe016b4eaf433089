"""The KDH cup as a bracket, from published results only (R23): its rounds, each with as many
slots as it has games, filled as the draws are published.

Every round is drawn at random (R17), so a slot is one game of its round, not a place on a fixed
path: a slot shows its game once the round's pairings are public — a round's pairings come from
the arbitration of the round before, so they are public once that round is published
(:func:`~competitions.selectors.results.pool_rounds_fixtures`) —, its score and how it was
decided once the round itself is published, and stays empty before. The qualifying round stands
beside the bracket, with the teams it exempted (R17); a game lost by two ONR teams sends a lucky
loser on in their place, and an odd number of teams left gives one of them a bye (R15).

:func:`kdh_bracket` reads a constant number of queries whatever the round: the pool's rounds,
their published results (:func:`~competitions.selectors.results.pool_rounds_results`), the
pairings made public since (:func:`~competitions.selectors.results.pool_rounds_fixtures`), who
went on (:func:`~competitions.selectors.results.pool_rounds_qualified`) and the field.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from competitions.kinds import Page
from competitions.models import Decided, Fixture, Pool, PoolRound, Round
from competitions.models import Stage as StageChoice
from competitions.selectors.lucky_losers import LuckyLoserShown
from competitions.selectors.results import (
    GameResult,
    decided_marks,
    pool_rounds_fixtures,
    pool_rounds_qualified,
    pool_rounds_results,
)
from engine import kdh
from league.models import Entry, Team

CUP_DECIDED = (Decided.EXTRA_TIME, Decided.SHOOTOUT, Decided.DIE, Decided.FORFEIT)
"""How a KDH game can end past regular time (R8, R15), in the legend's order."""


class SlotKind(enum.Enum):
    """What a slot of a round holds."""

    GAME = "game"
    """A published game: its score and how it was decided."""
    DRAWN = "drawn"
    """A game whose pairing is public and whose result is not (yet)."""
    BYE = "bye"
    """A team sent on without a game: an odd number of teams was left (R15, R17)."""
    EMPTY = "empty"
    """A game still to be drawn: the round before is not published yet (R17, R23)."""
    VACANT = "vacant"
    """No game: the round's draw is public and left this slot unused (double forfeits, R15)."""


@dataclass(frozen=True)
class BracketSide:
    """One team of a slot."""

    entry: Entry
    goals: int | None
    """Its goals once the game is published, else ``None``."""
    goes_on: bool
    """It won the game (or has the bye) and plays the next round — a lucky loser too."""
    lucky_loser: bool
    """It lost, and goes on in the place of two ONR teams (R15)."""
    followed: bool
    lucky: LuckyLoserShown | None = None
    """Why it went on as a lucky loser (R15): the engine's deciding criterion and figures."""

    @property
    def team(self) -> Team:
        return self.entry.team

    @property
    def out(self) -> bool:
        """It lost a published game and went no further."""
        return self.goals is not None and not self.goes_on


@dataclass(frozen=True)
class BracketSlot:
    """One game of a round, or its place while the round is not drawn."""

    kind: SlotKind
    home: BracketSide | None = None
    away: BracketSide | None = None
    game: GameResult | None = None
    """The published game (its ``mark``, ``decided_label``), for :attr:`SlotKind.GAME`."""

    @property
    def sides(self) -> tuple[BracketSide, ...]:
        return tuple(side for side in (self.home, self.away) if side is not None)

    @property
    def followed(self) -> bool:
        """The followed team plays in this slot."""
        return any(side.followed for side in self.sides)

    @property
    def both_out(self) -> bool:
        """Both teams were ONR: both out, a lucky loser takes their place (R15)."""
        return self.game is not None and self.game.winner is None


@dataclass(frozen=True)
class BracketRound:
    """One round of the cup: its slots, in the order of its draw."""

    number: int
    week: int | None
    label: str
    qualifying: bool
    pool_round: PoolRound | None
    published: bool
    drawn: bool
    """Its pairings are public (the round before is published, R23)."""
    current: bool
    """The round the cup stands at: the first one not published (else the final)."""
    slots: tuple[BracketSlot, ...]
    going_on: int
    """How many teams it sent on (winners, lucky losers, byes), once published."""

    @property
    def anchor(self) -> str:
        return f"round-{self.number}"

    @property
    def games(self) -> int:
        """How many games it has (or will have)."""
        return sum(slot.kind is not SlotKind.BYE for slot in self.slots)

    @property
    def followed(self) -> bool:
        return any(slot.followed for slot in self.slots)


@dataclass(frozen=True)
class Bracket:
    """The KDH of a season as a bracket (:func:`kdh_bracket`)."""

    qualifying: BracketRound | None
    """The qualifying round (R17), beside the bracket; ``None`` for a power-of-two field."""
    rounds: tuple[BracketRound, ...]
    """From the round of 64 (the first round after the qualifying one) to the final."""
    exempt: tuple[Entry, ...]
    """The teams straight into the bracket's first round, by name (R17)."""
    teams: tuple[Team, ...]
    """Every team of the cup, by name: those a reader may follow."""
    followed: Team | None
    winner: Entry | None
    """The final's winner once it is published."""
    marks: tuple[tuple[str, str], ...]
    """Each mark a game may carry and its words (AP, TAB, dé, forfait), for the legend."""

    @property
    def columns(self) -> tuple[BracketRound, ...]:
        """Every round in order, the qualifying round first."""
        return (*((self.qualifying,) if self.qualifying else ()), *self.rounds)

    @property
    def followed_exempt(self) -> bool:
        return self.followed is not None and any(
            entry.team_id == self.followed.pk for entry in self.exempt
        )


@dataclass(frozen=True)
class _Shape:
    """A round's place in the bracket: its number, name and how many games it holds."""

    number: int
    label: str
    qualifying: bool
    games: int | None
    """``None`` when the field is unknown (a season imported without its pool's members)."""


def _shapes(field_size: int, pool_rounds: Sequence[PoolRound]) -> list[_Shape]:
    """R17: the engine's stages for a field of ``field_size`` teams (:func:`engine.kdh.stages`:
    a qualifying round unless the field is a power of two, then a bracket halved round after
    round down to the final). Without a known field, the rounds drawn so far as the calendar
    names them."""
    stages = {stage.value: str(stage.label) for stage in StageChoice}
    if field_size < 2:
        return [
            _Shape(
                number=pool_round.round.number,
                label=stages[pool_round.round.stage],
                qualifying=pool_round.round.stage == StageChoice.QUALIFYING,
                games=None,
            )
            for pool_round in pool_rounds
        ]
    shapes = []
    for stage in kdh.stages(field_size):
        label = stages.get(stage.key) or _("round of %(teams)d") % {"teams": stage.teams}
        shapes.append(_Shape(stage.number, label, qualifying=stage.qualifying, games=stage.games))
    return shapes


def _side(
    entry: Entry,
    *,
    goals: int | None = None,
    goes_on: bool = False,
    lucky_loser: bool = False,
    lucky: LuckyLoserShown | None = None,
    followed: str | None,
) -> BracketSide:
    return BracketSide(
        entry=entry,
        goals=goals,
        goes_on=goes_on,
        lucky_loser=lucky_loser,
        followed=followed is not None and entry.team.slug == followed,
        lucky=lucky,
    )


def _game_slot(
    game: GameResult,
    going_on: set[int],
    reasons: dict[int, LuckyLoserShown],
    followed: str | None,
) -> BracketSlot:
    def side(entry: Entry, goals: int) -> BracketSide:
        won = game.winner is not None and game.winner.pk == entry.pk
        # R15: a loser still going on took the place of two ONR teams.
        lucky = not won and entry.pk in going_on
        return _side(
            entry,
            goals=goals,
            goes_on=won or lucky,
            lucky_loser=lucky,
            lucky=reasons.get(entry.pk) if lucky else None,
            followed=followed,
        )

    return BracketSlot(
        kind=SlotKind.GAME,
        home=side(game.home, game.home_goals),
        away=side(game.away, game.away_goals),
        game=game,
    )


def _drawn_slot(fixture: Fixture, followed: str | None) -> BracketSlot:
    return BracketSlot(
        kind=SlotKind.DRAWN,
        home=_side(fixture.home, followed=followed),
        away=_side(fixture.away, followed=followed),
    )


def _slots(
    shape: _Shape,
    games: Sequence[GameResult] | None,
    fixtures: Sequence[Fixture] | None,
    going_on: set[int],
    reasons: dict[int, LuckyLoserShown],
    byes: Iterable[Entry],
    followed: str | None,
) -> tuple[BracketSlot, ...]:
    """The round's slots: its published games, else its public pairings, then its byes; then
    empty slots up to its number of games — vacant ones if its draw is public."""
    if games is not None:
        slots = [_game_slot(game, going_on, reasons, followed) for game in games]
    elif fixtures is not None:
        slots = [_drawn_slot(fixture, followed) for fixture in fixtures]
    else:
        slots = []
    slots += [
        BracketSlot(kind=SlotKind.BYE, home=_side(entry, goes_on=True, followed=followed))
        for entry in byes
    ]
    drawn = games is not None or fixtures is not None
    # A bye takes a slot of its own: the team without a game is the slot's half (R15).
    missing = (shape.games or 0) - len(slots)
    filler = SlotKind.VACANT if drawn else SlotKind.EMPTY
    return (*slots, *(BracketSlot(kind=filler) for _ in range(max(0, missing))))


def _by_name(teams: Iterable[Team]) -> tuple[Team, ...]:
    unique = {team.pk: team for team in teams}
    return tuple(sorted(unique.values(), key=lambda team: (team.name.casefold(), team.slug)))


def kdh_bracket(*, pool: Pool, team: str | None = None) -> Bracket:
    """``pool``'s KDH as a bracket, as the public may see it, with ``team`` (a slug) followed.

    Only what publishing made public (R23): a round's games, scores, marks and who went on once
    it is published; its pairings (and byes) once the round before is; nothing of an arbitrated
    round before its publication. In nine queries whatever the week.
    """
    if pool.kind.page is not Page.BRACKET:
        raise ValueError(f"{pool.slug} is not the KDH: its bracket is its groups and finals")
    pool_rounds = list(
        PoolRound.objects.filter(pool=pool).select_related("round").order_by("round__number")
    )
    by_number = {pool_round.round.number: pool_round for pool_round in pool_rounds}
    revealed = [shown for shown in pool_rounds_results(pool_rounds=pool_rounds) if shown.revealed]
    results = {shown.pool_round.pk: shown.games for shown in revealed}
    # R15: why each lucky loser went on, by round and entry (looked up for rounds not drawn too).
    reasons: dict[int | None, dict[int, LuckyLoserShown]] = {
        shown.pool_round.pk: {lucky.entry.pk: lucky for lucky in shown.lucky_losers}
        for shown in revealed
    }
    pairings = pool_rounds_fixtures(
        pool_rounds=[pool_round for pool_round in pool_rounds if pool_round.pk not in results]
    )
    drawn = {pk for pk, fixtures in pairings.items() if fixtures is not None} | set(results)
    qualified = pool_rounds_qualified(
        pool_rounds=[pool_round for pool_round in pool_rounds if pool_round.pk in drawn]
    )
    members = list(
        Entry.objects.filter(pool_members__pool=pool).select_related("team").order_by("pk")
    )
    weeks = dict(
        Round.objects.filter(season_id=pool.season_id, competition=pool.competition).values_list(
            "number", "week"
        )
    )
    shapes = _shapes(len(members), pool_rounds)
    # The round the cup stands at: the first one not published, else (the cup over) the last.
    current = next(
        (
            shape.number
            for shape in shapes
            if shape.number not in by_number or by_number[shape.number].pk not in results
        ),
        shapes[-1].number if shapes else None,
    )
    # Where the teams a bye sends on are found: the field, then every public game (R15, R17).
    known = {entry.pk: entry for entry in members}
    columns = []
    for shape in shapes:
        pool_round = by_number.get(shape.number)
        pk = pool_round.pk if pool_round is not None else None
        games = results.get(pk) if pk is not None else None
        fixtures = pairings.get(pk) if pk is not None else None
        public = [(game.home, game.away) for game in games or ()] or [
            (fixture.home, fixture.away) for fixture in fixtures or ()
        ]
        playing = {entry.pk for pair in public for entry in pair}
        known.update((entry.pk, entry) for pair in public for entry in pair)
        going_on = qualified.get(pk, set()) if pk is not None else set()
        byes = sorted(
            (known[entry_id] for entry_id in going_on - playing if entry_id in known),
            key=lambda entry: entry.team.name.casefold(),
        )
        columns.append(
            BracketRound(
                number=shape.number,
                week=weeks.get(shape.number),
                label=shape.label,
                qualifying=shape.qualifying,
                pool_round=pool_round,
                published=games is not None,
                drawn=pk in drawn,
                current=shape.number == current,
                slots=_slots(shape, games, fixtures, going_on, reasons.get(pk, {}), byes, team),
                going_on=len(going_on) if games is not None else 0,
            )
        )
    return _bracket(columns, members, team)


def _bracket(columns: list[BracketRound], members: list[Entry], team: str | None) -> Bracket:
    """The rounds put together: the qualifying round beside the others, the teams it exempted
    (R17), every team one may follow and the final's winner."""
    qualifying = next((column for column in columns if column.qualifying), None)
    rounds = tuple(column for column in columns if not column.qualifying)
    exempt: tuple[Entry, ...] = ()
    if qualifying is not None and qualifying.drawn:
        playing = {side.entry.pk for slot in qualifying.slots for side in slot.sides}
        exempt = tuple(
            sorted(
                (entry for entry in members if entry.pk not in playing),
                key=lambda entry: entry.team.name.casefold(),
            )
        )
    teams = _by_name(
        [entry.team for entry in members]
        + [side.team for column in columns for slot in column.slots for side in slot.sides]
    )
    # The last round is the final once the field is known; without it, only a one-game round.
    final = rounds[-1] if rounds and rounds[-1].published else None
    slots = final.slots if final is not None and len(final.slots) == 1 else ()
    winner = next((side.entry for slot in slots for side in slot.sides if side.goes_on), None)
    return Bracket(
        qualifying=qualifying,
        rounds=rounds,
        exempt=exempt,
        teams=teams,
        followed=next((found for found in teams if found.slug == team), None),
        winner=winner,
        marks=tuple(decided_marks(decided=[value.value for value in CUP_DECIDED])),
    )
