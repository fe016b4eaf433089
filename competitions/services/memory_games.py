"""The league's meetings (:class:`~competitions.models.Meeting`): every published game stored once
as the head-to-heads and the records read it, when its round is published, taken back by a void.

A game's sides are the entries its fixture names: R14's replacement takes the unplayed fixtures
of the team it replaces over, so a fixture's entry is the one that played it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from competitions.models import (
    Fixture,
    Meeting,
    PoolRound,
    RecordBreak,
    TeamResult,
)
from competitions.selectors.explanations import pool_rounds_explanations
from engine import Explanation, StepCode


def extra_goals_scored(explanation: Explanation | None) -> int:
    """R3, R6: the goals a team turned from extra goals: the extra goals played, less what the
    opponent's great saves took off (a great save stops an extra goal first), never below 0;
    0 without an explanation."""
    if explanation is None:
        return 0
    extra = sum(step.amount for step in explanation if step.code is StepCode.EXTRA_GOALS)
    saved = sum(step.amount for step in explanation if step.code is StepCode.GREAT_SAVES)
    return max(0, extra + saved)


def meetings_store(*, pool_rounds: Iterable[PoolRound]) -> list[Meeting]:
    """Store the games of ``pool_rounds`` (the published ones; any other is skipped) as
    meetings, replacing those stored before for them: the same rounds give the same rows.
    Five queries whatever their number."""
    published = [pool_round for pool_round in pool_rounds if pool_round.is_published]
    if not published:
        return []
    ids = [pool_round.pk for pool_round in published]
    rounds = {
        pool_round.pk: pool_round
        for pool_round in PoolRound.objects.filter(pk__in=ids).select_related("round", "pool")
    }
    rows: dict[int, list[TeamResult]] = {pk: [] for pk in ids}
    for row in TeamResult.objects.filter(pool_round_id__in=ids).select_related(
        "entry__team", "pick"
    ):
        rows[row.pool_round_id].append(row)
    fixtures: dict[int, list[Fixture]] = {pk: [] for pk in ids}
    for fixture in Fixture.objects.filter(
        pool_round_id__in=ids, result__isnull=False
    ).select_related("result__winner", "home", "away"):
        fixtures[fixture.pool_round_id].append(fixture)
    explained = pool_rounds_explanations(
        pool_rounds=list(rounds.values()), rows=rows, fixtures=fixtures
    )
    Meeting.objects.filter(pool_round_id__in=ids).delete()
    meetings = [
        _meeting(rounds[pk], fixture, explained.get(pk, {}))
        for pk in ids
        for fixture in fixtures[pk]
    ]
    return Meeting.objects.bulk_create(meetings)


def _meeting(
    pool_round: PoolRound, fixture: Fixture, explained: Mapping[int, Explanation]
) -> Meeting:
    round = pool_round.round
    result = fixture.result
    return Meeting(
        season_id=round.season_id,
        pool_round=pool_round,
        fixture=fixture,
        competition=round.competition,
        round_number=round.number,
        week=round.week,
        stage=round.stage,
        label=fixture.label,
        home_id=fixture.home.team_id,
        away_id=fixture.away.team_id,
        home_goals=result.home_goals,
        away_goals=result.away_goals,
        decided=result.decided,
        winner_id=None if result.winner is None else result.winner.team_id,
        home_extra_goals=extra_goals_scored(explained.get(fixture.home_id)),
        away_extra_goals=extra_goals_scored(explained.get(fixture.away_id)),
    )


def meetings_forget(*, pool_round: PoolRound) -> None:
    """A voided pool round's meetings and the records it broke, taken back (published results
    only: it is arbitrated and published again later)."""
    Meeting.objects.filter(pool_round=pool_round).delete()
    RecordBreak.objects.filter(pool_round=pool_round).delete()
