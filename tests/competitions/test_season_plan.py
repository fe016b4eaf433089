"""The next season's plan (SEASON.md ``season_plan``) from a season played and closed through
the real services: R22's moves and R14's bars, R24's leaving teams and vacancies (a dummy, a
withdrawal, the waiting list, new dummies), R16's codes, R17's field, R18's twelve, R21's stocks;
the same plan every time; the command's JSON and exit codes.

The tables come from real arbitrations with secret seeds, so they differ from run to run: each
test works its expectation out from the archived tables by the rules, written out here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from competitions.models import (
    Competition,
    CupHonour,
    FinalRow,
    OnrSanction,
    Pool,
    SeasonArchive,
)
from competitions.selectors import pool_standings
from competitions.services import DUMMY_TEAM_NAME, entry_replace
from competitions.services.season_close import season_close
from competitions.services.season_plan import SeasonPlanRefused, season_plan
from competitions.services.withdrawal import entry_withdraw
from league import services as league
from league.models import Entry, Season
from tests.competitions.season_league import PlayedSeason, season_played_for_module

pytestmark = pytest.mark.django_db

DIVISIONS = ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")
PLACE_POINTS = {1: 4, 2: 3, 3: 2, 4: 1}  # R21: division places and WG places alike


@pytest.fixture(scope="module")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[PlayedSeason]:
    with season_played_for_module(django_db_blocker) as made:
        yield made


def closed(made: PlayedSeason) -> SeasonArchive:
    archive = season_close(season=made.season, by=made.admin)
    assert archive is not None
    return archive


def tables(archive: SeasonArchive) -> dict[str, list[FinalRow]]:
    rows = FinalRow.objects.filter(archive=archive, pool__competition=Competition.CHAMPIONSHIP)
    by_division: dict[str, list[FinalRow]] = {slug: [] for slug in DIVISIONS}
    for row in rows.select_related("entry__team", "pool").order_by("rank"):
        by_division[row.pool.slug].append(row)
    return by_division


def r9(row: FinalRow) -> tuple[int, ...]:
    """R9's criteria as a key, smaller is better: points, wins, regulation wins, fewest losses,
    most extra-time losses, most goals, best goal difference."""
    return (
        -row.points,
        -row.wins,
        -row.regulation_wins,
        row.losses,
        -row.extra_time_losses,
        -row.goals_for,
        row.goals_against - row.goals_for,
    )


def tier(division: str) -> int:
    return 1 if division == "elite" else 2 if division.startswith("d2") else 3


def r22_up(rows: list[FinalRow], skip: set[str]) -> list[str]:
    """R22: the first two teams above the drop zone that are neither barred nor leaving."""
    if tier(rows[0].pool.slug) == 1:
        return []
    safe = rows[:8] if tier(rows[0].pool.slug) == 2 else rows
    return [r.entry.team.slug for r in safe if r.entry.team.slug not in skip][:2]


def standings_entry(made: PlayedSeason, division: str, rank: int) -> Entry:
    """The entry at ``rank`` of ``division``'s published table, before the close."""
    pool = Pool.objects.get(season=made.season, slug=division, competition="championship")
    slug = pool_standings(pool=pool)[rank - 1].team
    return Entry.objects.get(season=made.season, team__slug=slug, replaced_at__isnull=True)


# --- No plan before the close -------------------------------------------------------------------


def test_no_plan_before_the_season_is_closed(played: PlayedSeason) -> None:
    with pytest.raises(SeasonPlanRefused) as refusal:
        season_plan(season=played.season)
    assert refusal.value.code == "not_finished"
    for args, code in (((), 1), (("1",), 1), (("5",), 2)):
        with pytest.raises(CommandError) as error:
            call_command("season_plan", *args, "--json")
        assert error.value.returncode == code


