"""Every score explained (R3): a published pool round's stored rows — the teams' played picks
and the picks as received, the games, the draw log (R23), the matrix row (R19), the WG group
goals (R8) — turned into the engine's values, and the engine's explanation of each team's goals
(:func:`engine.explain_round`). Nothing is scored here. Published rounds only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from django.db.models import Q

from competitions.models import (
    Fixture,
    FixtureResult,
    MatrixCell,
    PoolRound,
    Stage,
    TeamResult,
)
from competitions.selectors.entries import PLAYED, entries_lineages
from engine import (
    Decided,
    Draw,
    EngineError,
    Explanation,
    MatchResult,
    Pick,
    StepCode,
    explain_round,
)
from engine import TeamResult as EngineTeamResult
from league.models import Entry

STEP_CODES = tuple(code.value for code in StepCode)
"""The ``code`` of every step an explanation may have (the results API's)."""


def pool_rounds_explanations(
    *,
    pool_rounds: Iterable[PoolRound],
    rows: Mapping[int, Sequence[TeamResult]],
    fixtures: Mapping[int, Sequence[Fixture]],
) -> dict[int, dict[int, Explanation]]:
    """Per published pool round (by id), each team's explanation (by entry id), from the
    pool round's stored team results (``rows``, read with their entry's team and the pick
    received) and its games (``fixtures``, read with their result): two queries whatever their
    number (the matrix rows; the WG knockout's group goals when one is shown).

    A round whose stored facts do not add up to its goals (a history imported without its
    draws or its picks) gets no explanation rather than a wrong one.
    """
    published = [pool_round for pool_round in pool_rounds if pool_round.is_published]
    if not published:
        return {}
    rows_of = _matrix_rows(published)
    knockout = [pr for pr in published if pr.round.engine_competition == "wg-knockout"]
    group_goals = _group_goals(knockout, rows) if knockout else {}
    explained: dict[int, dict[int, Explanation]] = {}
    for pool_round in published:
        round = pool_round.round
        team_rows = rows.get(pool_round.pk, ())
        slugs = {row.entry_id: row.entry.team.slug for row in team_rows}
        try:
            steps = explain_round(
                competition=round.engine_competition,
                matrix_row=rows_of.get((round.season_id, round.competition, round.number), {}),
                teams={slugs[row.entry_id]: _played(row) for row in team_rows},
                matches=[_match(fixture, slugs) for fixture in fixtures.get(pool_round.pk, ())],
                draws=[
                    Draw(draw["what"], tuple(draw["options"]), draw["result"])
                    for draw in pool_round.draw_log
                    if draw.get("seed") == pool_round.seed
                ],
                picks={
                    slugs[row.entry_id]: Pick.parse(row.pick.normalized) if row.pick else None
                    for row in team_rows
                },
                group_goals={slugs[pk]: goals for pk, goals in group_goals.items() if pk in slugs},
            )
        except (EngineError, KeyError):
            continue
        explained[pool_round.pk] = {row.entry_id: steps[slugs[row.entry_id]] for row in team_rows}
    return explained


def _played(row: TeamResult) -> EngineTeamResult:
    """A stored team result as the engine returned it (empty strings back to ``None``)."""
    return EngineTeamResult(
        row.column or None,
        row.extra_time or None,
        row.shootout or None,
        row.extra_goals_used,
        row.great_saves_used,
        row.onr,
        row.redrawn,
        row.bonus_goal,
        row.goals,
    )


def _match(fixture: Fixture, slugs: Mapping[int, str]) -> MatchResult:
    result: FixtureResult = fixture.result
    return MatchResult(
        slugs[fixture.home_id],
        slugs[fixture.away_id],
        result.home_goals,
        result.away_goals,
        Decided(result.decided),
        None if result.winner_id is None else slugs[result.winner_id],
    )


def _matrix_rows(pool_rounds: Sequence[PoolRound]) -> dict[tuple[int, str, int], dict[str, int]]:
    """Each pool round's row of its competition's matrix (R19), by (season, competition,
    round number), in one query."""
    wanted = {(pr.round.season_id, pr.round.competition, pr.round.number) for pr in pool_rounds}
    where = Q()
    for season_id, competition, number in wanted:
        where |= Q(
            matrix__season_id=season_id, matrix__competition=competition, round_number=number
        )
    found: dict[tuple[int, str, int], dict[str, int]] = {key: {} for key in wanted}
    for season_id, competition, number, column, value in MatrixCell.objects.filter(
        where
    ).values_list("matrix__season_id", "matrix__competition", "round_number", "column", "value"):
        found[season_id, competition, number][column] = value
    return found


def _group_goals(
    pool_rounds: Sequence[PoolRound], rows: Mapping[int, Sequence[TeamResult]]
) -> dict[int, int]:
    """R8: the goals each team of the WG knockout ``pool_rounds`` scored in the WG group games
    (the team it replaced included, R14), by entry id: one query, two when a team replaced
    another."""
    entries: list[Entry] = [row.entry for pr in pool_rounds for row in rows.get(pr.pk, ())]
    owner = {
        ancestor.pk: entry_id
        for entry_id, lineage in entries_lineages(entries=entries).items()
        for ancestor in lineage
    }
    goals = dict.fromkeys((entry.pk for entry in entries), 0)
    for home_id, away_id, home_goals, away_goals in FixtureResult.objects.filter(
        Q(fixture__home_id__in=owner) | Q(fixture__away_id__in=owner),
        fixture__pool_round__pool_id__in={pr.pool_id for pr in pool_rounds},
        fixture__pool_round__round__stage=Stage.GROUP,
        fixture__pool_round__status__in=PLAYED,
    ).values_list("fixture__home_id", "fixture__away_id", "home_goals", "away_goals"):
        if home_id in owner:
            goals[owner[home_id]] += home_goals
        if away_id in owner:
            goals[owner[away_id]] += away_goals
    return goals
