"""The cups moving on after a round: the KDH's next draw and lucky losers (R15, R17), the WG's
semi-finals and final week (R18).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db.models import Q

from competitions import selectors
from competitions.kinds import Draw
from competitions.models import Fixture, Pool, PoolRound, Round, Stage
from competitions.services.setup import (
    draws_log,
    fixtures_bulk_create,
    pool_rounds_bulk_create,
    round_create,
)
from engine import (
    Dice,
    RoundResult,
    kdh,
    wg,
)
from engine.calendar import week_of
from league.models import Entry


def cup_progress(pool_round: PoolRound, result: RoundResult, entries: Mapping[str, Entry]) -> None:
    """Who a cup round sends on, and the next round drawn when this one completes a stage
    (R15, R17, R18). The draws come from ``<seed>/next-round-draw`` of the finished round and go
    into its draw log, to be checked once its seed is published (R23)."""
    round = pool_round.round
    kind = round.kind
    if kind.divisional:
        return
    dice = Dice(selectors.next_round_draw_seed(pool_round.seed))
    if kind.round_rules(round.number).knockout:
        pool_round.qualified.add(*(entries[team] for team in result.qualified or ()))
    draw = kind.draws_after(round.number)
    if draw is Draw.NEXT_ROUND and len(result.matches) > 1:
        _kdh_next_round(pool_round, dice)
    elif draw is Draw.SEMI_FINALS:
        _wg_semi_finals(pool_round, dice)
    elif draw is Draw.FINAL_WEEK:
        _wg_final_week(pool_round, result, entries)
    if dice.draws:
        pool_round.draw_log = [*pool_round.draw_log, *draws_log(dice.seed, dice.draws)]
        pool_round.save(update_fields=["draw_log"])


def _next_round(pool_round: PoolRound, games: int) -> Round:
    """The competition's next round (created when the calendar has not got it yet)."""
    round = pool_round.round
    number = round.number + 1
    found = (
        Round.objects.filter(
            season_id=round.season_id, competition=round.competition, number=number
        )
        .select_related("season")
        .first()
    )
    if found is not None:
        return found
    return round_create(
        season=round.season,
        competition=round.competition,
        number=number,
        week=round.season.calendar_week(week_of(round.competition, number)),
        stage=Stage(round.kind.stage_of(number, games)),
    )


def _next_pool_round(pool: Pool, round: Round) -> PoolRound:
    """``pool``'s part of the cup's next ``round``: the one a void left without its games (R23: its
    seed's SHA-256 may already be public, so it keeps its seed), or a new one."""
    kept = PoolRound.objects.filter(pool=pool, round=round).first()
    if kept is not None:
        return kept
    (created,) = pool_rounds_bulk_create(pool, [round])
    return created


def _kdh_next_round(pool_round: PoolRound, dice: Dice) -> PoolRound:
    """R17: the winners and lucky losers (R15) — with, after the qualifying round, the teams it
    exempted — drawn in pairs for the next round. An odd number left by double forfeits gives
    the die's pick a bye (our decision, the engine's season driver's)."""
    pool = pool_round.pool
    round = pool_round.round
    going_on = list(pool_round.qualified.select_related("team"))
    if round.stage == Stage.QUALIFYING:
        played = Fixture.objects.filter(pool_round=pool_round)
        going_on += (
            Entry.objects.filter(pool_members__pool=pool)
            .exclude(Q(pk__in=played.values("home_id")) | Q(pk__in=played.values("away_id")))
            .select_related("team")
        )
    by_id = {entry.team.slug: entry for entry in going_on}
    teams = sorted(by_id)
    number = round.number + 1
    bye = None
    if len(teams) % 2:
        bye = dice.choice(f"kdh.bye.{number}", teams)
        teams.remove(bye)
    games = kdh.draw_pairings(teams, dice, what=f"kdh.pairings.{number}")
    created = _next_pool_round(pool, _next_round(pool_round, len(games)))
    fixtures_bulk_create(created, [(g.home, g.away) for g in games], by_id)
    if bye is not None:
        created.qualified.add(by_id[bye])
    return created


def _wg_semi_finals(pool_round: PoolRound, dice: Dice) -> PoolRound:
    """R18: the three group winners and the best second, drawn so that two teams of one group do
    not meet. The group tables are the selectors' (R9), over the arbitrated group rounds."""
    tables = selectors.wg_group_standings(pool=pool_round.pool, published_only=False)
    semi = wg.semi_finalists([tables[name] for name in wg.GROUP_NAMES], dice)
    games = wg.draw_semi_finals(semi, dice)
    by_id = {
        entry.team.slug: entry
        for entry in Entry.objects.filter(
            season_id=pool_round.pool.season_id, team__slug__in=semi
        ).select_related("team")
    }
    pool_round.qualified.add(*by_id.values())
    created = _next_pool_round(pool_round.pool, _next_round(pool_round, len(games)))
    fixtures_bulk_create(created, [(g.home, g.away) for g in games], by_id)
    return created


def _wg_final_week(
    pool_round: PoolRound, result: RoundResult, entries: Mapping[str, Entry]
) -> PoolRound:
    """R18: the final and the third-place game, the same week (one pool round, one crowd, R2)."""
    final, third_place = wg.final_games(result.matches)
    created = _next_pool_round(pool_round.pool, _next_round(pool_round, 2))
    fixtures_bulk_create(
        created,
        [(final.home, final.away), (third_place.home, third_place.away)],
        entries,
        labels=[Fixture.Label.FINAL, Fixture.Label.THIRD_PLACE],
    )
    return created
