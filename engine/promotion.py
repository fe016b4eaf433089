"""Promotion and relegation (R22), and where the moving teams land next season.

Per division, by final rank: the Elite's last four go down; each D2 group's first two go up and
its last four down; each D3 group's first two go up. A team barred from promotion by a second
ONR (R14, ``cannot_be_promoted``) is skipped and the next eligible team by rank goes up instead
(never one from the relegation zone). Every team that changes tier, and only those, moves.

Our decisions where the rules are silent:

* divisions may have any size that holds their places (Elite ≥ 4, D2 ≥ 6, D3 ≥ 2 teams), but
  tiers must be 1–3, every team may appear only once, and the places must balance: as many teams
  go down from a tier as come up into it (4 Elite places = 2 D2 groups × 2; 2 D2 groups × 4 =
  4 D3 groups × 2);
* a division without enough eligible teams above its drop zone leaves promotion places unfilled
  (a relegated team is never promoted), and as many relegation places of the tier above are
  saved so that every division keeps its size: the best-ranked of that tier's relegated teams
  stay, by rank, then by the order of their divisions in the input;
* the default placement of the moving teams is a serpentine by rank (:func:`place_moves`); an
  admin may place any of them instead.

R24: a team leaving the league at the season's end (a dummy team, or one that withdraws) is
skipped for promotion like a barred team and goes nowhere, not even down (``leaving``); the
places it leaves are filled from below by :mod:`engine.season_plan`.

>>> divisions = [Division("Elite", 1, tuple(f"e{i}" for i in range(1, 13))),
...              Division("D2A", 2, tuple(f"a{i}" for i in range(1, 13))),
...              Division("D2B", 2, tuple(f"b{i}" for i in range(1, 13)))]
>>> divisions += [Division(f"D3{g}", 3, tuple(f"{g}{i}" for i in range(1, 13))) for g in "ABCD"]
>>> moves = promotion_moves(divisions, cannot_be_promoted={"a1"})
>>> [m.team for m in moves if m.from_division in ("Elite", "D2A")]
['e9', 'e10', 'e11', 'e12', 'a2', 'a3', 'a9', 'a10', 'a11', 'a12']
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.errors import InputError


@dataclass(frozen=True)
class Places:
    """How many teams of each division of a tier go up and go down (R22)."""

    up: int
    down: int


PLACES: Mapping[int, Places] = MappingProxyType(
    {1: Places(up=0, down=4), 2: Places(up=2, down=4), 3: Places(up=2, down=0)}
)
"""R22, per tier: Elite 9th–12th down; D2 1st–2nd up, 9th–12th down; D3 1st–2nd up."""


class Direction(enum.Enum):
    """Which way a team changes tier."""

    UP = "up"
    """Promoted: to the tier above (a smaller tier number)."""
    DOWN = "down"
    """Relegated: to the tier below."""


@dataclass(frozen=True)
class Division:
    """A division's final table: its name, its tier (1 Elite, 2 D2, 3 D3) and teams by rank."""

    name: str
    tier: int
    ranking: tuple[str, ...]


@dataclass(frozen=True)
class Move:
    """A team that changes tier: where it comes from, its final rank there, and which way."""

    team: str
    from_division: str
    from_tier: int
    rank: int
    direction: Direction

    @property
    def to_tier(self) -> int:
        """The tier the team plays in next season."""
        return self.from_tier - 1 if self.direction is Direction.UP else self.from_tier + 1


