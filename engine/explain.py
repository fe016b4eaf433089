"""How each team's goals were made in a played round, step by step in the order of R3.

An explanation is read from what :func:`~engine.game.play_round` produced — the teams' played
picks (:class:`~engine.game.TeamResult`), the games (:class:`~engine.game.MatchResult`) and the
draws (R23) — with the round's matrix row, the picks as received (for R11's « what was
asked ») and the WG group goals (R8). It never plays the round again: it splits each stored
score into its steps, and refuses (:class:`~engine.errors.InputError`) when the steps do not
add up to the stored goals, so an explanation always agrees with the result it explains.

The rules' worked example (section 3.1.4, week 1): the Sleigh Dogs and three other regular teams
played F (5), and the Sleigh Dogs played an extra goal.

>>> from engine.game import Round, TeamEntry, play_round
>>> from engine.notation import Pick
>>> row = {"A": 3, "B": 3, "C": 1, "D": 4, "E": 3, "F": 5, "G": 1, "H": 1, "I": 4, "J": 3, "K": 2}
>>> picks = {"sleigh-dogs": "F+(2)", "ice-crocodiles": "F(0)", "grizzlies": "F(2)",
...          "igloos": "F#(3)"}
>>> round_ = Round("championship", "s", row,
...                {t: TeamEntry(Pick.parse(p)) for t, p in picks.items()},
...                [("sleigh-dogs", "ice-crocodiles"), ("grizzlies", "igloos")], None)
>>> steps = explain(round_, play_round(round_))["sleigh-dogs"]
>>> [(step.code.value, step.amount) for step in steps]
[('column', 5), ('crowding', -3), ('extra_goals', 1)]
>>> steps[1].others
3
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from engine.competitions import Competition, TieRule, X, rules_for
from engine.dice import Draw
from engine.errors import InputError
from engine.game import Decided, MatchResult, Round, RoundResult, TeamResult
from engine.notation import Pick


class StepCode(enum.Enum):
    """What one step of an explanation is (the ``code`` of a :class:`Step`)."""

    DUMMY_PICK = "dummy_pick"
    """R14: a dummy team's pick, drawn at random and played as a regular pick (amount 0)."""
    ONR_PICK = "onr_pick"
    """R4: no picks received; the referee drew ``column`` and the extra-time value ``played``
    (amount 0)."""
    REDRAW = "redraw"
    """R11: a part (``part``) of an advance pick was already used: ``asked`` was redrawn as
    ``played``, with no penalty (amount 0)."""
    COLUMN = "column"
    """R1: ``value``, the value of ``column`` in the round's row of the matrix."""
    CROWDING = "crowding"
    """R1, R2: one goal off for each of the ``others`` other teams of the crowding pool that
    played the column; never below 0, so the amount is at most the column's value."""
    ONR_CROWDING = "onr_crowding"
    """R4: the column as the regular teams get it: ``others`` regular teams played it, so it
    lost ``others`` − 1 goals for them (none when nobody did); never below 0."""
    ONR_PENALTY = "onr_penalty"
    """R4: the ONR team scores the regulars' value minus 1, never below 0."""
    EXTRA_GOALS = "extra_goals"
    """R6: ``count`` extra goals played (``asked``: how many the pick asked, when the stock
    allowed fewer)."""
    GREAT_SAVES = "great_saves"
    """R3, R6: the opponent's ``count`` great saves; never below 0, so the amount is at most
    what was scored so far."""
    BONUS_GOAL = "bonus_goal"
    """R5: the bonus goal, +1."""
    OFFSIDE = "offside"
    """R5: the bonus goal was drawn for this team, which sent no picks: denied (amount 0)."""
    EXTRA_TIME = "extra_time"
    """R3, R7: tied after regular time. ``played`` is the extra-time value played, ``value``
    what it was worth (``die``: what an X rolled), ``opponent`` the other team's; the higher
    value scores the golden goal, +1 (0 for the other team, and for both when equal)."""
    SHOOTOUT = "shootout"
    """R8 (KDH): still tied; the higher shootout value wins, the score unchanged (amount 0).
    ``played``, ``value``, ``die`` and ``opponent`` as for extra time."""
    GROUP_GOALS = "group_goals"
    """R8 (WG knockout): still tied; more goals in the WG group games wins: ``value`` this
    team's, ``opponent`` the other's (amount 0)."""
    DIE = "die"
    """R8, R15: a die picked the winner; ``won`` says whether it was this team (amount 0)."""
    FORFEIT = "forfeit"
    """R15: a cup team that sent no picks loses by forfeit and scores 0 (amount 0)."""
    OPPONENT_FORFEIT = "opponent_forfeit"
    """R15: the opponent sent no picks and lost by forfeit (amount 0)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a team's explanation: its ``code``, what it adds to the score (``amount``,
    negative when it takes goals off) and the facts it rests on. The amounts of a team's steps
    add up to its goals.

    >>> Step(StepCode.CROWDING, -3, column="F", others=3)
    Step(code=<StepCode.CROWDING: 'crowding'>, amount=-3, column='F', others=3)
    """

    code: StepCode
    amount: int = 0
    column: str | None = None
    """The column played (column, crowding, ONR pick; a redrawn column's is ``played``)."""
    value: int | None = None
    """A column's value; an extra-time or shootout value as a number; a team's group goals."""
    others: int | None = None
    """Crowding: how many other teams of the pool played the column (ONR: regular teams)."""
    count: int | None = None
    """Extra goals, or the opponent's great saves, played."""
    asked: str | None = None
    """What the pick asked: a redrawn part (R11), or the extra goals over the stock (R6)."""
    played: str | None = None
    """What was played: a redrawn part (R11), an extra-time or shootout value (``X``), the ONR
    team's drawn extra-time value (R4)."""
    part: str | None = None
    """Which part of the pick was redrawn (R11): ``column``, ``extra_time`` or ``shootout``."""
    die: int | None = None
    """What the die rolled for an X value (R7)."""
    opponent: int | None = None
    """The opponent's extra-time or shootout value, or group goals."""
    won: bool | None = None
    """Whether the die went to this team."""

    def __repr__(self) -> str:
        facts = "".join(
            f", {name}={getattr(self, name)!r}"
            for name in _FACTS
            if getattr(self, name) is not None
        )
        return f"Step(code={self.code!r}, amount={self.amount!r}{facts})"

    def as_dict(self) -> dict[str, Any]:
        """The step as the results API gives it: ``code``, ``amount`` and the facts it has.

        >>> Step(StepCode.COLUMN, 5, column="F", value=5).as_dict()
        {'code': 'column', 'amount': 5, 'column': 'F', 'value': 5}
        """
        data: dict[str, Any] = {"code": self.code.value, "amount": self.amount}
        for name in _FACTS:
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data


