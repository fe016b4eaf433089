"""A team's week across competitions: sharing out its stocks (R6) and ONR sanctions (R14, R15).

A week's picks may ask for more extra goals than the team has left: they are granted
championship first, then WG, then KDH, and the excess is simply not played (R6).

>>> allotment = allot_stocks(
...     [StockRequest("kdh", 3, extra_goals=2), StockRequest("championship", 3, extra_goals=2)],
...     extra_goals=3, great_saves=None)
>>> [(grant.request.competition.value, grant.extra_goals) for grant in allotment.grants]
[('kdh', 1), ('championship', 2)]
>>> allotment.extra_goals_left
0
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.competitions import Competition, rules_for
from engine.errors import InputError
from engine.game import TeamEntry


@dataclass(frozen=True, slots=True)
class StockRequest:
    """What one of a team's picks this week asks of its stocks (its ``+`` and ``#``)."""

    competition: Competition
    """The round's competition (a :class:`Competition` or its name)."""
    round: int
    """The round's number in its competition: the last championship week has two (R20)."""
    extra_goals: int = 0
    great_saves: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "competition", rules_for(self.competition).competition)


@dataclass(frozen=True, slots=True)
class Grant:
    """What a request actually gets to play (R6)."""

    request: StockRequest
    extra_goals: int
    great_saves: int


@dataclass(frozen=True, slots=True)
class Allotment:
    """A week's grants, in the order the requests were given, and what is left after them."""

    grants: tuple[Grant, ...]
    extra_goals_left: int | None
    """``None`` when the stock had no limit."""
    great_saves_left: int | None


def allot_stocks(
    requests: Sequence[StockRequest], *, extra_goals: int | None, great_saves: int | None
) -> Allotment:
    """Share a team's stocks between its week's requests (R6).

    Requests are served in the competitions' priority order (championship, WG, KDH; the data
    is :attr:`Rules.stock_priority <engine.competitions.Rules.stock_priority>`), rounds of one
    competition in round order; each gets what it asks, up to what is left. Great saves are
    played only in the championship.

    >>> allot_stocks([StockRequest("championship", 10, great_saves=2),
    ...               StockRequest("championship", 11, great_saves=1)],
    ...              extra_goals=None, great_saves=2).great_saves_left
    0
    """
    for name, stock in (("extra_goals", extra_goals), ("great_saves", great_saves)):
        if stock is not None and (type(stock) is not int or stock < 0):
            raise InputError(name, f"must be a whole number ≥ 0 or None, not {stock!r}")
    for index, request in enumerate(requests):
        for name in ("extra_goals", "great_saves"):
            value = getattr(request, name)
            if type(value) is not int or value < 0:
                raise InputError(
                    f"requests[{index}].{name}", f"must be a whole number ≥ 0, not {value!r}"
                )
        if request.great_saves and not rules_for(request.competition).great_saves:
            raise InputError(
                f"requests[{index}].great_saves",
                f"great saves are played only in the championship, not in the "
                f"{request.competition.value} (R6)",
            )
    served = sorted(
        range(len(requests)),
        key=lambda i: (rules_for(requests[i].competition).stock_priority, requests[i].round),
    )
    grants: dict[int, Grant] = {}
    goals_left, saves_left = extra_goals, great_saves
    for index in served:
        request = requests[index]
        goals = _granted(request.extra_goals, goals_left)
        saves = _granted(request.great_saves, saves_left)
        if goals_left is not None:
            goals_left -= goals
        if saves_left is not None:
            saves_left -= saves
        grants[index] = Grant(request, goals, saves)
    return Allotment(tuple(grants[i] for i in range(len(requests))), goals_left, saves_left)


def _granted(asked: int, left: int | None) -> int:
    return asked if left is None or asked <= left else left


class Replacement(enum.Enum):
    """R14: who takes over a team at its third ONR."""

    DUMMY = "dummy"
    """A dummy team plays the rest of the season with random picks (Elite, D2; D3 without a
    waiting list)."""
    WAITING_LIST = "waiting_list"
    """The first team of the waiting list takes over (D3)."""


@dataclass(frozen=True, slots=True)
class Sanction:
    """What a week's ONR costs a team (R14). The replacement keeps the team's record."""

    onr_count: int
    """The team's sanctioned ONRs this season, this week included."""
    extra_goals_removed: int
    great_saves_removed: int
    barred_from_promotion: bool
    """From the second ONR on, the team cannot be promoted this season (R14, R22)."""
    replacement: Replacement | None
    """From the third ONR on, who replaces the team; ``None`` before."""