def _check(
    divisions: Sequence[Division], cannot_be_promoted: Collection[str], leaving: Collection[str]
) -> None:
    seen: set[str] = set()
    names: set[str] = set()
    for index, division in enumerate(divisions):
        if division.name in names:
            raise InputError(f"divisions[{index}].name", f"{division.name!r} appears twice")
        names.add(division.name)
        if division.tier not in PLACES:
            raise InputError(
                f"divisions[{index}].tier", f"must be 1, 2 or 3, not {division.tier!r}"
            )
        places = PLACES[division.tier]
        if len(division.ranking) < places.up + places.down:
            raise InputError(
                f"divisions[{index}].ranking",
                f"{division.name} has {len(division.ranking)} teams; a tier {division.tier} "
                f"division needs at least {places.up + places.down}",
            )
        for rank, team in enumerate(division.ranking):
            if team in seen:
                raise InputError(
                    f"divisions[{index}].ranking[{rank}]", f"team {team!r} appears twice"
                )
            seen.add(team)
    for field, teams in (("cannot_be_promoted", cannot_be_promoted), ("leaving", leaving)):
        for index, team in enumerate(teams):
            if team not in seen:
                raise InputError(f"{field}[{index}]", f"unknown team {team!r}")
    for upper in (1, 2):
        down = sum(PLACES[upper].down for d in divisions if d.tier == upper)
        up = sum(PLACES[upper + 1].up for d in divisions if d.tier == upper + 1)
        if down != up:
            raise InputError(
                "divisions",
                f"tier {upper} sends {down} teams down but tier {upper + 1} sends {up} up",
            )


def division_zones(
    tier: int, ranking: Sequence[str], barred: Collection[str] = ()
) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """R22 for one division as it stands: the ``(rank, team)`` pairs in its promotion places
    and in its drop zone. A team barred from promotion (R14) is skipped for the next eligible
    one above the drop zone, so a barred division may fill fewer promotion places.

    >>> division_zones(2, [f"t{n}" for n in range(1, 13)], barred={"t1"})
    ([(2, 't2'), (3, 't3')], [(9, 't9'), (10, 't10'), (11, 't11'), (12, 't12')])
    """
    places = PLACES[tier]
    safe = len(ranking) - places.down
    up = [(rank, team) for rank, team in enumerate(ranking[:safe], start=1) if team not in barred]
    return up[: places.up], list(enumerate(ranking, start=1))[safe:]


def promotion_moves(
    divisions: Sequence[Division],
    cannot_be_promoted: Collection[str] = (),
    leaving: Collection[str] = (),
) -> list[Move]:
    """Every team that changes tier (R22), division by division, promoted before relegated.

    A ``leaving`` team (R24) is skipped for promotion like a barred one and, in the drop zone,
    is not relegated either: it goes nowhere (its places are filled from below, R24).

    >>> tiny = [Division("E", 1, ("e1", "e2", "e3", "e4")),
    ...         Division("2A", 2, ("a1", "a2", "a3", "a4", "a5", "a6")),
    ...         Division("2B", 2, ("b1", "b2", "b3", "b4", "b5", "b6"))]
    >>> tiny += [Division(f"3{g}", 3, (f"{g}1", f"{g}2")) for g in "CDFG"]
    >>> [m.team for m in promotion_moves(tiny, {"a1", "a2"}) if m.from_division in ("E", "2A")]
    ['e3', 'e4', 'a3', 'a4', 'a5', 'a6']

    2A's two promotion places are unfilled (a1 and a2 are barred, a3–a6 are going down), so the
    Elite's two best-ranked relegated teams, e1 and e2, stay.

    >>> d3 = [Division(f"D3{g}", 3, (f"{g}1", f"{g}2", f"{g}3")) for g in "AB"]
    >>> promotion_moves(d3)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: divisions: tier 2 sends 0 teams down but tier 3 sends 4 up
    """
    _check(divisions, cannot_be_promoted, leaving)
    gone = set(leaving)
    barred = set(cannot_be_promoted) | gone
    ups: dict[str, list[Move]] = {}
    downs: dict[str, list[Move]] = {}
    unfilled = dict.fromkeys(PLACES, 0)
    for division in divisions:
        eligible, dropped = division_zones(division.tier, division.ranking, barred)
        unfilled[division.tier] += PLACES[division.tier].up - len(eligible)
        ups[division.name] = [
            Move(team, division.name, division.tier, rank, Direction.UP) for rank, team in eligible
        ]
        downs[division.name] = [
            Move(team, division.name, division.tier, rank, Direction.DOWN)
            for rank, team in dropped
            if team not in gone
        ]
    order = {division.name: index for index, division in enumerate(divisions)}
    saved: set[Move] = set()
    for tier in (1, 2):
        # Our decision: unfilled promotion places below save the best-ranked relegated teams.
        relegated = sorted(
            (move for d in divisions if d.tier == tier for move in downs[d.name]),
            key=lambda m: (m.rank, order[m.from_division]),
        )
        saved.update(relegated[: unfilled[tier + 1]])
    return [
        move
        for division in divisions
        for move in ups[division.name] + downs[division.name]
        if move not in saved
    ]


