"""The competitions' matrices (R19): a row per round, a column per game, values 1–6.

Each season competition has its own matrix: the championship 11 rounds × columns A–K, the KDH
7 × A–G, the WG 8 × A–H (the sizes come from :mod:`engine.competitions`). By default every cell
is a die roll from a :class:`~engine.dice.Dice`; an admin may edit the matrix before the season
starts, and :meth:`Matrix.from_rows` checks what they typed.

>>> from engine.dice import Dice
>>> matrix = draw_matrix("kdh", Dice("2026/kdh/matrix"))
>>> len(matrix.rows), matrix.columns
(7, ('A', 'B', 'C', 'D', 'E', 'F', 'G'))
>>> sorted(matrix.row(1)) == list("ABCDEFG") and set(matrix.row(1).values()) <= set(DIE_FACES)
True
>>> draw_matrix("kdh", Dice("2026/kdh/matrix")) == matrix
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine.calendar import SeasonCompetition
from engine.competitions import Competition
from engine.dice import Dice
from engine.errors import InputError

DIE_FACES = (1, 2, 3, 4, 5, 6)
"""R19: the values a matrix cell can hold, a die's faces."""


@dataclass(frozen=True)
class Matrix:
    """One competition's matrix for a season: ``rows[r - 1]`` is round ``r``, in column order.

    Built directly, it checks its shape and values (:class:`~engine.errors.InputError` naming
    the cell, e.g. ``matrix.2.C``):

    >>> Matrix(SeasonCompetition.KDH, ((1,) * 7,) * 6)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: matrix: kdh needs 7 rounds, not 6
    """

    competition: SeasonCompetition
    rows: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        # Lists from callers become tuples, so a matrix cannot change once built.
        object.__setattr__(self, "rows", tuple(tuple(values) for values in self.rows))
        columns = self.competition.rules.columns
        rounds = self.competition.rules.rounds
        if len(self.rows) != rounds:
            raise InputError(
                "matrix", f"{self.competition.value} needs {rounds} rounds, not {len(self.rows)}"
            )
        for round_number, values in enumerate(self.rows, start=1):
            if len(values) != len(columns):
                raise InputError(
                    f"matrix.{round_number}",
                    f"needs {len(columns)} columns ({columns[0]}–{columns[-1]}), not {len(values)}",
                )
            for column, value in zip(columns, values, strict=True):
                _die_face(f"matrix.{round_number}.{column}", value)

    @property
    def columns(self) -> tuple[str, ...]:
        """The column letters, in order."""
        return self.competition.rules.columns

    def row(self, round_number: int) -> Mapping[str, int]:
        """Round ``round_number``'s row as a read-only column → value mapping.

        >>> m = Matrix.from_rows("kdh", [dict.fromkeys("ABCDEFG", 1 + r % 6) for r in range(7)])
        >>> m.row(3)["G"], m.row(7)["A"]
        (3, 1)
        >>> m.row(0)
        Traceback (most recent call last):
        ...
        engine.errors.InputError: round: kdh has rounds 1–7, not 0
        """
        if not 1 <= round_number <= len(self.rows):
            raise InputError(
                "round",
                f"{self.competition.value} has rounds 1–{len(self.rows)}, not {round_number}",
            )
        return MappingProxyType(dict(zip(self.columns, self.rows[round_number - 1], strict=True)))

    def as_rows(self) -> list[dict[str, int]]:
        """The matrix as plain data, the shape :meth:`from_rows` reads back.

        >>> m = draw_matrix("wg", Dice("s"))
        >>> Matrix.from_rows("wg", m.as_rows()) == m
        True
        """
        return [dict(zip(self.columns, values, strict=True)) for values in self.rows]

    @classmethod
    def from_rows(
        cls,
        competition: SeasonCompetition | Competition | str,
        rows: Sequence[Mapping[str, object]],
    ) -> Matrix:
        """A matrix from admin-edited data: a list of rows, each a column → value mapping.

        Every cell must be there, and only those, each an integer 1–6; the error names the cell
        (``matrix.<round>.<column>``).

        >>> rows = [dict.fromkeys("ABCDEFG", 4) for _ in range(7)]
        >>> rows[1]["C"] = 7
        >>> Matrix.from_rows("kdh", rows)
        Traceback (most recent call last):
        ...
        engine.errors.InputError: matrix.2.C: must be a whole number from 1 to 6, not 7
        >>> rows[1]["C"] = 2
        >>> del rows[4]["A"]
        >>> Matrix.from_rows("kdh", rows)
        Traceback (most recent call last):
        ...
        engine.errors.InputError: matrix.5.A: missing
        """
        season_competition = SeasonCompetition.of(competition)
        columns = season_competition.rules.columns
        if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Sequence):
            raise InputError("matrix", "must be a list of rows")
        values = []
        for round_number, row in enumerate(rows, start=1):
            if not isinstance(row, Mapping):
                raise InputError(f"matrix.{round_number}", "must map each column to a value")
            for column in row:
                if column not in columns:
                    raise InputError(
                        f"matrix.{round_number}.{column}",
                        f"no such column ({columns[0]}–{columns[-1]})",
                    )
            for column in columns:
                if column not in row:
                    raise InputError(f"matrix.{round_number}.{column}", "missing")
            values.append(tuple(_die_face(f"matrix.{round_number}.{c}", row[c]) for c in columns))
        return cls(season_competition, tuple(values))


def _die_face(field: str, value: object) -> int:
    # bool is an int in Python, and 4.0 == 4: neither a JSON true nor a float is a die face.
    if isinstance(value, bool) or not isinstance(value, int) or value not in DIE_FACES:
        raise InputError(field, f"must be a whole number from 1 to 6, not {value!r}")
    return value


def draw_matrix(competition: SeasonCompetition | Competition | str, dice: Dice) -> Matrix:
    """A fresh matrix for ``competition``, one die roll per cell (R19), round by round.

    Each roll is logged in ``dice.draws`` as ``matrix.<round>.<column>``.

    >>> dice = Dice("2026/championship/matrix")
    >>> matrix = draw_matrix("championship", dice)
    >>> len(dice.draws), dice.draws[0].what
    (121, 'matrix.1.A')
    """
    season_competition = SeasonCompetition.of(competition)
    rules = season_competition.rules
    return Matrix(
        season_competition,
        tuple(
            tuple(
                dice.choice(f"matrix.{round_number}.{column}", DIE_FACES)
                for column in rules.columns
            )
            for round_number in range(1, rules.rounds + 1)
        ),
    )


__all__ = ["DIE_FACES", "Matrix", "draw_matrix"]
