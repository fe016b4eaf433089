"""Reads of the competitions, named ``<thing>_<action>`` with keyword-only arguments."""

from __future__ import annotations

from competitions.models import Matrix


def matrix_row(*, matrix: Matrix, round_number: int) -> dict[str, int]:
    """Round ``round_number``'s row of ``matrix``: ``{column: value}`` (the engine's
    ``matrix_row``)."""
    cells = matrix.cells.filter(round_number=round_number).order_by("column")
    return {cell.column: cell.value for cell in cells}