def test_a_season_finished_without_its_archive_has_no_plan(played: PlayedSeason) -> None:
    Season.objects.filter(pk=played.season.pk).update(status=Season.Status.FINISHED)
    played.season.refresh_from_db()
    with pytest.raises(SeasonPlanRefused) as refusal:
        season_plan(season=played.season)
    assert refusal.value.code == "not_closed"
    with pytest.raises(CommandError) as error:
        call_command("season_plan")
    assert error.value.returncode == 1


def test_a_copy_of_the_season_read_before_its_close_gets_the_plan(played: PlayedSeason) -> None:
    running = Season.objects.get(pk=played.season.pk)
    closed(played)
    assert running.status == Season.Status.RUNNING  # the caller's copy, as it was read
    assert len(season_plan(season=running).teams) == 84


# --- R22 and R14 --------------------------------------------------------------------------------


def test_every_team_moves_as_r22_says_from_the_archived_tables(played: PlayedSeason) -> None:
    archive = closed(played)
    plan = season_plan(season=played.season)
    expected: dict[str, tuple[str, str, int]] = {}
    barred = {"d2a-team-03", played.last_week_onr}  # R14: ONR twice (R20: twice in week 10)
    for division, rows in tables(archive).items():
        assert len(rows) == 12
        up = r22_up(rows, barred)
        for row in rows:
            team = row.entry.team.slug
            if team in up:
                move = "promoted"
            elif tier(division) < 3 and row.rank >= 9:
                move = "relegated"
            elif team in barred and team in r22_up(rows, barred - {team}):
                move = "barred"
            else:
                move = "stays"
            expected[team] = (move, division, row.rank)
    assert {t.team: (t.move.value, t.from_division, t.rank) for t in plan.teams} == expected
    assert plan.leaving == () and not any(t.vacancy for t in plan.teams)
    assert {division: len(teams) for division, teams in plan.divisions().items()} == dict.fromkeys(
        DIVISIONS, 12
    )


def test_barred_teams_in_d2_and_d3_let_the_next_eligible_team_go_up(played: PlayedSeason) -> None:
    # R14: D2B's winner and D3A's runner-up get a second ONR's bar before the close.
    d2b_first = standings_entry(played, "d2b", 1)
    d3a = [standings_entry(played, "d3a", rank) for rank in (1, 2, 3)]
    Entry.objects.filter(pk__in=[d2b_first.pk, d3a[1].pk]).update(promotion_barred=True)
    d2b = [standings_entry(played, "d2b", rank).team.slug for rank in (1, 2, 3)]
    plan = season_plan(season=closed(played).season)
    lines = {t.team: t for t in plan.teams}
    assert (lines[d2b[0]].move.value, lines[d2b[0]].to) == ("barred", "d2b")
    assert (lines[d2b[1]].move.value, lines[d2b[1]].to) == ("promoted", "elite")
    assert (lines[d2b[2]].move.value, lines[d2b[2]].to) == ("promoted", "elite")
    assert not lines[d2b[2]].vacancy
    first, second, third = (entry.team.slug for entry in d3a)
    assert (lines[second].move.value, lines[second].to) == ("barred", "d3a")
    assert lines[first].move.value == lines[third].move.value == "promoted"
    assert lines[first].to.startswith("d2") and lines[third].to.startswith("d2")


def test_a_d3_leader_missing_both_last_week_rounds_has_two_onrs_and_is_not_promoted(
    played: PlayedSeason,
) -> None:
    """R14, R20: D3B's leader after week 9 sent neither of week 10's two championship rounds:
    two ONRs, every stock lost, barred; R22 skips it for the next eligible team."""
    leader = played.last_week_onr
    entry = Entry.objects.get(season=played.season, team__slug=leader)
    assert (entry.onr_count, entry.promotion_barred) == (2, True)
    assert (entry.extra_goals, entry.great_saves) == (0, 0)
    assert list(
        OnrSanction.objects.filter(entry=entry)
        .order_by("onr_count")
        .values_list("week", "round__number", "onr_count", "barred_from_promotion")
    ) == [(10, 10, 1, False), (10, 11, 2, True)]
    archive = closed(played)
    rows = tables(archive)["d3b"]
    (row,) = [r for r in rows if r.entry.team.slug == leader]
    assert row.promotion_barred
    lines = {t.team: t for t in season_plan(season=played.season).teams}
    up = [r.entry.team.slug for r in rows if lines[r.entry.team.slug].move.value == "promoted"]
    assert leader not in up and up == r22_up(rows, {leader})
    would_go_up = leader in r22_up(rows, set())
    assert lines[leader].move.value == ("barred" if would_go_up else "stays")
    assert lines[leader].to == "d3b"


