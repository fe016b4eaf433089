"""Verifiable dice (R23): every random draw of a pool's round comes from one seeded generator.

The generator is deliberately simple so that anyone can re-implement it from this docstring:
draw number ``n`` (counting from 0) reads ``SHA-256(seed + ":" + n)`` as a big-endian integer
and keeps it only when it falls below the largest multiple of the number of options (rejection
sampling, so every option is exactly equally likely); a rejected value moves on to ``n + 1``.
The kept value modulo the number of options picks the option.

The seed is published as its SHA-256 (:func:`commitment`) before the deadline and in clear after
arbitration, together with the :attr:`Dice.draws` log.

>>> dice = Dice("2026/elite/round-1")
>>> dice.choice("bonus_goal", ["a", "b", "c"]) == Dice("2026/elite/round-1").choice(
...     "bonus_goal", ["a", "b", "c"])
True
>>> [d.what for d in dice.draws]
['bonus_goal']
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

T = TypeVar("T")

_SPACE = 1 << 256


def commitment(seed: str) -> str:
    """The SHA-256 hex digest of ``seed``, published before the deadline (R23).

    >>> commitment("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


class Draw(NamedTuple):
    """One logged draw: what it decided, the options in the order offered, and the result.

    A named tuple: rounds log several draws each, on the arbitration's hot path.
    """

    what: str
    options: tuple[str, ...]
    result: str

    def as_dict(self) -> dict[str, object]:
        return {"what": self.what, "options": list(self.options), "result": self.result}


class Dice:
    """The seeded generator of one pool and round, with the log of every draw it made."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.draws: list[Draw] = []
        self._counter = 0

    def __repr__(self) -> str:
        return f"Dice({self.seed!r})"

    def _below(self, n: int) -> int:
        limit = _SPACE - _SPACE % n
        while True:
            digest = hashlib.sha256(f"{self.seed}:{self._counter}".encode()).digest()
            self._counter += 1
            value = int.from_bytes(digest, "big")
            if value < limit:
                return value % n

    def choice(self, what: str, options: Sequence[T]) -> T:
        """Pick one of ``options`` uniformly, and log it under ``what``.

        >>> Dice("s").choice("x", [7])
        7
        """
        if not options:
            raise ValueError(f"draw {what!r}: nothing to choose from")
        result = options[self._below(len(options))]
        self.draws.append(Draw(what, tuple(map(str, options)), str(result)))
        return result

    def shuffle(self, what: str, items: Sequence[T]) -> list[T]:
        """A uniformly random order of ``items`` (Fisher–Yates), logged as one draw.

        The logged result is the new order, joined with spaces.

        >>> sorted(Dice("s").shuffle("order", [3, 1, 2]))
        [1, 2, 3]
        """
        order = list(items)
        for i in range(len(order) - 1, 0, -1):
            j = self._below(i + 1)
            order[i], order[j] = order[j], order[i]
        self.draws.append(Draw(what, tuple(map(str, items)), " ".join(map(str, order))))
        return order