_FACTS = tuple(field.name for field in fields(Step))[2:]
"""The fields of a step after its code and amount: the facts it rests on."""

Explanation = tuple[Step, ...]
"""A team's steps, in the order of R3."""


def explain(round_: Round, result: RoundResult) -> Mapping[str, Explanation]:
    """Every team's explanation of ``result``, the :func:`~engine.game.play_round` of
    ``round_`` (:func:`explain_round` with the round's own picks and group goals)."""
    return explain_round(
        competition=round_.competition,
        matrix_row=round_.matrix_row,
        teams=result.teams,
        matches=result.matches,
        draws=result.draws,
        picks={team: entry.pick for team, entry in round_.teams.items()},
        group_goals={team: entry.group_goals for team, entry in round_.teams.items()},
        bonus_goal_for=round_.bonus_goal if isinstance(round_.bonus_goal, str) else None,
    )


def explain_round(
    *,
    competition: Competition | str,
    matrix_row: Mapping[str, int],
    teams: Mapping[str, TeamResult],
    matches: Sequence[MatchResult],
    draws: Iterable[Draw],
    picks: Mapping[str, Pick | None] | None = None,
    group_goals: Mapping[str, int] | None = None,
    bonus_goal_for: str | None = None,
) -> Mapping[str, Explanation]:
    """Every team's explanation (by team id) of a played round, from what it stored.

    ``teams`` is the whole crowding pool (R2), ``draws`` the round's own draws (R23),
    ``picks`` the picks as received (R11: what a redraw replaced; R6: extra goals asked),
    ``group_goals`` the WG group goals (R8), ``bonus_goal_for`` the team a round named for the
    bonus goal (else the draws tell whom it was drawn for, R5). Raises
    :class:`~engine.errors.InputError` when a team's steps do not add up to its stored goals
    (``teams.<id>.goals``) or a column is not in the row (``matrix_row.<column>``).

    >>> explain_round(competition="kdh", matrix_row={"A": 3}, matches=[], draws=[],
    ...               teams={"a": TeamResult("A", "1", "2", 0, 0, False, False, False, 4)})
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams.a.goals: the steps make 3 goals, not 4
    """
    rules = rules_for(competition)
    by_what = {draw.what: draw.result for draw in draws}
    if bonus_goal_for is not None:
        by_what["bonus_goal"] = bonus_goal_for
    known_picks = picks or {}
    pool = _Pool(matrix_row, teams, by_what, known_picks)
    explained: dict[str, Explanation] = {}
    for match in matches:
        home, away = teams[match.home], teams[match.away]
        if match.decided is Decided.FORFEIT:
            explained[match.home] = pool.forfeit(match, match.home, home, away)
            explained[match.away] = pool.forfeit(match, match.away, away, home)
            continue
        home_steps = pool.regulation(match.home, home, away)
        away_steps = pool.regulation(match.away, away, home)
        if _total(home_steps) == _total(away_steps):
            home_after, away_after = _after_regulation(
                rules.tie, match, by_what, home, away, group_goals or {}
            )
            home_steps += home_after
            away_steps += away_after
        explained[match.home] = tuple(home_steps)
        explained[match.away] = tuple(away_steps)
    for team, played in teams.items():
        if team not in explained:  # a team without a game still plays its pick
            explained[team] = tuple(pool.regulation(team, played, None))
    for team, steps in explained.items():
        total = _total(steps)
        if total != teams[team].goals:
            raise InputError(
                f"teams.{team}.goals", f"the steps make {total} goals, not {teams[team].goals}"
            )
    return MappingProxyType({team: explained[team] for team in teams})


