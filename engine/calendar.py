"""The season's calendar (R20): who plays whom, and which rounds each week holds.

A championship division plays a single round robin built by the circle method; a WG group plays
a double round robin. Home and away alternate as far as the circle method allows: in a single
round robin every team has at most one *break* (two home or two away games in a row) and the
whole schedule has the minimum number of breaks, ``n − 2``; nobody is ever home or away three
times running, in the double round robin either.

>>> rounds = round_robin(["a", "b", "c", "d"])
>>> len(rounds), rounds[0]
(3, (Fixture(home='a', away='d'), Fixture(home='b', away='c')))
>>> len(double_round_robin(["a", "b", "c", "d"]))
6

The season lasts :data:`SEASON_WEEKS` weeks. The championship plays rounds 1–9 in weeks 1–9 and
rounds 10 and 11 both in week 10 (R20). The rules leave the cups' weeks to the league; our
decision, kept in :data:`WEEKS`:

* KDH rounds 1–7 in weeks 2–8 (the qualifying round in week 2, the final in week 8);
* WG rounds 1–8 in weeks 3–10: rounds 1–6 are the group stage, round 7 the semi-finals and
  round 8 the final and the third-place game, played the same week (R18).

>>> rounds_in_week(10)
{'championship': (10, 11), 'kdh': (), 'wg': (8,)}
>>> week_of("kdh", 1), week_of("wg", 7)
(2, 9)

A league may skip weeks (a break such as Christmas): our decision is that the skipped calendar
weeks hold no round and every round after them moves one week later per skipped week, so the
season still plays its ten weeks in order (:func:`calendar_week`).

>>> calendar_week(week_of("championship", 5), skipped=[3])
6

Deadlines (time zones, R13) are the site's business, not the engine's.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine.competitions import Competition, Rules, rules_for
from engine.errors import InputError

SEASON_WEEKS = 10
"""R20: a season lasts ten weeks."""


class SeasonCompetition(enum.Enum):
    """One of the season's three competitions, each with its own matrix, columns and quotas.

    The engine's :class:`~engine.competitions.Competition` names the kind of *round* played;
    the WG's group and knockout rounds belong to one season competition.

    >>> SeasonCompetition.of("wg-knockout")
    <SeasonCompetition.WG: 'wg'>
    >>> SeasonCompetition.of("wg").rules.columns
    ('A', 'B', 'C', 'D', 'E', 'F', 'G', 'H')
    """

    CHAMPIONSHIP = "championship"
    """The division championships: 11 rounds, 11 columns."""
    KDH = "kdh"
    """The Klaus-Dieter Hoffmann cup: 7 rounds, 7 columns."""
    WG = "wg"
    """The Wayne Gretzky cup: 6 group rounds then semi-finals and final, 8 columns."""

    @property
    def rules(self) -> Rules:
        """The rules that fix this competition's columns, rounds and quotas (R7, R19).

        The WG's group and knockout rounds share them; the group stage's entry stands for both.
        """
        return rules_for(_ROUND_KINDS[self])

    @classmethod
    def of(cls, value: SeasonCompetition | Competition | str) -> SeasonCompetition:
        """The season competition named by ``value`` (a season competition or a round kind).

        >>> SeasonCompetition.of("nhl")
        Traceback (most recent call last):
        ...
        engine.errors.InputError: competition: unknown competition 'nhl' (championship, kdh or wg)
        """
        if isinstance(value, SeasonCompetition):
            return value
        if isinstance(value, Competition):
            return cls(value.season_competition)
        try:
            return cls(value)
        except ValueError:
            pass
        try:
            return cls(Competition(value).season_competition)
        except ValueError:
            raise InputError(
                "competition",
                f"unknown competition {value!r} (championship, kdh or wg)",
            ) from None


_ROUND_KINDS: Mapping[SeasonCompetition, Competition] = MappingProxyType(
    {
        SeasonCompetition.CHAMPIONSHIP: Competition.CHAMPIONSHIP,
        SeasonCompetition.KDH: Competition.KDH,
        SeasonCompetition.WG: Competition.WG_GROUP,
    }
)

WEEKS: Mapping[SeasonCompetition, tuple[int, ...]] = MappingProxyType(
    {
        # R20: the last two championship rounds share the last week.
        SeasonCompetition.CHAMPIONSHIP: (*range(1, SEASON_WEEKS), SEASON_WEEKS, SEASON_WEEKS),
        # Our decision: the KDH starts in week 2 and ends in week 8.
        SeasonCompetition.KDH: tuple(range(2, 9)),
        # Our decision: the WG starts in week 3; its round 8 is the final and third-place game.
        SeasonCompetition.WG: tuple(range(3, SEASON_WEEKS + 1)),
    }
)
"""For each competition, the week of each of its rounds (``WEEKS[c][r - 1]`` is round ``r``)."""


@dataclass(frozen=True)
class Fixture:
    """One game: the home team and the away team (team ids)."""

    home: str
    away: str


def week_of(competition: SeasonCompetition | Competition | str, round_number: int) -> int:
    """The week in which round ``round_number`` of ``competition`` is played.

    >>> week_of("championship", 11)
    10
    >>> week_of("kdh", 8)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: round: kdh has rounds 1–7, not 8
    """
    weeks = WEEKS[SeasonCompetition.of(competition)]
    if not 1 <= round_number <= len(weeks):
        raise InputError(
            "round",
            f"{SeasonCompetition.of(competition).value} has rounds 1–{len(weeks)}, "
            f"not {round_number}",
        )
    return weeks[round_number - 1]


def skipped_weeks_check(skipped: Iterable[object]) -> tuple[int, ...]:
    """The calendar weeks to skip, checked and sorted: whole numbers, each once, none the first
    week (it opens the season: move the start instead) and none after the last week played
    (skipping it would change nothing). Weeks count from the season's first Monday (week 1).

    >>> skipped_weeks_check([5, 3])
    (3, 5)
    >>> skipped_weeks_check([1])
    Traceback (most recent call last):
    ...
    engine.errors.InputError: skipped_weeks[0]: week 1 opens the season and cannot be skipped
    >>> skipped_weeks_check([11])
    Traceback (most recent call last):
    ...
    engine.errors.InputError: skipped_weeks[0]: week 11 is after the last round
    """
    weeks: list[int] = []
    for index, week in enumerate(skipped):
        field = f"skipped_weeks[{index}]"
        if isinstance(week, bool) or not isinstance(week, int):
            raise InputError(field, f"must be a week number, not {week!r}")
        if week < 2:
            raise InputError(field, f"week {week} opens the season and cannot be skipped")
        if week in weeks:
            raise InputError(field, f"week {week} is skipped twice")
        weeks.append(week)
    last = SEASON_WEEKS + len(weeks)
    for index, week in enumerate(weeks):
        # Every skipped week must push a played week later: the last played week is ``last``
        # only when no skipped week comes after it.
        if week >= last:
            raise InputError(
                f"skipped_weeks[{index}]",
                f"week {week} is after the last round",
            )
    return tuple(sorted(weeks))


def calendar_week(week: int, skipped: Iterable[object] = ()) -> int:
    """The calendar week in which the season's week ``week`` (1–10, as :data:`WEEKS` counts
    them) is played when the calendar weeks ``skipped`` hold no round: one week later for each
    skipped week on or before it (our decision, see the module's docstring).

    >>> [calendar_week(w, skipped=[3, 7]) for w in range(1, 11)]
    [1, 2, 4, 5, 6, 8, 9, 10, 11, 12]
    >>> calendar_week(0)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: week: a season has weeks 1–10, not 0
    """
    if not 1 <= week <= SEASON_WEEKS:
        raise InputError("week", f"a season has weeks 1–{SEASON_WEEKS}, not {week}")
    played = week
    for skip in skipped_weeks_check(skipped):
        if skip <= played:
            played += 1
    return played


def rounds_in_week(week: int) -> dict[str, tuple[int, ...]]:
    """For each competition (by name), the rounds played in ``week`` (possibly none).

    >>> rounds_in_week(1)
    {'championship': (1,), 'kdh': (), 'wg': ()}
    >>> rounds_in_week(11)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: week: a season has weeks 1–10, not 11
    """
    if not 1 <= week <= SEASON_WEEKS:
        raise InputError("week", f"a season has weeks 1–{SEASON_WEEKS}, not {week}")
    return {
        competition.value: tuple(r for r, w in enumerate(weeks, start=1) if w == week)
        for competition, weeks in WEEKS.items()
    }


def _check_teams(teams: Sequence[str]) -> None:
    if len(set(teams)) != len(teams):
        raise InputError("teams", "a team appears twice")
    if len(teams) < 2 or len(teams) % 2:
        raise InputError("teams", f"a round robin needs an even number of teams, not {len(teams)}")


def round_robin(teams: Sequence[str]) -> tuple[tuple[Fixture, ...], ...]:
    """Single round robin by the circle method (R20): ``n − 1`` rounds, every pair once.

    The last team stays put while the others turn around it. Home and away follow de Werra's
    canonical pattern: in round ``r`` the fixed team meets team ``r`` (at home in odd rounds
    counted from 0, away in even ones), and teams ``r + k`` and ``r − k`` (modulo ``n − 1``)
    meet with ``r + k`` at home when ``k`` is odd. Every team then alternates home and away
    with at most one break, ``n − 2`` breaks in all (the fewest possible).

    >>> [f"{f.home}-{f.away}" for r in round_robin(["a", "b"]) for f in r]
    ['a-b']
    >>> round_robin(["a", "b", "c"])
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams: a round robin needs an even number of teams, not 3
    """
    _check_teams(teams)
    turning = len(teams) - 1
    fixed = teams[turning]
    rounds = []
    for r in range(turning):
        first = Fixture(teams[r], fixed) if r % 2 == 0 else Fixture(fixed, teams[r])
        games = [first]
        for k in range(1, len(teams) // 2):
            plus, minus = teams[(r + k) % turning], teams[(r - k) % turning]
            games.append(Fixture(plus, minus) if k % 2 else Fixture(minus, plus))
        rounds.append(tuple(games))
    return tuple(rounds)


def double_round_robin(teams: Sequence[str]) -> tuple[tuple[Fixture, ...], ...]:
    """Double round robin (a WG group, R18): every pair once at home and once away.

    The first half is :func:`round_robin`; the second half plays its rounds again with home and
    away swapped, starting with the mirror of the last round and then the others in order, which
    keeps everyone at no more than two home or away games in a row.

    >>> rounds = double_round_robin(["a", "b", "c", "d"])
    >>> [(f.home, f.away) for f in rounds[2]], [(f.home, f.away) for f in rounds[3]]
    ([('c', 'd'), ('a', 'b')], [('d', 'c'), ('b', 'a')])
    """
    first = round_robin(teams)
    mirrored = tuple(tuple(Fixture(f.away, f.home) for f in games) for games in first)
    return first + mirrored[-1:] + mirrored[:-1]


__all__ = [
    "SEASON_WEEKS",
    "WEEKS",
    "Fixture",
    "SeasonCompetition",
    "calendar_week",
    "double_round_robin",
    "round_robin",
    "rounds_in_week",
    "skipped_weeks_check",
    "week_of",
]
