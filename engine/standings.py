"""Standings (R9): points, and ties broken criterion by criterion over the whole tied group.

>>> from engine.game import Decided, MatchResult
>>> table = standings(
...     ["a", "b"], [MatchResult("a", "b", 3, 2, Decided.EXTRA_TIME, "a")], Dice("s"))
>>> [(row.team, row.rank, row.points, row.extra_time_losses) for row in table]
[('a', 1, 2, 0), ('b', 2, 1, 1)]

The same rows and criteria rank a WG group and pick the WG's best second (:func:`best_of`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.dice import Dice
from engine.errors import InputError
from engine.game import Decided, MatchResult


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One team's line in a table (the fields of the ``standings`` command's rows)."""

    team: str
    rank: int
    """1…n, distinct: ties are broken down to a die (R9)."""
    points: int
    """R9: win 2, draw 1, loss after regular time 1, loss in regular time or by forfeit 0."""
    played: int
    wins: int
    """Every win, in regular time or after it (extra time, shootout, die, group goals)."""
    regulation_wins: int
    """Wins in regular time (a forfeit win counts here: the game never went past it)."""
    draws: int
    extra_time_losses: int
    """Losses after regular time (extra time, shootout, die, group goals); one point each."""
    losses: int
    """Every loss, those after regular time included (so ``played = wins + draws + losses``)."""
    goals_for: int
    goals_against: int

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against

    def as_dict(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "rank": self.rank,
            "points": self.points,
            "played": self.played,
            "wins": self.wins,
            "regulation_wins": self.regulation_wins,
            "draws": self.draws,
            "extra_time_losses": self.extra_time_losses,
            "losses": self.losses,
            "goals_for": self.goals_for,
            "goals_against": self.goals_against,
        }


def tie_key(row: StandingRow) -> tuple[int, ...]:
    """R9's order as a sort key (smaller is better): points, then most wins, most regulation
    wins, fewest losses, **most** extra-time losses, most goals, best goal difference.

    The French original says *most* extra-time losses; the English translation says fewest.
    The original wins (R9).
    """
    return (
        -row.points,
        -row.wins,
        -row.regulation_wins,
        row.losses,
        -row.extra_time_losses,
        -row.goals_for,
        row.goals_against - row.goals_for,
    )


TIE_CRITERIA = (
    "points",
    "wins",
    "regulation_wins",
    "losses",
    "extra_time_losses",
    "goals_for",
    "goal_difference",
)
"""R9's criteria by name, in :func:`tie_key`'s order (each names a :class:`StandingRow` field
or property)."""


def deciding_criterion(better: StandingRow, other: StandingRow) -> str | None:
    """The first of R9's criteria (:data:`TIE_CRITERIA`) that puts ``better`` ahead of
    ``other``, or ``None`` when they are level on every one (a die decides, R9).

    >>> row = lambda team, goals: StandingRow(team, 2, 7, 6, 3, 3, 1, 1, 2, goals, 9)
    >>> deciding_criterion(row("a", 12), row("b", 10)), deciding_criterion(row("a", 9), row("b", 9))
    ('goals_for', None)
    """
    for name, ahead, behind in zip(TIE_CRITERIA, tie_key(better), tie_key(other), strict=True):
        if ahead != behind:
            return name
    return None


def tally(teams: Iterable[str], matches: Iterable[MatchResult]) -> list[StandingRow]:
    """Each of ``teams``' figures on ``matches`` (R9: points, games, wins, draws, losses and
    goals), unranked (``rank`` 0), in team order.

    >>> from engine.game import Decided, MatchResult
    >>> [(row.team, row.points, row.extra_time_losses) for row in tally(
    ...     ["a", "b"], [MatchResult("a", "b", 3, 2, Decided.EXTRA_TIME, "a")])]
    [('a', 2, 0), ('b', 1, 1)]
    """
    # team → [points, played, wins, regulation wins, draws, extra-time losses, losses, for, against]
    counts: dict[str, list[int]] = {}
    for team in teams:
        if not isinstance(team, str) or team in counts:
            raise InputError("teams", f"team ids must be distinct strings, not {team!r}")
        counts[team] = [0] * 9
    for index, match in enumerate(matches):
        _count(index, match, counts)
    return [StandingRow(team, 0, *figures) for team, figures in sorted(counts.items())]


def standings(
    teams: Iterable[str], matches: Iterable[MatchResult], dice: Dice
) -> list[StandingRow]:
    """Rank ``teams`` on ``matches`` (R9), rows in rank order, ranks 1…n.

    Criteria apply to the whole group tied on points, one after another; as they are all a
    team's own figures, that is the same as sorting on :func:`tie_key`. A group still tied
    after every criterion is ordered by one die shuffle, logged on ``dice``.

    A match's ``winner`` is trusted. A draw has none; so has a cup game between two ONR
    teams (``forfeit``), which both lose.
    """
    ordered = _order(tally(teams, matches), dice)
    return [replace(row, rank=rank) for rank, row in enumerate(ordered, start=1)]


def best_of(rows: Sequence[StandingRow], dice: Dice, what: str = "best_of_die") -> StandingRow:
    """The best of rows from different tables by R9's criteria (the WG's best second, R18).

    A die settles a tie for the best place only, logged on ``dice`` under ``what``.

    >>> second = lambda team, points: StandingRow(team, 2, points, 6, 3, 3, 0, 0, 3, 9, 9)
    >>> best_of([second("a", 6), second("b", 7), second("c", 5)], Dice("s")).team
    'b'
    """
    if not rows:
        raise InputError("rows", "nothing to choose from")
    best = min(tie_key(row) for row in rows)
    tied = [row for row in rows if tie_key(row) == best]
    return tied[0] if len(tied) == 1 else dice.choice(what, tied)