def _serpentine(groups: int) -> Iterator[int]:
    """0, 1, …, n − 1, n − 1, …, 1, 0, 0, 1, … forever."""
    while True:
        yield from range(groups)
        yield from reversed(range(groups))


def place_moves(
    divisions: Sequence[Division],
    moves: Sequence[Move],
    placement: Mapping[str, str] | None = None,
    leaving: Collection[str] = (),
) -> dict[str, tuple[str, ...]]:
    """Next season's divisions: who stays, and which division each moving team joins (R22).

    Teams that do not move stay in their division, but for the ``leaving`` ones (R24), who go
    nowhere. Each division has room for as many newcomers as it lost; with leaving teams, some
    room may be left over, for R24's vacancies (:mod:`engine.season_plan`). ``placement`` (team
    → division name) is the admin's choice for any moving team; the rest are spread by the
    default serpentine, tier by tier:

    1. the arrivals are ordered: first those coming down from the tier above, then those coming
       up from the tier below; within each, by final rank, and for equal ranks by the order of
       their old divisions in ``divisions``;
    2. the tier's divisions are taken in the order of ``divisions`` and dealt to in a snake
       (A, B, C, D, D, C, B, A, A, B, …), a full division being skipped.

    With the standard league, the Elite's 9th and 12th and D2's newcomers from D3A and D3D (1st
    and 2nd) join D2A, the others D2B; D2A's 9th and D2B's 12th join D3A, and so on, so each D3
    group gets exactly two relegated teams (and with them codes 01 and 02, R16).

    >>> divisions = [Division("E", 1, ("e1", "e2", "e3", "e4")),
    ...              Division("2A", 2, ("a1", "a2", "a3", "a4", "a5", "a6")),
    ...              Division("2B", 2, ("b1", "b2", "b3", "b4", "b5", "b6")),
    ...              Division("3A", 3, ("c1", "c2", "c3")), Division("3B", 3, ("d1", "d2")),
    ...              Division("3C", 3, ("f1", "f2")), Division("3D", 3, ("g1", "g2"))]
    >>> nxt = place_moves(divisions, promotion_moves(divisions))
    >>> nxt["E"], nxt["3A"], nxt["3D"]
    (('a1', 'b1', 'a2', 'b2'), ('c3', 'a3', 'b6'), ('b4', 'a5'))
    """
    chosen = dict(placement or {})
    moving = {move.team: move for move in moves}
    order = {division.name: index for index, division in enumerate(divisions)}
    tier_of = {division.name: division.tier for division in divisions}
    gone = set(leaving)
    lineup = {
        division.name: [
            team for team in division.ranking if team not in moving and team not in gone
        ]
        for division in divisions
    }
    room = {
        division.name: len(division.ranking) - len(lineup[division.name]) for division in divisions
    }
    for team, name in chosen.items():
        field = f"placement.{team}"
        if team not in moving:
            raise InputError(field, f"team {team!r} does not change tier")
        if tier_of.get(name) != moving[team].to_tier:
            raise InputError(field, f"{name!r} is not a tier {moving[team].to_tier} division")
        if room[name] == 0:
            raise InputError(field, f"{name} has no room left")
        lineup[name].append(team)
        room[name] -= 1
    for tier in sorted(set(tier_of.values())):
        arrivals = sorted(
            (move for move in moves if move.to_tier == tier and move.team not in chosen),
            key=lambda m: (m.direction is Direction.UP, m.rank, order[m.from_division]),
        )
        targets = [d.name for d in divisions if d.tier == tier]
        snake = _serpentine(len(targets))
        for move in arrivals:
            target = targets[next(snake)]
            while room[target] == 0:
                target = targets[next(snake)]
            lineup[target].append(move.team)
            room[target] -= 1
    return {name: tuple(teams) for name, teams in lineup.items()}


