"""Team codes (R16): each team has a code 01–12 in its division for the season.

Codes matter for the KDH: its qualifying round takes the teams with the highest D3 codes (R17).
In each D3 group, codes 01 and 02 go to the two teams relegated from D2 into that group, which
keeps them out of that qualifying round. The rules are silent on the rest; our decision:

* every other code is drawn with the division's dice (the relegated teams' order between 01 and
  02 is drawn too), the teams being offered to the draw in sorted order so that the draw depends
  only on who is in the division, not on the order a caller lists them;
* or an admin gives the whole order instead (:func:`ordered_codes`), which must still start with
  the relegated teams.

Codes are whole numbers ``1…n``; show them as two digits (``f"{code:02d}"``).

>>> from engine.dice import Dice
>>> codes = draw_codes([f"t{i}" for i in range(1, 13)], Dice("2026/d3a/codes"),
...                    relegated=["t5", "t9"])
>>> sorted(codes.values()) == list(range(1, 13)), {codes["t5"], codes["t9"]}
(True, {1, 2})
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.dice import Dice
from engine.errors import InputError


def _check(teams: Sequence[str], relegated: Sequence[str], field: str) -> None:
    if isinstance(teams, str):
        raise InputError(field, "must be a list of teams")
    seen: set[str] = set()
    for index, team in enumerate(teams):
        if not isinstance(team, str):
            raise InputError(f"{field}[{index}]", f"must be a team id, not {team!r}")
        if team in seen:
            raise InputError(f"{field}[{index}]", f"team {team!r} appears twice")
        seen.add(team)
    if len(set(relegated)) != len(relegated):
        raise InputError("relegated", "a team appears twice")
    for index, team in enumerate(relegated):
        if team not in seen:
            raise InputError(f"relegated[{index}]", f"team {team!r} is not in the division")


def draw_codes(
    teams: Sequence[str], dice: Dice, *, relegated: Sequence[str] = ()
) -> dict[str, int]:
    """Codes for a division, drawn (R16): ``relegated`` teams first, then everyone else.

    Returns team → code, in code order. Two draws are logged: ``codes.relegated`` (the order of
    the relegated teams, skipped when there are none) and ``codes`` (everyone else).

    >>> draw_codes(["b", "a"], Dice("s")) == draw_codes(["a", "b"], Dice("s"))
    True
    >>> draw_codes(["a", "b"], Dice("s"), relegated=["c"])
    Traceback (most recent call last):
    ...
    engine.errors.InputError: relegated[0]: team 'c' is not in the division
    """
    _check(teams, relegated, "teams")
    first = dice.shuffle("codes.relegated", sorted(relegated)) if relegated else []
    rest = dice.shuffle("codes", sorted(set(teams) - set(relegated)))
    return {team: code for code, team in enumerate(first + rest, start=1)}


def ordered_codes(order: Sequence[str], *, relegated: Sequence[str] = ()) -> dict[str, int]:
    """Codes for a division in an admin-given order: the first team gets 01, and so on.

    The relegated teams must come first (R16), in whichever order the admin likes.

    >>> ordered_codes(["x", "y", "z"], relegated=["y", "x"])
    {'x': 1, 'y': 2, 'z': 3}
    >>> ordered_codes(["x", "y", "z"], relegated=["z"])
    Traceback (most recent call last):
    ...
    engine.errors.InputError: order[0]: codes 01–01 go to the teams relegated from D2 (z), not 'x'
    """
    _check(order, relegated, "order")
    for index, team in enumerate(order[: len(relegated)]):
        if team not in relegated:
            raise InputError(
                f"order[{index}]",
                f"codes 01–{len(relegated):02d} go to the teams relegated from D2 "
                f"({', '.join(relegated)}), not {team!r}",
            )
    return {team: code for code, team in enumerate(order, start=1)}


__all__ = ["draw_codes", "ordered_codes"]