def _count(index: int, match: MatchResult, tally: dict[str, list[int]]) -> None:
    """Add one game to both teams' figures (R9), refusing a game that does not add up."""
    home, away, home_goals, away_goals, decided, winner = match
    for side, team in (("home", home), ("away", away)):
        if team not in tally:
            raise InputError(f"matches[{index}].{side}", f"unknown team {team!r}")
    if home == away:
        raise InputError(f"matches[{index}].away", f"team {home!r} cannot play itself")
    for side, goals in (("home_goals", home_goals), ("away_goals", away_goals)):
        if type(goals) is not int or goals < 0:
            raise InputError(
                f"matches[{index}].{side}", f"must be a whole number ≥ 0, not {goals!r}"
            )
    if not isinstance(decided, Decided):
        raise InputError(f"matches[{index}].decided", f"must be a Decided, not {decided!r}")
    if winner is not None and winner not in (home, away):
        raise InputError(f"matches[{index}].winner", f"{winner!r} did not play this game")
    if (decided is Decided.DRAW) != (winner is None) and decided is not Decided.FORFEIT:
        reason = (
            "a draw has no winner" if winner is not None else f"a {decided.value} game has a winner"
        )
        raise InputError(f"matches[{index}].winner", reason)
    h = tally[home]
    a = tally[away]
    h[1] += 1
    a[1] += 1
    h[7] += home_goals
    h[8] += away_goals
    a[7] += away_goals
    a[8] += home_goals
    if decided is Decided.DRAW:
        h[0] += 1
        h[4] += 1
        a[0] += 1
        a[4] += 1
        return
    if winner is None:  # R15: two ONR cup teams both lose by forfeit.
        h[6] += 1
        a[6] += 1
        return
    won, lost = (h, a) if winner == home else (a, h)
    won[0] += 2
    won[2] += 1
    lost[6] += 1
    if decided.after_regulation:
        lost[0] += 1  # R9: a loss after regular time is worth a point
        lost[5] += 1
    else:
        won[3] += 1


def _order(rows: list[StandingRow], dice: Dice) -> list[StandingRow]:
    """Rows sorted on :func:`tie_key`; each group still tied is shuffled by one die (R9)."""
    rows.sort(key=tie_key)
    ordered: list[StandingRow] = []
    start = 0
    while start < len(rows):
        key = tie_key(rows[start])
        end = start + 1
        while end < len(rows) and tie_key(rows[end]) == key:
            end += 1
        group = rows[start:end]
        if len(group) > 1:
            teams = {row.team: row for row in group}
            order = dice.shuffle("standings_die", list(teams))
            group = [teams[team] for team in order]
        ordered.extend(group)
        start = end
    return ordered


def standings_from_json(doc: Any) -> dict[str, Any]:
    """The ``standings`` command: input and output as ``shared/ENGINE_CLI.md`` describes.

    >>> standings_from_json({"seed": "s", "teams": ["a", "b"], "matches": [
    ...     {"home": "a", "away": "b", "home_goals": 1, "away_goals": 1, "decided": "shootout"}]})
    Traceback (most recent call last):
    ...
    engine.errors.InputError: matches[0].winner: missing: a tied shootout game needs its winner
    """
    if not isinstance(doc, dict):
        raise InputError("input", "must be a JSON object")
    seed = doc.get("seed")
    if not isinstance(seed, str):
        raise InputError("seed", "missing" if seed is None else f"must be a string, not {seed!r}")
    teams = doc.get("teams")
    if not isinstance(teams, list):
        raise InputError("teams", "missing" if teams is None else "must be a list of team ids")
    games = doc.get("matches")
    if not isinstance(games, list):
        raise InputError("matches", "missing" if games is None else "must be a list of games")
    matches = [_match_from_json(index, game) for index, game in enumerate(games)]
    dice = Dice(seed)
    table = standings(teams, matches, dice)
    return {
        "table": [row.as_dict() for row in table],
        "draws": [draw.as_dict() for draw in dice.draws],
    }


def _match_from_json(index: int, game: Any) -> MatchResult:
    where = f"matches[{index}]"
    if not isinstance(game, dict):
        raise InputError(where, f"must be an object, not {game!r}")
    for name in ("home", "away", "home_goals", "away_goals", "decided"):
        if name not in game:
            raise InputError(f"{where}.{name}", "missing")
    decided_name = game["decided"]
    try:
        decided = Decided(decided_name)
    except ValueError:
        names = ", ".join(d.value for d in Decided)
        raise InputError(
            f"{where}.decided", f"unknown {decided_name!r} (expected one of {names})"
        ) from None
    home, away = game["home"], game["away"]
    home_goals, away_goals = game["home_goals"], game["away_goals"]
    for name, goals in (("home_goals", home_goals), ("away_goals", away_goals)):
        if type(goals) is not int or goals < 0:
            raise InputError(f"{where}.{name}", f"must be a whole number ≥ 0, not {goals!r}")
    winner = game.get("winner")
    if winner is None and decided is not Decided.DRAW:
        # No winner given: the score tells it, or a tied forfeit was lost by both (R15).
        if home_goals != away_goals:
            winner = home if home_goals > away_goals else away
        elif decided is not Decided.FORFEIT:
            raise InputError(
                f"{where}.winner", f"missing: a tied {decided.value} game needs its winner"
            )
    return MatchResult(home, away, home_goals, away_goals, decided, winner)
