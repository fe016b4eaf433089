"""Next season's stocks (R21): extra goals from last season's points, great saves from shutouts.

Points, as the rules list them (§2.1.2.1):

* 1 per championship win and 1 per KDH win, 1 more for the KDH winner;
* division rank: 1st 4, 2nd 3, 3rd 2, 4th 1;
* 6 for a relegated team, −6 for a promoted one;
* 3 for a veteran: every team that played the season, and waiting-list teams registered before
  its end;
* WG rank: 1st 4, 2nd 3, 3rd 2, 4th 1.

Extra goals = ⌊points ÷ 3⌋, never below 0; great saves = 2 + the championship games in which the
opponent scored 0. Unused stocks are lost, so nothing carries over.

>>> record = SeasonRecord(championship_wins=7, kdh_wins=3, kdh_winner=False, division_rank=1,
...                       promoted=True, relegated=False, veteran=True, wg_rank=2, shutouts=3)
>>> next_stocks(record)
NextStocks(points=14, extra_goals=4, great_saves=5)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.errors import InputError

DIVISION_RANK_POINTS: Mapping[int, int] = MappingProxyType({1: 4, 2: 3, 3: 2, 4: 1})
"""R21: points for the top four of each division."""
WG_RANK_POINTS: Mapping[int, int] = MappingProxyType({1: 4, 2: 3, 3: 2, 4: 1})
"""R21: points for the WG's winner, runner-up, third and fourth."""
KDH_WINNER_POINTS = 1
"""R21: on top of the point for each KDH win."""
RELEGATED_POINTS = 6
"""R21: the strength gap between divisions, in the relegated team's favour."""
PROMOTED_POINTS = -6
"""R21: the same gap, against the promoted team."""
VETERAN_POINTS = 3
"""R21: for every team that played the season (and waiting-list teams registered before its end)."""
POINTS_PER_EXTRA_GOAL = 3
"""R21: extra goals = ⌊points ÷ 3⌋."""
BASE_GREAT_SAVES = 2
"""R21: every team's great saves before adding its shutouts."""


@dataclass(frozen=True)
class PointsBreakdown:
    """Where a team's points come from (R21), one figure per line of the rules' list, in the
    ``season_plan`` JSON's names (``shared/SEASON.md``).

    >>> PointsBreakdown(championship_wins=5, kdh_wins=1, relegated=6, veteran=3).total
    15
    """

    championship_wins: int = 0
    kdh_wins: int = 0
    kdh_winner: int = 0
    division_place: int = 0
    relegated: int = 0
    promoted: int = 0
    veteran: int = 0
    wg_place: int = 0

    @property
    def total(self) -> int:
        """The season's points: the sum of the lines (it may be negative)."""
        return sum(self.as_dict().values())

    def as_dict(self) -> dict[str, int]:
        return {
            "championship_wins": self.championship_wins,
            "kdh_wins": self.kdh_wins,
            "kdh_winner": self.kdh_winner,
            "division_place": self.division_place,
            "relegated": self.relegated,
            "promoted": self.promoted,
            "veteran": self.veteran,
            "wg_place": self.wg_place,
        }


@dataclass(frozen=True)
class SeasonRecord:
    """What a team did in the season just ended, as far as next season's stocks care (R21)."""

    championship_wins: int
    kdh_wins: int
    kdh_winner: bool
    division_rank: int
    promoted: bool
    relegated: bool
    veteran: bool
    wg_rank: int | None
    """Final WG place, or ``None`` for a team out of the WG (places below 4th earn nothing)."""
    shutouts: int
    """Championship games in which the opponent scored 0."""

    @property
    def breakdown(self) -> PointsBreakdown:
        """The season's points (R21), line by line."""
        return PointsBreakdown(
            championship_wins=self.championship_wins,
            kdh_wins=self.kdh_wins,
            kdh_winner=KDH_WINNER_POINTS if self.kdh_winner else 0,
            division_place=DIVISION_RANK_POINTS.get(self.division_rank, 0),
            relegated=RELEGATED_POINTS if self.relegated else 0,
            promoted=PROMOTED_POINTS if self.promoted else 0,
            veteran=VETERAN_POINTS if self.veteran else 0,
            wg_place=WG_RANK_POINTS.get(self.wg_rank, 0) if self.wg_rank is not None else 0,
        )

    @property
    def points(self) -> int:
        """The season's points (R21); they may be negative (a promoted newcomer, say)."""
        return self.breakdown.total


@dataclass(frozen=True)
class NextStocks:
    """A team's stocks for next season, and the points they came from."""

    points: int
    extra_goals: int
    great_saves: int


