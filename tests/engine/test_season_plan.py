"""The next season's plan (R16, R17, R18, R21, R22, R24), from hand-worked final tables.

The league of these tests: team ``<division>-<rank>`` finished at that rank of its division, with
figures that follow the rank the same way in every division (rank r: 12 − r wins, r − 1 losses,
30 − r goals for, 10 + r against), so that two teams of the same rank in two groups are tied on
every R9 criterion unless a test changes one. Every expectation below is worked out from the
rules by hand, not read from the code.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from engine.dice import Dice
from engine.errors import InputError
from engine.season_plan import (
    FinalTable,
    LeaveReason,
    Newcomer,
    PlanMove,
    SeasonEnd,
    WaitingTeam,
    WgReason,
    season_plan,
)
from engine.standings import StandingRow

DIVISIONS = [("elite", 1), ("d2a", 2), ("d2b", 2), ("d3a", 3), ("d3b", 3), ("d3c", 3), ("d3d", 3)]
D3 = ("d3a", "d3b", "d3c", "d3d")


def row(team: str, rank: int, **changes: int) -> StandingRow:
    wins = 12 - rank
    figures = {
        "points": 2 * wins,
        "played": 11,
        "wins": wins,
        "regulation_wins": wins,
        "draws": 0,
        "extra_time_losses": 0,
        "losses": rank - 1,
        "goals_for": 30 - rank,
        "goals_against": 10 + rank,
    }
    return StandingRow(team, rank, **{**figures, **changes})


def tables(changes: dict[str, dict[str, int]] | None = None) -> tuple[FinalTable, ...]:
    changes = changes or {}
    return tuple(
        FinalTable(
            name,
            tier,
            tuple(row(f"{name}-{r}", r, **changes.get(f"{name}-{r}", {})) for r in range(1, 13)),
        )
        for name, tier in DIVISIONS
    )


def end(changes: dict[str, dict[str, int]] | None = None, **fields: Any) -> SeasonEnd:
    return SeasonEnd(season=3, seed="season-3/plan", tables=tables(changes), **fields)


def moves(plan_end: SeasonEnd) -> dict[str, str]:
    return {t.team: t.move.value for t in season_plan(plan_end).teams}


# --- R22: who moves, R16: codes, R17: the KDH's field -----------------------------------------


def test_standard_season_moves_every_team_as_r22_says() -> None:
    plan = season_plan(end())
    expected = {f"{name}-{r}": "stays" for name, _ in DIVISIONS for r in range(1, 13)}
    expected |= {f"elite-{r}": "relegated" for r in (9, 10, 11, 12)}
    expected |= {f"{g}-{r}": "promoted" for g in ("d2a", "d2b") for r in (1, 2)}
    expected |= {f"{g}-{r}": "relegated" for g in ("d2a", "d2b") for r in (9, 10, 11, 12)}
    expected |= {f"{g}-{r}": "promoted" for g in D3 for r in (1, 2)}
    assert {t.team: t.move.value for t in plan.teams} == expected
    assert (plan.from_season, plan.season, plan.leaving) == (3, 4, ())
    assert {name: len(teams) for name, teams in plan.divisions().items()} == dict.fromkeys(
        [name for name, _ in DIVISIONS], 12
    )


def test_teams_are_listed_by_division_then_code_and_every_division_has_codes_01_to_12() -> None:
    plan = season_plan(end())
    assert [(t.to, t.code) for t in plan.teams] == [
        (name, code) for name, _ in DIVISIONS for code in range(1, 13)
    ]


def test_each_d3_group_gives_codes_01_and_02_to_the_two_teams_relegated_into_it() -> None:
    plan = season_plan(end())
    # The serpentine of R22 (engine.promotion): D2A-9, D2B-9, D2A-10, D2B-10, … dealt
    # A B C D D C B A.
    into = {
        "d3a": {"d2a-9", "d2b-12"},
        "d3b": {"d2b-9", "d2a-12"},
        "d3c": {"d2a-10", "d2b-11"},
        "d3d": {"d2b-10", "d2a-11"},
    }
    for group, relegated in into.items():
        assert {t.team for t in plan.teams if t.to == group and t.code in (1, 2)} == relegated


def test_codes_other_than_the_relegated_ones_are_drawn_with_the_plans_dice() -> None:
    plan = season_plan(end())
    assert "season-3/plan/codes/elite" in plan.draws
    other = season_plan(replace(end(), seed="another seed"))
    assert {t.team: t.code for t in plan.teams} != {t.team: t.code for t in other.teams}


def test_kdh_qualifying_round_is_the_forty_d3_teams_with_codes_03_to_12() -> None:
    plan = season_plan(end())
    qualifying = {t.team for t in plan.teams if t.to in D3 and t.code >= 3}
    assert len(qualifying) == 40
    assert set(plan.kdh.qualifying) == qualifying
    assert set(plan.kdh.exempt) == {t.team for t in plan.teams} - qualifying
    assert len(plan.kdh.exempt) == 44
    # Listed in division order, then code.
    assert list(plan.kdh.qualifying) == [t.team for t in plan.teams if t.team in qualifying]


# --- R14 bars in R22 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("barred", "promoted", "barred_moves", "stays"),
    [
        pytest.param({"d2a-1"}, {"d2a-2", "d2a-3"}, {"d2a-1"}, set(), id="d2-winner-barred"),
        pytest.param({"d3b-2"}, {"d3b-1", "d3b-3"}, {"d3b-2"}, set(), id="d3-second-barred"),
        pytest.param(
            {"d3c-1", "d3c-3"}, {"d3c-2", "d3c-4"}, {"d3c-1", "d3c-3"}, set(), id="d3-two-skipped"
        ),
        pytest.param({"d2b-5"}, {"d2b-1", "d2b-2"}, set(), {"d2b-5"}, id="barred-but-not-up"),
        pytest.param({"elite-1"}, set(), set(), {"elite-1"}, id="elite-has-no-promotion"),
    ],
)
def test_barred_teams_are_skipped_and_the_next_eligible_goes_up(
    barred: set[str], promoted: set[str], barred_moves: set[str], stays: set[str]
) -> None:
    plan = season_plan(end(barred=frozenset(barred)))
    lines = {t.team: t for t in plan.teams}
    division = next(iter(barred)).split("-")[0]
    went_up = {t for t, line in lines.items() if line.from_division == division}
    went_up = {t for t in went_up if lines[t].move is PlanMove.PROMOTED}
    assert went_up == promoted
    assert {t for t in barred if lines[t].move is PlanMove.BARRED} == barred_moves
    assert {t for t in barred if lines[t].move is PlanMove.STAYS} == stays
    for team in barred:
        assert lines[team].to == division
        assert lines[team].points.promoted == 0


def test_a_barred_team_in_the_drop_zone_is_still_relegated() -> None:
    assert moves(end(barred=frozenset({"d2a-10"})))["d2a-10"] == "relegated"


# --- R21: stocks and the points' breakdown ------------------------------------------------------


def test_the_season_md_example_relegated_elite_ninth() -> None:
    # SEASON.md: 5 championship wins, 1 KDH win, relegated 6, veteran 3 = 15 points → 5 extra
    # goals; one game without a goal against → 2 + 1 = 3 great saves.
    plan = season_plan(
        end({"elite-9": {"wins": 5}}, kdh_wins={"elite-9": 1}, shutouts={"elite-9": 1})
    )
    line = plan.team("elite-9").as_dict()
    assert 1 <= line.pop("code") <= 12
    assert line == {
        "team": "elite-9",
        "from": "elite",
        "rank": 9,
        "move": "relegated",
        "to": "d2a",
        "extra_goals": 5,
        "great_saves": 3,
        "extra_goal_points": {
            "championship_wins": 5,
            "kdh_wins": 1,
            "kdh_winner": 0,
            "division_place": 0,
            "relegated": 6,
            "promoted": 0,
            "veteran": 3,
            "wg_place": 0,
        },
    }


def test_a_promoted_division_winner_who_won_the_kdh_and_was_second_in_the_wg() -> None:
    # 11 wins + 3 KDH wins + 1 KDH winner + 4 (1st) − 6 (promoted) + 3 veteran + 3 (WG 2nd)
    # = 19 points → 6 extra goals; 4 shutouts → 6 great saves.
    plan = season_plan(
        end(
            kdh_wins={"d2a-1": 3},
            kdh_finalists=("d2a-1", "elite-4"),
            kdh_winner="d2a-1",
            wg_places={"elite-1": 1, "d2a-1": 2, "elite-2": 3, "d3a-1": 4},
            shutouts={"d2a-1": 4},
        )
    )
    line = plan.team("d2a-1")
    assert line.points.as_dict() == {
        "championship_wins": 11,
        "kdh_wins": 3,
        "kdh_winner": 1,
        "division_place": 4,
        "relegated": 0,
        "promoted": -6,
        "veteran": 3,
        "wg_place": 3,
    }
    assert (line.points.total, line.extra_goals, line.great_saves) == (19, 6, 6)
    # The others' WG places: 4, 2 and 1 point; the KDH runner-up gets no winner's point.
    assert [plan.team(t).points.wg_place for t in ("elite-1", "elite-2", "d3a-1")] == [4, 2, 1]
    assert plan.team("elite-4").points.kdh_winner == 0


@pytest.mark.parametrize(
    ("team", "wins", "points", "extra_goals"),
    [
        # 2 wins + 3 (2nd) − 6 (promoted) + 3 veteran = 2 → 0 extra goals.
        pytest.param("d3a-2", 2, 2, 0, id="promoted-second-with-few-wins"),
        # 4th: 8 wins + 1 + 3 = 12 → 4.
        pytest.param("d2b-4", 8, 12, 4, id="fourth-place-one-point"),
        # 5th: 7 wins + 3 = 10 → 3 (rounded down).
        pytest.param("d3d-5", 7, 10, 3, id="fifth-nothing-for-the-place"),
    ],
)
def test_points_by_hand(team: str, wins: int, points: int, extra_goals: int) -> None:
    line = season_plan(end({team: {"wins": wins}})).team(team)
    assert (line.points.total, line.extra_goals, line.great_saves) == (points, extra_goals, 2)


# --- R24: leaving teams and vacancies -----------------------------------------------------------


def test_an_elite_dummy_leaving_is_filled_by_the_best_d2_team_counted_as_promoted() -> None:
    # Elite 5th is a dummy: the Elite keeps ranks 1–4 and 6–8 (7) and gets D2's four (11): one
    # place short. D2's best remaining by rank are the two 3rds; D2B-3 scored more (R9), so it
    # goes up. D2B is then short: the D3 3rds are tied but D3C-3 has the best goal difference
    # (fewer against). D3C is then short: the waiting list's first team.
    plan = season_plan(
        end(
            {"d2b-3": {"goals_for": 40}, "d3c-3": {"goals_against": 5}},
            leaving={"elite-5": LeaveReason.DUMMY},
            waiting_list=(WaitingTeam("yetis", veteran=True), WaitingTeam("moose", veteran=True)),
        )
    )
    assert [t.as_dict() for t in plan.leaving] == [{"team": "elite-5", "why": "dummy"}]
    d2b3 = plan.team("d2b-3")
    assert (d2b3.move, d2b3.to, d2b3.vacancy, d2b3.points.promoted) == (
        PlanMove.PROMOTED,
        "elite",
        True,
        -6,
    )
    # 9 wins + 2 (3rd) − 6 + 3 = 8 → 2 extra goals.
    assert d2b3.extra_goals == 2
    d3c3 = plan.team("d3c-3")
    assert (d3c3.move, d3c3.to, d3c3.vacancy) == (PlanMove.PROMOTED, "d2b", True)
    yetis = plan.team("yetis")
    assert (yetis.move, yetis.to, yetis.from_division, yetis.rank) == (
        PlanMove.JOINED,
        "d3c",
        None,
        None,
    )
    assert "moose" not in {t.team for t in plan.teams}
    assert "elite-5" not in {t.team for t in plan.teams}
    assert [t.team for t in plan.teams if t.vacancy] == ["d2b-3", "d3c-3"]
    assert all(len(teams) == 12 for teams in plan.divisions().values())
    assert plan.team("d2b-3").as_dict()["vacancy"] is True
    assert "vacancy" not in plan.team("d2a-1").as_dict()


def test_a_waiting_list_team_takes_a_d3_dummys_place() -> None:
    plan = season_plan(
        end(
            leaving={"d3b-7": LeaveReason.DUMMY},
            waiting_list=(WaitingTeam("yetis", veteran=True),),
        )
    )
    yetis = plan.team("yetis").as_dict()
    assert 1 <= yetis.pop("code") <= 12
    # Registered before the season's end: the veteran's 3 points → 1 extra goal; 2 great saves.
    assert yetis == {
        "team": "yetis",
        "from": None,
        "rank": None,
        "move": "joined",
        "to": "d3b",
        "extra_goals": 1,
        "great_saves": 2,
        "extra_goal_points": {
            "championship_wins": 0,
            "kdh_wins": 0,
            "kdh_winner": 0,
            "division_place": 0,
            "relegated": 0,
            "promoted": 0,
            "veteran": 3,
            "wg_place": 0,
        },
    }
    assert plan.team("yetis").newcomer is Newcomer.WAITING_LIST
    assert not any(t.vacancy for t in plan.teams)


def test_a_waiting_list_team_registered_after_the_end_gets_no_veteran_points() -> None:
    plan = season_plan(
        end(leaving={"d3a-4": LeaveReason.WITHDRAWN}, waiting_list=(WaitingTeam("late", False),))
    )
    line = plan.team("late")
    assert (line.points.total, line.extra_goals, line.great_saves) == (0, 0, 2)


def test_when_the_waiting_list_runs_out_new_dummy_teams_fill_the_places() -> None:
    plan = season_plan(
        end(
            leaving={"d3a-4": LeaveReason.WITHDRAWN, "d3d-6": LeaveReason.DUMMY},
            waiting_list=(WaitingTeam("yetis", veteran=True),),
            dummy_names=("equipe-fantome-7", "equipe-fantome-8"),
        )
    )
    # Short places in division order: D3A's to the waiting list, D3D's to a new dummy.
    assert plan.team("yetis").to == "d3a"
    dummy = plan.team("equipe-fantome-7")
    assert (dummy.to, dummy.move, dummy.newcomer) == ("d3d", PlanMove.JOINED, Newcomer.DUMMY)
    # R14: a dummy plays no extra goals or great saves.
    assert (dummy.extra_goals, dummy.great_saves) == (0, 0)
    assert "equipe-fantome-8" not in {t.team for t in plan.teams}
    assert [t.as_dict() for t in plan.leaving] == [
        {"team": "d3a-4", "why": "withdrawn"},
        {"team": "d3d-6", "why": "dummy"},
    ]


def test_a_leaving_team_in_the_drop_zone_goes_nowhere() -> None:
    # Elite 10th withdraws: the Elite still sends 9th, 11th, 12th down and takes D2's four (12).
    # D2 gets 3 + 8 = 11 newcomers: the serpentine (A B B A A B B A A B B) leaves D2A one short;
    # the D3 3rds are tied but for D3C-3's extra goals: it goes up to D2A.
    plan = season_plan(
        end(
            {"d3c-3": {"goals_for": 50}},
            leaving={"elite-10": LeaveReason.WITHDRAWN},
            dummy_names=("ghost",),
        )
    )
    lines = {t.team: t for t in plan.teams}
    assert "elite-10" not in lines
    assert {t for t, line in lines.items() if line.from_division == "elite"} == {
        f"elite-{r}" for r in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12)
    }
    assert not any(lines[f"elite-{r}"].vacancy for r in range(1, 9))
    assert (lines["d3c-3"].to, lines["d3c-3"].vacancy) == ("d2a", True)
    assert all(len(teams) == 12 for teams in plan.divisions().values())


def test_a_leaving_team_is_skipped_for_promotion_like_a_barred_one() -> None:
    plan = season_plan(end(leaving={"d2a-1": LeaveReason.WITHDRAWN}, dummy_names=("ghost",)))
    lines = {t.team: t for t in plan.teams}
    # D2A-2 and D2A-3 go up by R22 (not vacancies); D2A then gets the 4 of the tier's flow,
    # so D2A is one short after losing its winner: the best D3 3rd (all tied: a die) goes up.
    assert lines["d2a-2"].move is PlanMove.PROMOTED and not lines["d2a-2"].vacancy
    assert lines["d2a-3"].move is PlanMove.PROMOTED and not lines["d2a-3"].vacancy
    vacancies = [t for t in plan.teams if t.vacancy]
    assert [(t.rank, t.to) for t in vacancies] == [(3, "d2a")]
    draw = plan.draws["season-3/plan/vacancies"][0]
    assert (draw.what, draw.options, draw.result) == (
        "vacancy.d2a.1",
        ("d3a-3", "d3b-3", "d3c-3", "d3d-3"),
        vacancies[0].team,
    )
    assert lines["ghost"].to == vacancies[0].from_division


def test_a_better_rank_wins_a_vacancy_before_the_r9_criteria() -> None:
    # D2B-3 is barred; D2B-4 has more points than D2A-3, but a 3rd comes before a 4th.
    plan = season_plan(
        end(
            {"d2b-4": {"points": 30, "goals_for": 60}},
            barred=frozenset({"d2b-3"}),
            leaving={"elite-1": LeaveReason.WITHDRAWN},
            dummy_names=("ghost",),
        )
    )
    assert plan.team("d2a-3").vacancy
    assert plan.team("d2a-3").to == "elite"
    assert not plan.team("d2b-4").vacancy


# --- R18: the WG's twelve -----------------------------------------------------------------------

WG_GOALS = {
    "d3c-4": {"goals_for": 50},  # most goals
    "d3a-6": {"goals_for": 45},  # next most goals
    "d2b-6": {"goals_against": 1},  # fewest against
    "d3b-8": {"goals_against": 2},  # next fewest against
}
WINNERS = ["elite-1", "d2a-1", "d2b-1", "d3a-1", "d3b-1", "d3c-1", "d3d-1"]


def test_wg_twelve_with_a_team_qualified_twice() -> None:
    # The Elite's winner also won the KDH: its KDH berth is freed for the next by most goals.
    plan = season_plan(
        end(
            WG_GOALS,
            kdh_finalists=("elite-1", "d3b-5"),
            kdh_winner="elite-1",
            wg_places={"d2a-7": 1, "elite-3": 2, "d3d-2": 3, "d2b-9": 4},
        )
    )
    assert [w.as_dict() for w in plan.wg] == [
        *({"team": t, "why": "division_winner"} for t in WINNERS),
        {"team": "d3b-5", "why": "kdh_finalist"},
        {"team": "d2a-7", "why": "holder"},
        {"team": "d3c-4", "why": "most_goals"},
        {"team": "d2b-6", "why": "fewest_against"},
        {"team": "d3a-6", "why": "next_most_goals"},
    ]


def test_wg_kdh_winner_and_a_leaving_qualifiers_place_goes_to_the_next_alternating() -> None:
    # D3D's winner withdraws: its berth is freed like a double qualification's; with the
    # Elite's winner holding the KDH runner-up's berth twice, two freed places: next most
    # goals, then next fewest against.
    plan = season_plan(
        end(
            WG_GOALS,
            kdh_finalists=("d3b-5", "elite-1"),
            kdh_winner="d3b-5",
            wg_places={"d2a-7": 1, "elite-3": 2, "d3d-2": 3, "d2b-9": 4},
            leaving={"d3d-1": LeaveReason.WITHDRAWN},
            dummy_names=("ghost",),
        )
    )
    assert [w.as_dict() for w in plan.wg] == [
        *({"team": t, "why": "division_winner"} for t in WINNERS[:-1]),
        {"team": "d3b-5", "why": "kdh_winner"},
        {"team": "d2a-7", "why": "holder"},
        {"team": "d3c-4", "why": "most_goals"},
        {"team": "d2b-6", "why": "fewest_against"},
        {"team": "d3a-6", "why": "next_most_goals"},
        {"team": "d3b-8", "why": "next_fewest_against"},
    ]


def test_wg_a_leaving_top_scorer_leaves_most_goals_to_the_next() -> None:
    plan = season_plan(
        end(
            WG_GOALS,
            kdh_finalists=("d3b-5", "elite-4"),
            kdh_winner="d3b-5",
            wg_places={"d2a-7": 1},
            leaving={"d3c-4": LeaveReason.WITHDRAWN},
            dummy_names=("ghost",),
        )
    )
    reasons = {w.why: w.team for w in plan.wg}
    assert reasons[WgReason.MOST_GOALS] == "d3a-6"
    assert "d3c-4" not in {w.team for w in plan.wg}
    assert len(plan.wg) == 12


# --- The plan as a whole --------------------------------------------------------------------------


def test_the_same_data_gives_the_same_plan() -> None:
    data = end(leaving={"elite-2": LeaveReason.DUMMY}, dummy_names=("ghost",))
    assert season_plan(data) == season_plan(data)
    assert season_plan(data).as_dict() == season_plan(data).as_dict()


def test_as_dict_is_exactly_the_season_md_document() -> None:
    plan = season_plan(
        end(
            leaving={"elite-5": LeaveReason.DUMMY},
            waiting_list=(WaitingTeam("yetis", True),),
            kdh_finalists=("d3b-5", "elite-4"),
            kdh_winner="d3b-5",
        )
    )
    doc = json.loads(json.dumps(plan.as_dict()))
    assert list(doc) == ["from_season", "season", "teams", "leaving", "kdh", "wg"]
    assert (doc["from_season"], doc["season"]) == (3, 4)
    keys = [
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
    for line in doc["teams"]:
        assert list(line) == keys + (["vacancy"] if line.get("vacancy") else [])
        assert list(line["extra_goal_points"]) == [
            "championship_wins",
            "kdh_wins",
            "kdh_winner",
            "division_place",
            "relegated",
            "promoted",
            "veteran",
            "wg_place",
        ]
    assert len(doc["teams"]) == 84
    # R22: 12 up, 12 down, 60 stay; the Elite's leaver was one of those staying, and two more
    # went up into vacancies (D2 → Elite, D3 → D2); the waiting list's first team joined.
    assert Counter(line["move"] for line in doc["teams"]) == {
        "stays": 60 - 1 - 2,
        "promoted": 12 + 2,
        "relegated": 12,
        "joined": 1,
    }
    assert doc["leaving"] == [{"team": "elite-5", "why": "dummy"}]
    assert list(doc["kdh"]) == ["qualifying_round", "enter_later"]
    assert all(list(w) == ["team", "why"] for w in doc["wg"])


def test_a_team_not_in_the_plan_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        season_plan(end()).team("nobody")


# --- Input the plan refuses ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        pytest.param({"kdh_wins": {"ghost": 2}}, "kdh_wins.ghost", id="unknown-kdh-team"),
        pytest.param({"shutouts": {"ghost": 1}}, "shutouts.ghost", id="unknown-shutout-team"),
        pytest.param({"kdh_finalists": ("a", "b")}, "kdh_finalists[0]", id="unknown-finalist"),
        pytest.param({"kdh_winner": "ghost"}, "kdh_winner", id="unknown-kdh-winner"),
        pytest.param({"wg_places": {"ghost": 1}}, "wg_places.ghost", id="unknown-wg-team"),
        pytest.param({"barred": frozenset({"ghost"})}, "barred[0]", id="unknown-barred"),
        pytest.param({"leaving": {"ghost": LeaveReason.DUMMY}}, "leaving.ghost", id="unknown"),
        pytest.param({"leaving": {"d3a-1": "dummy"}}, "leaving.d3a-1", id="reason-not-enum"),
        pytest.param(
            {"waiting_list": (WaitingTeam("d3a-1", True),)},
            "waiting_list[0]",
            id="waiting-team-named-like-a-team",
        ),
        pytest.param(
            {"waiting_list": (WaitingTeam("x", True),), "dummy_names": ("x",)},
            "dummy_names[0]",
            id="dummy-named-like-a-waiting-team",
        ),
        pytest.param(
            {"leaving": {"d3a-1": LeaveReason.DUMMY}}, "dummy_names", id="no-name-for-a-dummy"
        ),
        pytest.param(
            {
                "leaving": {"elite-1": LeaveReason.DUMMY},
                "barred": frozenset(f"d2{g}-{r}" for g in "ab" for r in range(3, 9)),
            },
            "tables",
            id="no-eligible-team-for-a-vacancy",
        ),
    ],
)
def test_bad_input_names_the_field(fields: dict[str, Any], where: str) -> None:
    with pytest.raises(InputError) as error:
        season_plan(end(**fields))
    assert error.value.field == where


def test_rows_must_be_in_rank_order() -> None:
    data = end()
    elite = data.tables[0]
    swapped = replace(elite, rows=(elite.rows[1], elite.rows[0], *elite.rows[2:]))
    with pytest.raises(InputError) as error:
        season_plan(replace(data, tables=(swapped, *data.tables[1:])))
    assert error.value.field == "tables[0].rows[0].rank"


def test_every_draw_is_logged_and_replays_from_its_seed() -> None:
    plan = season_plan(end(leaving={"elite-2": LeaveReason.DUMMY}, dummy_names=("ghost",)))
    for seed, draws in plan.draws.items():
        dice = Dice(seed)
        for draw in draws:
            options = list(draw.options)
            again = (
                dice.choice(draw.what, options)
                if draw.what.startswith(("vacancy.", "wg."))
                else " ".join(dice.shuffle(draw.what, options))
            )
            assert again == draw.result
