"""The Klaus-Dieter Hoffmann cup's field and draws (R17).

Every team of the league enters. When the field ``F`` is not a power of two, the
``2·(F − 2^⌊log₂F⌋)`` teams with the highest D3 codes play a qualifying round and its winners
join the others in a bracket of ``2^⌊log₂F⌋``: with 84 teams, the 40 D3 teams with codes 03–12
play it and their 20 winners join the 44 others for the round of 64, seven rounds in all.

The rules only speak of 84 teams; for other fields our decision is:

* the qualifying places go to the lowest tier first (D3, then D2, then the Elite), highest code
  first within a tier;
* when a (tier, code) level holds more teams than the places left, the die picks among that
  level (draw ``kdh.qualifying.<tier>.<code>``);
* a power-of-two field has no qualifying round.

>>> from engine.dice import Dice
>>> field = [Entrant(f"{d}{c:02d}", tier, c)
...          for d, tier in [("E", 1), ("2A", 2), ("2B", 2), ("3A", 3), ("3B", 3), ("3C", 3),
...                          ("3D", 3)]
...          for c in range(1, 13)]
>>> first = split_field(field, Dice("2026/kdh/field"))
>>> len(first.qualifying), len(first.exempt), "3A03" in first.qualifying, "3A02" in first.exempt
(40, 44, True, True)
>>> round_names(len(field))  # doctest: +NORMALIZE_WHITESPACE
('qualifying', 'round of 64', 'round of 32', 'round of 16', 'quarter-finals',
 'semi-finals', 'final')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

from engine.calendar import Fixture
from engine.dice import Dice
from engine.errors import InputError

_NAMED_ROUNDS = {2: "final", 4: "semi-finals", 8: "quarter-finals"}


@dataclass(frozen=True)
class Entrant:
    """A team of the KDH field: its id, its division's tier (1 Elite … 3 D3) and its code (R16)."""

    team: str
    tier: int
    code: int


@dataclass(frozen=True)
class FirstRound:
    """How the field starts the cup: who plays the qualifying round and who waits for its winners.

    With a power-of-two field nobody qualifies and everyone is ``exempt`` (the first round is
    then the bracket's first round).
    """

    qualifying: tuple[str, ...]
    exempt: tuple[str, ...]


def bracket_size(field_size: int) -> int:
    """``2^⌊log₂F⌋``: how many teams the first round after the qualifying round holds.

    >>> bracket_size(84), bracket_size(64)
    (64, 64)
    """
    if field_size < 2:
        raise InputError("field", f"a cup needs at least 2 teams, not {field_size}")
    return 1 << (field_size.bit_length() - 1)


def round_names(field_size: int) -> tuple[str, ...]:
    """The names of the cup's rounds for a field of ``field_size`` teams, in order.

    >>> round_names(8)
    ('quarter-finals', 'semi-finals', 'final')
    >>> round_names(33)
    ('qualifying', 'round of 32', 'round of 16', 'quarter-finals', 'semi-finals', 'final')
    """
    size = bracket_size(field_size)
    names = ["qualifying"] if size != field_size else []
    while size >= 2:
        names.append(_NAMED_ROUNDS.get(size, f"round of {size}"))
        size //= 2
    return tuple(names)


def _check_field(field: Sequence[Entrant]) -> None:
    seen: set[str] = set()
    for index, entrant in enumerate(field):
        if entrant.team in seen:
            raise InputError(f"field[{index}]", f"team {entrant.team!r} appears twice")
        seen.add(entrant.team)


def split_field(field: Sequence[Entrant], dice: Dice) -> FirstRound:
    """Who plays the qualifying round (R17) and who goes straight to the bracket.

    >>> small = [Entrant("a", 1, 1), Entrant("b", 3, 2), Entrant("c", 3, 1)]
    >>> split_field(small, Dice("s"))
    FirstRound(qualifying=('b', 'c'), exempt=('a',))
    """
    _check_field(field)
    places = 2 * (len(field) - bracket_size(len(field)))
    qualifying: list[str] = []
    # Lowest tier first, highest code first: the D3 teams with codes 12, 11, … (R17).
    ranked = sorted(field, key=lambda e: (-e.tier, -e.code, e.team))
    for (tier, code), level in groupby(ranked, key=lambda e: (e.tier, e.code)):
        left = places - len(qualifying)
        if left <= 0:
            break
        teams = [e.team for e in level]
        if len(teams) > left:
            teams = dice.shuffle(f"kdh.qualifying.{tier}.{code:02d}", teams)[:left]
        qualifying.extend(teams)
    chosen = set(qualifying)
    exempt = tuple(e.team for e in field if e.team not in chosen)
    return FirstRound(tuple(qualifying), exempt)


def draw_pairings(
    teams: Sequence[str],
    dice: Dice,
    *,
    what: str = "kdh.pairings",
    apart: Mapping[str, str] | None = None,
) -> tuple[Fixture, ...]:
    """Draw a knockout round's games from a pot (R17): the first team drawn is at home.

    The teams are shuffled (one logged draw, ``what``); the first team drawn plays at home
    against the next team drawn that it may meet, and so on with the teams left. ``apart`` maps
    teams to a label (a WG group, R18): two teams with the same label never meet, and a team
    skips an opponent that would leave the rest of the pot unable to be paired.

    >>> games = draw_pairings(["a", "b", "c", "d"], Dice("s"))
    >>> sorted(t for g in games for t in (g.home, g.away))
    ['a', 'b', 'c', 'd']
    >>> draw_pairings(["a", "b", "c"], Dice("s"))
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams: a knockout round needs an even number of teams, not 3
    """
    if len(set(teams)) != len(teams):
        raise InputError("teams", "a team appears twice")
    if len(teams) % 2:
        raise InputError(
            "teams", f"a knockout round needs an even number of teams, not {len(teams)}"
        )
    labels = apart or {}
    pot = dice.shuffle(what, sorted(teams))
    games = _pair(pot, labels)
    if games is None:
        raise InputError("teams", "no draw keeps the teams of one group apart")
    return tuple(games)


def _pair(pot: list[str], labels: Mapping[str, str]) -> list[Fixture] | None:
    if not pot:
        return []
    home, rest = pot[0], pot[1:]
    for index, away in enumerate(rest):
        if home in labels and labels.get(away) == labels[home]:
            continue
        others = _pair(rest[:index] + rest[index + 1 :], labels)
        if others is not None:
            return [Fixture(home, away), *others]
    return None


__all__ = ["Entrant", "FirstRound", "bracket_size", "draw_pairings", "round_names", "split_field"]