# --- R24 ------------------------------------------------------------------------------------------


def best_remaining(rows: list[FinalRow], taken: set[str]) -> set[str]:
    """R24: the best teams by rank in their groups, then by R9 between groups (a tie left is
    the die's: every team of it is a possible answer)."""
    candidates = [r for r in rows if r.entry.team.slug not in taken]
    best = min((r.rank, r9(r)) for r in candidates)
    return {r.entry.team.slug for r in candidates if (r.rank, r9(r)) == best}


def test_an_elite_dummy_leaves_and_the_best_d2_team_fills_its_place(played: PlayedSeason) -> None:
    # R14: the Elite's 3rd is replaced by a dummy team, which keeps its record and place.
    dummy = league.team_create(name=DUMMY_TEAM_NAME.format(number=1), is_dummy=True)
    entry_replace(entry=standings_entry(played, "elite", 3), team=dummy, by=played.admin)
    archive = closed(played)
    plan = season_plan(season=played.season)
    assert [t.as_dict() for t in plan.leaving] == [{"team": "equipe-fantome-1", "why": "dummy"}]
    assert "equipe-fantome-1" not in {t.team for t in plan.teams}
    by_division = tables(archive)
    barred = {"d2a-team-03", played.last_week_onr}
    # D2's teams that R22 does not move (not promoted, not relegated), nor barred.
    d2 = [r for d in ("d2a", "d2b") for r in by_division[d] if r.rank <= 8]
    taken = barred | {t for d in ("d2a", "d2b") for t in r22_up(by_division[d], barred)}
    (to_elite,) = [t for t in plan.teams if t.vacancy and t.to == "elite"]
    assert to_elite.team in best_remaining(d2, taken)
    assert (to_elite.move.value, to_elite.points.promoted) == ("promoted", -6)
    # Its D2 group is then short: the best remaining D3 team goes up into it.
    d3 = [r for d in ("d3a", "d3b", "d3c", "d3d") for r in by_division[d]]
    taken = barred | {
        t for d in ("d3a", "d3b", "d3c", "d3d") for t in r22_up(by_division[d], barred)
    }
    (to_d2,) = [t for t in plan.teams if t.vacancy and t.to == to_elite.from_division]
    assert to_d2.team in best_remaining(d3, taken)
    assert to_d2.points.promoted == -6
    # Its D3 group is then short: the waiting list's first team (the Yétis were placed during
    # the season): registered before the season's end, a veteran (3 points → 1 extra goal).
    morses = plan.team("les-morses")
    assert (morses.move.value, morses.to, morses.from_division, morses.rank) == (
        "joined",
        to_d2.from_division,
        None,
        None,
    )
    assert (morses.points.veteran, morses.extra_goals, morses.great_saves) == (3, 1, 2)
    assert "les-narvals" not in {t.team for t in plan.teams}
    assert [t.team for t in plan.teams if t.vacancy] == [to_elite.team, to_d2.team]
    assert all(len(teams) == 12 for teams in plan.divisions().values())