def next_stocks(record: SeasonRecord) -> NextStocks:
    """Next season's extra goals and great saves (R21).

    >>> newcomer = SeasonRecord(championship_wins=0, kdh_wins=0, kdh_winner=False,
    ...                         division_rank=1, promoted=True, relegated=False, veteran=False,
    ...                         wg_rank=None, shutouts=0)
    >>> next_stocks(newcomer)
    NextStocks(points=-2, extra_goals=0, great_saves=2)
    """
    return stocks_for(record.points, record.shutouts)


def stocks_for(points: int, shutouts: int) -> NextStocks:
    """R21 from the season's points and shutouts: ⌊points ÷ 3⌋ extra goals (never below 0) and
    2 + shutouts great saves.

    >>> stocks_for(-2, 0)
    NextStocks(points=-2, extra_goals=0, great_saves=2)
    >>> stocks_for(8, 1)
    NextStocks(points=8, extra_goals=2, great_saves=3)
    """
    return NextStocks(
        points=points,
        extra_goals=max(0, points // POINTS_PER_EXTRA_GOAL),
        great_saves=BASE_GREAT_SAVES + shutouts,
    )


class _Kind(enum.Enum):
    """What a ``season-end`` team field holds."""

    COUNT = "a whole number ≥ 0"
    """Wins, shutouts."""
    RANK = "a whole number ≥ 1"
    """A division rank."""
    FLAG = "true or false"
    """Winner, promoted, relegated, veteran."""
    OPTIONAL_RANK = "a whole number ≥ 1 or null"
    """The WG rank."""


_FIELDS: Mapping[str, _Kind] = MappingProxyType(
    {
        "championship_wins": _Kind.COUNT,
        "kdh_wins": _Kind.COUNT,
        "kdh_winner": _Kind.FLAG,
        "division_rank": _Kind.RANK,
        "promoted": _Kind.FLAG,
        "relegated": _Kind.FLAG,
        "veteran": _Kind.FLAG,
        "wg_rank": _Kind.OPTIONAL_RANK,
        "shutouts": _Kind.COUNT,
    }
)


def _fits(value: object, kind: _Kind) -> bool:
    if kind is _Kind.FLAG:
        return isinstance(value, bool)
    if kind is _Kind.OPTIONAL_RANK and value is None:
        return True
    # bool is an int in Python; JSON's true is not a number.
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return value >= (0 if kind is _Kind.COUNT else 1)


def _record(team: str, data: object) -> SeasonRecord:
    if not isinstance(data, dict):
        raise InputError(f"teams.{team}", "must be an object")
    for name, kind in _FIELDS.items():
        field = f"teams.{team}.{name}"
        if name not in data:
            raise InputError(field, "missing")
        if not _fits(data[name], kind):
            raise InputError(field, f"must be {kind.value}, not {data[name]!r}")
    if data["promoted"] and data["relegated"]:
        raise InputError(f"teams.{team}.relegated", "a promoted team cannot be relegated too")
    return SeasonRecord(**{name: data[name] for name in _FIELDS})


def stocks_from_json(doc: dict[str, Any]) -> dict[str, Any]:
    """The ``season-end`` command (ENGINE_CLI.md): each team's record in, its stocks out.

    >>> doc = {"teams": {"a": {"championship_wins": 7, "kdh_wins": 3, "kdh_winner": False,
    ...        "division_rank": 1, "promoted": True, "relegated": False, "veteran": True,
    ...        "wg_rank": 2, "shutouts": 3}}}
    >>> stocks_from_json(doc)
    {'teams': {'a': {'points': 14, 'extra_goals': 4, 'great_saves': 5}}}
    >>> del doc["teams"]["a"]["division_rank"]
    >>> stocks_from_json(doc)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams.a.division_rank: missing
    """
    if not isinstance(doc, dict):
        raise InputError("input", "must be a JSON object")
    if "teams" not in doc:
        raise InputError("teams", "missing")
    teams = doc["teams"]
    if not isinstance(teams, dict):
        raise InputError("teams", "must be an object mapping team ids to records")
    result = {}
    for team, data in teams.items():
        stocks = next_stocks(_record(team, data))
        result[team] = {
            "points": stocks.points,
            "extra_goals": stocks.extra_goals,
            "great_saves": stocks.great_saves,
        }
    return {"teams": result}


__all__ = [
    "BASE_GREAT_SAVES",
    "DIVISION_RANK_POINTS",
    "KDH_WINNER_POINTS",
    "POINTS_PER_EXTRA_GOAL",
    "PROMOTED_POINTS",
    "RELEGATED_POINTS",
    "VETERAN_POINTS",
    "WG_RANK_POINTS",
    "NextStocks",
    "PointsBreakdown",
    "SeasonRecord",
    "next_stocks",
    "stocks_for",
    "stocks_from_json",
]