def _total(steps: Iterable[Step]) -> int:
    return sum(step.amount for step in steps)


class _Pool:
    """The crowding pool's facts one team's steps are read from."""

    def __init__(
        self,
        row: Mapping[str, int],
        teams: Mapping[str, TeamResult],
        draws: Mapping[str, str],
        picks: Mapping[str, Pick | None],
    ) -> None:
        self.row = row
        self.draws = draws
        self.picks = picks
        # R1, R4: only regular picks crowd (an ONR pick does not; a cup forfeit plays none).
        self.crowd: dict[str, int] = {}
        for played in teams.values():
            if played.column is not None and not played.onr:
                self.crowd[played.column] = self.crowd.get(played.column, 0) + 1

    def opening(self, team: str, played: TeamResult) -> list[Step]:
        """How the pick came to be: drawn for an ONR (R4) or dummy (R14) team, redrawn (R11)."""
        if played.onr:
            return [Step(StepCode.ONR_PICK, column=played.column, played=played.extra_time)]
        if f"dummy_column:{team}" in self.draws:
            return [Step(StepCode.DUMMY_PICK, column=played.column, played=played.extra_time)]
        if not played.redrawn:
            return []
        asked = self.picks.get(team)
        if asked is None:
            return [Step(StepCode.REDRAW)]
        return [
            Step(StepCode.REDRAW, part=part, asked=wanted, played=got)
            for part, wanted, got in (
                ("column", asked.column, played.column),
                ("extra_time", asked.extra_time, played.extra_time),
                ("shootout", asked.shootout, played.shootout),
            )
            if wanted != got
        ]

    def base(self, played: TeamResult) -> list[Step]:
        """R1, R2, R4: the column's value, its crowding, the ONR team's −1; never below 0."""
        column = played.column or ""
        if column not in self.row:
            raise InputError(f"matrix_row.{column}", "the column played is not in the row")
        value = self.row[column]
        steps = [Step(StepCode.COLUMN, value, column=column, value=value)]
        crowd = self.crowd.get(column, 0)
        if played.onr:
            # R4: n regular teams on the column make it worth value − (n − 1) to them.
            lost = min(max(crowd - 1, 0), value)
            if crowd:
                steps.append(Step(StepCode.ONR_CROWDING, -lost, column=column, others=crowd))
            steps.append(Step(StepCode.ONR_PENALTY, -min(1, value - lost)))
            return steps
        others = crowd - 1
        if others:
            steps.append(Step(StepCode.CROWDING, -min(others, value), column=column, others=others))
        return steps

    def extra_goals(self, team: str, played: TeamResult) -> list[Step]:
        """R6: the extra goals played, and how many were asked when the stock allowed fewer."""
        used = played.extra_goals_used
        pick = self.picks.get(team)
        asked = pick.extra_goals if pick is not None else 0
        if not used and not asked:
            return []
        more = str(asked) if asked > used else None
        return [Step(StepCode.EXTRA_GOALS, used, count=used, asked=more)]

    def regulation(self, team: str, played: TeamResult, opponent: TeamResult | None) -> list[Step]:
        """R3 up to the bonus goal: value, crowding, extra goals, great saves, bonus goal (a
        cup team that sent no picks plays nothing, R15)."""
        if played.column is None:
            return [Step(StepCode.FORFEIT)]
        steps = [*self.opening(team, played), *self.base(played)]
        steps += self.extra_goals(team, played)
        saves = opponent.great_saves_used if opponent is not None else 0
        if saves:
            # R3: the opponent's great saves never take the score below 0.
            steps.append(Step(StepCode.GREAT_SAVES, -min(saves, _total(steps)), count=saves))
        if played.bonus_goal:
            steps.append(Step(StepCode.BONUS_GOAL, 1))
        elif played.onr and self.draws.get("bonus_goal") == team:
            steps.append(Step(StepCode.OFFSIDE))  # R5: denied, no redraw
        return steps

    def forfeit(
        self, match: MatchResult, team: str, played: TeamResult, opponent: TeamResult
    ) -> tuple[Step, ...]:
        """R15: the forfeiting team scores 0; its opponent its column's value and extra goals
        (a die names who goes on when both forfeit in the WG knockout)."""
        if played.column is None:
            steps = [Step(StepCode.FORFEIT)]
            if opponent.column is None and match.winner is not None:
                steps.append(Step(StepCode.DIE, won=match.winner == team))
            return tuple(steps)
        steps = [*self.opening(team, played), *self.base(played)]
        steps += self.extra_goals(team, played)
        return (*steps, Step(StepCode.OPPONENT_FORFEIT))


