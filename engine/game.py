"""Playing one round of one pool: crowding, stocks, bonus goal, extra time, ties, ONR (R1–R8, R11,
R14, R15, R23).

Build a :class:`Round` (it checks its input and names the field at fault), then
:func:`play_round` it. The round's seed drives every random draw through one
:class:`~engine.dice.Dice`, so the same round always gives the same result (R23).

>>> row = {"A": 3, "B": 3, "C": 1, "D": 4, "E": 3, "F": 5, "G": 1, "H": 1, "I": 4, "J": 3, "K": 2}
>>> result = play_round(Round(
...     competition="championship",
...     seed="2026/elite/round-1",
...     matrix_row=row,
...     teams={
...         "sleigh-dogs": TeamEntry(Pick.parse("F+(2)")),
...         "ice-crocodiles": TeamEntry(Pick.parse("F(0)")),
...     },
...     fixtures=[("sleigh-dogs", "ice-crocodiles")],
...     bonus_goal=None,
... ))
>>> match = result.matches[0]
>>> match.home_goals, match.away_goals, match.decided, match.winner
(5, 4, <Decided.REGULATION: 'regulation'>, 'sleigh-dogs')
>>> result.teams["sleigh-dogs"].display
'F+(2)'
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, NoReturn

from engine.competitions import (
    EXTRA_TIME_DIE,
    RULES,
    SHOOTOUT_DIE,
    Competition,
    DoubleForfeit,
    OnrRule,
    Rules,
    TieRule,
    X,
    rules_for,
)
from engine.dice import Dice, Draw
from engine.errors import InputError, NotationError
from engine.notation import ONR, Pick, display, refusal
from engine.quotas import columns_left, is_left, notation_order, values_left


class Decided(enum.Enum):
    """How a game was decided (the ``decided`` field of a match).

    >>> Decided("shootout").after_regulation
    True
    """

    REGULATION = "regulation"
    """A winner after regular time (extra goals, great saves and bonus goal included, R3)."""
    EXTRA_TIME = "extra_time"
    """The higher extra-time value scored the golden goal (R3, R7)."""
    DRAW = "draw"
    """Still tied after extra time in the championship or a WG group (R8)."""
    SHOOTOUT = "shootout"
    """The higher shootout value won; the score is unchanged (KDH, R8)."""
    DIE = "die"
    """A die picked the winner after every other tie-break (R8)."""
    GROUP_GOALS = "group_goals"
    """More goals in the WG group games won a tied knockout game (R8)."""
    FORFEIT = "forfeit"
    """A cup game lost by an ONR team (R15)."""

    @property
    def after_regulation(self) -> bool:
        """Whether the game went past regular time, so that its loser gets a point (R9)."""
        return self in _AFTER_REGULATION


_AFTER_REGULATION = frozenset(
    {Decided.EXTRA_TIME, Decided.SHOOTOUT, Decided.DIE, Decided.GROUP_GOALS}
)


class BonusDraw(enum.Enum):
    """The default of :attr:`Round.bonus_goal`: the round does not name the bonus goal's team."""

    DRAWN = "drawn"
    """R5: the team is drawn from the seed among all the pool's teams."""


DRAWN = BonusDraw.DRAWN


class TeamEntry(NamedTuple):
    """One team of a round's pool: its pick and what it has already used (R1, R6, R7, R11).

    Entries and results are named tuples rather than frozen dataclasses: every round builds
    one per team, and a named tuple is four times cheaper to build. A :class:`Round` keeps
    its entries' ``used_*`` values as tuples, whatever sequence they were given as.

    >>> entry = TeamEntry(Pick.parse("F+(2)"), extra_goals=1)
    >>> entry.pick, entry.used_columns, entry.extra_goals
    (Pick.parse('F+(2)'), (), 1)
    """

    pick: Pick | None = None
    """The pick received, or ``None`` when no picks were received (ONR, R4/R15)."""
    used_columns: tuple[str, ...] = ()
    """Columns already played this season in this competition (R19)."""
    used_extra_time: tuple[str, ...] = ()
    """Extra-time values already played this season in this competition, repeats included (R7)."""
    used_shootout: tuple[str, ...] = ()
    """Shootout values already played this season (KDH, R7)."""
    extra_goals: int | None = None
    """Extra-goal stock before this round; ``None`` for no limit (R6)."""
    great_saves: int | None = None
    """Great-save stock before this round; ``None`` for no limit (R6)."""
    group_goals: int = 0
    """Goals scored in the WG group games, the WG knockout tie-break (R8)."""
    dummy: bool = False
    """R14: a dummy team plays a random legal pick as a regular pick (its ``pick`` is ignored)."""


class _Facts(NamedTuple):
    """What play_round and Round's checks need of a competition's rules, worked out once."""

    rules: Rules
    name: str
    column_limits: dict[str, int]
    column_values: frozenset[str]
    column_span: str
    extra_time_items: tuple[tuple[str, int], ...]
    extra_time_values: frozenset[str]
    extra_time_total: int
    extra_time_limits: dict[str, int]
    shootout_items: tuple[tuple[str, int], ...]
    shootout_values: frozenset[str]
    shootout_total: int
    shootout_limits: dict[str, int]
    forfeits: bool


