"""The memory's pages' league (issue 25): the hand-written seasons of
:mod:`tests.competitions.memory_league`, played and closed through the real services, with two
coaches: Camille coaches the Élans, Dominique the Castors.

After season 1 and 2 (championship games only, R9 points):

========  ===  =====  ====  =====  ======  ==  ==  ======  ====================
team      s.   games  wins  draws  losses  GF  GA  points  titles
========  ===  =====  ====  =====  ======  ==  ==  ======  ====================
Aigles    2    6      5     1      0       13  4   11      Elite ×2, KDH ×1
Dauphins  2    6      2     3      1       10  8   8       WG ×1
Élans     2    6      3     1      2       10  11  7       KDH ×1
Hiboux    2    6      2     2      2       10  11  6       WG ×1
Castors   2    6      2     2      2       8   11  6
Boucs     2    6      2     0      4       15  10  5
Grizzlis  2    6      1     3      2       8   10  5
Faucons   2    6      0     2      4       4   13  2
========  ===  =====  ====  =====  ======  ==  ==  ======  ====================

The Castors: Elite 4th in season 1 (relegated), D2A 1st in season 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command

from tests.competitions.memory_league import SEASON_1, SEASON_2, History, history_start

SEASONS = {1: SEASON_1, 2: SEASON_2}


def coaches_make() -> dict[str, User]:
    return {
        "elans": User.objects.create_user("camille", first_name="Camille", last_name="Martin"),
        "castors": User.objects.create_user("dominique"),
    }


def history_begin(monkeypatch: pytest.MonkeyPatch, coaches: dict[str, User]) -> History:
    """The teams and their coaches, no season yet."""
    return history_start(monkeypatch, coaches)


def season_played(made: History, number: int) -> None:
    """Season ``number`` (1 or 2) opened, played, published and closed."""
    season = SEASONS[number]
    made.season_open(number, season["divisions"])
    made.play_season(number, season)
    made.close(number)


@contextmanager
def history_for_module(django_db_blocker: Any) -> Iterator[History]:
    """Seasons 1 and 2 played and closed in the test database for a whole module (each test
    runs in its own transaction, rolled back), the database emptied afterwards."""
    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as patch:
        made = history_begin(patch, coaches_make())
        season_played(made, 1)
        season_played(made, 2)
    try:
        yield made
    finally:
        with django_db_blocker.unblock():
            call_command("flush", interactive=False, verbosity=0)
            cache.clear()