_REPLACEMENT = {1: Replacement.DUMMY, 2: Replacement.DUMMY, 3: Replacement.WAITING_LIST}


def late_placement(entry: TeamEntry) -> TeamEntry:
    """R14: a team placed by a replacement after a round's deadline is not ONR for that round.

    ``entry``'s pick is the one the team it replaces had sent for the round (an advance pick,
    R12), which it plays as its own with its stocks; without one it plays a dummy's random
    legal pick as a regular pick (no stocks, no penalty). Nothing it plays there is sanctioned.

    >>> from engine.notation import Pick
    >>> late_placement(TeamEntry(Pick.parse("C+(1)"), extra_goals=2)).dummy
    False
    >>> played = late_placement(TeamEntry(None, extra_goals=2))
    >>> played.dummy, played.extra_goals
    (True, 0)
    """
    if entry.pick is None:
        return entry._replace(extra_goals=0, great_saves=0, dummy=True)
    return entry


def week_onr_count(onr_in: Iterable[Competition | str]) -> int:
    """R14: how many sanctioned ONRs a team's ONRs of one week make.

    ``onr_in`` lists the competition of each round of the week in which the team was ONR, once
    per round. Every round of a competition counts on its own — the last week's two
    championship rounds (R20) make two ONRs — while ONRs of different competitions the same
    week merge: a championship ONR and a WG group-stage ONR are one. A cup forfeit never counts
    (R15).

    >>> week_onr_count(["championship", "championship"])
    2
    >>> week_onr_count(["championship", "wg-group", "kdh"])
    1
    """
    counted: dict[Competition, int] = {}
    for competition in onr_in:
        rules = rules_for(competition)
        if rules.onr_sanctioned:
            counted[rules.competition] = counted.get(rules.competition, 0) + 1
    return max(counted.values(), default=0)


def onr_sanction(
    *,
    onr_before: int,
    onr_in: Iterable[Competition | str],
    tier: int,
    extra_goals: int,
    great_saves: int,
    waiting_list: bool,
    sanctioned: int = 0,
) -> Sanction:
    """The R14 sanction for one team's week.

    ``onr_in`` lists, once per round, the competitions in which the team was ONR this week; they
    make :func:`week_onr_count` sanctioned ONRs (each championship round on its own, a WG
    group-stage ONR merged with a championship one, never a cup forfeit, R15). ``sanctioned``
    says how many of them ``onr_before`` already counts: the site arbitrates a week's rounds one
    at a time, and adds each round's ONR to those the week already had.

    >>> sanction = onr_sanction(onr_before=0, onr_in=["championship", "wg-group"], tier=1,
    ...                         extra_goals=0, great_saves=3, waiting_list=False)
    >>> sanction.onr_count, sanction.extra_goals_removed, sanction.great_saves_removed
    (1, 0, 1)
    >>> last_week = onr_sanction(onr_before=0, onr_in=["championship", "championship"], tier=3,
    ...                          extra_goals=2, great_saves=3, waiting_list=True)
    >>> last_week.onr_count, last_week.extra_goals_removed, last_week.barred_from_promotion
    (2, 2, True)
    """
    if type(onr_before) is not int or onr_before < 0:
        raise InputError("onr_before", f"must be a whole number ≥ 0, not {onr_before!r}")
    if type(sanctioned) is not int or sanctioned < 0:
        raise InputError("sanctioned", f"must be a whole number ≥ 0, not {sanctioned!r}")
    if tier not in _REPLACEMENT:
        raise InputError("tier", f"must be 1 (Elite), 2 (D2) or 3 (D3), not {tier!r}")
    for name, stock in (("extra_goals", extra_goals), ("great_saves", great_saves)):
        if type(stock) is not int or stock < 0:
            raise InputError(name, f"must be a whole number ≥ 0, not {stock!r}")
    count = onr_before + max(week_onr_count(onr_in) - sanctioned, 0)
    if count == onr_before:
        return Sanction(count, 0, 0, count >= 2, None)
    if count == 1:
        # 1st ONR: one extra goal and one great save, stocks never below 0 (R6).
        return Sanction(count, min(1, extra_goals), min(1, great_saves), False, None)
    replacement = None
    if count >= 3:
        replacement = _REPLACEMENT[tier]
        if replacement is Replacement.WAITING_LIST and not waiting_list:
            replacement = Replacement.DUMMY
    # 2nd ONR on (the 1st's one of each included when a week brings both, R20): every extra
    # goal and great save left, and no promotion this season.
    return Sanction(count, extra_goals, great_saves, True, replacement)
