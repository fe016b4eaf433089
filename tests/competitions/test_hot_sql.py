"""The pick's hot reads written out (``competitions.hot_sql``) return what their ORM twins, kept
here, return, on the demo league at week 6 (both cups playing, ONR teams, a replaced team's
place, picks in advance): for every team and every round of the current season, or every entry
and every status set."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.test.utils import CaptureQueriesContext

from competitions import hot_sql
from competitions.models import Competition, Pick, PoolRound, Round, TeamResult
from competitions.selectors.entries import PLAYED
from league.models import Entry, Team
from tests.demo_worlds import DemoLeague, demo_world

week_6 = demo_world(6)


@pytest.fixture(autouse=True)
def _database(db: None, week_6: DemoLeague) -> None:
    """Every test reads the week-6 demo, in its own transaction, rolled back."""


def _fields(instance: object) -> dict[str, object]:
    return {
        field.attname: getattr(instance, field.attname)
        for field in type(instance)._meta.concrete_fields  # type: ignore[attr-defined]
    }


def _rounds() -> list[Round]:
    return list(Round.objects.filter(season__is_current=True).order_by("pk"))


def test_the_team_and_round_of_a_pick_are_the_orm_s() -> None:
    teams = list(Team.objects.exclude(coach=None).order_by("pk"))
    rounds = _rounds()
    assert len(teams) > 80 and len(rounds) > 20
    for team in teams:
        user_id = team.coach_id
        for competition, number in [(r.competition, r.number) for r in rounds] + [
            (Competition.CHAMPIONSHIP, 99)
        ]:
            # The ORM twin: two queries, the team, then the round with its season.
            orm_team = (
                Team.objects.filter(Q(coach_id=user_id) | Q(deputy_id=user_id))
                .order_by("name", "id")
                .first()
            )
            orm_round = (
                Round.objects.filter(
                    season__is_current=True, competition=competition, number=number
                )
                .select_related("season")
                .order_by("id")
                .first()
            )
            found = hot_sql.pick_team_and_round(
                user_id=user_id, competition=competition, number=number
            )
            assert found is not None
            hot_team, hot_round = found
            assert _fields(hot_team) == _fields(orm_team)
            if orm_round is None:
                assert hot_round is None
            else:
                assert hot_round is not None
                assert _fields(hot_round) == _fields(orm_round)
                assert _fields(hot_round.season) == _fields(orm_round.season)
    nobody = max(team.coach_id for team in teams) + 1000
    assert hot_sql.pick_team_and_round(user_id=nobody, competition="kdh", number=1) is None


def test_the_division_pool_round_and_the_entry_locked_are_the_orm_s() -> None:
    rounds = [r for r in _rounds() if r.competition == Competition.CHAMPIONSHIP]
    teams = list(Team.objects.order_by("pk"))
    found_some = False
    for team in teams:
        entry = (
            Entry.objects.filter(season_id=rounds[0].season_id, team=team, replaced_at=None)
            .select_related("team")
            .order_by("pk")
            .first()
        )
        hot_entry = hot_sql.entry_for_update(season_id=rounds[0].season_id, team_id=team.pk)
        if entry is None:
            assert hot_entry is None
            continue
        assert hot_entry is not None
        assert _fields(hot_entry) == _fields(entry)
        assert _fields(hot_entry.team) == _fields(entry.team)
        for round in rounds:
            orm = (
                PoolRound.objects.filter(
                    round_id=round.pk,
                    pool__season_id=round.season_id,
                    pool__competition=Competition.CHAMPIONSHIP,
                    pool__division_id=entry.division_id,
                )
                .order_by("pk")
                .values_list("id", "status")
                .first()
            )
            assert hot_sql.division_pool_round_for_share(round=round, team_id=team.pk) == orm
            found_some = found_some or orm is not None
    assert found_some


def test_the_used_rows_are_the_orm_s() -> None:
    entries = list(Entry.objects.filter(season__is_current=True).order_by("pk"))
    ids = [entry.pk for entry in entries]
    every = tuple(Competition)
    for statuses in [PLAYED, (PoolRound.Status.PUBLISHED,)]:
        for competitions in [every, (Competition.CHAMPIONSHIP,), (Competition.KDH,)]:
            for before_round in [None, 3]:
                for entry_ids in [ids, ids[:1], ids[-5:]]:
                    orm = TeamResult.objects.filter(
                        entry_id__in=entry_ids,
                        pool_round__round__competition__in=competitions,
                        pool_round__status__in=statuses,
                    )
                    if before_round is not None:
                        orm = orm.filter(pool_round__round__number__lt=before_round)
                    expected = list(
                        orm.order_by("pool_round__round__number", "id").values_list(
                            "entry_id",
                            "pool_round__round__competition",
                            "column",
                            "extra_time",
                            "shootout",
                            "pool_round__status",
                            "pick__normalized",
                        )
                    )
                    assert (
                        hot_sql.used_rows(
                            entry_ids=entry_ids,
                            competitions=competitions,
                            statuses=statuses,
                            before_round=before_round,
                        )
                        == expected
                    )
    assert hot_sql.used_rows(
        entry_ids=ids, competitions=every, statuses=PLAYED, before_round=None
    ), "the demo has played rounds"


def test_the_unplayed_rounds_and_their_picks_are_the_orm_s() -> None:
    entries = list(Entry.objects.filter(season__is_current=True).order_by("pk"))
    rounds = _rounds()
    deadlines = sorted({r.deadline for r in rounds})
    some_unplayed = some_picks = False
    for entry in entries:
        for before in [deadlines[len(deadlines) // 2], deadlines[-1] + timedelta(days=1)]:
            played_here = PoolRound.objects.filter(
                round_id=OuterRef("pk"), status__in=PLAYED
            ).filter(
                Q(pool__competition=Competition.CHAMPIONSHIP, pool__division_id=entry.division_id)
                | Q(pool__members__entry_id=entry.pk)
            )
            orm = list(
                Round.objects.filter(season_id=entry.season_id, deadline__lt=before)
                .exclude(Exists(played_here))
                .order_by("pk")
                .values_list("id", "competition", "number", "deadline")
            )
            hot = hot_sql.unplayed_rounds(
                season_id=entry.season_id,
                before=before,
                division_id=entry.division_id,
                entry_id=entry.pk,
                played=PLAYED,
            )
            assert sorted((r.pk, r.competition, r.number, r.deadline) for r in hot) == orm
            some_unplayed = some_unplayed or bool(orm)
            if orm:
                ids = [row[0] for row in orm]
                expected = list(
                    Pick.objects.filter(entry_id=entry.pk, round_id__in=ids)
                    .order_by("round_id", "received_at", "id")
                    .values_list("round_id", "normalized")
                )
                assert hot_sql.round_picks(entry_id=entry.pk, round_ids=ids) == expected
                some_picks = some_picks or bool(expected)
    assert some_unplayed and some_picks


def test_the_division_pool_round_is_locked_for_share_and_only_in_its_own_table() -> None:
    round = next(r for r in _rounds() if r.competition == Competition.CHAMPIONSHIP)
    entry = Entry.objects.filter(season_id=round.season_id, replaced_at=None).order_by("pk")[0]
    with CaptureQueriesContext(connection) as queries:
        assert hot_sql.division_pool_round_for_share(round=round, team_id=entry.team_id)
    [query] = queries
    assert query["sql"].endswith("FOR SHARE OF pr")
