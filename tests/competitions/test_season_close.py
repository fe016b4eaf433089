"""Closing a season (SEASON.md ``season_close``): refused while anything is unpublished, with
the list; the final tables, the cups' winners and the R14 bars recorded; ``finished``; closing
again changes nothing. The command's exit codes: 0 done, 1 refused, 2 bad usage.

One season played to its end through the real services serves the whole module
(:mod:`tests.competitions.season_league`); each test runs in its own rolled-back transaction.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Sum

from competitions.models import (
    AllTimeLine,
    Competition,
    CupHonour,
    FinalRow,
    Fixture,
    FixtureResult,
    Meeting,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    SeasonArchive,
    SeasonLine,
    Stage,
    TeamResult,
)
from competitions.selectors.seasons import kdh_final_places, season_record, wg_final_places
from competitions.services import season_rounds_create
from competitions.services.season_close import RoundLeft, SeasonCloseRefused, season_close
from league import services as league
from league.models import AuditLog, Entry, PublicVersion, Season
from tests.competitions.season_league import PlayedSeason, season_played_for_module
from tests.final_results import unguarded

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[PlayedSeason]:
    with season_played_for_module(django_db_blocker) as made:
        yield made


def holder_slugs() -> dict[int, str]:
    """Every entry id → the slug of the team holding its place now (R14: D3C's 07 was replaced
    by the waiting list's Yétis, who keep its record)."""
    entries = list(Entry.objects.select_related("team"))
    replaced_by = {e.replaces_id: e for e in entries if e.replaces_id}
    slugs = {}
    for entry in entries:
        holder = entry
        while holder.pk in replaced_by:
            holder = replaced_by[holder.pk]
        slugs[entry.pk] = holder.team.slug
    return slugs


def published_results(competition: str, **where: object) -> list[FixtureResult]:
    return list(
        FixtureResult.objects.filter(
            fixture__pool_round__pool__competition=competition,
            fixture__pool_round__status=PoolRound.Status.PUBLISHED,
            **where,
        ).select_related("fixture")
    )


# --- What the close records ---------------------------------------------------------------------


def test_closing_records_each_divisions_final_table_counted_from_the_published_games(
    played: PlayedSeason,
) -> None:
    archive = season_close(season=played.season, by=played.admin)
    assert archive is not None
    holder = holder_slugs()
    # Each team's figures, counted here from the published games (R9: win 2, draw 1, loss after
    # regular time 1).
    tally: dict[str, Counter[str]] = {}
    for result in published_results(Competition.CHAMPIONSHIP):
        home, away = holder[result.fixture.home_id], holder[result.fixture.away_id]
        winner = None if result.winner_id is None else holder[result.winner_id]
        for team, scored, conceded in (
            (home, result.home_goals, result.away_goals),
            (away, result.away_goals, result.home_goals),
        ):
            line = tally.setdefault(team, Counter())
            line["played"] += 1
            line["goals_for"] += scored
            line["goals_against"] += conceded
            if winner == team:
                line["wins"] += 1
                line["points"] += 2
            elif winner is None:
                line["draws"] += 1
                line["points"] += 1
            else:
                line["losses"] += 1
                late = result.decided != "regulation"
                line["points"] += late
                line["extra_time_losses"] += late
    rows = FinalRow.objects.filter(archive=archive, pool__competition=Competition.CHAMPIONSHIP)
    by_pool: dict[str, list[FinalRow]] = {}
    for row in rows.select_related("entry__team", "pool").order_by("pool__slug", "rank"):
        by_pool.setdefault(row.pool.slug, []).append(row)
    assert sorted(by_pool) == ["d2a", "d2b", "d3a", "d3b", "d3c", "d3d", "elite"]
    for slug, table in by_pool.items():
        assert [row.rank for row in table] == list(range(1, 13))
        # R9: points never go up down the table.
        assert all(a.points >= b.points for a, b in pairwise(table))
        for row in table:
            counted = tally[row.entry.team.slug]
            assert row.entry.division.slug == slug
            for name in ("played", "wins", "draws", "losses", "points", "goals_for"):
                assert getattr(row, name) == counted[name], (row.entry.team.slug, name)
            assert row.goals_against == counted["goals_against"]
            assert row.extra_time_losses == counted["extra_time_losses"]
            assert row.played == 11
    # R14: the Yétis hold D3C's 07's place and record; the replaced team has no row.
    d3c = {row.entry.team.slug for row in by_pool["d3c"]}
    assert "les-yetis" in d3c and "d3c-team-07" not in d3c


def test_closing_keeps_every_team_s_season_line_for_the_league_s_memory(
    played: PlayedSeason,
) -> None:
    archive = season_close(season=played.season, by=played.admin)
    lines = {
        line.team.slug: line
        for line in SeasonLine.objects.filter(season=played.season).select_related("team")
    }
    assert len(lines) == Entry.objects.filter(season=played.season).count()
    championship = FinalRow.objects.filter(archive=archive, pool__competition="championship")
    for row in championship.select_related("entry__team"):
        assert lines[row.entry.team.slug].rank == row.rank
        assert lines[row.entry.team.slug].final_row_id == row.pk
    # R14: the replaced team keeps the games it played, the Yétis count their own; together
    # they played the place's eleven.
    replaced, yetis = lines["d3c-team-07"], lines["les-yetis"]
    assert (replaced.rank, replaced.replaced, yetis.replacement) == (None, True, True)
    assert replaced.games + yetis.games == 11 and replaced.games >= 3
    meetings = Meeting.objects.filter(season=played.season)
    assert (
        sum(line.games for line in lines.values())
        == 2 * meetings.filter(competition="championship").count()
    )
    # The goals turned from extra goals, read from the explanations: never more than played.
    scored = sum(line.extra_goals_scored for line in lines.values())
    used = TeamResult.objects.filter(pool_round__round__season=played.season).aggregate(
        used=Sum("extra_goals_used")
    )["used"]
    assert 0 < scored <= used
    assert AllTimeLine.objects.filter(scope="all").count() == len(
        [line for line in lines.values() if not line.team.is_dummy]
    )


def test_closing_records_the_wg_group_tables(played: PlayedSeason) -> None:
    archive = season_close(season=played.season, by=played.admin)
    groups = {
        member.entry.team.slug: member.group
        for member in PoolMember.objects.filter(pool__competition=Competition.WG).select_related(
            "entry__team"
        )
    }
    rows = FinalRow.objects.filter(archive=archive, pool__competition=Competition.WG)
    assert Counter(rows.values_list("group", flat=True)) == {"A": 4, "B": 4, "C": 4}
    for row in rows.select_related("entry__team"):
        assert groups[row.entry.team.slug] == row.group
        assert row.played == 6  # R18: a double round robin of four
    assert sorted(rows.values_list("group", "rank")) == [(g, r) for g in "ABC" for r in range(1, 5)]


def test_closing_records_the_cup_winners(played: PlayedSeason) -> None:
    archive = season_close(season=played.season, by=played.admin)
    holder = holder_slugs()
    honours = {
        (h.competition, h.place): h.entry.team.slug
        for h in CupHonour.objects.filter(archive=archive).select_related("entry__team")
    }
    (kdh_final,) = published_results(Competition.KDH, fixture__pool_round__round__stage=Stage.FINAL)
    fixture = kdh_final.fixture
    winner = holder[kdh_final.winner_id]
    loser = ({holder[fixture.home_id], holder[fixture.away_id]} - {winner}).pop()
    assert honours[("kdh", 1)] == winner
    assert honours[("kdh", 2)] == loser
    wg_games = {
        result.fixture.label: result
        for result in published_results(Competition.WG, fixture__pool_round__round__number=8)
    }
    for label, first in (("final", 1), ("third_place", 3)):
        result = wg_games[label]
        teams = {holder[result.fixture.home_id], holder[result.fixture.away_id]}
        assert honours[("wg", first)] == holder[result.winner_id]
        assert {honours[("wg", first + 1)]} == teams - {holder[result.winner_id]}
    assert len(honours) == 6


def test_a_kdh_final_both_teams_forfeited_closes_with_two_finalists_and_shows_no_winner(
    played: PlayedSeason,
) -> None:
    """R15: a final lost by two ONR teams names no winner; the close records both as finalists
    (both go to the next WG, R18), the archives' reads show no KDH place, as for a final not
    played (:func:`competitions.kinds.KdhCup.final_places`)."""
    (kdh_final,) = published_results(Competition.KDH, fixture__pool_round__round__stage=Stage.FINAL)
    with unguarded():
        FixtureResult.objects.filter(pk=kdh_final.pk).update(
            home_goals=0, away_goals=0, decided="forfeit", winner=None
        )
    archive = season_close(season=played.season, by=played.admin)
    holder = holder_slugs()
    finalists = {
        (honour.place, honour.entry.team.slug)
        for honour in CupHonour.objects.filter(archive=archive, competition=Competition.KDH)
    }
    fixture = kdh_final.fixture
    assert finalists == {(2, holder[fixture.home_id]), (2, holder[fixture.away_id])}
    assert kdh_final_places(season=played.season) == []
    assert season_record(season=played.season).kdh == []
    assert len(wg_final_places(season=played.season)) == 4


def test_closing_records_the_r14_bars_and_the_r21_record(played: PlayedSeason) -> None:
    archive = season_close(season=played.season, by=played.admin)
    holder = holder_slugs()
    rows = {
        row.entry.team.slug: row
        for row in FinalRow.objects.filter(
            archive=archive, pool__competition=Competition.CHAMPIONSHIP
        ).select_related("entry__team")
    }
    # D2A's 03 was ONR twice (R14): barred, and so is D3B's leader after week 9, ONR in both
    # of week 10's rounds (R20). D3C's 07 was ONR twice too, but the Yétis who replaced it start
    # clear.
    assert {team for team, row in rows.items() if row.promotion_barred} == {
        "d2a-team-03",
        played.last_week_onr,
    }
    kdh_wins = Counter(
        holder[r.winner_id] for r in published_results(Competition.KDH) if r.winner_id
    )
    shutouts: Counter[str] = Counter()
    for result in published_results(Competition.CHAMPIONSHIP):
        shutouts[holder[result.fixture.home_id]] += result.away_goals == 0
        shutouts[holder[result.fixture.away_id]] += result.home_goals == 0
    assert {team: row.kdh_wins for team, row in rows.items()} == {t: kdh_wins[t] for t in rows}
    assert {team: row.shutouts for team, row in rows.items()} == {t: shutouts[t] for t in rows}
    # The KDH's 84 teams played 83 games in all (one loser a game; lucky losers aside, R15).
    assert sum(kdh_wins.values()) <= 83


def test_the_season_is_finished_stays_current_and_ends_with_its_last_deadline(
    played: PlayedSeason,
) -> None:
    archive = season_close(season=played.season, by=played.admin)
    season = Season.objects.get(pk=played.season.pk)
    assert (season.status, season.is_current) == (Season.Status.FINISHED, True)
    # Week 10 (R20): Monday 3 November 2025; Friday 17:00 in Paris is 16:00 UTC (R13).
    assert archive.ended_at == datetime(2025, 11, 7, 16, 0, tzinfo=UTC)
    assert archive.closed_by == played.admin


def test_the_plan_seed_is_checkable_from_every_published_seed(played: PlayedSeason) -> None:
    archive = season_close(season=played.season, by=played.admin)
    seeds = PoolRound.objects.order_by("pool__competition", "pool__slug", "round__number")
    assert all(pool_round.is_published for pool_round in seeds)
    digest = hashlib.sha256("\n".join(p.seed for p in seeds).encode()).hexdigest()
    assert archive.plan_seed == f"1/plan/{digest}"


def test_closing_a_finished_season_again_changes_nothing(played: PlayedSeason) -> None:
    first = season_close(season=played.season, by=played.admin)
    rows, honours = FinalRow.objects.count(), CupHonour.objects.count()
    again = season_close(season=played.season, by=None)
    assert again == first
    assert SeasonArchive.objects.get().closed_at == first.closed_at
    assert (FinalRow.objects.count(), CupHonour.objects.count()) == (rows, honours)
    assert AuditLog.objects.filter(action="season_close").count() == 1


# --- Refusals -----------------------------------------------------------------------------------


def test_refused_while_a_round_is_not_published_listing_what_is_left(
    played: PlayedSeason,
) -> None:
    last = PoolRound.objects.get(
        pool__slug="d3b", round__competition="championship", round__number=11
    )
    with unguarded():
        PoolRound.objects.filter(pk=last.pk).update(status=PoolRound.Status.ARBITRATED)
    final = PoolRound.objects.get(pool__slug="kdh", round__number=7)
    with unguarded():
        PoolRound.objects.filter(pk=final.pk).update(status=PoolRound.Status.PENDING)
    with pytest.raises(SeasonCloseRefused) as refusal:
        season_close(season=played.season, by=played.admin)
    assert refusal.value.code == "unpublished"
    # By week (R20): the KDH's final in week 8, championship round 11 (D3B) in week 10.
    assert refusal.value.left == (
        RoundLeft("kdh", 7, 8, ("kdh",)),
        RoundLeft("championship", 11, 10, ("d3b",)),
    )
    assert "D3B not published" in refusal.value.message  # the pool by name, not its slug
    assert not SeasonArchive.objects.exists() and not FinalRow.objects.exists()
    assert Season.objects.get(pk=played.season.pk).status == Season.Status.RUNNING


def test_refused_for_rounds_not_drawn_yet(played: PlayedSeason) -> None:
    season = league.season_create(number=2, starts_on=date(2026, 9, 7))
    Season.objects.filter(pk=season.pk).update(status=Season.Status.RUNNING)
    season.refresh_from_db()
    rounds = season_rounds_create(season=season)
    with pytest.raises(SeasonCloseRefused) as refusal:
        season_close(season=season, by=played.admin)
    assert len(refusal.value.left) == len(rounds) == 11 + 7 + 8
    assert all(left.pools == () for left in refusal.value.left)
    assert refusal.value.left[0] == RoundLeft("championship", 1, 1, ())


def test_a_season_in_preparation_cannot_be_closed(played: PlayedSeason) -> None:
    season = league.season_create(number=2, starts_on=date(2026, 9, 7))
    with pytest.raises(SeasonCloseRefused) as refusal:
        season_close(season=season, by=played.admin)
    assert refusal.value.code == "not_started"
    assert Season.objects.get(pk=season.pk).status == Season.Status.PREPARING


# --- The command --------------------------------------------------------------------------------


def test_command_closes_the_current_season_then_says_it_is_already_finished(
    played: PlayedSeason, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("season_close")
    assert "closed" in capsys.readouterr().out
    assert Season.objects.get(pk=played.season.pk).status == Season.Status.FINISHED
    closed = AuditLog.objects.get(action="season_close")
    assert closed.actor is None
    assert (closed.payload["via"], closed.payload["command"]) == ("command", "season_close")
    assert closed.payload["changes"] == [
        {"field": "status", "before": "running", "after": "finished"}
    ]
    assert (closed.kind, closed.season_number) == ("season", played.season.number)
    call_command("season_close", "1")
    assert "already finished" in capsys.readouterr().out


def test_command_refused_exits_1_listing_what_is_left(played: PlayedSeason) -> None:
    with unguarded():
        PoolRound.objects.filter(pool__slug="wg", round__number=8).update(
            status=PoolRound.Status.ARBITRATED
        )
    with pytest.raises(CommandError) as error:
        call_command("season_close", "1")
    assert error.value.returncode == 1
    # The pools by name, never their slugs.
    assert "WG cup round 8 (week 10): WG cup not published" in str(error.value)


def test_command_unknown_season_exits_2(played: PlayedSeason) -> None:
    with pytest.raises(CommandError) as error:
        call_command("season_close", "7")
    assert error.value.returncode == 2
    Season.objects.update(is_current=False)
    with pytest.raises(CommandError) as error:
        call_command("season_close")
    assert error.value.returncode == 2


def test_command_bad_usage_exits_2(played: PlayedSeason) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "season_close", "last"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "matrixhockey.settings"},
        check=False,
    )
    assert done.returncode == 2
    assert "invalid int value" in done.stderr


def test_a_fixture_never_played_is_counted_left(played: PlayedSeason) -> None:
    # A WG final week whose games exist but whose pool round is not arbitrated yet.
    pool_round = PoolRound.objects.get(pool__slug="wg", round__number=8)
    assert Fixture.objects.filter(pool_round=pool_round).count() == 2
    with unguarded():
        PoolRound.objects.filter(pk=pool_round.pk).update(status=PoolRound.Status.PENDING)
    Round.objects.filter(pk=pool_round.round_id).update(status=Round.Status.CLOSED)
    with pytest.raises(SeasonCloseRefused) as refusal:
        season_close(season=played.season, by=None)
    assert refusal.value.left == (RoundLeft("wg", 8, 10, ("wg",)),)
    assert Pool.objects.filter(season=played.season).count() == 9


def test_closing_moves_the_public_version(played: PlayedSeason, db: None) -> None:
    """The archive and the finished season's pages are cached behind it (league.public_cache)."""
    before = PublicVersion.objects.get(pk=1).published
    season_close(season=played.season, by=played.admin)
    assert PublicVersion.objects.get(pk=1).published == before + 1
    season_close(season=played.season, by=played.admin)  # closed already: nothing moves
    assert PublicVersion.objects.get(pk=1).published == before + 1
