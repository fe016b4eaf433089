"""Matrices with values worked out by hand, for the tests of R25 (public matrices): the
championship's test matrix (:func:`~tests.competitions.arbitration_league.matrix_values`: round
``r``'s column ``c``, A = 0, is ``(r + c) % 6 + 1``) and a KDH matrix whose values are
``6 − (r + c) % 6``. The tests spell the rows they read out in full."""

from __future__ import annotations

import re

from competitions import services as competitions
from competitions.models import Competition, Matrix
from league.models import Season
from tests.competitions.arbitration_league import matrix_values


def kdh_value(round_number: int, column: str) -> int:
    return 6 - (round_number + ord(column) - ord("A")) % 6


def matrices_create(*, season: Season) -> list[Matrix]:
    """The championship's and the KDH's matrices of ``season`` (see the module)."""
    rules = Competition.KDH.rules
    kdh = {r: {c: kdh_value(r, c) for c in rules.columns} for r in range(1, rules.rounds + 1)}
    return [
        competitions.matrix_create(
            season=season,
            competition=Competition.CHAMPIONSHIP,
            values=matrix_values(Competition.CHAMPIONSHIP),
        ),
        competitions.matrix_create(season=season, competition=Competition.KDH, values=kdh),
    ]


TILE = re.compile(
    r'data-column="(?P<column>[A-K])"><input[^>]*><span class="tile-face">[A-K]'
    r'(?:<small class="tile-worth" data-worth="(?P<worth>\d)">.*?</small>)?'
    r'(?:<small class="tile-count tile-held" data-held="(?P<held>\d+)">'
    r'<span aria-hidden="true">\d+/(?P<teams>\d+)</span>)?'
)


def card_tiles(html: str, anchor: str) -> dict[str, tuple[int | None, int | None, int | None]]:
    """The column tiles of the pick page's card ``anchor`` (``championship-3``): by column, its
    value shown, how many other teams still have it and of how many (``None`` when not shown)."""
    start = html.index(f'id="round-{anchor}"')
    end = html.find('<article class="round-card', start + 1)
    card = html[start : end if end != -1 else len(html)]

    def number(text: str | None) -> int | None:
        return int(text) if text is not None else None

    return {
        match["column"]: (number(match["worth"]), number(match["held"]), number(match["teams"]))
        for match in TILE.finditer(card)
    }
