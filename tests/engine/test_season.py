"""A whole simulated season: 84 teams, the championship, both cups, standings and season end."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter, defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.calendar import SeasonCompetition, week_of
from engine.competitions import Competition, rules_for
from engine.dice import Dice
from engine.errors import InputError
from engine.matrices import Matrix, draw_matrix
from engine.notation import Pick
from engine.promotion import Direction
from engine.season import (
    DivisionSetup,
    PickRequest,
    PickSource,
    SeasonResult,
    play_season,
    random_picks,
    standard_setup,
)

SANCTIONED = {Competition.CHAMPIONSHIP, Competition.WG_GROUP}


def chaotic_picks(seed: str, onr: float, stale: float, greedy: float) -> PickSource:
    """Coaches who sometimes send nothing (ONR), sometimes an already used column or value
    (an advance pick gone stale, R11), sometimes more extra goals or great saves than they
    have (R6); otherwise random legal picks."""
    rng = random.Random(seed)
    legal = random_picks(seed + "/legal")

    def pick(request: PickRequest) -> Pick | None:
        if rng.random() < onr:
            return None
        chosen = legal(request)
        assert chosen is not None
        rules = rules_for(request.competition)
        column, extra_time, shootout = chosen.column, chosen.extra_time, chosen.shootout
        if rng.random() < stale:
            used = [c for c in rules.columns if c not in request.columns_left]
            column = rng.choice(used) if used else column
            spent = [v for v in rules.extra_time_quota if v not in request.extra_time_left]
            extra_time = rng.choice(spent) if spent else extra_time
            if rules.shootout_quota:
                gone = [v for v in rules.shootout_quota if v not in request.shootout_left]
                shootout = rng.choice(gone) if gone else shootout
        extra_goals, great_saves = chosen.extra_goals, chosen.great_saves
        if rng.random() < greedy:
            extra_goals = request.extra_goals + rng.randint(1, 3)
            if rules.great_saves:
                great_saves = request.great_saves + rng.randint(1, 2)
        return Pick(column, extra_time, shootout, extra_goals, great_saves)

    return pick


def stocks_for(seed: str) -> dict[str, tuple[int, int]]:
    rng = random.Random(seed)
    teams = [t for d in standard_setup("x").divisions for t in d.teams]
    return {t: (rng.randint(0, 8), rng.randint(2, 6)) for t in teams}


def played_by_team(season: SeasonResult) -> dict[tuple[str, SeasonCompetition], list]:
    """Per team and season competition, what each round says it played, in order."""
    played: dict[tuple[str, SeasonCompetition], list] = defaultdict(list)
    for played_round in season.rounds:
        competition = SeasonCompetition.of(played_round.competition)
        for team, result in played_round.result.teams.items():
            played[team, competition].append((played_round, result))
    return played


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.text(min_size=1, max_size=12),
    onr=st.sampled_from([0.0, 0.05, 0.2, 0.5]),
    stale=st.sampled_from([0.0, 0.1, 0.4]),
    greedy=st.sampled_from([0.0, 0.2, 0.6]),
)
def test_simulated_season_keeps_every_quota_and_stock(
    seed: str, onr: float, stale: float, greedy: float
) -> None:
    setup = dataclasses.replace(standard_setup(seed), stocks=stocks_for(seed))
    season = play_season(setup, chaotic_picks(seed, onr, stale, greedy))

    for (team, competition), rounds in played_by_team(season).items():
        rules = competition.rules
        columns = [r.column for _, r in rounds if r.column is not None]
        # R19: never a column twice in a competition.
        assert len(columns) == len(set(columns)), (team, competition, columns)
        # R7: never a value beyond its quota.
        extra_time = Counter(r.extra_time for _, r in rounds if r.column is not None)
        assert all(n <= rules.extra_time_quota[v] for v, n in extra_time.items())
        shootout = Counter(r.shootout for _, r in rounds if r.shootout is not None)
        assert all(n <= (rules.shootout_quota or {})[v] for v, n in shootout.items())
        # The season's record of what was used is what the rounds played.
        used = season.teams[team].used[competition]
        assert list(used.columns) == columns
        assert Counter(used.extra_time) == extra_time
        # R6: great saves only in the championship.
        if competition is not SeasonCompetition.CHAMPIONSHIP:
            assert all(r.great_saves_used == 0 for _, r in rounds)

    played = played_by_team(season)
    for team, state in season.teams.items():
        start_goals, start_saves = setup.stocks[team]
        rounds = [r for c in SeasonCompetition for _, r in played[team, c]]
        goals_used = sum(r.extra_goals_used for r in rounds)
        saves_used = sum(r.great_saves_used for r in rounds)
        # R6/R14: stocks never go below 0, and every goal or save is accounted for.
        assert state.extra_goals >= 0 and state.great_saves >= 0
        assert start_goals - goals_used - state.extra_goals_removed == state.extra_goals
        assert start_saves - saves_used - state.great_saves_removed == state.great_saves
        # R14: each championship round ONR counts (R20: two in the last week); a WG group ONR
        # merges with a championship ONR of the same week.
        onr_rounds: dict[tuple[int, Competition], int] = Counter(
            (pr.week, pr.competition)
            for c in (SeasonCompetition.CHAMPIONSHIP, SeasonCompetition.WG)
            for pr, r in played[team, c]
            if r.onr and pr.competition in SANCTIONED
        )
        weeks = {week for week, _ in onr_rounds}
        assert state.onr == sum(
            max(onr_rounds[week, Competition.CHAMPIONSHIP], onr_rounds[week, Competition.WG_GROUP])
            for week in weeks
        )
        assert state.barred == (state.onr >= 2)
        assert state.dummy == (state.onr >= 3)
        if state.barred:
            assert not season.records[team].promoted
        assert season.next_stocks[team].extra_goals >= 0

    # R22: as many teams into each tier as out of it; next season's divisions stay full.
    assert Counter(m.to_tier for m in season.moves) == Counter(m.from_tier for m in season.moves)
    assert all(len(teams) == 12 for teams in season.next_divisions.values())
    assert len({q.team for q in season.next_wg}) == 12

    # R23: same seed, same picks, same season.
    again = play_season(setup, chaotic_picks(seed, onr, stale, greedy))
    assert again == season


@pytest.fixture(scope="module")
def season() -> SeasonResult:
    return play_season(standard_setup("2026"))


def test_every_round_is_played_in_its_calendar_week(season: SeasonResult) -> None:
    for played in season.rounds:
        assert played.week == week_of(played.competition, played.round_number)
    counts = Counter(p.competition for p in season.rounds)
    assert counts == {
        Competition.CHAMPIONSHIP: 77,
        Competition.KDH: 7,
        Competition.WG_GROUP: 6,
        Competition.WG_KNOCKOUT: 2,
    }


def test_championship_every_pair_of_a_division_meets_once(season: SeasonResult) -> None:
    for name, table in season.tables.items():
        games = [
            m
            for p in season.rounds
            if p.competition is Competition.CHAMPIONSHIP and p.pool == name
            for m in p.result.matches
        ]
        pairs = Counter(frozenset((m.home, m.away)) for m in games)
        assert len(pairs) == 66 and set(pairs.values()) == {1}
        assert all(row.played == 11 for row in table)
        assert [row.rank for row in table] == list(range(1, 13))


def test_kdh_from_84_teams_through_seven_rounds(season: SeasonResult) -> None:
    kdh = [p for p in season.rounds if p.competition is Competition.KDH]
    assert [len(p.result.matches) for p in kdh] == [20, 32, 16, 8, 4, 2, 1]
    first = {t for m in kdh[0].result.matches for t in (m.home, m.away)}
    assert {season.codes[t] for t in first} == set(range(3, 13))
    assert all(t.startswith("d3") for t in first)
    final = kdh[-1].result.matches[0]
    assert season.kdh_finalists == (final.home, final.away)
    assert season.kdh_winner == final.winner
    assert season.records[final.winner].kdh_winner
    assert season.records[final.winner].kdh_wins == 7 - (final.winner not in first)


def test_wg_groups_semis_final_and_ranking(season: SeasonResult) -> None:
    wg = [p for p in season.rounds if SeasonCompetition.of(p.competition) is SeasonCompetition.WG]
    assert [len(p.result.matches) for p in wg] == [6, 6, 6, 6, 6, 6, 2, 2]
    assert all(len(p.result.teams) == 12 for p in wg[:6])  # R2: the twelve crowd each other
    semis = wg[6].result.matches
    group_of = {t: g for g, group in enumerate(season.wg_groups) for t in group}
    assert all(group_of[m.home] != group_of[m.away] for m in semis)
    winners = {table[0].team for table in season.wg_tables}
    assert winners <= {t for m in semis for t in (m.home, m.away)}
    final, third = wg[7].result.matches
    assert {final.home, final.away} == {m.winner for m in semis}
    assert {third.home, third.away} == {m.loser for m in semis}
    assert season.wg_ranking == {final.winner: 1, final.loser: 2, third.winner: 3, third.loser: 4}
    assert final.winner in {q.team for q in season.next_wg}  # the holder (R18)


def test_season_end_records_come_from_the_season(season: SeasonResult) -> None:
    for team, record in season.records.items():
        row = next(r for r in season.tables[season.teams[team].division] if r.team == team)
        assert record.championship_wins == row.wins
        assert record.division_rank == row.rank
        assert record.veteran
        assert season.next_stocks[team].great_saves == 2 + record.shutouts
    moved = {m.team: m.direction for m in season.moves}
    assert sum(r.promoted for r in season.records.values()) == 12
    assert sum(r.relegated for r in season.records.values()) == 12
    assert all(season.records[t].promoted == (d is Direction.UP) for t, d in moved.items())


def test_the_seasons_own_draws_are_logged_by_seed(season: SeasonResult) -> None:
    assert "2026/kdh/field" in season.draws
    assert any(d.what == "wg.groups" for d in season.draws["2026/wg/groups"])
    assert len(season.draws["2026/matrix/championship"]) == 121


def test_next_season_chains_with_relegated_teams_on_codes_01_and_02(
    season: SeasonResult,
) -> None:
    setup = season.next_setup("2027")
    relegated = {m.team for m in season.moves if m.to_tier == 3}
    assert sum(len(v) for v in setup.relegated_into.values()) == 8
    following = play_season(setup)
    for teams in setup.relegated_into.values():
        assert len(teams) == 2 and set(teams) <= relegated
        assert {following.codes[t] for t in teams} == {1, 2}
    # The KDH qualifying round therefore never holds a team just relegated from D2 (R16, R17).
    assert relegated.isdisjoint(following.kdh_first_round.qualifying)
    assert following.wg_teams == tuple(q.team for q in season.next_wg)


def test_r6_stocks_go_to_the_championship_then_the_wg_then_the_kdh() -> None:
    # Nobody plays an extra goal until week 3; then every pick asks for two, with three left.
    legal = random_picks("r6")

    def greedy(request: PickRequest) -> Pick | None:
        chosen = legal(request)
        assert chosen is not None
        asked = 2 if request.week == 3 else 0
        return dataclasses.replace(chosen, extra_goals=asked, great_saves=0)

    setup = standard_setup("r6")
    stocks = {t: (3, 2) for d in setup.divisions for t in d.teams}
    season = play_season(dataclasses.replace(setup, stocks=stocks), greedy)
    used: dict[str, dict[Competition, int]] = defaultdict(dict)
    for played in season.rounds:
        if played.week == 3:
            for team, result in played.result.teams.items():
                used[team][played.competition] = result.extra_goals_used
    three = [t for t, by in used.items() if len(by) == 3]
    assert three, "some WG teams play the KDH's second round too"
    for team in three:
        assert used[team] == {
            Competition.CHAMPIONSHIP: 2,
            Competition.WG_GROUP: 1,
            Competition.KDH: 0,
        }
    for team, by in used.items():
        if set(by) == {Competition.CHAMPIONSHIP, Competition.KDH}:
            assert by == {Competition.CHAMPIONSHIP: 2, Competition.KDH: 1}
        # Nobody asks again after week 3: what is left is what week 3 did not grant.
        assert season.teams[team].extra_goals == 3 - sum(by.values())


def test_r14_a_team_that_never_sends_picks() -> None:
    setup = standard_setup("r14")
    silent = "d3a-05"
    legal = random_picks("r14")
    season = play_season(setup, lambda r: None if r.team == silent else legal(r))
    state = season.teams[silent]
    assert (state.onr, state.barred, state.dummy) == (3, True, True)
    championship = [
        p.result.teams[silent]
        for p in season.rounds
        if p.pool == "d3a" and silent in p.result.teams
    ]
    # ONR in weeks 1–3, then a dummy: regular random picks (no "ONR :" display) from week 4.
    assert [r.onr for r in championship[:3]] == [True, True, True]
    assert not any(r.onr for r in championship[3:])
    assert not season.records[silent].promoted


def test_r14_onr_in_championship_and_wg_the_same_week_counts_once() -> None:
    setup = standard_setup("twice")
    wg_team = play_season(setup).wg_teams[0]
    legal = random_picks("twice")
    season = play_season(setup, lambda r: None if r.team == wg_team and r.week == 3 else legal(r))
    onr = [
        p.competition
        for p in season.rounds
        if p.week == 3 and p.result.teams.get(wg_team, None) and p.result.teams[wg_team].onr
    ]
    assert set(onr) >= {Competition.CHAMPIONSHIP, Competition.WG_GROUP}
    assert season.teams[wg_team].onr == 1


def test_r14_r20_a_d3_leader_missing_both_last_week_rounds_has_two_onrs_and_stays_down() -> None:
    """R14, R20: the last week's two championship rounds are two ONRs, not one; the second bars
    the team from promotion (R22 skips it) and takes every stock it has left."""
    setup = standard_setup("last-week")
    legal = random_picks("last-week")
    played = play_season(setup, legal)
    leader = played.tables["d3a"][0].team
    assert played.records[leader].promoted
    season = play_season(setup, lambda r: None if r.team == leader and r.week == 10 else legal(r))
    last_week = [p for p in season.rounds if p.week == 10 and leader in p.result.teams]
    championship = [p.round_number for p in last_week if p.competition is Competition.CHAMPIONSHIP]
    assert championship == [10, 11]
    assert all(p.result.teams[leader].onr for p in last_week)
    state = season.teams[leader]
    assert (state.onr, state.barred, state.dummy) == (2, True, False)
    assert (state.extra_goals, state.great_saves) == (0, 0)
    assert not season.records[leader].promoted
    up = [
        m.team
        for m in season.moves
        if m.direction is Direction.UP
        and m.team in {t for d in setup.divisions if d.name == "d3a" for t in d.teams}
    ]
    assert len(up) == 2 and leader not in up


def test_kdh_byes_when_double_forfeits_leave_an_odd_number() -> None:
    # Nobody sends KDH picks in the qualifying round: 20 double forfeits, no lucky loser; the
    # 44 others go on: 22 games, 11 winners, then a bye (R15 and our decision).
    legal = random_picks("bye")
    season = play_season(
        standard_setup("bye"),
        lambda r: None if r.competition is Competition.KDH and r.round_number == 1 else legal(r),
    )
    kdh = [p for p in season.rounds if p.competition is Competition.KDH]
    assert [len(p.result.matches) for p in kdh] == [20, 22, 11, 5, 3, 1, 1]
    assert season.draws["bye/kdh/draw/4"][0].what == "kdh.bye.4"
    assert season.kdh_winner is not None


def test_kdh_final_lost_by_two_onr_teams_has_no_winner() -> None:
    legal = random_picks("final")
    season = play_season(
        standard_setup("final"),
        lambda r: None if r.competition is Competition.KDH and r.round_number == 7 else legal(r),
    )
    assert len(season.kdh_finalists) == 2 and season.kdh_winner is None
    assert not any(r.kdh_winner for r in season.records.values())
    assert len(season.next_wg) == 12


def test_kdh_semis_lost_by_onr_teams_end_the_cup() -> None:
    legal = random_picks("semis")
    season = play_season(
        standard_setup("semis"),
        lambda r: None if r.competition is Competition.KDH and r.round_number == 6 else legal(r),
    )
    assert [p.round_number for p in season.rounds if p.competition is Competition.KDH] == list(
        range(1, 7)
    )
    assert season.kdh_finalists == () and season.kdh_winner is None
    assert len(season.next_wg) == 12


def test_admin_matrices_and_wg_teams_are_used() -> None:
    rows = [dict.fromkeys("ABCDEFG", 6) for _ in range(7)]
    kdh = Matrix.from_rows("kdh", rows)
    wg_teams = tuple(f"d3d-{i:02d}" for i in range(1, 13))
    setup = dataclasses.replace(
        standard_setup("admin"), matrices={SeasonCompetition.KDH: kdh}, wg_teams=wg_teams
    )
    season = play_season(setup)
    assert season.matrices[SeasonCompetition.KDH] == kdh
    assert set(season.wg_teams) == set(wg_teams)
    assert "admin/matrix/kdh" not in season.draws


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param(
            {"divisions": (DivisionSetup("elite", 1, ("a", "b")),)},
            "divisions[0].teams",
            id="division-not-twelve",
        ),
        pytest.param(
            {"divisions": standard_setup("x").divisions[:3]}, "divisions", id="R22-unbalanced"
        ),
        pytest.param(
            {"wg_teams": tuple(f"ghost-{i}" for i in range(12))}, "wg_teams[0]", id="unknown-wg"
        ),
        pytest.param({"wg_teams": ("elite-01",) * 12}, "teams[1]", id="R18-wg-twice"),
        pytest.param({"stocks": {"ghost": (1, 2)}}, "stocks.ghost", id="stocks-unknown-team"),
        pytest.param({"stocks": {"elite-01": (-1, 2)}}, "stocks.elite-01", id="stocks-negative"),
        pytest.param({"stocks": {"elite-01": (1,)}}, "stocks.elite-01", id="stocks-not-a-pair"),
        pytest.param(
            {"stocks": {"elite-01": (True, 2)}}, "stocks.elite-01", id="stocks-not-numbers"
        ),
        pytest.param(
            {"relegated_into": {"d3z": ("elite-01",)}}, "relegated_into.d3z", id="R16-unknown"
        ),
        pytest.param(
            {"matrices": {SeasonCompetition.WG: draw_matrix("kdh", Dice("s"))}},
            "matrices.wg",
            id="R19-wrong-matrix",
        ),
    ],
)
def test_bad_setups_are_refused_before_a_ball_is_played(
    change: dict[str, object], field: str
) -> None:
    with pytest.raises(InputError) as error:
        play_season(dataclasses.replace(standard_setup("x"), **change))  # type: ignore[arg-type]
    assert error.value.field == field