def _divisions_from_json(doc: dict[str, Any]) -> list[Division]:
    if "divisions" not in doc:
        raise InputError("divisions", "missing")
    raw = doc["divisions"]
    if not isinstance(raw, list):
        raise InputError("divisions", "must be a list of divisions")
    divisions = []
    for index, data in enumerate(raw):
        field = f"divisions[{index}]"
        if not isinstance(data, dict):
            raise InputError(field, "must be an object with name, tier and ranking")
        for key in ("name", "tier", "ranking"):
            if key not in data:
                raise InputError(f"{field}.{key}", "missing")
        name, tier, ranking = data["name"], data["tier"], data["ranking"]
        if not isinstance(name, str):
            raise InputError(f"{field}.name", f"must be a string, not {name!r}")
        if isinstance(tier, bool) or not isinstance(tier, int):
            raise InputError(f"{field}.tier", f"must be 1, 2 or 3, not {tier!r}")
        if not isinstance(ranking, list):
            raise InputError(f"{field}.ranking", "must be a list of team ids")
        for rank, team in enumerate(ranking):
            if not isinstance(team, str):
                raise InputError(f"{field}.ranking[{rank}]", f"must be a team id, not {team!r}")
        divisions.append(Division(name, tier, tuple(ranking)))
    return divisions


def _team_list(doc: dict[str, Any], key: str) -> list[str]:
    teams = doc.get(key, [])
    if not isinstance(teams, list):
        raise InputError(key, "must be a list of team ids")
    for index, team in enumerate(teams):
        if not isinstance(team, str):
            raise InputError(f"{key}[{index}]", f"must be a team id, not {team!r}")
    return teams


def _placement(doc: dict[str, Any]) -> dict[str, str]:
    placement = doc.get("placement", {})
    if not isinstance(placement, dict):
        raise InputError("placement", "must map team ids to division names")
    for team, name in placement.items():
        if not isinstance(name, str):
            raise InputError(f"placement.{team}", f"must be a division name, not {name!r}")
    return placement


def moves_from_json(doc: dict[str, Any]) -> dict[str, Any]:
    """The ``promotion`` command (ENGINE_CLI.md): final tables in, the teams that move out.

    ``cannot_be_promoted`` may be left out (nobody barred). Two extras, both optional: input
    ``placement`` (team → division, an admin's choice) and output ``next_season`` (each
    division's teams next season, :func:`place_moves`); each move also carries ``from_tier``,
    ``rank`` and ``direction``.

    >>> doc = {"divisions": [
    ...     {"name": "E", "tier": 1, "ranking": ["e1", "e2", "e3", "e4"]},
    ...     {"name": "2", "tier": 2, "ranking": ["a1", "a2", "a3", "a4", "a5", "a6"]},
    ...     {"name": "3", "tier": 3, "ranking": ["b1", "b2", "b3"]}]}
    >>> moves_from_json(doc)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: divisions: tier 1 sends 4 teams down but tier 2 sends 2 up
    >>> doc["divisions"][0]["tier"] = "1"
    >>> moves_from_json(doc)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: divisions[0].tier: must be 1, 2 or 3, not '1'
    """
    if not isinstance(doc, dict):
        raise InputError("input", "must be a JSON object")
    divisions = _divisions_from_json(doc)
    barred = _team_list(doc, "cannot_be_promoted")
    moves = promotion_moves(divisions, barred)
    return {
        "moves": [
            {
                "team": move.team,
                "from": move.from_division,
                "to_tier": move.to_tier,
                "from_tier": move.from_tier,
                "rank": move.rank,
                "direction": move.direction.value,
            }
            for move in moves
        ],
        "next_season": {
            name: list(teams)
            for name, teams in place_moves(divisions, moves, _placement(doc)).items()
        },
    }


__all__ = [
    "PLACES",
    "Direction",
    "Division",
    "Move",
    "Places",
    "division_zones",
    "moves_from_json",
    "place_moves",
    "promotion_moves",
]