def _after_regulation(
    tie: TieRule,
    match: MatchResult,
    draws: Mapping[str, str],
    home: TeamResult,
    away: TeamResult,
    group_goals: Mapping[str, int],
) -> tuple[list[Step], list[Step]]:
    """R3, R7, R8: tied after regular time — extra time, then the competition's tie rule, as
    the game was decided."""
    home_value, home_die = _worth(draws, "extra_time_x", match.home, home.extra_time)
    away_value, away_die = _worth(draws, "extra_time_x", match.away, away.extra_time)
    golden = match.winner if match.decided is Decided.EXTRA_TIME else None
    home_steps = [
        Step(
            StepCode.EXTRA_TIME,
            int(golden == match.home),
            played=home.extra_time,
            value=home_value,
            die=home_die,
            opponent=away_value,
        )
    ]
    away_steps = [
        Step(
            StepCode.EXTRA_TIME,
            int(golden == match.away),
            played=away.extra_time,
            value=away_value,
            die=away_die,
            opponent=home_value,
        )
    ]
    if golden is not None or tie is TieRule.DRAW:
        return home_steps, away_steps
    if tie is TieRule.SHOOTOUT:
        home_value, home_die = _worth(draws, "shootout_x", match.home, home.shootout)
        away_value, away_die = _worth(draws, "shootout_x", match.away, away.shootout)
        home_steps.append(
            Step(
                StepCode.SHOOTOUT,
                played=home.shootout,
                value=home_value,
                die=home_die,
                opponent=away_value,
            )
        )
        away_steps.append(
            Step(
                StepCode.SHOOTOUT,
                played=away.shootout,
                value=away_value,
                die=away_die,
                opponent=home_value,
            )
        )
    else:
        home_goals = group_goals.get(match.home)
        away_goals = group_goals.get(match.away)
        home_steps.append(Step(StepCode.GROUP_GOALS, value=home_goals, opponent=away_goals))
        away_steps.append(Step(StepCode.GROUP_GOALS, value=away_goals, opponent=home_goals))
    if match.decided is Decided.DIE:
        home_steps.append(Step(StepCode.DIE, won=match.winner == match.home))
        away_steps.append(Step(StepCode.DIE, won=match.winner == match.away))
    return home_steps, away_steps


def _worth(
    draws: Mapping[str, str], what: str, team: str, played: str | None
) -> tuple[int | None, int | None]:
    """An extra-time or shootout value as a number, and the die an X rolled (R7); ``None``
    for an X whose die is not in the draws (it was not rolled, or the log is not given)."""
    if played == X:
        rolled = draws.get(f"{what}:{team}")
        die = None if rolled is None else int(rolled)
        return die, die
    return (None if played is None else int(played)), None


__all__ = ["Explanation", "Step", "StepCode", "explain", "explain_round"]