def test_withdrawn_d3_teams_give_their_places_to_the_waiting_list_then_to_new_dummies(
    played: PlayedSeason,
) -> None:
    archive = closed(played)
    by_division = tables(archive)
    gone = [by_division[d][rank - 1] for d, rank in (("d3a", 5), ("d3b", 6), ("d3d", 7))]
    for row in gone:
        entry_withdraw(entry=row.entry, by=played.admin)
    plan = season_plan(season=played.season)
    assert [t.as_dict() for t in plan.leaving] == [
        {"team": row.entry.team.slug, "why": "withdrawn"} for row in gone
    ]
    morses, narvals = plan.team("les-morses"), plan.team("les-narvals")
    assert (morses.to, morses.extra_goals, morses.great_saves) == ("d3a", 1, 2)
    # Registered after the season's end: no veteran's points (R21).
    assert (narvals.to, narvals.points.total, narvals.extra_goals, narvals.great_saves) == (
        "d3b",
        0,
        0,
        2,
    )
    # The list has run out: a new dummy team, named as R14's are.
    dummy = plan.team("equipe-fantome-1")
    assert (dummy.to, dummy.move.value, dummy.extra_goals, dummy.great_saves) == (
        "d3d",
        "joined",
        0,
        0,
    )
    assert not any(t.vacancy for t in plan.teams)


# --- R16, R17, R18, R21 -------------------------------------------------------------------------


def test_codes_and_the_kdh_field(played: PlayedSeason) -> None:
    plan = season_plan(season=closed(played).season)
    for division in DIVISIONS:
        codes = sorted(t.code for t in plan.teams if t.to == division)
        assert codes == list(range(1, 13))
    for group in ("d3a", "d3b", "d3c", "d3d"):
        # R16: codes 01 and 02 to the two teams relegated from D2 into the group.
        relegated = {
            t.team
            for t in plan.teams
            if t.to == group and t.move.value == "relegated" and t.from_division.startswith("d2")
        }
        assert len(relegated) == 2
        assert {t.team for t in plan.teams if t.to == group and t.code <= 2} == relegated
    # R17: the 40 D3 teams with codes 03–12 play the qualifying round.
    qualifying = {t.team for t in plan.teams if t.to.startswith("d3") and t.code >= 3}
    assert set(plan.kdh.qualifying) == qualifying and len(qualifying) == 40
    assert set(plan.kdh.exempt) == {t.team for t in plan.teams} - qualifying


def best_by(rows: list[FinalRow], key: Callable[[FinalRow], tuple[int, int]]) -> set[str]:
    """The teams best by ``key`` (smaller is better); more than one: a die decides (R18)."""
    top = min(key(row) for row in rows)
    return {row.entry.team.slug for row in rows if key(row) == top}


def most_goals(row: FinalRow) -> tuple[int, int]:
    return (-row.goals_for, row.goals_against)


def fewest_against(row: FinalRow) -> tuple[int, int]:
    return (row.goals_against, -row.goals_for)


def test_the_wg_twelve_and_why_each_is_in(played: PlayedSeason) -> None:
    archive = closed(played)
    plan = season_plan(season=played.season)
    rows = [row for division in tables(archive).values() for row in division]
    honours = {
        (h.competition, h.place): h.entry.team.slug
        for h in CupHonour.objects.filter(archive=archive).select_related("entry__team")
    }
    # R18's named berths in order: the division winners, the KDH's finalists, the holder; a
    # team already in does not take a second place.
    berths = [(r.entry.team.slug, "division_winner") for r in rows if r.rank == 1]
    berths += [(honours[("kdh", 1)], "kdh_winner"), (honours[("kdh", 2)], "kdh_finalist")]
    berths += [(honours[("wg", 1)], "holder")]
    named: list[tuple[str, str]] = []
    for team, why in berths:
        if team not in {t for t, _ in named}:
            named.append((team, why))
    got = [(w.team, w.why.value) for w in plan.wg]
    assert got[: len(named)] == named
    assert len({team for team, _ in got}) == 12
    rest = got[len(named) :]
    reasons = [why for _, why in rest]
    # Then most goals and fewest against (over every team), when not in already…
    for team, why in rest:
        if why == "most_goals":
            assert team in best_by(rows, most_goals)
        if why == "fewest_against":
            assert team in best_by(rows, fewest_against)
    # …and each place freed by a team qualified twice to the next by most goals, then by fewest
    # against, alternating, among the teams not in yet.
    freed = [i for i, why in enumerate(reasons) if why.startswith("next_")]
    assert [reasons[i] for i in freed] == [
        ("next_most_goals", "next_fewest_against")[n % 2] for n in range(len(freed))
    ]
    assert reasons[: len(reasons) - len(freed)] == [
        why for why in ("most_goals", "fewest_against") if why in reasons
    ]
    for i in freed:
        team, why = rest[i]
        before = {t for t, _ in got[: len(named) + i]}
        left = [r for r in rows if r.entry.team.slug not in before]
        key = most_goals if why == "next_most_goals" else fewest_against
        assert team in best_by(left, key)


