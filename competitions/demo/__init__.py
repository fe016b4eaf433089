"""The demo league: the real thing at any week of its season, built through the services that
run the real one (``manage.py load_demo [--week N]``, ``shared/SEASON.md``).

84 teams in 7 divisions, the season's three matrices and full calendar (R17–R20). At week
``N`` (1–10, default 3) the weeks before ``N`` are played — arbitrated by
:func:`competitions.services.pool_round_arbitrate` and published by
:func:`~competitions.services.pool_round_publish` from picks stored as coaches send them (web,
R12), the cups moving on as they go (R15, R17, R18); week ``N``'s deadline has passed with
picks in for all but a few ONR teams, not yet arbitrated; week ``N + 1`` is open, some teams'
picks already in (R12: picks in advance). Week 11 is the season played to its end: every round
of every competition published (the KDH to its final, the WG's groups, semi-finals, final and
third-place game, the championship's two rounds of week 10), the season still running (not
closed), and the waiting list that signed up along the way.

The season is placed in time from *now*: week ``N``'s deadline (Friday 17:00 Europe/Paris,
R13) is the most recent deadline passed, week ``N + 1``'s the next one (week 11: the last
deadline, week 10's, is the most recent one passed).

Our choices where nothing says: the starting stocks are those of an imagined previous season
that the engine plays with the same teams (R21); the WG's twelve (an admin's pick the first
season, R18) are every division's code-01 team and five code-02/03 teams, a spread across the
league; coaches' picks are the engine's random legal picks (:func:`engine.season.random_picks`),
sent at random times in the days before each deadline; the ONR teams are fixed per week
(:data:`ONR_IN_WEEK`), none of them ONR a third time; the waiting list fills from week 5 on
(:data:`~competitions.demo.names.WAITING_LIST`).
"""

from __future__ import annotations

from competitions.demo.coaches import ADMIN, DEPUTY, PASSWORD, REFEREE, SEED
from competitions.demo.load import (
    DEFAULT_WEEK,
    LAST_WEEK,
    ONR_IN_WEEK,
    DemoLeague,
    DemoRefused,
    DemoWeekInvalid,
    demo_load,
    demo_skipped_weeks,
    demo_starts_on,
)
from competitions.demo.names import TEAM_NAMES, WAITING_LIST

__all__ = [
    "ADMIN",
    "DEFAULT_WEEK",
    "DEPUTY",
    "LAST_WEEK",
    "ONR_IN_WEEK",
    "PASSWORD",
    "REFEREE",
    "SEED",
    "TEAM_NAMES",
    "WAITING_LIST",
    "DemoLeague",
    "DemoRefused",
    "DemoWeekInvalid",
    "demo_load",
    "demo_skipped_weeks",
    "demo_starts_on",
]
