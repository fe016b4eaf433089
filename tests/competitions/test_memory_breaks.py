"""Records broken (issue 25): by a round when it is published — never before (secrecy) — and by a
season at its close; taken back by a void; the whole memory rebuilt the same from the archives
and the published results; and the memory's reads costing the same queries at one season and
at five. The history is ``tests/competitions/memory_league.py``'s.

After season 1 the records are: most goals in a game 6 and biggest win 6 (the Hiboux' 6-0), the
winning run 3 and the unbeaten run 3 (the Aigles; the Hiboux reach 3 unbeaten in the same round,
after them).
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from competitions.models import (
    AllTimeLine,
    LeagueRecord,
    Meeting,
    PoolRound,
    RecordBreak,
    SeasonLine,
)
from competitions.selectors.memory import (
    all_time_table,
    coach_career,
    head_to_head,
    record_breaks,
    records,
    team_history,
)
from competitions.services.memory import memory_rebuild
from competitions.services.void import pool_round_void
from league.models import Season
from tests.competitions.memory_league import (
    SEASON_1,
    SEASON_2,
    SEASON_3,
    History,
    history_start,
    history_two,
    season_three_finish,
    season_three_open,
    season_three_play,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def camille() -> User:
    return User.objects.create_user("camille", first_name="Camille", last_name="Martin")


@pytest.fixture
def two(monkeypatch: pytest.MonkeyPatch, camille: User) -> History:
    """Seasons 1 and 2 closed, season 3 open with nothing played."""
    made = history_two(monkeypatch, {"elans": camille})
    season_three_open(made, new_coach=User.objects.create_user("dominique"))
    return made


def _broken(season: Season, **only: Any) -> list[tuple[object, ...]]:
    return [
        (
            broken.week,
            broken.kind,
            broken.holder.value,
            broken.holder.team.slug,
            broken.previous_value,
            broken.previous_team and broken.previous_team.slug,
        )
        for broken in record_breaks(season=season, **only)
    ]


def test_the_rounds_of_a_season_break_the_records_as_they_are_published(two: History) -> None:
    assert _broken(two.seasons[1]) == []  # nothing to break before a season closed
    assert _broken(two.seasons[2], week=1) == [
        (1, "win_run", 4, "aigles", 3, "aigles"),
        (1, "unbeaten_run", 4, "aigles", 3, "aigles"),
    ]
    assert _broken(two.seasons[2], week=2) == [
        (2, "unbeaten_run", 5, "aigles", 4, "aigles"),
        (2, "game_goals", 7, "boucs", 6, "hiboux"),
    ]
    assert _broken(two.seasons[2], week=3) == [(3, "unbeaten_run", 6, "aigles", 5, "aigles")]
    [game] = [b for b in record_breaks(season=two.seasons[2]) if b.kind == "game_goals"]
    assert game.holder.fixture_id is not None and game.pool_round_id is not None
    assert game.previous_season_number == 1


def test_the_close_settles_the_season_records(two: History) -> None:
    at_close = sorted(row[1:4] for row in _broken(two.seasons[2]) if row[0] is None)
    # Six teams reach two seasons without an ONR in season 2 (not the Castors, ONR in season 1,
    # nor the Dauphins, ONR in season 2); the Aigles' second Elite title.
    assert at_close == [
        ("elite_titles", 2, "aigles"),
        *sorted(
            ("seasons_without_onr", 2, team)
            for team in ("aigles", "boucs", "elans", "faucons", "grizzlis", "hiboux")
        ),
    ]


def test_season_three_breaks_the_unbeaten_run_each_week_and_ties_break_nothing(
    two: History,
) -> None:
    season_three_play(two)
    # The Ibis' 7 goals equal the Boucs' record and the Aigles' winning run equals their own:
    # equalled, not broken.
    assert _broken(two.seasons[3]) == [
        (1, "unbeaten_run", 7, "aigles", 6, "aigles"),
        (2, "unbeaten_run", 8, "aigles", 7, "aigles"),
        (3, "unbeaten_run", 9, "aigles", 8, "aigles"),
    ]
    [run] = [line for line in records() if line.kind == "unbeaten_run"]
    assert (run.value, run.holders[0].this_season) == (9, True)
    season_three_finish(two)
    at_close = sorted(row[1:4] for row in _broken(two.seasons[3]) if row[0] is None)
    assert at_close == [
        ("elite_titles", 3, "aigles"),
        ("seasons_without_onr", 3, "aigles"),
        ("seasons_without_onr", 3, "boucs"),
        ("seasons_without_onr", 3, "elans"),
    ]
    [run] = [line for line in records() if line.kind == "unbeaten_run"]
    assert (run.value, run.holders[0].this_season) == (9, False)


def test_an_arbitrated_round_that_would_break_a_record_breaks_nothing_until_published(
    two: History,
) -> None:
    aigles, boucs = two.teams["aigles"], two.teams["boucs"]
    games = SEASON_3["elite"][0]  # type: ignore[index]
    pool_round = two.arbitrate(two.schedule(3, "elite", 1, [(g[0], g[1]) for g in games]), games)
    assert pool_round.status == PoolRound.Status.ARBITRATED
    assert RecordBreak.objects.filter(season=two.seasons[3]).count() == 0
    assert record_breaks(season=two.seasons[3]) == []
    [run] = [line for line in records() if line.kind == "unbeaten_run"]
    assert (run.value, run.holders[0].season_number) == (6, 2)
    assert len(head_to_head(team_a=aigles, team_b=boucs).meetings) == 2
    two.publish(pool_round)
    assert _broken(two.seasons[3]) == [(1, "unbeaten_run", 7, "aigles", 6, "aigles")]
    [run] = [line for line in records() if line.kind == "unbeaten_run"]
    assert (run.value, run.holders[0].season_number) == (7, 3)
    assert len(head_to_head(team_a=aigles, team_b=boucs).meetings) == 3


def test_a_voided_round_takes_its_games_and_its_records_back(two: History) -> None:
    games = SEASON_3["elite"][0]  # type: ignore[index]
    pool_round = two.play(3, "elite", 1, games)
    assert Meeting.objects.filter(pool_round=pool_round).count() == 2
    pool_round_void(pool_round=pool_round, by=two.admin, reason="A late pick accepted")
    assert Meeting.objects.filter(pool_round=pool_round).count() == 0
    assert record_breaks(season=two.seasons[3]) == []
    assert len(head_to_head(team_a=two.teams["aigles"], team_b=two.teams["boucs"]).meetings) == 2


def _memory() -> dict[str, list[tuple[object, ...]]]:
    """Every memory row but its id and moment, sorted."""
    kept: dict[str, list[tuple[object, ...]]] = {}
    for model in (Meeting, SeasonLine, AllTimeLine, LeagueRecord, RecordBreak):
        fields = [
            field.attname
            for field in model._meta.concrete_fields
            if field.attname not in ("id", "created_at", "final_row_id")
        ]
        kept[model.__name__] = sorted(
            model.objects.values_list(*fields), key=lambda row: tuple(map(str, row))
        )
    return kept


def test_the_memory_rebuilt_from_the_archives_is_the_memory_kept_on_the_way(
    two: History,
) -> None:
    season_three_play(two, weeks=(1, 2))
    kept = _memory()
    assert kept["RecordBreak"] and kept["LeagueRecord"] and kept["AllTimeLine"]
    memory_rebuild()
    assert _memory() == kept
    out = StringIO()
    call_command("memory_rebuild", stdout=out)  # idempotent
    assert _memory() == kept
    assert f"meeting: {len(kept['Meeting'])}" in out.getvalue()


def _reads(made: History, coach: User) -> dict[str, int]:
    """How many queries each of the memory's reads costs."""
    reads: dict[str, Callable[[], object]] = {
        "all_time_table": all_time_table,
        "team_history": lambda: team_history(team=made.teams["aigles"]),
        "head_to_head": lambda: head_to_head(
            team_a=made.teams["aigles"], team_b=made.teams["boucs"]
        ),
        "records": records,
        "record_breaks": lambda: record_breaks(season=made.seasons[max(made.seasons)]),
        "coach_career": lambda: coach_career(user=coach),
    }
    counts = {}
    for name, read in reads.items():
        with CaptureQueriesContext(connection) as queries:
            read()
        counts[name] = len(queries)
    return counts


def test_the_memory_s_reads_cost_the_same_queries_at_one_season_and_at_five(
    monkeypatch: pytest.MonkeyPatch, camille: User
) -> None:
    made = history_start(monkeypatch, {"elans": camille})
    made.season_open(1, SEASON_1["divisions"])  # type: ignore[arg-type]
    made.play_season(1, SEASON_1)
    made.close(1)
    at_one = _reads(made, camille)
    for number in (2, 3, 4, 5):
        season = SEASON_2 if number % 2 == 0 else SEASON_1
        made.season_open(number, season["divisions"])  # type: ignore[arg-type]
        made.play_season(number, season)
        made.close(number)
    assert len(head_to_head(team_a=made.teams["aigles"], team_b=made.teams["boucs"]).meetings) >= 5
    assert len(coach_career(user=camille).seasons) == 5
    assert _reads(made, camille) == at_one
    assert max(at_one.values()) <= 3