def _facts(rules: Rules) -> _Facts:
    shootout = rules.shootout_quota or {}
    return _Facts(
        rules=rules,
        name=rules.competition.value,
        column_limits=dict.fromkeys(rules.columns, 1),
        column_values=frozenset(rules.columns),
        column_span=f"{rules.columns[0]}–{rules.columns[-1]}",
        extra_time_items=tuple(notation_order(rules.extra_time_quota).items()),
        extra_time_values=frozenset(rules.extra_time_quota),
        extra_time_total=sum(rules.extra_time_quota.values()),
        extra_time_limits=dict(notation_order(rules.extra_time_quota)),
        shootout_items=tuple(notation_order(shootout).items()),
        shootout_values=frozenset(shootout),
        shootout_total=sum(shootout.values()),
        shootout_limits=dict(notation_order(shootout)),
        forfeits=rules.onr is OnrRule.FORFEIT,
    )


_FACTS = {competition: _facts(rules) for competition, rules in RULES.items()}


@dataclass(frozen=True, slots=True)
class Round:
    """One round of one pool (R2), checked when built: an invalid round raises
    :class:`~engine.errors.InputError` naming the field (``teams.cyberians.pick``,
    ``fixtures[2]``, ``matrix_row.F``).

    >>> Round("kdh", "s", {"A": 3}, {"a": TeamEntry(Pick.parse("A(1)"))}, [])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams.a.pick: pick 'A(1)': the kdh needs a shootout value ...
    """

    competition: Competition
    """The kind of round (a :class:`Competition` or its name); it selects the rules."""
    seed: str
    """Every random draw of the round derives from it (R23)."""
    matrix_row: Mapping[str, int]
    """This round's row of the competition's matrix: column → value 1–6 (R19)."""
    teams: Mapping[str, TeamEntry]
    """The crowding pool (R2): every team in it plays and crowds."""
    fixtures: Sequence[tuple[str, str]]
    """The games, ``(home, away)``; a team plays at most one."""
    bonus_goal: str | BonusDraw | None = DRAWN
    """R5, championship only: :data:`DRAWN` (default), the team that gets it, or ``None``."""
    _facts: _Facts = field(init=False, repr=False, compare=False)
    _order: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _columns: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _unpaired: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # Plain-dict twins of matrix_row and teams for play_round (a read-only proxy is slower).
    _row: dict[str, int] = field(init=False, repr=False, compare=False)
    _entries: dict[str, TeamEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rules = rules_for(self.competition)
        facts = _FACTS[rules.competition]
        freeze = object.__setattr__
        freeze(self, "competition", rules.competition)
        freeze(self, "_facts", facts)
        if not isinstance(self.seed, str):
            raise InputError("seed", "must be a string")
        row = _checked_row(self.matrix_row, facts)
        freeze(self, "_row", row)
        freeze(self, "matrix_row", MappingProxyType(row))
        if len(row) == len(rules.columns):  # the usual full row
            columns, column_set = rules.columns, facts.column_values
        else:
            columns = tuple([c for c in rules.columns if c in row])
            column_set = frozenset(columns)
        freeze(self, "_columns", columns)
        teams = _checked_teams(self.teams, facts, columns, column_set)
        freeze(self, "_entries", teams)
        freeze(self, "teams", MappingProxyType(teams))
        freeze(self, "_order", tuple(sorted(teams)))
        fixtures, paired = _checked_fixtures(self.fixtures, teams)
        freeze(self, "fixtures", fixtures)
        freeze(self, "_unpaired", tuple([t for t in self._order if t not in paired]))
        bonus = self.bonus_goal
        if rules.bonus_goal and bonus is not DRAWN and bonus is not None and bonus not in teams:
            raise InputError("bonus_goal", f"unknown team {bonus!r}")


class TeamResult(NamedTuple):
    """What one team played and scored in a round (the ``teams`` of the ``round`` output)."""

    column: str | None
    """The column played, after ONR draws and R11 redraws; ``None`` for a cup forfeit."""
    extra_time: str | None
    """The extra-time value played (an ``X`` stays ``"X"``; its die is in the draws)."""
    shootout: str | None
    """The shootout value played (KDH), else ``None``."""
    extra_goals_used: int
    """Extra goals actually played: the request, up to the stock (R6)."""
    great_saves_used: int
    """Great saves actually played, even against a 0 (R6)."""
    onr: bool
    """No picks were received (R4, R15)."""
    redrawn: bool
    """A stale part of the pick was redrawn (R11)."""
    bonus_goal: bool
    """The team scored the bonus goal (R5)."""
    goals: int
    """Its final score, golden goal included (the match's score)."""

    @property
    def display(self) -> str:
        """The pick as results show it (R10): ``D++*(1)``, ``ONR : F(X)``, or ``ONR`` alone for
        a cup forfeit (R15).

        >>> TeamResult("D", "1", None, 2, 0, False, False, True, 6).display
        'D++*(1)'
        """
        if self.column is None:
            return ONR
        assert self.extra_time is not None  # a played column has its extra time
        return display(
            self.column,
            self.extra_time,
            self.shootout,
            self.extra_goals_used,
            self.great_saves_used,
            bonus_goal=self.bonus_goal,
            onr=self.onr,
        )

    def as_dict(self) -> dict[str, Any]:
        """The team's part of the ``round`` output, ``display`` included."""
        return {**self._asdict(), "display": self.display}


class MatchResult(NamedTuple):
    """The result of one game: final score as shown to players (R3) and how it was decided."""

    home: str
    away: str
    home_goals: int
    away_goals: int
    decided: Decided
    winner: str | None
    """The winner's id; ``None`` for a draw and for two ONR teams in the KDH (R15)."""

    @property
    def loser(self) -> str | None:
        """The loser's id, ``None`` when there is no winner."""
        if self.winner is None:
            return None
        return self.away if self.winner == self.home else self.home

    def as_dict(self) -> dict[str, Any]:
        return {
            "home": self.home,
            "away": self.away,
            "home_goals": self.home_goals,
            "away_goals": self.away_goals,
            "decided": self.decided.value,
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Everything a round produced, in the shape of the ``round`` command's output."""

    bonus_goal: str | None
    """The team that scored the bonus goal, or ``None`` (none, or denied to an ONR team, R5)."""
    teams: Mapping[str, TeamResult]
    """Per team, in team id order."""
    matches: tuple[MatchResult, ...]
    """Per fixture, in fixture order."""
    qualified: tuple[str, ...] | None
    """Knockout rounds: the winners in fixture order, then the lucky losers (R15); else ``None``."""
    draws: tuple[Draw, ...]
    """Every random draw, in order (R23)."""
    lucky_losers: tuple[LuckyLoser, ...] = ()
    """The lucky losers among :attr:`qualified`, each with why it went through (R15)."""

    def as_dict(self) -> dict[str, Any]:
        """The ``round`` command's output document."""
        return {
            "bonus_goal": self.bonus_goal,
            "teams": {team: result.as_dict() for team, result in self.teams.items()},
            "matches": [match.as_dict() for match in self.matches],
            "qualified": None if self.qualified is None else list(self.qualified),
            "draws": [draw.as_dict() for draw in self.draws],
        }


# The playing record of one team inside play_round: plain tuples keep the hot path lean.
_COLUMN, _EXTRA_TIME, _SHOOTOUT, _EXTRA_GOALS, _GREAT_SAVES, _ONR, _REDRAWN = range(7)
_FORFEIT: tuple[Any, ...] = (None, None, None, 0, 0, True, False)


def play_round(round_: Round) -> RoundResult:
    """Play one round of one pool and return every result and draw (R1–R8, R11, R15, R23).

    The order of random draws is fixed: the bonus goal first, then per team in id order its
    ONR, dummy or redraw draws, then per game in fixture order its X values and dice, then
    the lucky losers.
    """
    facts = round_._facts
    rules = facts.rules
    row = round_._row
    entries = round_._entries
    order = round_._order
    dice = Dice(round_.seed)

    bonus = round_.bonus_goal if rules.bonus_goal else None
    if bonus is DRAWN:
        # R5: drawn among all the pool's teams, ONR included.
        bonus = dice.choice("bonus_goal", order) if order else None

    forfeits = facts.forfeits
    et_quota = facts.extra_time_limits
    so_quota = facts.shootout_limits
    played: dict[str, tuple[Any, ...]] = {}
    crowd: dict[str, int] = {}
    for team in order:
        entry = entries[team]
        pick, used_columns, used_extra_time, used_shootout, eg_stock, gs_stock, _, dummy = entry
        if dummy or pick is None:
            if dummy:
                # R14: a dummy's random pick is a regular pick: it crowds, without stocks.
                column, extra_time, shootout = _draw_pick(dice, "dummy", team, entry, round_)
                crowd[column] = crowd.get(column, 0) + 1
                played[team] = (column, extra_time, shootout, 0, 0, False, False)
            elif forfeits:
                played[team] = _FORFEIT  # R15: no pick is drawn for a forfeiting cup team.
            else:
                # R4: the referee draws a remaining column and value; it does not crowd.
                played[team] = (*_draw_pick(dice, "onr", team, entry, round_), 0, 0, True, False)
            continue
        column = pick.column
        extra_time = pick.extra_time
        shootout = pick.shootout
        redrawn = False
        # R11: only the stale part of an advance pick is redrawn; no penalty.
        if column in used_columns:
            column = dice.choice(
                f"redraw_column:{team}", columns_left(round_._columns, used_columns)
            )
            redrawn = True
        if used_extra_time and not is_left(et_quota, used_extra_time, extra_time):
            extra_time = dice.choice(
                f"redraw_extra_time:{team}", tuple(values_left(et_quota, used_extra_time))
            )
            redrawn = True
        if (
            used_shootout
            and shootout is not None
            and not is_left(so_quota, used_shootout, shootout)
        ):
            shootout = dice.choice(
                f"redraw_shootout:{team}", tuple(values_left(so_quota, used_shootout))
            )
            redrawn = True
        # R6: stocks cap what is played; the excess is simply not played.
        extra_goals = pick.extra_goals
        if eg_stock is not None and extra_goals > eg_stock:
            extra_goals = eg_stock
        great_saves = pick.great_saves
        if gs_stock is not None and great_saves > gs_stock:
            great_saves = gs_stock
        crowd[column] = crowd.get(column, 0) + 1
        played[team] = (column, extra_time, shootout, extra_goals, great_saves, False, redrawn)

    if bonus is not None and played[bonus][_ONR]:
        bonus = None  # R5: an ONR team's bonus goal is denied (offside), no redraw.

    # R1/R2: each other regular team on the column takes one goal off; never below 0.
    base: dict[str, int] = {}
    for team, record in played.items():
        column = record[_COLUMN]
        if column is None:
            base[team] = 0
            continue
        others = crowd.get(column, 0) - 1
        value = row[column] - others if others >= 0 else row[column]
        if record[_ONR]:
            value -= 1  # R4: the ONR team gets the regulars' value minus 1.
        base[team] = value if value > 0 else 0

    goals: dict[str, int] = {}
    matches = []
    double_forfeits = 0
    shootouts: dict[int, tuple[int, int]] = {}
    tie_break = _TIE_BREAKS[rules.tie]
    winner: str | None
    for index, (home, away) in enumerate(round_.fixtures):
        h = played[home]
        a = played[away]
        if h[_COLUMN] is None or a[_COLUMN] is None:
            match = _forfeit(dice, rules, home, away, h, a, base)
            double_forfeits += match.winner is None
            goals[home] = match.home_goals
            goals[away] = match.away_goals
            matches.append(match)
            continue
        # R3: clamped value + extra goals − opponent's great saves (never below 0) + bonus.
        home_goals = base[home] + h[_EXTRA_GOALS] - a[_GREAT_SAVES]
        if home_goals < 0:
            home_goals = 0
        if home == bonus:
            home_goals += 1
        away_goals = base[away] + a[_EXTRA_GOALS] - h[_GREAT_SAVES]
        if away_goals < 0:
            away_goals = 0
        if away == bonus:
            away_goals += 1
        if home_goals != away_goals:
            decided = Decided.REGULATION
            winner = home if home_goals > away_goals else away
        else:
            # R3/R7: extra time; the higher value scores the golden goal.
            home_value = _value(dice, "extra_time_x", home, h[_EXTRA_TIME], EXTRA_TIME_DIE)
            away_value = _value(dice, "extra_time_x", away, a[_EXTRA_TIME], EXTRA_TIME_DIE)
            if home_value > away_value:
                decided, winner = Decided.EXTRA_TIME, home
                home_goals += 1
            elif away_value > home_value:
                decided, winner = Decided.EXTRA_TIME, away
                away_goals += 1
            else:
                decided, winner, shot = tie_break(dice, home, away, h, a, entries)
                if shot is not None:
                    shootouts[index] = shot
        goals[home] = home_goals
        goals[away] = away_goals
        matches.append(MatchResult(home, away, home_goals, away_goals, decided, winner))

    for team in round_._unpaired:
        # A team without a game this round still plays its pick (and crowds); it has no
        # opponent whose great saves could count against it.
        record = played[team]
        goals[team] = base[team] + record[_EXTRA_GOALS] + (team == bonus)

    qualified: tuple[str, ...] | None = None
    lucky: tuple[LuckyLoser, ...] = ()
    if rules.knockout:
        winners = [m.winner for m in matches if m.winner is not None]
        if double_forfeits:
            lucky = _lucky_losers(dice, matches, shootouts, double_forfeits)
            winners += [reason.team for reason in lucky]
        qualified = tuple(winners)

    # A team's record is the first seven fields of its result, in order.
    teams = {team: TeamResult._make((*played[team], team == bonus, goals[team])) for team in order}
    return RoundResult(
        bonus, MappingProxyType(teams), tuple(matches), qualified, tuple(dice.draws), lucky
    )


def _draw_pick(
    dice: Dice, kind: str, team: str, entry: TeamEntry, round_: Round
) -> tuple[str, str, str | None]:
    """Draw a random legal column and values for an ONR (R4) or dummy (R14) team."""
    facts = round_._facts
    column = dice.choice(f"{kind}_column:{team}", columns_left(round_._columns, entry.used_columns))
    extra_time = dice.choice(
        f"{kind}_extra_time:{team}",
        tuple(values_left(facts.extra_time_limits, entry.used_extra_time)),
    )
    shootout = None
    if facts.shootout_items:
        shootout = dice.choice(
            f"{kind}_shootout:{team}",
            tuple(values_left(facts.shootout_limits, entry.used_shootout)),
        )
    return column, extra_time, shootout


def _value(dice: Dice, what: str, team: str, value: str, die: tuple[str, ...]) -> int:
    """A played extra-time or shootout value; an X is a fair die, rolled only now (R7)."""
    if value == X:
        return int(dice.choice(f"{what}:{team}", die))
    return int(value)


_Tie = tuple[Decided, str | None, tuple[int, int] | None]
_Played = tuple[Any, ...]  # a team's playing record inside play_round


def _tie_draw(
    dice: Dice, home: str, away: str, h: _Played, a: _Played, entries: Mapping[str, TeamEntry]
) -> _Tie:
    """R8, championship and WG group: the game is a draw."""
    return Decided.DRAW, None, None


def _tie_shootout(
    dice: Dice, home: str, away: str, h: _Played, a: _Played, entries: Mapping[str, TeamEntry]
) -> _Tie:
    """R8, KDH: the higher shootout value wins (score unchanged), then a die."""
    home_value = _value(dice, "shootout_x", home, h[_SHOOTOUT], SHOOTOUT_DIE)
    away_value = _value(dice, "shootout_x", away, a[_SHOOTOUT], SHOOTOUT_DIE)
    if home_value != away_value:
        winner = home if home_value > away_value else away
        return Decided.SHOOTOUT, winner, (home_value, away_value)
    return (
        Decided.DIE,
        dice.choice(f"tie_die:{home}-{away}", (home, away)),
        (home_value, home_value),
    )


def _tie_group_goals(
    dice: Dice, home: str, away: str, h: _Played, a: _Played, entries: Mapping[str, TeamEntry]
) -> _Tie:
    """R8, WG knockout: more goals in the WG group games wins, then a die."""
    home_goals = entries[home].group_goals
    away_goals = entries[away].group_goals
    if home_goals != away_goals:
        return Decided.GROUP_GOALS, home if home_goals > away_goals else away, None
    return Decided.DIE, dice.choice(f"tie_die:{home}-{away}", (home, away)), None


_TIE_BREAKS: Mapping[TieRule, Callable[..., _Tie]] = MappingProxyType(
    {
        TieRule.DRAW: _tie_draw,
        TieRule.SHOOTOUT: _tie_shootout,
        TieRule.GROUP_GOALS: _tie_group_goals,
    }
)


def _forfeit(
    dice: Dice,
    rules: Rules,
    home: str,
    away: str,
    h: tuple[Any, ...],
    a: tuple[Any, ...],
    base: Mapping[str, int],
) -> MatchResult:
    """R15: a cup game with an ONR team. The other team's goals are computed normally."""
    if h[_COLUMN] is not None:
        return MatchResult(home, away, base[home] + h[_EXTRA_GOALS], 0, Decided.FORFEIT, home)
    if a[_COLUMN] is not None:
        return MatchResult(home, away, 0, base[away] + a[_EXTRA_GOALS], Decided.FORFEIT, away)
    if rules.double_forfeit is DoubleForfeit.DIE:
        winner = dice.choice(f"forfeit_die:{home}-{away}", (home, away))
        return MatchResult(home, away, 0, 0, Decided.FORFEIT, winner)
    return MatchResult(home, away, 0, 0, Decided.FORFEIT, None)  # both out; a lucky loser


class LuckyLoserCriterion(enum.Enum):
    """What put a lucky loser ahead of the best loser left out (R15), in the rule's order."""

    ALONE = "alone"
    """No other loser was left to compare it with."""
    DEFEAT = "defeat"
    """It lost later in its game: a shootout loser before an extra-time one, an extra-time
    loser before a regulation one."""
    SHOOTOUT_MARGIN = "shootout_margin"
    """The smaller shootout defeat margin (0 for a die after a level shootout)."""
    SHOOTOUT_GOALS = "shootout_goals"
    """The same margin, more shootout goals."""
    EXTRA_TIME_GOALS = "extra_time_goals"
    """Among extra-time losers, more goals."""
    GOAL_DIFFERENCE = "goal_difference"
    """Among regulation losers, the smaller goal difference."""
    GOALS = "goals"
    """Among regulation losers with the same difference, more goals."""
    DIE = "die"
    """Every criterion equal: a die (its draw is ``lucky_loser_die:N``, R23)."""


class Defeat(NamedTuple):
    """One game's loser as the lucky-loser order reads it (R15)."""

    team: str
    decided: Decided
    """How the game was decided: regulation, extra time, shootout or a die after a shootout."""
    goals: int
    """The loser's goals."""
    against: int
    """The winner's goals."""
    shootout: tuple[int, int] | None = None
    """Shootout values played (the loser's, the winner's) when the game went to one."""

    def key(self) -> tuple[int, int, int]:
        """The rule's order, smallest first: (stage, first criterion, second criterion)."""
        if self.decided is Decided.REGULATION:
            return (2, self.against - self.goals, -self.goals)
        if self.decided is Decided.EXTRA_TIME:
            return (1, -self.goals, 0)
        mine, theirs = self.shootout or (0, 0)
        return (0, theirs - mine, -mine)


class LuckyLoser(NamedTuple):
    """A lucky loser and why it went through (R15): the criterion that put it ahead of the best
    loser left out, its figure on that criterion and that loser's (``None`` for
    :attr:`~LuckyLoserCriterion.ALONE`, :attr:`~LuckyLoserCriterion.DEFEAT` and
    :attr:`~LuckyLoserCriterion.DIE`)."""

    team: str
    decided: Decided
    """How it lost its game."""
    criterion: LuckyLoserCriterion
    figure: int | None = None
    runner_up: int | None = None
    number: int = 1
    """Which lucky loser of the round (the die's draw is ``lucky_loser_die:<number>``)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "decided": self.decided.value,
            "criterion": self.criterion.value,
            "figure": self.figure,
            "runner_up": self.runner_up,
        }


# Per stage, the criteria of the key's second and third places (an extra-time key has no third:
# its second entry is never read).
_LUCKY_CRITERIA = {
    0: (LuckyLoserCriterion.SHOOTOUT_MARGIN, LuckyLoserCriterion.SHOOTOUT_GOALS),
    1: (LuckyLoserCriterion.EXTRA_TIME_GOALS, LuckyLoserCriterion.EXTRA_TIME_GOALS),
    2: (LuckyLoserCriterion.GOAL_DIFFERENCE, LuckyLoserCriterion.GOALS),
}


def lucky_losers(
    defeats: Sequence[Defeat], count: int, die: Callable[[int, list[str]], str]
) -> tuple[LuckyLoser, ...]:
    """R15: the round's ``count`` best losers, each with the criterion that put it through.

    Shootout losers first (smallest shootout margin, a die-decided game after equal shootouts
    counting as 0, then most shootout goals), then extra-time losers (most goals), then
    regulation losers (smallest goal difference, then most goals), then ``die(number, tied)``:
    a draw when a round is played, the published draw when stored results are read again.

    >>> lucky_losers([Defeat("a", Decided.REGULATION, 2, 3), Defeat("b", Decided.REGULATION,
    ...     1, 4)], 1, die=lambda number, tied: tied[0])[0].criterion.value
    'goal_difference'
    """
    candidates = [(defeat.key(), defeat) for defeat in defeats]
    chosen: list[LuckyLoser] = []
    for number in range(1, count + 1):
        if not candidates:
            break
        best = min(key for key, _ in candidates)
        tied = [defeat for key, defeat in candidates if key == best]
        if len(tied) > 1:
            picked = die(number, [defeat.team for defeat in tied])
            found = [defeat for defeat in tied if defeat.team == picked]
            if not found:
                raise InputError(f"die[{number}]", f"{picked!r} is not one of the tied losers")
            lucky = found[0]
            reason = LuckyLoser(lucky.team, lucky.decided, LuckyLoserCriterion.DIE, number=number)
        else:
            lucky = tied[0]
            others = [key for key, defeat in candidates if defeat is not lucky]
            reason = _lucky_reason(lucky, best, min(others) if others else None, number)
        chosen.append(reason)
        candidates = [(key, defeat) for key, defeat in candidates if defeat is not lucky]
    return tuple(chosen)


def _lucky_reason(
    lucky: Defeat, best: tuple[int, int, int], next_best: tuple[int, int, int] | None, number: int
) -> LuckyLoser:
    """Why ``lucky`` (key ``best``) went ahead of the best loser left out (key ``next_best``)."""
    if next_best is None:
        return LuckyLoser(lucky.team, lucky.decided, LuckyLoserCriterion.ALONE, number=number)
    if best[0] != next_best[0]:
        return LuckyLoser(lucky.team, lucky.decided, LuckyLoserCriterion.DEFEAT, number=number)
    place = 1 if best[1] != next_best[1] else 2
    criterion = _LUCKY_CRITERIA[best[0]][place - 1]
    # Margins and differences read as they are; goals are kept negated in the key.
    sign = 1 if place == 1 and best[0] != 1 else -1
    return LuckyLoser(
        lucky.team,
        lucky.decided,
        criterion,
        sign * best[place],
        sign * next_best[place],
        number,
    )


def _lucky_losers(
    dice: Dice,
    matches: Sequence[MatchResult],
    shootouts: Mapping[int, tuple[int, int]],
    count: int,
) -> tuple[LuckyLoser, ...]:
    """R15: the round's best losers, one per game lost by two ONR teams (:func:`lucky_losers`)."""
    defeats = []
    for index, match in enumerate(matches):
        loser = match.loser
        if loser is None or match.decided is Decided.FORFEIT:
            continue
        home_lost = loser == match.home
        lost = match.home_goals if home_lost else match.away_goals
        won = match.away_goals if home_lost else match.home_goals
        shootout = None
        if index in shootouts:
            home_value, away_value = shootouts[index]
            shootout = (home_value, away_value) if home_lost else (away_value, home_value)
        defeats.append(Defeat(loser, match.decided, lost, won, shootout))
    return lucky_losers(
        defeats, count, lambda number, tied: dice.choice(f"lucky_loser_die:{number}", tied)
    )


def _checked_row(row: Any, facts: _Facts) -> dict[str, int]:
    if not isinstance(row, Mapping) or not row:
        raise InputError("matrix_row", 'must map columns to values, e.g. {"A": 3, "B": 5}')
    for column, value in row.items():
        if column not in facts.column_values:
            raise InputError(
                f"matrix_row.{column}", f"not a column of the {facts.name} ({facts.column_span})"
            )
        if type(value) is not int or not 1 <= value <= 6:
            raise InputError(
                f"matrix_row.{column}", f"value must be a whole number 1–6, not {value!r}"
            )
    return dict(row)


def _checked_teams(
    teams: Any, facts: _Facts, columns: tuple[str, ...], column_set: frozenset[str]
) -> dict[str, TeamEntry]:
    """The entries, their ``used_*`` as tuples, or an error naming the field (``teams.<id>.…``).

    One loop with everything it reads bound once: this runs for every round.
    """
    if not isinstance(teams, Mapping):
        raise InputError("teams", "must map team ids to their entries")
    rules = facts.rules
    extra_time_values = facts.extra_time_values
    extra_time_items = facts.extra_time_items
    shootout_values = facts.shootout_values
    great_saves_allowed = rules.great_saves
    shootout_needed = bool(shootout_values)
    column_values = facts.column_values
    name = facts.name
    checked: dict[str, TeamEntry] = {}
    for team, entry in teams.items():
        if type(team) is not str:
            raise InputError("teams", f"team ids must be strings, not {team!r}")
        if not isinstance(entry, TeamEntry):
            raise InputError(f"teams.{team}", "must be a TeamEntry")
        (pick, used_columns, used_extra_time, used_shootout, extra_goals, great_saves,
         group_goals, dummy) = entry  # fmt: skip
        if dummy is not True and dummy is not False:
            raise InputError(f"teams.{team}.dummy", f"must be true or false, not {dummy!r}")
        if (
            pick is not None
            and not dummy
            and not (
                type(pick) is Pick
                and pick.column in column_set
                and pick.extra_time in extra_time_values
                and (great_saves_allowed or not pick.great_saves)
                and (pick.shootout in shootout_values if shootout_needed else pick.shootout is None)
            )
        ):
            _refuse_pick(team, pick, rules, columns)
        if (
            type(used_columns) is not tuple
            or type(used_extra_time) is not tuple
            or type(used_shootout) is not tuple
        ):
            used_columns = tuple(used_columns)
            used_extra_time = tuple(used_extra_time)
            used_shootout = tuple(used_shootout)
            entry = entry._replace(
                used_columns=used_columns,
                used_extra_time=used_extra_time,
                used_shootout=used_shootout,
            )
        if used_columns:
            distinct = set(used_columns)
            if len(distinct) != len(used_columns) or not distinct <= column_values:
                _refuse_used(team, "used_columns", used_columns, facts.column_limits, name)
        if used_extra_time:
            _check_used(
                team, "used_extra_time", used_extra_time, extra_time_values, extra_time_items, name
            )
        if used_shootout:
            _check_used(
                team, "used_shootout", used_shootout, shootout_values, facts.shootout_items, name
            )
        if extra_goals is not None and (type(extra_goals) is not int or extra_goals < 0):
            raise InputError(
                f"teams.{team}.extra_goals",
                f"must be a whole number ≥ 0 or null, not {extra_goals!r}",
            )
        if great_saves is not None and (type(great_saves) is not int or great_saves < 0):
            raise InputError(
                f"teams.{team}.great_saves",
                f"must be a whole number ≥ 0 or null, not {great_saves!r}",
            )
        if type(group_goals) is not int or group_goals < 0:
            raise InputError(
                f"teams.{team}.group_goals", f"must be a whole number ≥ 0, not {group_goals!r}"
            )
        checked[team] = entry
        if pick is None and facts.forfeits and not dummy:
            continue  # R15: a forfeiting team plays nothing.
        # A drawn or redrawn part needs something left to draw from (R4, R11, R14). Counts
        # are within their quotas (checked above), so nothing left (``columns_left`` and
        # ``values_left`` empty) means every one used: the checks count, for speed.
        if len(used_columns) >= len(columns) and column_set.issubset(used_columns):
            raise InputError(f"teams.{team}.used_columns", "no column of the matrix row is left")
        if len(used_extra_time) == facts.extra_time_total:
            raise InputError(f"teams.{team}.used_extra_time", "no extra-time value is left")
        if shootout_needed and len(used_shootout) == facts.shootout_total:
            raise InputError(f"teams.{team}.used_shootout", "no shootout value is left")
    return checked


def _refuse_pick(team: str, pick: Any, rules: Rules, columns: tuple[str, ...]) -> NoReturn:
    if type(pick) is not Pick:
        raise InputError(f"teams.{team}.pick", f"must be a Pick or None, not {pick!r}")
    reason = refusal(pick, rules)
    if reason is None:
        reason = f"column {pick.column} is not in the matrix row ({', '.join(columns)})"
    raise InputError(f"teams.{team}.pick", f"pick {pick.notation()!r}: {reason}")


def _check_used(
    team: str,
    field: str,
    used: tuple[Any, ...],
    values: frozenset[str],
    items: tuple[tuple[str, int], ...],
    name: str,
) -> None:
    """Refuse used values that are not the competition's, or used over their quota (R7)."""
    if values.issuperset(used):
        for value, quota in items:
            if used.count(value) > quota:
                break
        else:
            return
    _refuse_used(team, field, used, dict(items), name)


def _refuse_used(
    team: str, field: str, used: tuple[Any, ...], quota: Mapping[str, int], name: str
) -> NoReturn:
    bad = next(value for value in used if value not in quota or used.count(value) > quota[value])
    if bad not in quota:
        raise InputError(f"teams.{team}.{field}", f"{bad!r} is not played in the {name}")
    raise InputError(
        f"teams.{team}.{field}",
        f"{bad} used {used.count(bad)} times; the season quota is {quota[bad]}",
    )


def _is_sequence(value: Any) -> bool:
    """A list or a tuple (the fast check), or another sequence that is not a string."""
    kind = type(value)
    if kind is list or kind is tuple:
        return True
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _checked_fixtures(
    fixtures: Any, teams: Mapping[str, TeamEntry]
) -> tuple[tuple[tuple[str, str], ...], dict[str, int]]:
    """The fixtures as ``(home, away)`` tuples, and each team's fixture index."""
    if not _is_sequence(fixtures):
        raise InputError("fixtures", "must be a list of [home, away] pairs")
    checked: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for index, fixture in enumerate(fixtures):
        if not _is_sequence(fixture) or len(fixture) != 2:
            raise InputError(f"fixtures[{index}]", "must be a [home, away] pair")
        home, away = fixture
        if home == away:
            raise InputError(f"fixtures[{index}]", f"team {home!r} cannot play itself")
        for team in (home, away):
            if type(team) is not str or team not in teams:
                raise InputError(f"fixtures[{index}]", f"unknown team {team!r} (not in teams)")
            if team in seen:
                raise InputError(
                    f"fixtures[{index}]", f"team {team!r} already plays in fixtures[{seen[team]}]"
                )
            seen[team] = index
        checked.append((home, away))
    return tuple(checked), seen


def round_from_json(doc: Any) -> Round:
    """Build a :class:`Round` from the ``round`` command's input (``shared/ENGINE_CLI.md``).

    Only the document's shape is checked here; :class:`Round` checks the values.

    >>> round_from_json({"competition": "kdh", "seed": "s", "matrix_row": {"A": 2},
    ...                  "teams": {"a": {"pick": "A(9)"}}, "fixtures": []})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams.a.pick: pick 'A(9)': (9): bad extra-time value: must be ...
    """
    if not isinstance(doc, dict):
        raise InputError("input", "must be a JSON object")
    bonus = doc.get("bonus_goal", DRAWN)
    if bonus is not DRAWN and bonus is not None and not isinstance(bonus, str):
        raise InputError("bonus_goal", f"must be a team id or null, not {bonus!r}")
    teams = {
        team: _entry_from_json(team, data)
        for team, data in _field(doc, "teams", dict, "an object").items()
    }
    return Round(
        competition=_field(doc, "competition", str, "a string"),
        seed=_field(doc, "seed", str, "a string"),
        matrix_row=_field(doc, "matrix_row", dict, "an object"),
        teams=teams,
        fixtures=_field(doc, "fixtures", list, "a list of [home, away] pairs"),
        bonus_goal=bonus,
    )


def _field(doc: dict[str, Any], name: str, kind: type, what: str) -> Any:
    if name not in doc:
        raise InputError(name, "missing")
    value = doc[name]
    if not isinstance(value, kind):
        raise InputError(name, f"must be {what}, not {value!r}")
    return value


def _entry_from_json(team: str, data: Any) -> TeamEntry:
    if not isinstance(data, dict):
        raise InputError(f"teams.{team}", f"must be an object, not {data!r}")
    dummy = data.get("dummy", False)
    if "pick" not in data and dummy is not True:
        raise InputError(f"teams.{team}.pick", "missing (null when no picks were received)")
    text = data.get("pick")
    pick = None
    if text is not None:
        if not isinstance(text, str):
            raise InputError(
                f"teams.{team}.pick", f"must be a pick such as F+(2) or null, not {text!r}"
            )
        try:
            pick = Pick.parse(text)
        except NotationError as error:
            raise InputError(f"teams.{team}.pick", str(error)) from None
    group_goals = data.get("group_goals")
    return TeamEntry(
        pick=pick,
        used_columns=_strings(team, data, "used_columns"),
        used_extra_time=_strings(team, data, "used_extra_time"),
        used_shootout=_strings(team, data, "used_shootout"),
        extra_goals=data.get("extra_goals"),
        great_saves=data.get("great_saves"),
        group_goals=0 if group_goals is None else group_goals,
        dummy=dummy,
    )


def _strings(team: str, data: dict[str, Any], name: str) -> tuple[str, ...]:
    values = data.get(name)
    if values is None:
        return ()
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(f"teams.{team}.{name}", f"must be a list of strings, not {values!r}")
    return tuple(values)
