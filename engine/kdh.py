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
from engine.game import MatchResult

_NAMED_ROUNDS = {2: "final", 4: "semi-finals", 8: "quarter-finals"}
_STAGE_KEYS = {2: "final", 4: "semi_final", 8: "quarter_final"}


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


@dataclass(frozen=True)
class Stage:
    """One round of the cup for its field (R17): its number, how many teams play it, and whether
    it is the qualifying round.

    >>> stages(84)[1]
    Stage(number=2, teams=64, qualifying=False)
    >>> stages(84)[1].key, stages(84)[1].name, stages(84)[1].games
    ('round_of_64', 'round of 64', 32)
    """

    number: int
    teams: int
    qualifying: bool

    @property
    def games(self) -> int:
        """How many games the round holds."""
        return self.teams // 2

    @property
    def key(self) -> str:
        """The stage's key: ``qualifying``, ``round_of_<n>``, ``quarter_final``, ``semi_final``,
        ``final``.

        >>> [stage.key for stage in stages(9)]
        ['qualifying', 'quarter_final', 'semi_final', 'final']
        """
        return "qualifying" if self.qualifying else bracket_stage(self.teams)

    @property
    def name(self) -> str:
        """The stage's name in English: ``round of 64``, ``quarter-finals``…"""
        if self.qualifying:
            return "qualifying"
        return _NAMED_ROUNDS.get(self.teams, f"round of {self.teams}")


def bracket_stage(teams: int) -> str:
    """The key of the bracket's round that ``teams`` teams play (:attr:`Stage.key`).

    >>> bracket_stage(64), bracket_stage(8), bracket_stage(2)
    ('round_of_64', 'quarter_final', 'final')
    """
    return _STAGE_KEYS.get(teams, f"round_of_{teams}")


def stages(field_size: int) -> tuple[Stage, ...]:
    """The cup's rounds for a field of ``field_size`` teams, in order (R17): with ``F`` teams,
    a qualifying round of ``2·(F − 2^⌊log₂F⌋)`` teams (none for a power of two), then a
    bracket of ``2^⌊log₂F⌋`` teams halved round after round down to the final.

    >>> [(stage.teams, stage.games) for stage in stages(84)]
    [(40, 20), (64, 32), (32, 16), (16, 8), (8, 4), (4, 2), (2, 1)]
    """
    size = bracket_size(field_size)
    rounds = []
    if size != field_size:
        rounds.append(Stage(1, 2 * (field_size - size), qualifying=True))
    while size >= 2:
        rounds.append(Stage(len(rounds) + 1, size, qualifying=False))
        size //= 2
    return tuple(rounds)


def round_names(field_size: int) -> tuple[str, ...]:
    """The names of the cup's rounds for a field of ``field_size`` teams, in order.

    >>> round_names(8)
    ('quarter-finals', 'semi-finals', 'final')
    >>> round_names(33)
    ('qualifying', 'round of 32', 'round of 16', 'quarter-finals', 'semi-finals', 'final')
    """
    return tuple(stage.name for stage in stages(field_size))


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
    first = stages(len(field))[0]
    places = first.teams if first.qualifying else 0
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


def final_places(final: MatchResult) -> dict[str, int]:
    """The KDH's winner (1) and finalist (2), from its final: both go to next season's WG
    (R18), and the winner's cup counts in next season's stocks (R21). A final lost by two ONR
    teams has no winner (R15): both its teams are finalists. Beside the WG's
    :func:`engine.wg.final_ranking`.

    >>> from engine.game import Decided
    >>> final_places(MatchResult("a", "b", 1, 1, Decided.SHOOTOUT, "b"))
    {'a': 2, 'b': 1}
    >>> final_places(MatchResult("a", "b", 0, 0, Decided.FORFEIT, None))
    {'a': 2, 'b': 2}
    """
    places = {final.home: 2, final.away: 2}
    if final.winner is not None:
        places[final.winner] = 1
    return places


__all__ = [
    "Entrant",
    "FirstRound",
    "Stage",
    "bracket_size",
    "bracket_stage",
    "draw_pairings",
    "final_places",
    "round_names",
    "split_field",
    "stages",
]