def test_every_teams_stocks_follow_r21(played: PlayedSeason) -> None:
    archive = closed(played)
    plan = season_plan(season=played.season)
    rows = {row.entry.team.slug: row for d in tables(archive).values() for row in d}
    honours = {
        (h.competition, h.entry.team.slug): h.place
        for h in CupHonour.objects.filter(archive=archive).select_related("entry__team")
    }
    for line in plan.teams:
        row = rows[line.team]
        expected = {
            "championship_wins": row.wins,
            "kdh_wins": row.kdh_wins,
            "kdh_winner": 1 if honours.get(("kdh", line.team)) == 1 else 0,
            "division_place": PLACE_POINTS.get(row.rank, 0),
            "relegated": 6 if line.move.value == "relegated" else 0,
            "promoted": -6 if line.move.value == "promoted" else 0,
            "veteran": 3,
            "wg_place": PLACE_POINTS.get(honours.get(("wg", line.team), 0), 0),
        }
        assert line.points.as_dict() == expected, line.team
        assert line.extra_goals == max(0, sum(expected.values()) // 3)
        assert line.great_saves == 2 + row.shutouts


# --- The same plan, the command -----------------------------------------------------------------


def test_the_same_data_gives_the_same_plan_and_the_command_prints_it(
    played: PlayedSeason, capsys: pytest.CaptureFixture[str]
) -> None:
    closed(played)
    plan = season_plan(season=played.season)
    assert season_plan(season=played.season) == plan
    call_command("season_plan", "--json")
    printed = json.loads(capsys.readouterr().out)
    assert printed == plan.as_dict()
    call_command("season_plan", "1", "--json")
    assert json.loads(capsys.readouterr().out) == printed


def test_the_json_is_season_md_s_document(
    played: PlayedSeason, capsys: pytest.CaptureFixture[str]
) -> None:
    closed(played)
    call_command("season_plan", "--json")
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["from_season", "season", "teams", "leaving", "kdh", "wg"]
    assert (doc["from_season"], doc["season"], doc["leaving"]) == (1, 2, [])
    assert len(doc["teams"]) == 84 and len(doc["wg"]) == 12
    for line in doc["teams"]:
        assert list(line) == [
            "team",
            "from",
            "rank",
            "move",
            "to",
            "code",
            "extra_goals",
            "great_saves",
            "extra_goal_points",
        ]
        assert line["move"] in {"promoted", "relegated", "stays", "barred", "joined"}
        assert line["to"] in DIVISIONS
    assert {len(doc["kdh"]["qualifying_round"]), len(doc["kdh"]["enter_later"])} == {40, 44}


def test_the_command_prints_a_table_without_json(
    played: PlayedSeason, capsys: pytest.CaptureFixture[str]
) -> None:
    closed(played)
    call_command("season_plan")
    text = capsys.readouterr().out
    assert "Season 2, planned from season 1" in text
    assert "ELITE" in text and "D3D" in text and "les-yetis" in text


def test_the_command_bad_usage_exits_2(played: PlayedSeason) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "season_plan", "1", "--jsn"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "matrixhockey.settings"},
        check=False,
    )
    assert done.returncode == 2
    assert "unrecognized arguments: --jsn" in done.stderr
