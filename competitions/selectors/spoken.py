"""What a team's current picks for earlier rounds not yet arbitrated already use — "spoken for"
on the pick form: a column or value that an earlier pick uses will be gone by the time a later
round is played, and an advance pick repeating it would be redrawn (R11).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from competitions import hot_sql
from competitions.models import Round
from competitions.selectors.entries import PLAYED
from engine import NotationError
from engine import Pick as EnginePick
from league.models import Entry


@dataclass(frozen=True)
class SpokenFor:
    """The uses of the team's current picks for earlier, unplayed rounds of one competition."""

    columns: dict[str, int] = field(default_factory=dict)
    """Column → the round number whose pick uses it."""
    extra_time: Counter[str] = field(default_factory=Counter)
    shootout: Counter[str] = field(default_factory=Counter)
    extra_goals: int = 0
    """Extra goals asked by the picks of earlier weeks' unplayed rounds (any competition)."""
    great_saves: int = 0

    def extra_time_promised(self, value: str, left: int) -> bool:
        """R11: the earlier picks already use all ``left`` uses the team has of extra-time
        ``value``: a later pick repeating it has it redrawn. The pick page marks such a tile
        and the pick's warning says so (``competitions.services.pick_stale``)."""
        return self.extra_time[value] >= left

    def shootout_promised(self, value: str, left: int) -> bool:
        """R11: as :meth:`extra_time_promised`, for a KDH shootout value."""
        return self.shootout[value] >= left


def entries_spoken_for(*, entry: Entry, rounds: list[Round]) -> dict[int, SpokenFor]:
    """:func:`entry_spoken_for` for each of ``rounds`` (by id), from two queries whatever their
    number: the season's unplayed rounds before the latest of them, and the team's picks."""
    if not rounds:
        return {}
    latest = max(round.deadline for round in rounds)
    # Written out (competitions.hot_sql): every pick reads them for its R11 warning.
    unplayed = {
        r.pk: r
        for r in hot_sql.unplayed_rounds(
            season_id=rounds[0].season_id,
            before=latest,
            division_id=entry.division_id,
            entry_id=entry.pk,
            played=PLAYED,
        )
    }
    current: dict[int, EnginePick] = {}
    picks: list[tuple[int, str]] = []
    if unplayed:
        picks = hot_sql.round_picks(entry_id=entry.pk, round_ids=list(unplayed))
    for round_id, normalized in picks:
        try:
            current[round_id] = EnginePick.parse(normalized)  # the last one wins (R12)
        except NotationError:
            current.pop(round_id, None)  # stored picks were checked when sent
    return {round.pk: _spoken(round, unplayed, current) for round in rounds}


def _spoken(round: Round, unplayed: dict[int, Round], current: dict[int, EnginePick]) -> SpokenFor:
    columns: dict[str, int] = {}
    extra_time: Counter[str] = Counter()
    shootout: Counter[str] = Counter()
    goals = saves = 0
    earlier = sorted(
        (
            (unplayed[round_id], pick)
            for round_id, pick in current.items()
            if unplayed[round_id].deadline < round.deadline
        ),
        key=lambda item: (item[0].deadline, item[0].number),
    )
    for other, pick in earlier:
        goals += pick.extra_goals
        saves += pick.great_saves
        if other.competition != round.competition:
            continue
        columns.setdefault(pick.column, other.number)
        extra_time[pick.extra_time] += 1
        if pick.shootout is not None:
            shootout[pick.shootout] += 1
    return SpokenFor(
        columns=columns,
        extra_time=extra_time,
        shootout=shootout,
        extra_goals=goals,
        great_saves=saves,
    )


def entry_spoken_for(*, entry: Entry, round: Round) -> SpokenFor:
    """What ``entry``'s current picks (R12: the last received) for the rounds of earlier weeks
    that are not arbitrated yet already use: columns and values of the same competition, and
    extra goals and great saves of any competition."""
    return entries_spoken_for(entry=entry, rounds=[round])[round.pk]
