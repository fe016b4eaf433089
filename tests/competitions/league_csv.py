"""A first season's CSV file (``shared/SEASON.md``), written by hand for the import's tests."""

from __future__ import annotations

from competitions.services.league_import import COLUMNS

DIVISIONS = ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")
HEADER = ",".join(COLUMNS)


def line_of(division: str, code: int) -> int:
    return 2 + 12 * DIVISIONS.index(division) + code - 1


def good_rows() -> list[list[str]]:
    """84 teams: « Élans <DIV> <code> » coached by ``<div>-<code>``, French for odd codes,
    ``code % 4`` extra goals and ``2 + code % 2`` great saves."""
    return [
        [
            f"Élans {division.upper()} {code:02d}",
            f"{division}-{code:02d}",
            f"{division}-{code:02d}@example.org",
            "fr" if code % 2 else "en",
            division,
            f"{code:02d}",
            str(code % 4),
            str(2 + code % 2),
        ]
        for division in DIVISIONS
        for code in range(1, 13)
    ]


def csv_text(rows: list[list[str]], header: str = HEADER) -> str:
    return "\n".join([header, *(",".join(row) for row in rows)]) + "\n"
