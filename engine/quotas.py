"""What a team has left to play this season under its competition's quotas (R7, R19).

A team plays each column of a competition's matrix once a season (R19) and each extra-time or
shootout value as many times as its quota says (R7), whether or not the game went to extra time.
What is left is worked out here, once, for everyone who asks: the pick form and « infos
équipes », the draws of a random pick (R4, R14) or a redrawn stale one (R11), and the season
driver's pick requests.

>>> from engine.competitions import rules_for
>>> kdh = rules_for("kdh")
>>> values_left(notation_order(kdh.extra_time_quota), ("0", "X", "0", "1"))
{'1': 1, '2': 2}
>>> columns_left(kdh.columns, ("B", "D"))
('A', 'C', 'E', 'F', 'G')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from engine.competitions import X

VALUE_ORDER = ("0", "1", "2", "3", "4", "5", X)
"""Extra-time and shootout values in notation order: the digits, then X (R7, R10)."""


def notation_order(quota: Mapping[str, int]) -> Mapping[str, int]:
    """``quota`` with its values in notation order (:data:`VALUE_ORDER`): the order the pick
    form offers them and a random or redrawn pick draws from (R4, R11, R23).

    >>> dict(notation_order({"X": 1, "0": 2, "3": 2}))
    {'0': 2, '3': 2, 'X': 1}
    """
    return MappingProxyType({value: quota[value] for value in VALUE_ORDER if value in quota})


def values_left(quota: Mapping[str, int], used: Sequence[str]) -> dict[str, int]:
    """Each value of ``quota`` that ``used`` has not used up, with the uses it has left, in the
    quota's own order (R7: a value is used up every round, whether or not the game went to
    extra time). A used value the quota does not know is ignored.

    >>> values_left({"X": 1, "0": 2, "1": 3}, ["0", "X", "7"])
    {'0': 1, '1': 3}
    """
    remaining = ((value, count - used.count(value)) for value, count in quota.items())
    return {value: uses for value, uses in remaining if uses > 0}


def is_left(quota: Mapping[str, int], used: Sequence[str], value: str) -> bool:
    """Whether ``value`` of ``quota`` is not used up by ``used`` (R7): one of
    :func:`values_left`'s, asked alone.

    >>> is_left({"X": 1, "0": 2}, ["0", "X"], "0"), is_left({"X": 1, "0": 2}, ["0", "X"], "X")
    (True, False)
    """
    return used.count(value) < quota[value]


def columns_left(columns: Iterable[str], used: Iterable[str]) -> tuple[str, ...]:
    """The ``columns`` not in ``used``, in their order (R19: each column once a season).

    >>> columns_left("ABCD", ["C", "A"])
    ('B', 'D')
    """
    spent = frozenset(used)
    return tuple(column for column in columns if column not in spent)


__all__ = ["VALUE_ORDER", "columns_left", "is_left", "notation_order", "values_left"]
